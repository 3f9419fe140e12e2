"""One extraction run: case → extractor → validation → decision → stored records + queue.

`run_extraction(store, principal, schema, docs)` reads the documents as one case, fills
every schema field with the extractor (deterministic by default, routed by authorized
search when an index generation exists), validates in code, decides each field's outcome
with the abstention rule, stores the run, upserts the field records and enqueues REVIEW
items — one per (source, sha256, field), so a re-run does not double the queue.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from ..model import Principal, extractor_key, timestamp
from ..store import QueueEntry, Store
from ..vocab import FieldStatus, Outcome, ReviewReason
from .carry import carry_forward
from .case import Case, case_guard, load_case
from .corrected import quote_rules
from .decide import decide, record_flags
from .deterministic import DeterministicExtractor, search_router
from .records import FieldRecord
from .schema import FieldSpec, Schema
from .validate import validate

# (field spec, extractor version) -> (tau_show, tau_flag, source of the thresholds)
Thresholds = Callable[[FieldSpec, str], tuple[float, float, str]]


class Extractor(Protocol):
    """What every extractor provides: its identity and one record per schema field."""

    name: str
    version: str

    def identity(self, run_id: str) -> dict[str, Any]: ...
    def extract(self, case: Case, schema: Schema, run_id: str) -> list[FieldRecord]: ...


@dataclass(frozen=True)
class ExtractionResult:
    """What a run produced: the run row, the decided records, new review items."""

    run: dict[str, Any]
    records: list[FieldRecord]
    queued: int
    case: Case


def schema_thresholds(spec: FieldSpec, version: str) -> tuple[float, float, str]:
    """Return the schema's own thresholds of a field."""
    return spec.tau_show, spec.tau_flag, "schema"


def new_run_id() -> str:
    """Return a sortable run id: milliseconds since the epoch and 6 random bytes."""
    return f"run-{int(time.time() * 1000):013x}-{os.urandom(6).hex()}"


def due_at(records: Sequence[FieldRecord], schema: Schema) -> str | None:
    """Return the case's own deadline (the schema's `due_field` value), ISO, or None."""
    if not schema.due_field:
        return None
    for r in records:
        if r.field == schema.due_field and r.status == FieldStatus.PRESENT and r.value is not None:
            v = r.value
            if isinstance(v, str):
                return v
            if isinstance(v, dict) and v.get("date"):
                return v["date"] + ("T" + v["time"] if v.get("time") else "")
    return None


def _in_reading_order(r: FieldRecord, case: Case) -> FieldRecord:
    """Return the record with its provenance in reading order: case document order, then
    offset (the first document given is the main one)."""
    order = {d.doc_id: d.order for d in case.docs}
    prov = tuple(sorted(r.provenance, key=lambda c: (order.get(c.doc_id, len(order)), c.char_start)))
    return r.with_(provenance=prov)


def _queue_entry(r: FieldRecord, case: Case, run_id: str, due: str | None) -> QueueEntry:
    first = r.provenance[0].doc_id if r.provenance else case.docs[0].doc_id
    doc = case.doc(first) or case.docs[0]
    evidence = [c.to_dict() for c in r.provenance]
    return QueueEntry(case_id=case.case_id, source_id=doc.rev.source_id,
                      revision_id=doc.rev.revision_id, doc_sha256=doc.rev.sha256, field=r.field,
                      reason=r.reason or "low_confidence", candidate=r.to_dict(), evidence=evidence,
                      hard=r.hard, due_at=due, run_id=run_id,
                      extractor_version=extractor_key(r.extractor), confidence=r.confidence)


def decide_all(records: Sequence[FieldRecord], schema: Schema,
               thresholds: Thresholds = schema_thresholds) -> list[FieldRecord]:
    """Return the records with `outcome`, `reason`, the thresholds used and their flags."""
    out = []
    for r in records:
        spec = schema.field(r.field)
        tau_show, tau_flag, source = thresholds(spec, extractor_key(r.extractor))
        d = decide(r, tau_show, tau_flag)
        state = r.confidence_state if source == "schema" else "calibrated"
        out.append(r.with_(outcome=Outcome(d.outcome), reason=d.reason, confidence_state=state,
                           flags=record_flags(r),
                           thresholds={"tau_show": tau_show, "tau_flag": tau_flag, "source": source}))
    return out


def run_extraction(store: Store, principal: Principal, schema: Schema, docs: Sequence[str], *,
                   case_id: str | None = None, extractor: Extractor | None = None,
                   thresholds: Thresholds = schema_thresholds, route: bool = True,
                   persist: bool = True, run_id: str | None = None,
                   audit: Callable[[QueueEntry], bool] | None = None) -> ExtractionResult:
    """Return the decided records of one run over `docs` (stored unless persist=False).

    `audit` picks SHOW records to queue as `sample_audit` (see `review.queue`)."""
    case = load_case(store, principal, docs, case_id)
    run_id = run_id or new_run_id()
    if extractor is None:
        router = None
        if route and store.pointer()[0] is not None:
            router = search_router(store, case)
        extractor = DeterministicExtractor(router=router)
    records = [_in_reading_order(r, case) for r in extractor.extract(case, schema, run_id)]
    records = validate(records, schema, case.verifier)
    records = decide_all(records, schema, thresholds)
    records = carry_forward(store, case, records)  # a person's decision outlives a re-run
    run, queued = save_run(store, principal, schema, case, records, extractor.identity(run_id),
                           run_id, audit=audit, persist=persist)
    return ExtractionResult(run, records, queued, case)


def ordered_records(records: Sequence[FieldRecord], case: Case) -> list[FieldRecord]:
    """Return the records with their provenance in the case's reading order."""
    return [_in_reading_order(r, case) for r in records]


def save_run(store: Store, principal: Principal, schema: Schema, case: Case,
             records: Sequence[FieldRecord], identity: dict[str, Any], run_id: str, *,
             audit: Callable[[QueueEntry], bool] | None = None,
             persist: bool = True) -> tuple[dict[str, Any], int]:
    """Store a run's decided records and queue what needs a person (unless not
    `persist`); return the run row and how many review items it queued."""
    due = due_at(records, schema)
    run = {"run_id": run_id, "case_id": case.case_id, "schema_name": schema.name,
           "schema_digest": schema.digest, "extractor": identity,
           "docs": [{"doc_id": d.doc_id, "doc_sha256": d.rev.sha256} for d in case.docs],
           "source_ids": case.source_ids(), "due_at": due}
    queued = 0
    if persist:
        queue = [_queue_entry(r, case, run_id, due) for r in records
                 if r.outcome == Outcome.REVIEW]
        if audit is not None:
            shown = (_queue_entry(r, case, run_id, due) for r in records
                     if r.outcome == Outcome.SHOW)
            queue += [replace(q, reason=ReviewReason.SAMPLE_AUDIT) for q in shown if audit(q)]
        # the store keeps the schema's checks with the run: a correction passes them too
        checks = {**schema.checks(), "quote_rules": quote_rules(schema)}
        queued = store.save_extraction(principal.tenant, {**run, "checks": checks},
                                       [r.to_dict() for r in records], queue, timestamp(),
                                       guard=case_guard(store, principal, case.case_id))
    return run, queued
