"""Answer or abstain: the best passage(s) with verified citations, or "not found".

No text is generated. `ask` runs the authorized `search`, then judges each candidate
passage by its *windows*: a window is one clean sentence of the passage that holds a
question word (the sentence that would be cited) together with its clean neighbours (`NEIGHBOURS` on each side, in the same block: paragraph, heading, list
item or table) and the block's context (heading path; a table's header rows). A passage
is kept when one of its windows clears the thresholds of the generation's ranking policy:
- lexical coverage: the window holds at least `ask_min_coverage` of the question's
  content words (any analyzer's form), and
- dense similarity: the cosine to the question of the window, or of its sentence, is at
  least τ (`ask_min_dense`, or `ask_min_dense_hash` in the hash embedder's space,
  whose cosines carry no meaning); when no dense score exists (the dense channel fell
  back, or no embedder of the space is here), coverage must reach
  `ask_min_coverage_lexical_only` instead.
Evidence is local and does not depend on where a chunk begins or ends: a bag of words
gathered across a whole chunk is not evidence, and text inserted anywhere in a document
changes only the windows it lands in (chunk boundaries come from packing blocks up to a
size, so an insertion moves every later boundary). The passage is cited at the sentence
of its best window (most question words, then coverage, then document order) and the
citation is verified by the same code as `pincite verify` — re-authorizing the document
for the caller. A passage whose citation does not verify is dropped (flag
`unverified_dropped`). With nothing left, the answer is `not_found`: "not found in the
documents you can see". The window's scores sit beside the retrieval's
(`evidence_coverage`, `evidence_dense`, `sentence_dense`).

Instructions are not evidence. Every block is cut into sentences, and a sentence — or,
when an instruction was run into it, the clause from where it starts — that reads as an
instruction addressed to the reader or to a model is *suspected* (see
`instructions.instruction_spans` for the classes). A suspected span is cut out before the
block is read: it is never cited, never counts, and a sentence it was run into is whole
again (the sentence's cosine is taken over the whole clean sentence; the cited span is
its best piece inside the passage). The passage and the result carry the flag
`injection_suspected`. A question is not an answer either: a sentence that asks — or the
clause from the first question word of a question run into a sentence
(`instructions.question_spans`) — is cut out the same way, without the flag.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from ..cite.locate import strip_span
from ..cite.verifier import Verifier, citation_for
from ..embed import Embedder
from ..index.analyze import analyze, analyze_query
from ..index.policy import RankingPolicy
from ..index.segment import BLOCK_KINDS
from ..model import Element, Principal, TextLayer
from ..retrieve.bundle import EvidenceItem
from ..retrieve.rerank import Reranker
from ..retrieve.search import Budgets, Filters, search
from ..store import Store
from ..vocab import BundleFlag, ItemFlag, RecordFlag
from .instructions import instruction_spans, is_question, question_spans, sentence_spans

NOT_FOUND = "not found in the documents you can see"
INJECTION_FLAG = ItemFlag.INJECTION_SUSPECTED


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


def ask(store: Store, question: str, principal: Principal, *,
        as_of: str | datetime | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        embedder: Embedder | None = None, reranker: Reranker | None = None,
        budgets: Budgets | Mapping[str, Any] | None = None,
        policy: RankingPolicy | None = None) -> AskResult:
    """Return the passages that answer `question` with verified citations, or not_found."""
    pol = policy or _policy_of(store, store.pointer()[0])
    bundle = search(store, question, principal, as_of=as_of, filters=filters, k=pol.ask_depth,
                    embedder=embedder, reranker=reranker, budgets=budgets, policy=pol)
    if BundleFlag.NO_GENERATION in bundle.flags:
        return AskResult(question, "not_found", (), bundle.flags, NOT_FOUND, None)
    flags = set(bundle.flags) - {BundleFlag.UNDERFILLED}
    g = store.generation(bundle.generation) if bundle.generation else None
    manifest = (g.manifest or {}) if g else {}
    groups = _forms(question, principal.tenant, manifest.get("analyzer", {}).get("languages", ()))
    emb = _embedder(embedder, manifest)
    verifier = Verifier(store, principal)
    reader = _Reader(verifier, groups)
    items, windows = [], {}
    for item in bundle.items:
        ws, suspected = reader.windows(item)
        if suspected:
            flags.add(INJECTION_FLAG)
            item = item.model_copy(update={"flags": tuple(sorted({*item.flags, INJECTION_FLAG}))})
        items.append(item)
        windows[item.evidence_id] = ws if groups else []

    def dense(i: EvidenceItem) -> bool:
        return emb is not None and i.scores.get("dense") is not None

    cosines = _cosines(question, emb, [
        (w, i) for i in items if dense(i) for w in windows[i.evidence_id]
        if w.coverage >= pol.ask_min_coverage])
    tau = pol.dense_threshold(bundle.embedding_space)
    out: list[EvidenceItem] = []
    for item in items:
        if len(out) >= pol.ask_max_items:
            break
        best = _best(windows[item.evidence_id], cosines, pol, tau if dense(item) else None)
        if best is None:
            continue
        w, cos = best
        rev = verifier.revision(item.doc_id)
        loaded = verifier.layer(rev, item.text_layer) if rev is not None else None
        if rev is None or loaded is None:
            flags.add("unverified_dropped")
            continue
        cit = verifier.verify(citation_for(rev, loaded, *w.cite))
        if not cit.quote_verified:
            flags.add("unverified_dropped")
            continue
        scores = {**item.scores, "evidence_coverage": w.coverage,
                  "evidence_dense": cos[0] if cos else None,
                  "sentence_dense": cos[1] if cos else None}
        if RecordFlag.HIDDEN_TEXT in cit.flags:  # an answer a reader of the document does not see
            flags.add(ItemFlag.HIDDEN_TEXT)
        out.append(item.model_copy(update={"citation": cit.to_dict(), "scores": scores}))
    if not out:
        return AskResult(question, "not_found", (), tuple(sorted(flags)), NOT_FOUND,
                         bundle.generation)
    return AskResult(question, "answered", tuple(out), tuple(sorted(flags)), None,
                     bundle.generation)


# ---- evidence: a sentence with its neighbours --------------------------------------------------

# a window's neighbours: this many clean sentences on each side, in the same block
NEIGHBOURS = 1
# windows embedded per question at most (best coverage first)
MAX_EMBEDDED = 40


@dataclass(frozen=True, slots=True)
class _Sentence:
    """A statement of a block, without the instructions and questions run into it."""

    pieces: tuple[tuple[int, int, str], ...]  # citable spans (absolute offsets) and texts
    text: str                                 # the clean sentence, white space folded
    tokens: frozenset[str]


@dataclass(frozen=True, slots=True)
class _Block:
    """A block (heading, paragraph, list item, table) read for evidence."""

    context: str                            # heading path, and a table's header rows
    tokens: frozenset[str]                  # of the context
    sentences: tuple[_Sentence, ...]        # its clean statements, in order
    suspected: tuple[tuple[int, int], ...]  # instruction spans (absolute offsets)


@dataclass(frozen=True, slots=True)
class _Window:
    """A candidate answer: one sentence to cite, judged with its neighbours."""

    cite: tuple[int, int]  # absolute offsets of the cited span (the sentence's best piece)
    cite_text: str
    sentence: str          # the clean sentence
    text: str              # context + the sentence and its neighbours (clean)
    coverage: float        # share of the question's words the window holds
    hits: int              # question words in the sentence


def read_block(body: str, base: int, context: str, lang: str | None) -> _Block:
    """Read one block's text `body` (starting at offset `base` of its layer): its clean
    statements, each with the pieces that may be cited. Suspected spans are cut out and
    the rest is split into sentences again, so a sentence an instruction was run into is
    whole again, as it was before the insertion."""
    suspected = instruction_spans(body)
    runs: list[tuple[int, int, int]] = []  # (offset in clean, offset in body, length)
    parts: list[str] = []
    at = 0
    for a, b in _minus(0, len(body), _union(suspected, question_spans(body))):
        runs.append((at, a, b - a))
        parts.append(body[a:b])
        at += b - a + 1
    clean = " ".join(parts)
    sentences: list[_Sentence] = []
    for s, e in sentence_spans(clean):
        pieces = []
        for c0, b0, n in runs:
            a, b = max(s, c0), min(e, c0 + n)
            if b > a:
                pa, pb = strip_span(body, b0 + a - c0, b0 + b - c0)
                if pb > pa:
                    pieces.append((base + pa, base + pb, body[pa:pb]))
        if pieces and not is_question(clean[s:e]):
            said = " ".join(clean[s:e].split())
            sentences.append(_Sentence(tuple(pieces), said, frozenset(analyze(said, lang))))
    return _Block(" ".join(context.split()), frozenset(analyze(context, lang)),
                  tuple(sentences), tuple((base + a, base + b) for a, b in suspected))


def _union(*spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The sorted, disjoint union of span lists."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(x for ss in spans for x in ss):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


class _Reader:
    """Reads the blocks of candidate passages for one question, each block once.

    A window is a clean sentence of the passage with its clean neighbours in its block
    (`NEIGHBOURS` on each side) and the block's context; it does not depend on where the
    passage's chunk begins or ends, nor on instructions or questions in the block."""

    def __init__(self, verifier: Verifier, groups: list[set[str]]) -> None:
        self.verifier = verifier
        self.groups = groups
        self._blocks: dict[tuple[str, str], list[Element] | None] = {}
        self._read: dict[tuple[str, str, int, str | None], _Block] = {}

    def windows(self, item: EvidenceItem) -> tuple[list[_Window], bool]:
        """The windows centred on the passage's sentences, and whether the passage holds
        a suspected span."""
        cs, ce = item.char_start, item.char_end
        blocks = self._blocks_of(item)
        out: list[_Window] = []
        suspected = False
        for b in blocks:
            suspected |= any(a < ce and cs < z for a, z in b.suspected)
            sents = b.sentences
            for k, sent in enumerate(sents):
                if not cs <= sent.pieces[0][0] < ce or not self._hits(sent.tokens):
                    continue  # not this passage's, or a sentence holding no question word:
                    #           its neighbours and heading are context, never the answer
                near = sents[max(0, k - NEIGHBOURS):k + NEIGHBOURS + 1]
                toks = b.tokens.union(*(x.tokens for x in near))
                cite, cite_text = self._cite(sent, cs, ce, item.lang)
                body = " ".join(x.text for x in near)
                out.append(_Window(cite, cite_text, sent.text,
                                   "\n".join(x for x in (b.context, body) if x),
                                   self._hits(toks) / len(self.groups) if self.groups else 0.0,
                                   self._hits(sent.tokens)))
        return out, suspected

    def _hits(self, toks: frozenset[str]) -> int:
        return sum(1 for g in self.groups if g & toks)

    def _cite(self, sent: _Sentence, cs: int, ce: int,
              lang: str | None) -> tuple[tuple[int, int], str]:
        """The sentence's piece inside the passage with most question words (first wins)."""
        best: tuple[tuple[int, int], str, int] | None = None
        for a, b, text in sent.pieces:
            if a < cs or b > ce:  # a sentence cut by the chunk's end: cite the part inside
                lo, hi = strip_span(text, max(a, cs) - a, min(b, ce) - a)
                if hi <= lo:
                    continue
                text, a, b = text[lo:hi], a + lo, a + hi
            hits = self._hits(sent.tokens if len(sent.pieces) == 1 and (a, b) == sent.pieces[0][:2]
                              else frozenset(analyze(text, lang)))
            if best is None or hits > best[2]:
                best = ((a, b), text, hits)
        assert best is not None  # the first piece starts inside the passage
        return best[0], best[1]

    def _blocks_of(self, item: EvidenceItem) -> list[_Block]:
        rev = self.verifier.revision(item.doc_id)
        loaded = self.verifier.layer(rev, item.text_layer) if rev is not None else None
        key = (item.doc_id, item.text_layer)
        if key not in self._blocks:
            self._blocks[key] = _block_elements(loaded.layer) if loaded is not None else None
        elements = self._blocks[key]
        hp = " > ".join(item.heading_path)
        if loaded is None or not elements:
            # no layer to read (the citation will not verify): the passage alone
            return [read_block(item.quote, item.char_start, hp, item.lang)]
        text = loaded.text
        starts = [e.char_start for e in elements]
        out = []
        j = max(0, bisect_right(starts, item.char_start) - 1)
        for e in elements[j:]:
            if e.char_start >= item.char_end:
                break
            if e.char_end <= item.char_start:
                continue
            rkey = (*key, e.char_start, item.lang)
            if rkey not in self._read:
                self._read[rkey] = read_block(text[e.char_start:e.char_end], e.char_start,
                                              _context(text, e), item.lang)
            out.append(self._read[rkey])
        return out


