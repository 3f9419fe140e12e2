"""Answer or abstain: the best passage(s) with verified citations, or "not found".

No text is generated. `ask` runs the authorized `search`, then keeps a passage only when
the evidence clears the thresholds of the generation's ranking policy:
- lexical coverage: the passage holds at least `ask_min_coverage` of the question's
  content words (any analyzer's form), and
- dense similarity: the cosine to the question of the passage, or of its best sentence
  (a short clause is diluted in a long passage), is at least τ (`ask_min_dense`, or
  `ask_min_dense_hash` in the hash embedder's space, whose cosines carry no meaning);
  when no dense score exists (the dense channel fell back), coverage must reach
  `ask_min_coverage_lexical_only` instead.
Each kept passage is cited at its best sentence (most question words; the whole
passage when no sentence holds one), and the citation is verified by the same code as
`pincite verify` — re-authorizing the document for the caller. A passage whose citation
does not verify is dropped (flag `unverified_dropped`). With nothing left, the answer is
`not_found`: "not found in the documents you can see".

Instructions are not evidence. Every candidate passage is cut into sentences, and a
sentence — or, when an instruction was run into it, the clause from where it starts — that
reads as an instruction addressed to the reader or to a model is *suspected* (see
`instruction_spans` for the classes). A suspected span is never cited and never counts:
coverage and the passage's cosine are recomputed over the passage without it
(`coverage_clean`, `dense_clean` beside the retrieval scores). The passage and the result
carry the flag `injection_suspected`. A question is not an answer either: a sentence that
asks something is scored but never cited. When no clean sentence holds a question word,
a passage with a suspected or asking span is not cited at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np

from .analyze import analyze, analyze_query
from .embed import Embedder
from .evidence import EvidenceItem
from .locate import strip_span
from .model import Principal
from .ranking import RankingPolicy
from .rerank import Reranker
from .retrieve import Budgets, Filters, search
from .store import SQLiteStore
from .verify import Verifier, citation_for

NOT_FOUND = "not found in the documents you can see"
INJECTION_FLAG = "injection_suspected"
# a sentence ends at a newline, or at . ; : ! ? (and any closing quotes or brackets)
# before white space
_SENTENCE = re.compile(r"[^\n]*?(?:[.;:!?][\"'\u201d\u2019)\]]*(?=\s)|\n|$)")

# ---- instructions addressed to the reader or a model ---------------------------------------

_OUTPUT = r"(?:answers?|responses?|repl(?:y|ies)|outputs?|messages?)"
# a verb used as an order: it opens the sentence or a capitalised clause, or follows a
# word that makes it one ("please", "you must")
_IMPERATIVE = (r"(?:^[\W_]*|(?<=\s)(?=(?-i:[A-Z]))|\b(?:please|now|then|just|you|always|only|"
               r"must|should)\s+)")
# found anywhere in a sentence (case-insensitive); the span runs from the clause start
_ADDRESSED = re.compile("|".join((
    # the reader's (a model's) own output is the object of the sentence
    rf"\b(?:in|into|to|within|throughout)\s+your\s+{_OUTPUT}\b",
    r"\b(?:of|from)\s+your\s+(?:answers?|responses?|repl(?:y|ies)|outputs?)\b",
    r"\byour\s+(?:answer|response|reply|output)'s\b",
    # overriding what came before, or the reader's role
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|these|those|"
    r"every|of)\s+)*(?:(?:previous|prior|above|earlier|preceding|original|former|other|"
    r"system)\s+)*(?:instructions?|directions?|directives?|prompts?|rules?|guidelines?|"
    r"constraints?|context)\b",
    r"\b(?:you\s+are\s+now|from\s+now\s+on|(?:you|please)\s+act\s+as|act\s+as\s+if\s+you|"
    r"pretend\s+(?:to\s+be|that|you)|new\s+instructions?|system\s+prompt|developer\s+mode|"
    r"jailbreak)\b",
    # what to answer, said to the reader
    rf"{_IMPERATIVE}(?:respond|reply|answer)\s+(?:only\s+)?(?:with|using|by\s+saying)\b",
    r"\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to)\s+(?:now\s+|always\s+|"
    r"only\s+)?(?:ignore|respond|reply|answer|say|include|add|write|output|print|tell|mention|"
    r"state|reveal|repeat)\b",
    # a link the reader is told to follow
    rf"{_IMPERATIVE}(?:click|visit|download|install|go\s+to|navigate\s+to)\b[^.!?\n]{{0,60}}?"
    r"(?:https?://|"
    r"www\.|\b[\w-]+\.(?:com|net|org|xyz|io|ru|info|biz|top|click|app)\b)",
)), re.IGNORECASE)
# an imperative that opens a clause: the first word of a sentence (any case), or a
# capitalised word run into the middle of one
_TASK_VERB = (r"(?:Explain|Describe|Translate|Summari[sz]e|Paraphrase|Draft|Compose|Write|"
              r"Provide|Generate|Develop|Define|Outline|Elaborate|Break\s+down|Tell\s+me|"
              r"Show\s+me|Give\s+me|Teach\s+me)\b(?=\s+(?:a|an|the|me|us|how|what|why|who|"
              r"when|where|which|this|that|about|on|some|its|their|every|each|all|following|"
              r"in\s+simple)\b)")
_EDIT_VERB = (r"(?:Replace|Substitute|Convert|Rearrange|Scramble|Jumble|Misspell|Anagram|"
              r"Reverse|Encode|Encrypt|Capitali[sz]e|Remove|Group|Combine|Use)\b"
              r"(?=(?:\s+\S+){0,4}?\s+(?:letters?|words?|vowels?|characters?|spaces?|"
              r"punctuation|symbols?|numbers?\s+for)\b)")
_ASK_MODEL = (r"(?:Can|Could|Would|Will)\s+you\s+(?:please\s+)?(?:show|tell|give|explain|"
              r"write|provide|translate|describe|draft|compose|summari[sz]e)\s+(?:me|us|a|an|"
              r"the)\b")
_YOUR_OUTPUT = rf"[A-Z][a-z]+(?:\s+up)?\s+your\s+{_OUTPUT}\b"
_OPENERS = rf"(?:{_TASK_VERB}|{_EDIT_VERB}|{_ASK_MODEL}|{_YOUR_OUTPUT})"
_OPENS_SENTENCE = re.compile(rf"^[\W_]*(?:(?:please|now|also|kindly|then),?\s+)?{_OPENERS}",
                             re.IGNORECASE)
_OPENS_CLAUSE = re.compile(rf"(?<=\s)(?:(?:Please|Now|Also|Kindly|Then),?\s+)?{_OPENERS}")
# a capitalised word that opens an order (general English imperatives, and the words that
# start "You must …", "Please …", "From now on …", "In your reply …")
_ORDER_WORD = re.compile(
    r"(?<=\s)(?:Add|Append|Insert|Include|Integrate|Incorporate|Mention|Modify|Change|Enhance|"
    r"Augment|Amend|Edit|Rewrite|Write|Say|State|Tell|Respond|Reply|Answer|Output|Print|Return|"
    r"Repeat|Put|Make|Ensure|Use|Start|Begin|End|Finish|Conclude|Sign|Replace|Substitute|"
    r"Convert|Rearrange|Scramble|Jumble|Misspell|Anagram|Remove|Delete|Drop|Omit|Group|"
    r"Combine|Introduce|Render|Provide|Give|Show|Explain|Describe|Translate|Summari[sz]e|"
    r"Draft|Compose|Generate|Develop|Create|Suggest|Recommend|Encourage|Invite|Promote|Urge|"
    r"Remind|Highlight|Emphasi[sz]e|Stress|Tease|Hint|Offer|Direct|Link|Ignore|Disregard|"
    r"Forget|Pretend|Act|Click|Visit|Download|Install|Please|Kindly|You|From|In|To|Within)\b")
_QUESTION = re.compile(r"\?[\"'\u201d\u2019)\]]*$")


def _clause_start(sentence: str, at: int) -> int:
    """The start of the order holding `at`: the last capitalised order word (after white
    space) at or before it, else the sentence start (the whole sentence is suspected)."""
    start = 0
    for m in _ORDER_WORD.finditer(sentence):
        if m.start() > at:
            break
        start = m.start()
    return start


def _suspect_from(sentence: str) -> int | None:
    """Where an instruction starts in `sentence` (relative offset), or None."""
    cut: int | None = None
    if _OPENS_SENTENCE.match(sentence):
        return 0
    m = _OPENS_CLAUSE.search(sentence)
    if m:
        cut = m.start()
    m2 = _ADDRESSED.search(sentence)
    if m2:
        c = _clause_start(sentence, m2.start())
        cut = c if cut is None else min(cut, c)
    return cut


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` sentences of `text` (white space trimmed), in order."""
    out = []
    for m in _SENTENCE.finditer(text):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def instruction_spans(text: str) -> list[tuple[int, int]]:
    """The `[start, end)` spans of `text` that read as instructions to the reader or a model.

    Deterministic and lexical; classes: (1) the reader's own output as the object ("… in
    your reply", "… of your answer", "your response's words"); (2) overrides of what came
    before or of the reader's role ("ignore the previous instructions", "you are now",
    "system prompt"); (3) orders about the answer ("respond with", "you must say");
    (4) links the reader is told to follow ("click/visit/download/install … www.…");
    (5) a clause that opens with a task for an assistant ("Explain the …", "Write a …",
    "Translate the …", "Can you show me …") or an edit of the reply's text ("Replace
    vowels …", "Scramble the letters …"). A sentence that begins lowercase continues the
    one before it, so a suspected continuation takes that sentence's last clause too; a
    suspected span that ends in ':' takes the next sentence (its argument).
    """
    sents = sentence_spans(text)
    marks: list[int | None] = [_suspect_from(text[s:e]) for s, e in sents]
    for i in range(len(sents)):
        s, e = sents[i]
        if marks[i] is None:
            continue
        if i > 0 and marks[i] == 0 and text[s].islower() and marks[i - 1] is None:
            ps, pe = sents[i - 1]
            marks[i - 1] = _clause_start(text[ps:pe], pe - ps - 1)
        if text[e - 1] == ":" and i + 1 < len(sents) and marks[i + 1] is None:
            marks[i + 1] = 0
    out: list[tuple[int, int]] = []
    for (s, e), cut in zip(sents, marks, strict=True):
        if cut is None:
            continue
        if out and out[-1][1] >= s - 1 and not text[out[-1][1]:s + cut].strip():
            out[-1] = (out[-1][0], e)
        else:
            out.append((s + cut, e))
    return out


