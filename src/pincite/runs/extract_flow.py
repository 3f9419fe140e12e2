"""The extraction run: case → extract → validate → decide → write.

`case` pins the documents to revisions (a document revised while the run waits is read
as it was when the run began), so every later step, on whichever worker, loads the same
case. `extract`, `validate` and `decide` only read the store; each stages the field
records it made (values and quotes) in the tenant's blob store and DBOS records only
their reference (`staging`: no document text in the runs database); the next step reads
them back. `write` stores the run once: a stored run with this id is the write done before
a crash, and is returned as it is (the review queue holds one item per source, sha256 and
field, so even a second write would not double it). The staged records are deleted once
`write` has returned, or once a step refused (a document deleted meanwhile: the run ends
in error and nothing reads them again).
"""

from __future__ import annotations

from typing import Any

from dbos import DBOS

from ..model import Principal
from ..vocab import RunStep
from .engine import EXTRACT_WORKFLOW
from .staging import consumed, load_records, stage_records
from .steps import step, worker_store


@DBOS.workflow(name=EXTRACT_WORKFLOW)
def extract_run(spec: dict[str, Any]) -> dict[str, Any]:
    """Run the extraction of `spec` (see `book.RunBook.submit_extract`); return the run row
    and how many review items it queued."""
    staged: list[dict[str, Any] | None] = []  # the records' references, as they come
    with consumed(worker_store(), _principal(spec).tenant, staged):
        pinned = step(RunStep.CASE, lambda: _case(spec))
        extracted = step(RunStep.EXTRACT, lambda: _extract(spec, pinned))
        staged.append(extracted["records"])
        checked = step(RunStep.VALIDATE, lambda: _validate(spec, pinned, extracted["records"]))
        staged.append(checked)
        decided = step(RunStep.DECIDE, lambda: _decide(spec, pinned, checked))
        staged.append(decided)
        return step(RunStep.WRITE, lambda: _write(spec, pinned, decided, extracted["identity"]))


def _records(spec: dict[str, Any], ref: dict[str, Any]) -> list[Any]:
    """Return the records a previous step staged."""
    return load_records(worker_store(), _principal(spec).tenant, ref)


def _staged(spec: dict[str, Any], step_name: RunStep, records: list[Any]) -> dict[str, Any]:
    """Stage the records this step made; return their reference."""
    return stage_records(worker_store(), _principal(spec).tenant, spec["run_id"],
                         step_name.value, records)


def _principal(spec: dict[str, Any]) -> Principal:
    return Principal.parse(spec["principal"])


def _load(spec: dict[str, Any], pinned: dict[str, Any]) -> Any:
    from ..extract.case import load_case

    return load_case(worker_store(), _principal(spec), pinned["docs"], pinned["case_id"])


def _case(spec: dict[str, Any]) -> dict[str, Any]:
    from ..extract.case import load_case

    case = load_case(worker_store(), _principal(spec), spec["docs"], spec.get("case_id"))
    return {"case_id": case.case_id, "docs": [d.doc_id for d in case.docs]}


def _extract(spec: dict[str, Any], pinned: dict[str, Any]) -> dict[str, Any]:
    from ..extract.deterministic import DeterministicExtractor, search_router
    from ..extract.run import ordered_records

    store = worker_store()
    case = _load(spec, pinned)
    if spec.get("model_endpoint"):
        from ..extract.model_adapter import ModelExtractor

        extractor: Any = ModelExtractor.from_endpoint(spec["model_endpoint"], spec.get("model"))
    else:
        router = search_router(store, case) if store.pointer()[0] is not None else None
        extractor = DeterministicExtractor(router=router)
    run_id = spec["run_id"]
    records = ordered_records(extractor.extract(case, spec["schema"], run_id), case)
    return {"records": _staged(spec, RunStep.EXTRACT, records),
            "identity": extractor.identity(run_id)}


def _validate(spec: dict[str, Any], pinned: dict[str, Any], ref: dict[str, Any]
              ) -> dict[str, Any]:
    from ..extract.validate import validate

    checked = validate(_records(spec, ref), spec["schema"], _load(spec, pinned).verifier)
    return _staged(spec, RunStep.VALIDATE, checked)


def _decide(spec: dict[str, Any], pinned: dict[str, Any], ref: dict[str, Any]
            ) -> dict[str, Any]:
    from ..extract.carry import carry_forward
    from ..extract.run import decide_all
    from ..review.calibration import calibrated_thresholds

    store, schema = worker_store(), spec["schema"]
    decided = decide_all(_records(spec, ref), schema,
                         calibrated_thresholds(store, _principal(spec).tenant, schema))
    return _staged(spec, RunStep.DECIDE, carry_forward(store, _load(spec, pinned), decided))


def _write(spec: dict[str, Any], pinned: dict[str, Any], ref: dict[str, Any],
           identity: dict[str, Any]) -> dict[str, Any]:
    from ..extract.run import save_run
    from ..review.queue import sample_audit_selector

    store, principal = worker_store(), _principal(spec)
    stored = store.extraction_run(principal.tenant, spec["run_id"])
    if stored is not None:
        return {"run_id": spec["run_id"], "case_id": pinned["case_id"], "queued": None,
                "records": int(ref.get("count") or 0), "written_before": True}
    records = _records(spec, ref)
    run, queued = save_run(store, principal, spec["schema"], _load(spec, pinned), records,
                           identity, spec["run_id"],
                           audit=sample_audit_selector(store, principal.tenant))
    return {"run_id": run["run_id"], "case_id": run["case_id"], "queued": queued,
            "records": len(records)}