def _block_elements(layer: TextLayer) -> list[Element]:
    """The layer's outermost blocks, in reading order."""
    out: list[Element] = []
    for e in sorted((e for e in layer.elements if e.kind in BLOCK_KINDS),
                    key=lambda e: (e.char_start, -e.char_end)):
        if out and e.char_end <= out[-1].char_end:
            continue
        out.append(e)
    return out


def _context(text: str, block: Element) -> str:
    """What a block's sentences are read with: its heading path; a table's header rows."""
    parts = [" > ".join(block.heading_path)]
    rows = int((block.meta or {}).get("header_rows") or 0) if block.kind == "table" else 0
    if rows:
        parts.append("\n".join(text[block.char_start:block.char_end].split("\n")[:rows]))
    return "\n".join(x for x in parts if x)


def _cosines(question: str, embedder: Embedder | None,
             todo: Sequence[tuple[_Window, EvidenceItem]]) -> dict[str, float]:
    """Cosine of the question and each window and its sentence, for the `MAX_EMBEDDED`
    windows of best coverage (then most question words in the sentence, then document
    order)."""
    if embedder is None or not todo:
        return {}
    ranked = sorted(todo, key=lambda t: (-t[0].coverage, -t[0].hits, t[1].doc_id, t[0].cite))
    texts = list(dict.fromkeys(x for w, _ in ranked[:MAX_EMBEDDED]
                               for x in (w.text, w.sentence)))
    q = embedder.embed_query(question)
    vecs = np.asarray(embedder.embed_documents(texts), dtype=np.float32)
    return {t: float(v @ q) for t, v in zip(texts, vecs, strict=True)}