def is_question(sentence: str) -> bool:
    """True when a sentence asks rather than states (it ends with a question mark)."""
    return bool(_QUESTION.search(sentence.rstrip()))


# ---- the answer --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AskResult:
    question: str
    status: str  # answered | not_found
    items: tuple[EvidenceItem, ...]
    flags: tuple[str, ...]
    message: str | None = None
    generation: str | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"status": self.status, "question": self.question,
                             "items": [i.to_dict() for i in self.items],
                             "flags": list(self.flags), "generation": self.generation}
        if self.message:
            d["message"] = self.message
        return d


@dataclass(frozen=True, slots=True)
class _Reading:
    """One candidate passage read for answering: what may be cited and what counts."""

    pieces: tuple[tuple[int, int], ...]   # citable spans (absolute offsets), in order
    suspected: tuple[tuple[int, int], ...]  # instruction spans (absolute offsets)
    asking: bool                          # the passage holds a question
    clean_text: str                       # heading path + the passage without `suspected`


def _read(item: EvidenceItem) -> _Reading:
    text, base = item.quote, item.char_start
    suspected = instruction_spans(text)
    pieces: list[tuple[int, int]] = []
    asking = False
    for s, e in sentence_spans(text):
        if is_question(text[s:e]):
            asking = True
            continue
        for a, b in _minus(s, e, suspected):
            a, b = strip_span(text, a, b)
            if b > a:
                pieces.append((base + a, base + b))
    keep = [text[a:b] for a, b in _minus(0, len(text), suspected)]
    clean = " ".join(" ".join(keep).split())
    context = " > ".join(item.heading_path)
    return _Reading(tuple(pieces), tuple((base + a, base + b) for a, b in suspected), asking,
                    "\n".join(x for x in (context, clean) if x))


