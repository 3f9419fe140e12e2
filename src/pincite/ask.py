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
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from .analyze import analyze, analyze_query
from .embed import Embedder
from .evidence import EvidenceItem
from .model import Principal
from .ranking import RankingPolicy
from .rerank import Reranker
from .retrieve import Budgets, Filters, search
from .store import SQLiteStore
from .verify import Verifier, citation_for

NOT_FOUND = "not found in the documents you can see"
_SENTENCE = re.compile(r"[^\n]*?(?:[.;:!?](?=\s)|\n|$)")


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


def _sentences(text: str, base: int) -> list[tuple[int, int]]:
    out = []
    for m in _SENTENCE.finditer(text):
        s, e = m.start(), m.end()
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((base + s, base + e))
    return out


def _forms(question: str, tenant: str, languages: Sequence[str]) -> list[set[str]]:
    qt = analyze_query(question, tenant, tuple(languages))
    cut = 13  # the tenant-key prefix of every term (see analyze.tenant_key)
    return [{t[cut:] for t in g} for g in qt.groups]


def _best_span(item: EvidenceItem, groups: list[set[str]]) -> tuple[int, int]:
    best, best_hits = (item.char_start, item.char_end), 0
    for s, e in _sentences(item.quote, item.char_start):
        toks = set(analyze(item.quote[s - item.char_start:e - item.char_start], item.lang))
        hits = sum(1 for g in groups if g & toks)
        if hits > best_hits:
            best, best_hits = (s, e), hits
    return best


def passes(item: EvidenceItem, policy: RankingPolicy, space_id: str | None,
           sentence_dense: float | None = None) -> bool:
    """True when a passage clears the answer thresholds of `policy` (τ of the space); the
    dense score is the better of the passage's and its best sentence's."""
    cov = item.scores.get("bm25_coverage") or 0.0
    dense = item.scores.get("dense")
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
    cov_min = pol.ask_min_coverage
    spans = {i.evidence_id: _best_span(i, groups) for i in bundle.items
             if groups and (i.scores.get("bm25_coverage") or 0.0) >= cov_min}
    sentence_dense = _sentence_scores(bundle.items, spans, question, embedder, manifest)
    verifier = Verifier(store, principal)
    out: list[EvidenceItem] = []
    for item in bundle.items:
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


def _sentence_scores(items: Sequence[EvidenceItem], spans: dict[str, tuple[int, int]],
                     question: str, embedder: Embedder | None,
                     manifest: dict[str, Any]) -> dict[str, float]:
    """Cosine of the question and each candidate's best sentence, in the generation's space."""
    todo = [i for i in items if i.evidence_id in spans and i.scores.get("dense") is not None
            and spans[i.evidence_id] != (i.char_start, i.char_end)]
    if not todo or "embedding_space" not in manifest:
        return {}
    if embedder is None:
        from .embed import EmbeddingSpace
        from .embedders import embedder_for_space

        embedder = embedder_for_space(EmbeddingSpace.from_dict(manifest["embedding_space"]))
        if embedder is None:
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
