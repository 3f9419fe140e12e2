"""Review decisions carry forward: a person's decision is not undone by running again.

When `extract` runs over a case whose stored record of a field holds a review decision
(accept, correct, not stated):

- **same bytes** (every document the decision cites — or, for "not stated", every document
  of the case — has the sha256 it had): the decided record is the run's record, unchanged
  but for `review.carried_forward = {"basis": "same_bytes", …}`; nothing is queued;
- **a new revision**: the decision carries over when every passage it cites is still in
  the document, quote for quote (located again and cited in the new revision:
  `basis: passage_unchanged`); a "not stated" decision carries over when the new run
  states nothing either. Otherwise the field is REVIEW with reason `passage_changed` and
  queued again, whatever the extractor's confidence: the person decided on words that are
  no longer there.

On the same bytes every decision stands, `reject` included (the store keeps the decided
record, so the run must say what is stored). On a new revision a `reject` is not carried:
the new run's record stands and is queued as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import Citation, split_doc_id
from ..store import Store
from ..vocab import DecisionReason, FieldStatus, Outcome, ReviewDecision
from .case import Case
from .records import FieldRecord


def carry_forward(store: Store, case: Case, records: Sequence[FieldRecord]) -> list[FieldRecord]:
    """Return the run's records with stored review decisions carried forward (or the field
    sent back to review when the passage a decision rests on changed)."""
    tenant = case.principal.tenant
    out = []
    for r in records:
        stored = store.field_record(tenant, case.case_id, r.field)
        review = (stored or {}).get("review") or {}
        out.append(r if stored is None or not review.get("decision")
                   else _carried(store, case, r, stored, review))
    return out


def _carried(store: Store, case: Case, new: FieldRecord, stored: dict[str, Any],
             review: dict[str, Any]) -> FieldRecord:
    shas = {d.rev.source_id: d.rev.sha256 for d in case.docs}
    prov = [Citation.from_dict(c) for c in stored.get("provenance") or []]
    run = store.extraction_run(case.principal.tenant,
                               str((stored.get("extractor") or {}).get("run_id", ""))) or {}
    run_shas = {str(d.get("doc_sha256")) for d in run.get("docs") or []}
    if run_shas == set(shas.values()) or (prov and all(
            shas.get(split_doc_id(c.doc_id)[0]) == c.doc_sha256 for c in prov)):
        return _as_carried(case, stored, review, "same_bytes", prov)
    if review["decision"] == ReviewDecision.REJECT:
        return new  # a rejected candidate of an older revision says nothing of this one
    if not prov:  # "not stated" holds while the new run states nothing either
        return (_as_carried(case, stored, review, "passage_unchanged", prov)
                if new.status == FieldStatus.ABSENT and new.value is None else _changed(new))
    moved = [_relocate(case, c) for c in prov]
    if any(c is None for c in moved):
        return _changed(new)
    return _as_carried(case, stored, review, "passage_unchanged", [c for c in moved if c])


def _relocate(case: Case, c: Citation) -> Citation | None:
    """Return `c` cited again in the case's revision of its source, or None when that
    revision no longer holds its quote."""
    source_id = split_doc_id(c.doc_id)[0]
    doc = next((d for d in case.docs if d.rev.source_id == source_id), None)
    if doc is None:
        return None
    if doc.rev.sha256 == c.doc_sha256:
        return c
    spans = case.verifier.folded(doc.rev, doc.loaded).find_all(c.quote, limit=50)
    if not spans:
        return None
    s, e = min(spans, key=lambda se: abs(se[0] - c.char_start))
    return doc.cite(s, e)


def _as_carried(case: Case, stored: dict[str, Any], review: dict[str, Any], basis: str,
                prov: list[Citation]) -> FieldRecord:
    carried = {"basis": basis, "from_run": (stored.get("extractor") or {}).get("run_id")}
    data = {k: v for k, v in stored.items() if k in FieldRecord.model_fields}
    data["review"] = {**review, "carried_forward": carried}
    record = FieldRecord.model_validate(data)
    # re-verified against the case's revisions, as every citation a run returns
    return record.with_(provenance=tuple(case.verifier.verify(c) for c in prov))


def _changed(new: FieldRecord) -> FieldRecord:
    if new.outcome == Outcome.REVIEW and new.reason == DecisionReason.UNVERIFIED_CITATION:
        return new
    return new.with_(outcome=Outcome.REVIEW, reason=DecisionReason.PASSAGE_CHANGED)
