"""Recorded steps: what a worker runs, counted, and where a test may kill it.

Every step of a run goes through `step(name, body)`: DBOS records its output once it
returns, so a run resumed after a crash replays finished steps from their recorded
outputs and runs their bodies no more. To prove it, each time a body actually starts, its
attempt is counted in the run's attributes (`step.NNNN` → step name, attempts, executor,
start time), in the system database before the body does anything: a body killed midway
still counts. `pincite runs ID` shows the counts beside DBOS's step history.

Fault points (`pincite.faults`, `PINCITE_FAULTS`): `run.<step>` before a body's work and
`run.<step>.done` after it but before DBOS records the output (the window where a crash
makes the step run again: every body is idempotent for that reason).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from .. import faults
from ..vocab import RunStep

T = TypeVar("T")
ATTEMPT_PREFIX = "step."
# the store and the executor id of the worker process running the workflows
_WORKER: dict[str, Any] = {}


def bind_worker(store: Any, executor_id: str) -> None:
    """Make `store` the store this process's workflows read and write."""
    _WORKER.update(store=store, executor_id=executor_id)


def worker_store() -> Any:
    """Return the store of this worker process (`bind_worker`)."""
    store = _WORKER.get("store")
    if store is None:
        raise RuntimeError("no store bound: runs execute only inside `pincite worker`")
    return store


def step(name: RunStep, body: Callable[[], T]) -> T:
    """Run `body` as the recorded step `name` of the current run; return its output (the
    recorded one when the step had finished before: the body then does not run)."""
    from dbos import DBOS

    def counted() -> T:
        _count_attempt(name)
        faults.hit(f"run.{name.value}")
        out = body()
        faults.hit(f"run.{name.value}.done")
        return out

    return DBOS.run_step({"name": name.value}, counted)


def _count_attempt(name: RunStep) -> None:
    from dbos import DBOS

    wf, fid = DBOS.workflow_id, DBOS.step_id
    if wf is None or fid is None:
        return
    status = DBOS.get_workflow_status(wf)
    key = f"{ATTEMPT_PREFIX}{fid:04d}"
    prev = ((status.attributes or {}) if status is not None else {}).get(key) or {}
    DBOS.update_workflow_attributes(wf, {key: {
        "step": name.value, "attempts": int(prev.get("attempts", 0)) + 1,
        "executor": _WORKER.get("executor_id"), "started_ms": int(time.time() * 1000),
    }}, merge=True)


def attempts(attributes: dict[str, Any] | None) -> dict[int, dict[str, Any]]:
    """Return the counted attempts of a run's steps by step id (from its attributes)."""
    out = {}
    for key, value in (attributes or {}).items():
        if key.startswith(ATTEMPT_PREFIX) and key[len(ATTEMPT_PREFIX):].isdigit() \
                and isinstance(value, dict):
            out[int(key[len(ATTEMPT_PREFIX):])] = value
    return out
