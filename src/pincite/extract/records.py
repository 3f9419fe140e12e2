"""Field records: what an extractor says about one schema field of a case.

A record carries a typed `value` (one canonical JSON value per field type, or null), a
`status` (present / absent / conflicting), a `confidence` (self-reported, marked
`uncalibrated` until a calibration exists), `provenance` (citations, each verified by
code), the extractor's identity, the winner's score parts with its margin and runner-up,
and — once validated and decided — `validation_errors`, `outcome` and `reason`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, NotRequired

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_serializer,
    field_validator,
)
from typing_extensions import TypedDict  # pydantic reads typing's only from Python 3.12

from ..model import Citation
from ..vocab import FieldStatus, Outcome, RecordFlag

SCHEMA_NAME: Literal["pincite.records"] = "pincite.records"
SCHEMA_VERSION: Literal[1] = 1


@dataclass(frozen=True, slots=True)
class Candidate:
    """One typed value an extractor found, with the passages it rests on and its score."""

    value: Any
    citations: tuple[Citation, ...]
    score: float
    parts: dict[str, float]
    origin: str
    ref: str
    value_span: tuple[str, int, int] | None = None

    def key(self) -> str:
        """Return the value's identity for agreement and conflict (canonical JSON)."""
        return value_key(self.value)

    def reading_order(self) -> tuple[str, int]:
        """Return (doc id, char_start) of the first citation: the order a person reads it."""
        c = self.citations[0]
        return (c.doc_id, c.char_start)


def value_key(value: Any) -> str:
    """Return a canonical string for comparing two typed values."""
    import json

    return json.dumps(value, sort_keys=True, ensure_ascii=False)


class ValueSpanJSON(TypedDict):
    """Where the value itself sits: a half-open span of one document's text layer."""

    doc_id: str
    char_start: int
    char_end: int


class BoxJSON(TypedDict):
    """One page's box of a citation that spans pages."""

    page: int
    bbox: list[float]


class OccurrenceJSON(TypedDict):
    """One place a cited quote occurs (listed when it occurs more than once)."""

    char_start: int
    char_end: int
    locator: str
    page: int | None


class CitationJSON(TypedDict):
    """A provenance entry as JSON (`Citation.to_dict`); without `comparison`, it was made
    in cmp-1 (before the field existed)."""

    doc_id: str
    doc_sha256: str
    text_layer: str
    locator: str
    page: int | None
    bbox: list[float] | None
    char_start: int
    char_end: int
    quote: str
    quote_verified: bool
    verify_reason: str | None
    boxes: NotRequired[list[BoxJSON]]
    flags: NotRequired[list[str]]
    ocr_confidence: NotRequired[float]
    comparison: NotRequired[str]
    extended: NotRequired[bool]
    ambiguous: NotRequired[bool]
    case_differs: NotRequired[bool]
    respaced: NotRequired[bool]
    occurrence: NotRequired[int]
    occurrence_count: NotRequired[int]
    occurrences: NotRequired[list[OccurrenceJSON]]


# A number keeps its JSON form: an int stays an int (`1`, not `1.0`), as before the models.
Number = int | float


def _round4(v: Number | None) -> Number | None:
    return None if v is None else round(v, 4)


class FieldRecord(BaseModel):
    """The record of one field, as `records.json` writes it.

    Reading one back (`model_validate`) leaves its citations unverified: only the verifier
    sets `quote_verified`.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite field record")

    field: str
    type: str
    value: Any = None
    status: FieldStatus
    confidence: Number
    confidence_state: str = "uncalibrated"
    provenance: tuple[Citation, ...] = ()
    extractor: dict[str, Any]
    score: Number | None = None
    parts: dict[str, Number] = Field(default_factory=dict)
    margin: Number | None = None
    runner_up: dict[str, Any] | None = None
    alternatives: tuple[dict[str, Any], ...] = ()
    value_span: tuple[str, int, int] | None = None
    hard: bool = False
    validation_errors: tuple[str, ...] = ()
    outcome: Outcome | None = None
    reason: str | None = None
    thresholds: dict[str, Any] = Field(default_factory=dict)
    notes: tuple[str, ...] = Field(default=(), exclude_if=lambda v: not v)
    # `hidden_text` / `ocr` when a citation it rests on is hidden text / read by OCR
    # (`extract.decide`)
    flags: tuple[RecordFlag, ...] = Field(default=(), exclude_if=lambda v: not v)
    # the review decision the record holds (`review.decisions`), with `carried_forward`
    # when a later run kept it (`extract.carry`)
    review: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)

    @field_validator("provenance", mode="before")
    @classmethod
    def _citations(cls, v: Any) -> Any:
        if isinstance(v, list | tuple):
            return tuple(Citation.from_dict(c) if isinstance(c, dict) else c for c in v)
        return v

    @field_validator("value_span", mode="before")
    @classmethod
    def _span(cls, v: Any) -> Any:
        if isinstance(v, dict):
            return (v.get("doc_id"), v.get("char_start"), v.get("char_end"))
        return v

    @field_serializer("confidence", "score", "margin")
    def _rounded(self, v: Number | None) -> Number | None:
        return _round4(v)

    @field_serializer("parts")
    def _parts(self, v: dict[str, Number]) -> dict[str, Number]:
        return {k: round(x, 4) for k, x in v.items()}

    @field_serializer("provenance")
    def _provenance(self, v: tuple[Citation, ...]) -> list[CitationJSON]:
        return [c.to_dict() for c in v]  # type: ignore[misc]

    @field_serializer("value_span")
    def _value_span(self, v: tuple[str, int, int] | None) -> ValueSpanJSON | None:
        return None if v is None else {"doc_id": v[0], "char_start": v[1], "char_end": v[2]}

    def with_(self, **changes: Any) -> FieldRecord:
        """Return a copy with some attributes replaced (trusted values: not revalidated,
        except that a status or outcome given as a string becomes its enum member)."""
        if changes.get("status") is not None:
            changes["status"] = FieldStatus(changes["status"])
        if changes.get("outcome") is not None:
            changes["outcome"] = Outcome(changes["outcome"])
        return self.model_copy(update=changes)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as the JSON object of `records.json`."""
        return self.model_dump(mode="json")


class RecordsDocument(BaseModel):
    """The persisted `records.json`: one extraction run and its field records."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite records.json")

    schema_name: Literal["pincite.records"] = SCHEMA_NAME
    version: Literal[1] = SCHEMA_VERSION
    run: dict[str, Any]
    records: list[FieldRecord]


def records_json(records: list[FieldRecord], *, run: dict[str, Any]) -> dict[str, Any]:
    """Return the persisted `records.json` document (with `schema_name` and `version`)."""
    return RecordsDocument(run=run, records=records).model_dump(mode="json")
