"""Answer or abstain: the statement(s) or table cell(s) that answer, with verified
citations, or "not found".

No text is generated. The question is first read by the kind model (`kind_model`): read as
a kind, it is searched and judged as that kind's canonical wording; read as no kind, by the
generic reader below with a stricter cosine bar for statements. `ask` runs the authorized
`search`, reads the retrieved passages into *units* (`units`): statements — clean
sentences of paragraphs, list items and form fields — and the data cells of tables, each
with its context (heading path, the titles of the clauses that hold it; a cell's row and
column headers). A heading, a title ("4.
Limitation of Liability."), a header row or cell and a question are never units: they
name or ask, they do not state. Each unit is judged against the question (`question`):

- it must hold a question word itself (a cell: in its text or its row headers);
- it must state the kind of value the question's form expects (a date or a duration for
  "when" / "how long", money or a number for "how much", a name for "who", a proper
  name for "which law"; a statement, never a cell, for "why", "what does X represent",
  "which year was higher") and something beyond the question's own words;
- its *coverage* — the question's words it holds with its context, each weighed by its
  idf over the authorized passages (a word no passage holds weighs most; a name's words
  weigh `NAME_WEIGHT` of theirs), a derived form counting ("pay" for "payment"), and a
  word that names a kind of value ("date", "term", "price") held by a value of that kind
  — must reach `ask_min_coverage` of the generation's ranking policy;
- of the units that pass, the best `MAX_EMBEDDED` by coverage are embedded (context and
  statement) and the cosine to the question must reach τ (`ask_min_dense`, or
  `ask_min_dense_hash` in the hash embedder's space, whose cosines carry no meaning);
  with no dense score (the dense channel fell back, or no embedder of the space is
  here), coverage must reach `ask_min_coverage_lexical_only` instead.

A statement must also state the question's predicate (`predicate.states`): a yes-or-no
question's action and condition held by the statement itself, a beginning with a date or
an event, this document's name, a place beside the asked noun, and so on.

A question about a document's name, parties or date (`Question.opening`), or about when it
begins (`Predicate.begins`), also reads the document's opening (its first statement blocks,
`passages`) whether or not retrieval ranked it, and its name and date only there; a unit of
the opening answers by what it states, without the cosine bar. A document's name is its
title where the text layer holds one that names it (`PassageReader.title`: the one heading
that answers); else the opening statement that names it. A data cell must be located by the question and reach
`ask_min_coverage_cell` instead of `ask_min_coverage` (`units`). A question asking the
amount paid to or by a named party is answered by the statements naming that payment,
the party in its role, and by no other (`payments`).

Per passage the best passing unit (coverage; for a cell, then the share of its row label
the question names; then question words held; then the cosine; then document order) is
cited, passages ordered best first. When the best unit's runner-up says something else
with the same lexical evidence and a cosine within `MARGIN` of it, nothing tells which
answers: the answer is not_found. Each citation is verified by the same code as
`pincite verify` (re-authorizing the document for the caller); a passage whose citation
does not verify is dropped (flag `unverified_dropped`). With nothing left, `not_found`.
The unit's scores sit beside the retrieval's (`evidence_coverage`, `evidence_dense`).
Evidence is local: a unit does not depend on where a chunk begins or ends, and text
inserted anywhere changes only the units it lands in.

Instructions are not evidence. Every block is cut into sentences, and a sentence — or,
when an instruction was run into it, the clause from where it starts — that reads as an
instruction addressed to the reader or to a model is *suspected* (see
`instructions.instruction_spans` for the classes). A suspected span is cut out before the
block is read: it is never cited, never counts, and a sentence it was run into is whole
again (the cited span is the sentence's best piece inside the passage). The passage and
the result carry the flag `injection_suspected`. A question is not an answer either: a
sentence that asks — or the clause from the first question word of a question run into
a sentence (`instructions.question_spans`) — is cut out the same way, without the flag.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from ..cite.locate import strip_span
from ..cite.verifier import Verifier, citation_for
from ..embed import Embedder
from ..index.analyze import analyze
from ..index.policy import RankingPolicy
from ..limits import check_number
from ..model import Principal
from ..retrieve.bundle import EvidenceItem
from ..retrieve.rerank import Reranker
from ..retrieve.search import Budgets, Filters, search
from ..store import Store
from ..store.lru import LRU
from ..vocab import AnswerKind, BundleFlag, ItemFlag, ItemRole, RecordFlag
from .confidence import answer_confidence
from .judge import Judge, features, shipped_judge
from .kind_model import UNREAD_MIN_DENSE, KindGuess, KindModel, shipped
from .passages import OPENING, PassageReader
from .payments import choose_payments, read_payment
from .predicate import judge_stated, read_predicate
from .question import Question, read_question, weights
from .units import Judged, credit_context

NOT_FOUND = "not found in the documents you can see"
INJECTION_FLAG = ItemFlag.INJECTION_SUSPECTED
# units embedded per question at most (best coverage first): a cosine costs a forward pass
# per unit, and on CUAD dev (fit folds) it separates no better than coverage does
MAX_EMBEDDED = 4
# the cosine by which the best unit leads a runner-up holding the same lexical evidence
MARGIN = 0.05


# ---- the answer --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AskResult:
    question: str
    status: str  # answered | not_found
    items: tuple[EvidenceItem, ...]
    flags: tuple[str, ...]
    message: str | None = None
    generation: str | None = None
    # passages retrieval found that are not answers ("may help; not checked as an answer")
    related: tuple[EvidenceItem, ...] = ()
    # the kind the question was read as, and the wording read (`kind_model`); None: its own
    read_as: KindGuess | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"status": self.status, "question": self.question,
                             "items": [i.to_dict() for i in self.items],
                             "related": [i.to_dict() for i in self.related],
                             "flags": list(self.flags), "generation": self.generation}
        if self.message:
            d["message"] = self.message
        if self.read_as is not None:
            d["read_as"] = self.read_as.to_dict()
        return d


@dataclass(frozen=True, slots=True)
class Candidate:
    """A judged unit of one retrieved passage, with its cosines when it was embedded."""

    item: EvidenceItem
    judged: Judged
    cosine: float | None


def ask(store: Store, question: str, principal: Principal, *,
        as_of: str | datetime | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        embedder: Embedder | None = None, reranker: Reranker | None = None,
        budgets: Budgets | Mapping[str, Any] | None = None,
        policy: RankingPolicy | None = None, generation: str | None = None,
        min_confidence: float = 0.0, kinds: KindModel | None | bool = True) -> AskResult:
    """Return the passages that answer `question` with verified citations, or not_found
    (from `generation`, else the published one). An answer whose confidence is under
    `min_confidence` (a user's operating point, `ask --min-confidence`) is given back as
    related, not as an answer. `kinds`: the question-kind model (True: the shipped one;
    False or None: the question is read in its own words)."""
    gen_id = generation or store.pointer()[0]
    pol = policy or policy_of(store.generation(gen_id) if gen_id else None)
    found = candidates(store, question, principal, as_of=as_of, filters=filters,
                       embedder=embedder, reranker=reranker, budgets=budgets, policy=pol,
                       generation=generation, kinds=kinds)
    return at_confidence(answer_from(found, pol), min_confidence)


def at_confidence(res: AskResult, least: float, flag: str = "under_min_confidence") -> AskResult:
    """Return `res` with the answers under confidence `least` moved to the head of its
    related passages (role related, kind and confidence dropped; `flag` added); not_found
    when none is left. `least` 0 changes nothing."""
    check_number("min_confidence", least, 0.0, 1.0)
    low = [i for i in res.items if (i.confidence or 0.0) < least]
    if not low:
        return res
    keep = tuple(i for i in res.items if i not in low)
    demoted = tuple(i.model_copy(update={"role": ItemRole.RELATED, "answer_kind": None,
                                         "confidence": None}) for i in low)
    flags = tuple(sorted({*res.flags, flag}))
    if keep:
        return replace(res, items=keep, related=demoted + res.related, flags=flags)
    return AskResult(res.question, "not_found", (), flags, NOT_FOUND, res.generation,
                     demoted + res.related, res.read_as)


def judged(res: AskResult, judge: Judge | None) -> AskResult:
    """Return `res` with each answer's confidence the judge's calibrated probability and,
    when the judge gates, the answers under its bar given back as related (flag
    `judged_not_an_answer`); `res` itself without a judge."""
    if judge is None or not res.items:
        return res
    items = tuple(i.model_copy(update={"confidence": max(0.0001, round(judge.confidence(
        features(i, res.read_as)), 4))}) for i in res.items)
    res = replace(res, items=items)
    return at_confidence(res, min(1.0, judge.threshold), "judged_not_an_answer") \
        if judge.gate else res


def answer_from(found: Found, pol: RankingPolicy, judge: Judge | bool | None = True) -> AskResult:
    """The answer `ask` gives from the judged units `found` under policy `pol`: the passing
    units (`choose`), each cited and verified and weighed by `judge` (True: the shipped one;
    False or None: the readers' answers as they are, each with its kind's confidence), or
    not_found."""
    question = found.said or found.question.text  # the user's words, whatever was read
    if found.generation is None:
        return AskResult(question, "not_found", (), found.flags, NOT_FOUND, None,
                         read_as=found.read_as)
    flags = set(found.flags)
    out: list[EvidenceItem] = []
    pq = read_payment(found.question.text)
    ranked = (choose(found.candidates, pol, found.space if found.dense else None, found.unread)
              if pq is None else choose_payments(pq, found.candidates))
    cited: set[tuple[str, str, int, int]] = set()
    for cand in ranked:
        if len(out) >= pol.ask_max_items:
            break
        item = cand.item
        rev = found.verifier.revision(item.doc_id)
        loaded = found.verifier.layer(rev, item.text_layer) if rev is not None else None
        if rev is None or loaded is None:
            flags.add("unverified_dropped")
            continue
        a, b = _cite(cand.judged, found.question, item)
        if (item.doc_id, item.text_layer, a, b) in cited:  # the opening and a retrieved
            continue                                        # passage over the same words
        cited.add((item.doc_id, item.text_layer, a, b))
        cit = found.verifier.verify(citation_for(rev, loaded, a, b))
        if not cit.quote_verified:
            flags.add("unverified_dropped")
            continue
        scores = {**item.scores, "evidence_coverage": round(cand.judged.coverage, 4),
                  "evidence_dense": cand.cosine}
        if RecordFlag.HIDDEN_TEXT in cit.flags:  # an answer a reader of the document does not see
            flags.add(ItemFlag.HIDDEN_TEXT)
        kind = answer_kind(found.question, found.yes_no, cand.judged)
        out.append(item.model_copy(update={
            "citation": cit.to_dict(), "scores": scores, "role": ItemRole.ANSWER,
            "answer_kind": kind, "confidence": answer_confidence(kind)}))
    # a hashed space's vectors say no more than its words do: BM25 alone tells relatedness
    tau = None if (found.space or "").startswith("hash-") else pol.dense_threshold(found.space)
    related = _related(found, {i.evidence_id for i in out}, pol.ask_max_items, tau, flags)
    if not out:
        return AskResult(question, "not_found", (), tuple(sorted(flags)), NOT_FOUND,
                         found.generation, related, found.read_as)
    res = AskResult(question, "answered", tuple(out), tuple(sorted(flags)), None,
                    found.generation, related, found.read_as)
    return judged(res, shipped_judge() if judge is True else judge or None)


def answer_kind(q: Question, yes_no: bool, judged: Judged) -> AnswerKind:
    """Return the kind of answer a judged unit is for question `q`: the value its form
    expects, yes or no, a table cell, else a passage."""
    if q.expects is not None and q.expects in set(AnswerKind):
        return AnswerKind(q.expects)
    if yes_no:
        return AnswerKind.YES_NO
    return AnswerKind.CELL if judged.unit.kind == "cell" else AnswerKind.PASSAGE


def _related(found: Found, answered: set[str], most: int, tau: float | None, flags: set[str]
             ) -> tuple[EvidenceItem, ...]:
    """Return up to `most` retrieved passages that are not answers, best ranked first,
    each with the verified citation of its own span and the role `related` (never an
    answer: nothing judged that it answers). A passage is related when it holds a word of
    the question (a BM25 rank) or its dense score reaches the space's τ; the rest of what
    fusion filled the list with is not shown."""
    out: list[EvidenceItem] = []
    for item in found.retrieved:
        if len(out) >= most:
            break
        dense = item.scores.get("dense")
        near = item.ranks.get("bm25") is not None or (
            tau is not None and dense is not None and dense >= tau)
        if item.evidence_id in answered or not near:
            continue
        rev = found.verifier.revision(item.doc_id)
        loaded = found.verifier.layer(rev, item.text_layer) if rev is not None else None
        if rev is None or loaded is None:
            flags.add("unverified_dropped")
            continue
        cit = found.verifier.verify(citation_for(rev, loaded, item.char_start, item.char_end))
        if not cit.quote_verified:
            flags.add("unverified_dropped")
            continue
        out.append(item.model_copy(update={"citation": cit.to_dict(),
                                           "role": ItemRole.RELATED}))
    return tuple(out)


@dataclass
class Found:
    """Every judged unit of the retrieved passages, and what judging them needs."""

    question: Question
    weights: tuple[float, ...]   # of the question's groups (`question.weights`)
    candidates: list[Candidate]
    dense: bool                  # cosines exist (an embedder of the generation's space)
    space: str | None            # the generation's embedding space
    flags: tuple[str, ...]
    generation: str | None
    verifier: Verifier
    retrieved: tuple[EvidenceItem, ...] = ()  # the passages searched, rank order
    yes_no: bool = False                      # the question asks yes or no
    read_as: KindGuess | None = None          # the kind it was read as (`kind_model`)
    said: str = ""                            # the question in the asker's words
    unread: bool = False                      # the kind model applies and read it as no kind


def candidates(store: Store, question: str, principal: Principal, *,
               as_of: str | datetime | None = None,
               filters: Filters | Mapping[str, Any] | None = None,
               embedder: Embedder | None = None, reranker: Reranker | None = None,
               budgets: Budgets | Mapping[str, Any] | None = None,
               policy: RankingPolicy | None = None, generation: str | None = None,
               kinds: KindModel | None | bool = True) -> Found:
    """Search, read the retrieved passages into units, judge each against the question and
    embed the best (`MAX_EMBEDDED`, by coverage); return them all (no threshold applied).
    A question the kind model (`kinds`, True: the shipped one) reads as a kind with a
    canonical wording is searched and judged as that wording (`Found.read_as`)."""
    gen_id = generation or store.pointer()[0]
    g0 = store.generation(gen_id) if gen_id else None  # read once: its policy and its space
    pol = policy or policy_of(g0)
    read_as, applies = _read_as(question, (g0.manifest or {}) if g0 else {}, embedder, kinds)
    asked = read_as.canonical if read_as is not None else question
    bundle = search(store, asked, principal, as_of=as_of, filters=filters, k=pol.ask_depth,
                    embedder=embedder, reranker=reranker, budgets=budgets, policy=pol,
                    generation=generation)
    verifier = Verifier(store, principal)
    if BundleFlag.NO_GENERATION in bundle.flags:
        return Found(read_question(asked, principal.tenant, ()), (), [], False, None,
                     bundle.flags, None, verifier, read_as=read_as, said=question)
    flags = set(bundle.flags) - {BundleFlag.UNDERFILLED}
    g = store.generation(bundle.generation) if bundle.generation else None
    manifest = (g.manifest or {}) if g else {}
    q = read_question(asked, principal.tenant,
                      manifest.get("analyzer", {}).get("languages", ()))
    lex = (bundle.channels or {}).get("bm25") or {}
    w = weights(q, lex.get("df"), int((bundle.channels or {}).get("authorized") or 0))
    emb = _embedder(embedder, manifest)
    reader = PassageReader(verifier)
    pred = read_predicate(q)
    cands: list[Candidate] = []
    retrieved: list[EvidenceItem] = []
    for item in bundle.items:
        units, suspected = reader.units(item)
        if suspected:
            flags.add(INJECTION_FLAG)
            item = item.model_copy(update={"flags": tuple(sorted({*item.flags, INJECTION_FLAG}))})
        retrieved.append(item)
        cands.extend(Candidate(item, judge_stated(u, q, w, pred, item.lang), None) for u in units)
    # the name, parties and date of a document are stated in its opening, and often when it
    # begins ('dated as of 1 May 2026 (the "Effective Date")')
    if q.opening or pred.begins:
        if q.name_of or q.expects == "date":  # … and its name and date nowhere else (a
            cands = []                         # sentence naming another agreement or a term's start)
        for item in {i.doc_id: i for i in reversed(bundle.items)}.values():
            # a document's name is its title, where the text layer holds one that names it
            named = reader.title(item, q.name_of) if q.name_of else None
            if named is not None:
                t_item, t_unit = named
                j = judge_stated(t_unit, q, w, pred, t_item.lang)
                if j.eligible():
                    cands.append(Candidate(t_item, j, None))
                    continue
            op = reader.opening(item)
            units, suspected = reader.units(op) if op is not None else ([], False)
            if op is not None and not suspected:
                cands.extend(Candidate(op, judge_stated(u, q, w, pred, op.lang), None) for u in units)
    credited = credit_context([c.judged for c in cands], q, w)
    cands = [Candidate(c.item, j, c.cosine) for c, j in zip(cands, credited, strict=True)]
    dense = emb is not None and any(i.scores.get("dense") is not None for i in bundle.items)
    if dense and q.groups:
        todo = sorted((c for c in cands if c.judged.eligible()),
                      key=lambda c: (-c.judged.coverage, c.item.doc_id, c.judged.unit.start))
        texts = list(dict.fromkeys(c.judged.unit.embed_text() for c in todo[:MAX_EMBEDDED]))
        cos = _cosines(asked, emb, texts)
        cands = [Candidate(c.item, c.judged, cos.get(c.judged.unit.embed_text()))
                 for c in cands]
    return Found(q, w, cands, dense, bundle.embedding_space, tuple(sorted(flags)),
                 bundle.generation, verifier, tuple(retrieved), pred.yes_no, read_as, question,
                 read_as is None and applies)


def _read_as(question: str, manifest: dict[str, Any], embedder: Embedder | None,
             kinds: KindModel | None | bool) -> tuple[KindGuess | None, bool]:
    """The kind `question` is read as by the kind model (True: the shipped one) in the space
    of the generation whose manifest is `manifest` (or of `embedder`), or None; and whether
    the model applies there (it reads every question of its space, as a kind or as none)."""
    model = shipped() if kinds is True else (kinds or None)
    if model is None:
        return None, False
    emb = _embedder(embedder, manifest)
    if emb is None or emb.space.space_id != model.space_id:
        return None, False
    own = model.of_wording(question)
    return own or model.guess(emb.embed_query(question), emb.space.space_id), True


def choose(cands: Sequence[Candidate], pol: RankingPolicy, space: str | None,
           unread: bool = False) -> list[Candidate]:
    """The passing units, at most one per passage, best first: eligible (`Judged.eligible`),
    coverage at least `ask_min_coverage` and a cosine at least τ of embedding space
    `space` (a data cell: coverage at least `ask_min_coverage_cell`, the question having
    located it) — or, without dense scores (`space` None), coverage at least
    `ask_min_coverage_lexical_only`. Best: coverage, then (a cell) the share of its row
    label the question names, then question words held, then the cosine, then document
    order. When the runner-up — another unit, saying something else — holds the same
    lexical evidence (coverage, row label, question words) and the dense channel does not
    set the best apart by `MARGIN`, nothing tells which of the two answers: none is chosen.
    A question the kind model read as no kind (`unread`) is read by this generic reader with
    a stricter bar: a statement needs a cosine of at least `UNREAD_MIN_DENSE`."""
    tau = pol.dense_threshold(space)
    tau_statement = max(tau, UNREAD_MIN_DENSE) if unread else tau
    passing: list[tuple[tuple[float, float, int, float, int], Candidate]] = []
    for c in cands:
        j = c.judged
        if not j.eligible():
            continue
        bar = pol.ask_min_coverage_cell if j.unit.kind == "cell" else pol.ask_min_coverage
        # the opening read for a document's name, parties or date answers by what it
        # states (a named agreement, named parties, a calendar date), not by topic
        structural = c.item.chunk_id == OPENING
        if space is not None:
            least = tau if j.unit.kind == "cell" else tau_statement
            if j.coverage < bar or (not structural and (c.cosine is None or c.cosine < least)):
                continue
        elif j.coverage < pol.ask_min_coverage_lexical_only:
            continue
        passing.append(((round(j.coverage, 6), j.exact, len(j.hits),
                         -1.0 if c.cosine is None else round(c.cosine, 6), -j.unit.start), c))
    passing.sort(key=lambda kc: kc[0], reverse=True)
    if passing and _tied(passing):
        return []
    best: dict[str, tuple[tuple[float, float, int, float, int], Candidate]] = {}
    for key, c in passing:
        best.setdefault(c.item.evidence_id, (key, c))
    return [c for _, c in sorted(best.values(), key=lambda kc: kc[0], reverse=True)]


def _tied(ranked: Sequence[tuple[tuple[float, float, int, float, int], Candidate]]) -> bool:
    """Whether the best unit's runner-up (the next unit that says something else) holds the
    same lexical evidence and a cosine within `MARGIN` of the best's."""
    key, text = ranked[0][0], ranked[0][1].judged.unit.text
    for k, c in ranked[1:]:
        if c.judged.unit.text == text:
            continue
        return k[:3] == key[:3] and key[3] - k[3] < MARGIN
    return False


def _cite(j: Judged, q: Question, item: EvidenceItem) -> tuple[int, int]:
    """The unit's piece inside the passage with most question words (first wins)."""
    cs, ce = item.char_start, item.char_end
    best: tuple[tuple[int, int], int] | None = None
    for a, b, text in j.unit.pieces:
        if a < cs or b > ce:  # a sentence cut by the chunk's end: cite the part inside
            lo, hi = strip_span(text, max(a, cs) - a, min(b, ce) - a)
            if hi <= lo:
                continue
            text, a, b = text[lo:hi], a + lo, a + hi
        toks = frozenset(analyze(text, item.lang))
        hits = len(q.matched(toks, frozenset()))
        if best is None or hits > best[1]:
            best = ((a, b), hits)
    assert best is not None  # the first piece starts inside the passage
    return best[0]


# vectors of unit texts, by (space, text): content-addressed, so one process asking many
# questions of the same documents embeds each unit once
_VECTORS: LRU = LRU(20000)


def _cosines(question: str, embedder: Embedder | None, texts: Sequence[str]) -> dict[str, float]:
    """Cosine of the question and each text."""
    if embedder is None or not texts:
        return {}
    space = embedder.space.space_id
    todo = [t for t in texts if _VECTORS.get((space, t)) is None]
    if todo:
        for t, v in zip(todo, np.asarray(embedder.embed_documents(todo), dtype=np.float32),
                        strict=True):
            _VECTORS.put((space, t), v)
    q = embedder.embed_query(question)
    return {t: float(_VECTORS.get((space, t)) @ q) for t in texts}


def _embedder(embedder: Embedder | None, manifest: dict[str, Any]) -> Embedder | None:
    """The given embedder, else one of the generation's space (None when none is here)."""
    if embedder is not None or "embedding_space" not in manifest:
        return embedder
    from ..embed import EmbeddingSpace
    from ..embed.factory import embedder_for_space

    return embedder_for_space(EmbeddingSpace.from_dict(manifest["embedding_space"]))


def policy_of(g: Any) -> RankingPolicy:
    """Return the ranking policy generation `g` was built with (the default without one)."""
    if g is None or not g.manifest:
        return RankingPolicy()
    return RankingPolicy.from_dict(g.manifest["ranking_policy"])
