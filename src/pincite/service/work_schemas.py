"""JSON Schemas of the bodies the rank, fill and runs routes answer with, as OpenAPI
components. These bodies are plain JSON built by their stages (no record model to generate
a schema from), so the schemas are written here; `tests/service/test_work_routes.py`
checks real responses against them."""

from __future__ import annotations

from typing import Any

_STR = {"type": "string"}
_INT = {"type": "integer"}
_NSTR = {"type": ["string", "null"]}
_NINT = {"type": ["integer", "null"]}
_OBJ = {"type": "object"}
_NOBJ = {"type": ["object", "null"]}


def _obj(required: dict[str, Any], **optional: Any) -> dict[str, Any]:
    return {"type": "object", "required": sorted(required),
            "properties": {**required, **optional}}


FIT_PART = _obj({"part": _STR, "status": {"enum": ["met", "not_met", "unknown"]},
                 "points": _INT, "detail": _STR, "citation": _NOBJ})
FIT_RESULT = _obj({
    "rank": _INT, "call": _STR, "title": {}, "documents": {"type": "array", "items": _STR},
    "official_record": _obj({"url": _NSTR, "doc_id": _STR, "citation": _NOBJ}),
    "score": _INT, "max_score": _INT, "score_kind": _STR, "label": _STR,
    "counts": _obj({"met": _INT, "not_met": _INT, "unknown": _INT}),
    "parts": {"type": "array", "items": FIT_PART}})
FIT_RANKING = _obj({
    "schema_name": {"const": "pincite.fit-ranking"}, "version": _INT, "profile": _STR,
    "profile_file": _NSTR, "as_of": _STR, "label": _STR, "weights": _OBJ,
    "results": {"type": "array", "items": FIT_RESULT}})
FILL_SUMMARY = _obj({
    "summary": _obj({"target_cells": _INT, "written": _INT}), "out": _STR,
    "ran": {"type": "array", "items": _STR}, "skipped": {"type": "array", "items": _STR},
    "queued": _INT, "errors": {"type": "array", "items": _OBJ}})
FILL_FILES = _obj({"fill_id": _STR, "files": {"type": "array", "items": _STR}})
RUN = _obj({
    "run_id": _STR, "kind": _NSTR, "status": _STR, "queue": _NSTR, "executor": _NSTR,
    "created_ms": _NINT, "updated_ms": _NINT, "completed_ms": _NINT, "heartbeat_ms": _NINT,
    "tenant": _STR, "user": _STR},
    files=_INT, docs=_INT, result={}, error=_STR,
    steps={"type": "array", "items": _obj({
        "step_id": _INT, "step": _NSTR, "state": _STR, "started_ms": _NINT,
        "finished_ms": _NINT, "attempts": _INT, "executor": _NSTR})})

COMPONENTS: dict[str, Any] = {"FitRanking": FIT_RANKING, "FillSummary": FILL_SUMMARY,
                              "FillFiles": FILL_FILES, "Run": RUN}