def _minus(s: int, e: int, cuts: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """`[s, e)` without the spans `cuts` (sorted, disjoint)."""
    out, at = [], s
    for a, b in cuts:
        if b <= at or a >= e:
            continue
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < e:
        out.append((at, e))
    return out



def _forms(question: str, tenant: str, languages: Sequence[str]) -> list[set[str]]:
    qt = analyze_query(question, tenant, tuple(languages))
    cut = 13  # the tenant-key prefix of every term (see analyze.tenant_key)
    return [{t[cut:] for t in g} for g in qt.groups]


def _coverage(text: str, lang: str | None, groups: list[set[str]]) -> float:
    toks = set(analyze(text, lang))
    return sum(1 for g in groups if g & toks) / len(groups) if groups else 0.0


def _best_span(item: EvidenceItem, reading: _Reading,
               groups: list[set[str]]) -> tuple[int, int] | None:
    """The citable piece with most question words; the whole passage when none holds one
    and the passage neither asks nor holds an instruction; else None."""
    best, best_hits = None, 0
    for s, e in reading.pieces:
        toks = set(analyze(item.quote[s - item.char_start:e - item.char_start], item.lang))
        hits = sum(1 for g in groups if g & toks)
        if hits > best_hits:
            best, best_hits = (s, e), hits
    if best is None and not reading.suspected and not reading.asking:
        return (item.char_start, item.char_end)
    return best


def _score(item: EvidenceItem, name: str) -> float | None:
    """A score of the passage without suspected spans when one was computed, else the
    retrieval's."""
    clean = item.scores.get(f"{name}_clean")
    return clean if clean is not None else item.scores.get(
        "bm25_coverage" if name == "coverage" else name)


def passes(item: EvidenceItem, policy: RankingPolicy, space_id: str | None,
           sentence_dense: float | None = None) -> bool:
    """True when a passage clears the answer thresholds of `policy` (τ of the space); the
    dense score is the better of the passage's and its best sentence's. Scores of the
    passage without its suspected instructions (`*_clean`) are used where present."""
    cov = _score(item, "coverage") or 0.0
    dense = _score(item, "dense")
    if dense is None:
        return cov >= policy.ask_min_coverage_lexical_only
    best = max(dense, sentence_dense if sentence_dense is not None else dense)
    return cov >= policy.ask_min_coverage and best >= policy.dense_threshold(space_id)


def ask(store: SQLiteStore, question: str, principal: Principal, *,
        as_of: str | datetime | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        embedder: Embedder | None = None, reranker: Reranker | None = None,
        budgets: Budgets | Mapping[str, Any] | None = None,
        policy: RankingPolicy | None = None) -> AskResult:
    """Return the passages that answer `question` with verified citations, or not_found."""
    pol = policy or _policy_of(store, store.pointer()[0])
    bundle = search(store, question, principal, as_of=as_of, filters=filters, k=pol.ask_depth,
                    embedder=embedder, reranker=reranker, budgets=budgets, policy=pol)
    if "no_generation" in bundle.flags:
        return AskResult(question, "not_found", (), bundle.flags, NOT_FOUND, None)
    flags = set(bundle.flags) - {"underfilled"}
    g = store.generation(bundle.generation) if bundle.generation else None
    manifest = (g.manifest or {}) if g else {}
    groups = _forms(question, principal.tenant, manifest.get("analyzer", {}).get("languages", ()))
    emb = _embedder(embedder, manifest)
    items = list(bundle.items)
    readings = {i.evidence_id: _read(i) for i in items}
    suspected = [i for i in items if readings[i.evidence_id].suspected]
    if suspected:
        flags.add(INJECTION_FLAG)
        items = _clean_scores(items, readings, groups, question, emb)
    cov_min = pol.ask_min_coverage
    spans: dict[str, tuple[int, int]] = {}
    for i in items:
        if groups and (_score(i, "coverage") or 0.0) >= cov_min:
            span = _best_span(i, readings[i.evidence_id], groups)
            if span is not None:
                spans[i.evidence_id] = span
    sentence_dense = _sentence_scores(items, spans, question, emb)
    verifier = Verifier(store, principal)
    out: list[EvidenceItem] = []
    for item in items:
        if len(out) >= pol.ask_max_items:
            break
        sd = sentence_dense.get(item.evidence_id)
        if item.evidence_id not in spans or not passes(item, pol, bundle.embedding_space, sd):
            continue
        rev = verifier.revision(item.doc_id)
        loaded = verifier.layer(rev, item.text_layer) if rev is not None else None
        if rev is None or loaded is None:
            flags.add("unverified_dropped")
            continue
        s, e = spans[item.evidence_id]
        cit = verifier.verify(citation_for(rev, loaded, s, e))
        if not cit.quote_verified:
            flags.add("unverified_dropped")
            continue
        scores = {**item.scores, "sentence_dense": sd}
        out.append(replace(item, citation=cit.to_dict(), scores=scores))
    if not out:
        return AskResult(question, "not_found", (), tuple(sorted(flags)), NOT_FOUND,
                         bundle.generation)
    return AskResult(question, "answered", tuple(out), tuple(sorted(flags)), None,
                     bundle.generation)


def _clean_scores(items: list[EvidenceItem], readings: dict[str, _Reading],
                  groups: list[set[str]], question: str,
                  embedder: Embedder | None) -> list[EvidenceItem]:
    """Items with suspected instructions get the flag, and coverage and cosine of the
    passage without them (`coverage_clean`, `dense_clean`) beside the retrieval scores."""
    todo = [i for i in items if readings[i.evidence_id].suspected]
    dense: dict[str, float] = {}
    need = [i for i in todo if i.scores.get("dense") is not None]
    if need and embedder is not None:
        q = embedder.embed_query(question)
        texts = [readings[i.evidence_id].clean_text or " " for i in need]
        vecs = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        dense = {i.evidence_id: float(v @ q) for i, v in zip(need, vecs, strict=True)}
    out = []
    for i in items:
        r = readings[i.evidence_id]
        if not r.suspected:
            out.append(i)
            continue
        scores = {**i.scores, "coverage_clean": _coverage(r.clean_text, i.lang, groups)}
        if i.scores.get("dense") is not None:
            # without an embedder of the space, the instruction's pull cannot be removed:
            # the passage then counts as not close (0.0)
            scores["dense_clean"] = dense.get(i.evidence_id, 0.0)
        out.append(replace(i, scores=scores, flags=tuple(sorted({*i.flags, INJECTION_FLAG}))))
    return out


def _embedder(embedder: Embedder | None, manifest: dict[str, Any]) -> Embedder | None:
    """The given embedder, else one of the generation's space (None when none is here)."""
    if embedder is not None or "embedding_space" not in manifest:
        return embedder
    from .embed import EmbeddingSpace
    from .embedders import embedder_for_space

    return embedder_for_space(EmbeddingSpace.from_dict(manifest["embedding_space"]))


def _sentence_scores(items: Sequence[EvidenceItem], spans: dict[str, tuple[int, int]],
                     question: str, embedder: Embedder | None) -> dict[str, float]:
    """Cosine of the question and each candidate's best sentence, in the generation's space."""
    todo = [i for i in items if i.evidence_id in spans and i.scores.get("dense") is not None
            and spans[i.evidence_id] != (i.char_start, i.char_end)]
    if not todo or embedder is None:
        return {}
    texts = []
    for i in todo:
        s, e = spans[i.evidence_id]
        texts.append(i.quote[s - i.char_start:e - i.char_start])
    q = embedder.embed_query(question)
    vecs = embedder.embed_documents(texts)
    return {i.evidence_id: float(v @ q) for i, v in zip(todo, vecs, strict=True)}


def _policy_of(store: SQLiteStore, gen_id: str | None) -> RankingPolicy:
    g = store.generation(gen_id) if gen_id else None
    if g is None or not g.manifest:
        return RankingPolicy()
    return RankingPolicy.from_dict(g.manifest["ranking_policy"])
