"""Evidence bundles: what retrieval returns. Every item is a pointer into a revision.

Per-channel ranks and scores travel beside the fused rank; they are prioritisation
signals of different kinds and are never combined into one probability.

Bundle flags (closed set):
- `no_generation` — nothing is published yet: the bundle is empty.
- `underfilled` — fewer than k items: fewer than k authorized passages matched.
- `truncated` — a context budget cut quotes short or dropped items.
- `timeout` — the reranker missed its deadline; the first-stage order is served.
- `stale` — the published generation lacks revisions committed since it was built for
  the caller's tenant: new documents may be missing. Deletions and ACL changes are
  honoured anyway (authorization reads the current state).
- `degraded` — a stage failed (reranker error, bad reranker output, a channel that could
  not be read) and a lesser result is served under the same authorization.
- `fallback` — one retrieval channel was not available (no embedder for the
  generation's space, or its vectors are unreadable) and the other channel answered
  alone; or the dense channel's ANN graph was unreadable or could not reach k
  authorized neighbours, and the exact scan of the authorized universe answered
  (`channels["dense"]["ann"]` says why).

Item flags: `hidden_text` (the passage holds text the parser found hidden), `formula`
(spreadsheet formula cells), `superseded` (a newer revision of the source exists: an
as-of query), `truncated` (the quote was cut to a budget; `char_end` says where),
`injection_suspected` (set by `ask`: the passage holds text addressed to a reader or a
model as an instruction; such text is never cited as an answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SCHEMA_NAME = "pincite.evidence_bundle"
SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class EvidenceItem:
    """One passage: where it is (revision, span, page, box), what it says, how it ranked."""

    evidence_id: str
    source_id: str
    revision_id: str
    doc_sha256: str
    text_layer: str
    chunk_id: str
    kind: str
    char_start: int
    char_end: int
    quote: str
    locator: str
    page: int | None
    bbox: tuple[float, float, float, float] | None
    heading_path: tuple[str, ...]
    lang: str | None
    ranks: dict[str, int | None]
    scores: dict[str, float | None]
    flags: tuple[str, ...] = ()
    citation: dict[str, Any] | None = None

    @property
    def doc_id(self) -> str:
        return f"{self.source_id}@{self.revision_id}"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "evidence_id": self.evidence_id, "source_id": self.source_id,
            "revision_id": self.revision_id, "doc_id": self.doc_id, "doc_sha256": self.doc_sha256,
            "text_layer": self.text_layer, "chunk_id": self.chunk_id, "kind": self.kind,
            "char_start": self.char_start, "char_end": self.char_end, "quote": self.quote,
            "locator": self.locator, "page": self.page,
            "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "heading_path": list(self.heading_path), "lang": self.lang,
            "ranks": dict(self.ranks), "scores": dict(self.scores), "flags": list(self.flags),
        }
        if self.citation is not None:
            d["citation"] = self.citation
        return d


@dataclass(frozen=True, slots=True)
class EvidenceBundle:
    """The answer of `search`: items best first, bundle flags, and what produced them."""

    query: str
    k: int
    items: tuple[EvidenceItem, ...]
    flags: tuple[str, ...]
    generation: str | None = None
    as_of: str | None = None
    ranking_policy: str | None = None
    embedding_space: str | None = None
    channels: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_name": SCHEMA_NAME, "version": SCHEMA_VERSION, "query": self.query,
            "k": self.k, "generation": self.generation, "as_of": self.as_of,
            "ranking_policy": self.ranking_policy, "embedding_space": self.embedding_space,
            "items": [i.to_dict() for i in self.items], "flags": list(self.flags),
            "channels": self.channels,
        }
