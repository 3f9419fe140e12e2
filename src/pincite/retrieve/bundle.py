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

from typing import Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    model_validator,
)

from ..vocab import AnswerKind, ItemRole

SCHEMA_NAME = "pincite.evidence_bundle"
SCHEMA_VERSION = 1

# A number keeps its JSON form: an int stays an int (`1`, not `1.0`), as before the models.
Number = int | float
Box = tuple[Number, Number, Number, Number]


class EvidenceItem(BaseModel):
    """One passage: where it is (revision, span, page, box), what it says, how it ranked.

    `doc_id` is `source_id@revision_id`: filled in when not given, refused when it differs.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite evidence item")

    evidence_id: str
    source_id: str
    revision_id: str
    doc_id: str = ""
    doc_sha256: str
    text_layer: str
    chunk_id: str
    kind: str
    char_start: int
    char_end: int
    quote: str
    locator: str
    page: int | None
    bbox: Box | None
    heading_path: tuple[str, ...]
    lang: str | None
    ranks: dict[str, int | None]
    scores: dict[str, Number | None]
    flags: tuple[str, ...] = ()
    citation: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    # set by `ask` only: an answer (with its kind and the judge's confidence) or related
    role: ItemRole | None = Field(default=None, exclude_if=lambda v: v is None)
    answer_kind: AnswerKind | None = Field(default=None, exclude_if=lambda v: v is None)
    confidence: float | None = Field(default=None, ge=0.0, le=1.0,
                                     exclude_if=lambda v: v is None)

    @model_validator(mode="before")
    @classmethod
    def _doc_id(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("source_id") and data.get("revision_id"):
            doc_id = f"{data['source_id']}@{data['revision_id']}"
            if data.get("doc_id") not in (None, "", doc_id):
                raise ValueError(f"doc_id {data['doc_id']!r} is not source_id@revision_id ({doc_id})")
            data = {**data, "doc_id": doc_id}
        return data

    @field_serializer("bbox")
    def _bbox(self, v: Box | None) -> list[Number] | None:
        return [round(x, 2) for x in v] if v else None

    def to_dict(self) -> dict[str, Any]:
        """Return the item as the JSON object of an evidence bundle."""
        return self.model_dump(mode="json")


class EvidenceBundle(BaseModel):
    """The answer of `search`: items best first, bundle flags, and what produced them."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite evidence bundle")

    schema_name: str = SCHEMA_NAME
    version: int = SCHEMA_VERSION
    query: str
    k: int
    generation: str | None = None
    as_of: str | None = None
    ranking_policy: str | None = None
    embedding_space: str | None = None
    items: tuple[EvidenceItem, ...]
    flags: tuple[str, ...]
    channels: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _compatible(self) -> EvidenceBundle:
        if self.schema_name != SCHEMA_NAME or self.version != SCHEMA_VERSION:
            raise ValueError(f"this is {self.schema_name} version {self.version}; pincite reads "
                             f"{SCHEMA_NAME} version {SCHEMA_VERSION}")
        return self

    def to_dict(self) -> dict[str, Any]:
        """Return the bundle as its JSON document (with `schema_name` and `version`)."""
        return self.model_dump(mode="json")