def _best(windows: Sequence[_Window], cosines: Mapping[str, float], policy: RankingPolicy,
          tau: float | None) -> tuple[_Window, tuple[float, float] | None] | None:
    """The window that clears the thresholds with most question words in its sentence
    (then coverage, then document order), with its (window, sentence) cosines; `tau`
    None: no dense score exists, and coverage must reach the lexical-only bar."""
    best: tuple[tuple[int, float], _Window, tuple[float, float] | None] | None = None
    for w in windows:
        cos = None
        if tau is None:
            if w.coverage < policy.ask_min_coverage_lexical_only:
                continue
        else:
            if (w.coverage < policy.ask_min_coverage or w.text not in cosines
                    or w.sentence not in cosines):
                continue
            cos = (cosines[w.text], cosines[w.sentence])
            if max(cos) < tau:
                continue
        if best is None or (w.hits, w.coverage) > best[0]:
            best = ((w.hits, w.coverage), w, cos)
    return (best[1], best[2]) if best is not None else None


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


def _embedder(embedder: Embedder | None, manifest: dict[str, Any]) -> Embedder | None:
    """The given embedder, else one of the generation's space (None when none is here)."""
    if embedder is not None or "embedding_space" not in manifest:
        return embedder
    from ..embed import EmbeddingSpace
    from ..embed.factory import embedder_for_space

    return embedder_for_space(EmbeddingSpace.from_dict(manifest["embedding_space"]))


def _policy_of(store: Store, gen_id: str | None) -> RankingPolicy:
    g = store.generation(gen_id) if gen_id else None
    if g is None or not g.manifest:
        return RankingPolicy()
    return RankingPolicy.from_dict(g.manifest["ranking_policy"])
