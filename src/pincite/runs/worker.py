"""`pincite worker`: run queued workflows, beat for the ones it holds, resume the dead's.

DBOS recovers at launch only the pending workflows of the launching executor id; a worker
killed on another machine would leave its runs pending forever. So every worker, each
`beat` seconds, writes a heartbeat into the attributes of the runs it holds, and
declares dead any other executor whose pending runs have all shown the same heartbeat
for `lease` seconds of its own clock (a run it has just seen counts from then): DBOS then
re-enqueues that executor's pending runs on their own queues (`reenqueue_for_recovery`:
only rows still held by the dead executor, so two workers recovering at once hand each run
out once), and the next worker to dequeue one resumes it from its last recorded step.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

# importing the flows registers their workflows with DBOS before `launch_worker`
from . import extract_flow, ingest_flow  # noqa: F401
from .engine import (
    EXTRACT_WORKFLOW,
    INGEST_WORKFLOW,
    launch_worker,
    new_executor_id,
    shutdown_worker,
)
from .steps import bind_worker

WORKFLOWS = [INGEST_WORKFLOW, EXTRACT_WORKFLOW]
HEARTBEAT = "heartbeat_ms"
LIVE = ["ENQUEUED", "PENDING"]


def work(store: Any, url: str, queues: Sequence[str], *, drain: bool = False,
         beat: float = 2.0, lease: float = 30.0, poll: float = 1.0,
         stop: threading.Event | None = None) -> dict[str, Any]:
    """Run workflows from `queues` until `stop` is set (or, with `drain`, until no run of
    these queues is queued or pending); return what this worker saw and did."""
    executor = new_executor_id()
    bind_worker(store, executor)
    dbos = launch_worker(url, queues, executor_id=executor, polling_seconds=poll)
    recovered: list[str] = []
    stop = stop or threading.Event()
    # run id -> (the heartbeat last read, when this worker first read it): staleness is
    # timed on this worker's own clock, so clock skew between machines and the database's
    # timestamp resolution (seconds on SQLite) cannot make a live worker look dead
    seen: dict[str, tuple[Any, float]] = {}
    try:
        while not stop.is_set():
            pending = dbos.list_workflows(status="PENDING", name=WORKFLOWS, load_input=False,
                                          load_output=False)
            now = time.monotonic()
            stale: dict[str, bool] = {}
            for w in pending:
                if w.executor_id == executor:
                    dbos.update_workflow_attributes(
                        w.workflow_id, {HEARTBEAT: int(time.time() * 1000)}, merge=True)
                    continue
                value = ((w.attributes or {}).get(HEARTBEAT), w.executor_id)
                last = seen.get(w.workflow_id)
                if last is None or last[0] != value:
                    seen[w.workflow_id] = last = (value, now)
                key = w.executor_id or ""
                stale[key] = stale.get(key, True) and now - last[1] > lease
            live = {w.workflow_id for w in pending}
            for wf in [k for k in seen if k not in live]:
                del seen[wf]
            for ex, dead in sorted(stale.items()):
                if dead:
                    recovered += [h.workflow_id for h in dbos._recover_pending_workflows([ex])]
            if drain and not dbos.list_workflows(status=LIVE, name=WORKFLOWS,
                                                 queue_name=list(queues), load_input=False,
                                                 load_output=False):
                break
            stop.wait(beat)
    finally:
        shutdown_worker()
    return {"executor_id": executor, "queues": list(queues), "recovered": recovered}
