"""Field records: what an extractor says about one schema field of a case.

A record carries a typed `value` (one canonical JSON value per field type, or null), a
`status` (present / absent / conflicting), a `confidence` (self-reported, marked
`uncalibrated` until a calibration exists), `provenance` (citations, each verified by
code), the extractor's identity, the winner's score parts with its margin and runner-up,
and — once validated and decided — `validation_errors`, `outcome` and `reason`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from typing import Any

from ..model import Citation

SCHEMA_NAME = "pincite.records"
SCHEMA_VERSION = 1


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


@dataclass(frozen=True, slots=True)
class FieldRecord:
    """The record of one field, as `records.json` writes it."""

    field: str
    type: str
    value: Any
    status: str
    confidence: float
    provenance: tuple[Citation, ...]
    extractor: dict[str, Any]
    score: float | None = None
    parts: dict[str, float] = dataclasses.field(default_factory=dict)
    margin: float | None = None
    runner_up: dict[str, Any] | None = None
    alternatives: tuple[dict[str, Any], ...] = ()
    value_span: tuple[str, int, int] | None = None
    hard: bool = False
    confidence_state: str = "uncalibrated"
    validation_errors: tuple[str, ...] = ()
    outcome: str | None = None
    reason: str | None = None
    thresholds: dict[str, Any] = dataclasses.field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def with_(self, **changes: Any) -> FieldRecord:
        """Return a copy with some attributes replaced."""
        return replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """Return the record as the JSON object of `records.json`."""
        d: dict[str, Any] = {
            "field": self.field,
            "type": self.type,
            "value": self.value,
            "status": self.status,
            "confidence": round(self.confidence, 4),
            "confidence_state": self.confidence_state,
            "provenance": [c.to_dict() for c in self.provenance],
            "extractor": dict(self.extractor),
            "score": None if self.score is None else round(self.score, 4),
            "parts": {k: round(v, 4) for k, v in self.parts.items()},
            "margin": None if self.margin is None else round(self.margin, 4),
            "runner_up": self.runner_up,
            "alternatives": list(self.alternatives),
            "value_span": (None if self.value_span is None else
                           {"doc_id": self.value_span[0], "char_start": self.value_span[1],
                            "char_end": self.value_span[2]}),
            "hard": self.hard,
            "validation_errors": list(self.validation_errors),
            "outcome": self.outcome,
            "reason": self.reason,
            "thresholds": dict(self.thresholds),
        }
        if self.notes:
            d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FieldRecord:
        """Return the record in a JSON object written by `to_dict` (citations unverified)."""
        vs = d.get("value_span")
        return cls(
            field=d["field"], type=d["type"], value=d.get("value"), status=d["status"],
            confidence=float(d.get("confidence") or 0.0),
            provenance=tuple(Citation.from_dict(p) for p in d.get("provenance", ())),
            extractor=dict(d.get("extractor") or {}), score=d.get("score"),
            parts=dict(d.get("parts") or {}), margin=d.get("margin"), runner_up=d.get("runner_up"),
            alternatives=tuple(d.get("alternatives") or ()),
            value_span=None if vs is None else (vs["doc_id"], vs["char_start"], vs["char_end"]),
            hard=bool(d.get("hard")), confidence_state=d.get("confidence_state", "uncalibrated"),
            validation_errors=tuple(d.get("validation_errors") or ()), outcome=d.get("outcome"),
            reason=d.get("reason"), thresholds=dict(d.get("thresholds") or {}),
            notes=tuple(d.get("notes") or ()),
        )


def records_json(records: list[FieldRecord], *, run: dict[str, Any]) -> dict[str, Any]:
    """Return the persisted `records.json` document (with `schema_name` and `version`)."""
    return {"schema_name": SCHEMA_NAME, "version": SCHEMA_VERSION,
            "run": run, "records": [r.to_dict() for r in records]}
