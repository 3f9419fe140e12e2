"""The runs of one store: enqueue an ingest or an extraction, read a run's progress.

A run belongs to the principal that enqueued it (tenant and user, recorded in its
attributes): `run` and `runs` show a principal only its own, and another's run id is
"not found", whatever its tenant. What a run may do is checked when it is enqueued, as the
synchronous command would check it: an ingest's `--as` must be of the run's tenant, an
extraction's principal must see every document it names.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import NotFound, UsageError
from ..limits import Limits
from ..model import Principal, check_name, parse_acl_entry
from ..model.names import check_source_id
from ..sources.authority import authorize_write
from .engine import (
    APP_VERSION,
    EXTRACT_WORKFLOW,
    INGEST_WORKFLOW,
    QUEUES,
    check_queues,
    open_client,
    system_db_url,
)
from .steps import attempts

MAX_LISTED = 1000
MAX_SCANNED = 20_000


class RunBook:
    """Enqueue runs on the system database of a store and read them back."""

    def __init__(self, store: Any, store_url: str | Path, runs_db: str | None = None) -> None:
        self.store = store
        self.store_url = str(store_url)
        self.url = system_db_url(store_url, runs_db)
        self._client: Any = None
        self._opening = threading.Lock()

    def client(self) -> Any:
        """Return the DBOS client of this book (opened, and the database created, once,
        whichever thread asks first)."""
        with self._opening:
            if self._client is None:
                self._client = open_client(self.url)
        return self._client

    def close(self) -> None:
        """Close the client's connections."""
        if self._client is not None:
            self._client.destroy()
            self._client = None

    # ---- enqueue ---------------------------------------------------------------------

    def submit_ingest(self, principal: Principal, paths: Sequence[str | Path], *, tenant: str,
                      acl: Sequence[str] | None, new_acl: Sequence[str] | None = None,
                      source_id: str | None = None, limits: Limits | None = None,
                      sandbox: bool = True, publish: bool = True, embedder: str | None = None,
                      follow_links: bool = False, stream_from: int | None = None) -> str:
        """Enqueue the ingest of files and directories (walked now; the workers read the
        files at the absolute paths found) on the `ingest` queue; return the run id. Files
        of `stream_from` bytes or more (default `sources.ingest.STREAM_FROM`) are read from
        disk, never whole, as `Ingestor` does."""
        from ..sources.acquire import walk_inputs

        tenant = check_name("tenant", tenant)
        if principal.tenant != tenant:
            raise UsageError(f"principal {principal} is of tenant {principal.tenant!r}, not "
                             f"{tenant!r}: enqueue as a principal of {tenant!r}")
        inputs = list(walk_inputs(paths, follow_links=follow_links))
        if source_id is not None and len(inputs) != 1:
            raise UsageError("--id names one source: give exactly one file with it")
        if not inputs:
            raise UsageError("no file to ingest among the paths given")
        items = []
        for item in inputs:  # the write rule now; a worker asks it again before storing
            sid = check_source_id(source_id or item.source_id)
            authorize_write(self.store, principal, sid, acl=acl)
            items.append({"path": str(Path(item.path).absolute()), "source_id": sid,
                          "name": item.path.name,
                          "read_from": None if item.read_from is None
                          else str(Path(item.read_from).resolve()),
                          "reason": item.reason, "detail": item.detail})
        spec: dict[str, Any] = {
            "tenant": tenant, "owner": principal.subject, "groups": list(principal.groups),
            "inputs": items,
            "acl": None if acl is None else sorted({parse_acl_entry(a) for a in acl}),
            "new_acl": None if new_acl is None else sorted({parse_acl_entry(a) for a in new_acl}),
            "limits": limits or Limits(), "sandbox": sandbox, "publish": publish,
            "embedder": embedder or os.environ.get("PINCITE_EMBEDDER")}
        if stream_from is not None:
            if stream_from < 0:
                raise UsageError("stream_from must be a number of bytes, 0 or more")
            spec["stream_from"] = stream_from
        return self._enqueue("ingest", INGEST_WORKFLOW, principal, spec,
                             {"files": len(items)})

    def submit_extract(self, principal: Principal, schema: Any, docs: Sequence[str], *,
                       case_id: str | None = None, model_endpoint: str | None = None,
                       model: str | None = None) -> str:
        """Enqueue an extraction of `docs` read as one case on the `extract` queue; return
        the run id (also the id of the stored extraction run). A document the principal
        cannot see is NotFound now, before anything is queued."""
        from ..extract.case import load_case
        from ..extract.schema import Schema, load_schema

        sch = schema if isinstance(schema, Schema) else load_schema(schema)
        load_case(self.store, principal, list(docs), case_id)  # refuses what it may not read
        spec: dict[str, Any] = {"principal": str(principal), "schema": sch, "docs": list(docs),
                                "case_id": case_id, "model_endpoint": model_endpoint,
                                "model": model}
        return self._enqueue("extract", EXTRACT_WORKFLOW, principal, spec, {"docs": len(docs)})

    def _enqueue(self, queue: str, workflow: str, principal: Principal, spec: dict[str, Any],
                 extra: dict[str, Any]) -> str:
        from ..extract.run import new_run_id

        check_queues([queue])
        run_id = new_run_id()
        spec = {**spec, "run_id": run_id}
        self.client().enqueue({
            "workflow_name": workflow, "queue_name": queue, "workflow_id": run_id,
            "app_version": APP_VERSION, "workflow_id_reuse_policy": "reject",
            "attributes": {"tenant": principal.tenant, "user": principal.subject,
                           "kind": queue, **extra}}, spec)
        return run_id

    # ---- read --------------------------------------------------------------------------

    def runs(self, principal: Principal, *, limit: int = 50) -> list[dict[str, Any]]:
        """Return the principal's own runs, newest first (at most `limit`)."""
        if not 1 <= limit <= MAX_LISTED:
            raise UsageError(f"--limit must be between 1 and {MAX_LISTED}")
        owner = {"tenant": principal.tenant, "user": principal.subject}
        # PostgreSQL filters by attributes in the query; DBOS's SQLite cannot, so there the
        # newest MAX_SCANNED runs are read and filtered here
        pg = self.url.startswith("postgresql")
        rows = self.client().list_workflows(
            name=[INGEST_WORKFLOW, EXTRACT_WORKFLOW], sort_desc=True,
            limit=limit if pg else MAX_SCANNED, attributes=owner if pg else None,
            load_input=False, load_output=False)
        return [_summary(w) for w in rows if _owned(w, principal)][:limit]

    def run(self, principal: Principal, run_id: str) -> dict[str, Any]:
        """Return one of the principal's runs with its step history; NotFound otherwise."""
        if not isinstance(run_id, str) or not run_id or len(run_id) > 200:
            raise NotFound("run", str(run_id)[:200])
        client = self.client()
        rows = client.list_workflows(workflow_ids=[run_id], load_input=False)
        if not rows or not _owned(rows[0], principal):
            raise NotFound("run", run_id)
        w = rows[0]
        counted = attempts(w.attributes)
        steps = []
        for s in client.list_workflow_steps(run_id, load_output=False):
            fid = int(s["function_id"])
            n = counted.pop(fid, {})
            steps.append({"step_id": fid, "step": s["function_name"],
                          "state": "error" if s.get("error") is not None else "done",
                          "started_ms": s.get("started_at_epoch_ms"),
                          "finished_ms": s.get("completed_at_epoch_ms"),
                          "attempts": int(n.get("attempts", 0)),
                          "executor": n.get("executor")})
        for fid, n in sorted(counted.items()):  # started, not recorded: running or cut short
            steps.append({"step_id": fid, "step": n.get("step"),
                          "state": "running" if w.status == "PENDING" else "interrupted",
                          "started_ms": n.get("started_ms"), "finished_ms": None,
                          "attempts": int(n.get("attempts", 0)), "executor": n.get("executor")})
        out = {**_summary(w), "steps": steps}
        if w.status == "SUCCESS":
            out["result"] = w.output
        elif w.error is not None:
            out["error"] = str(w.error)
        return out

    def depth(self) -> dict[tuple[str, str], int]:
        """Return how many runs of every principal wait or run, by (queue, status):
        `ENQUEUED` not yet taken by a worker, `PENDING` being run (the operator's gauge; at
        most MAX_SCANNED counted). A store whose runs database does not exist yet has none."""
        waiting = ("ENQUEUED", "PENDING")
        out = {(q, s): 0 for q in QUEUES for s in waiting}
        if self.url.startswith("sqlite:///") and not Path(self.url[len("sqlite:///"):]).exists():
            return out
        rows = self.client().list_workflows(
            name=[INGEST_WORKFLOW, EXTRACT_WORKFLOW], status=list(waiting),
            limit=MAX_SCANNED, load_input=False, load_output=False)
        for w in rows:
            key = (str(w.queue_name), str(w.status))
            if key in out:
                out[key] += 1
        return out

    def check_worker(self, queues: Sequence[str] | str, *, beat: float = 2.0,
                     lease: float = 30.0, poll: float = 1.0) -> tuple[str, ...]:
        """Return the queue names given, each checked; raise UsageError for a bad queue
        name or a timing that is not a number of seconds in bounds."""
        names = check_queues(queues)
        for what, v in (("--beat", beat), ("--lease", lease), ("--poll", poll)):
            if not (isinstance(v, int | float) and 0.01 <= v <= 3600):
                raise UsageError(f"{what} must be a number of seconds between 0.01 and 3600")
        if lease <= beat:
            raise UsageError("--lease must be longer than --beat (else live workers look dead)")
        return names

    def work(self, queues: Sequence[str] | str, *, drain: bool = False, beat: float = 2.0,
             lease: float = 30.0, poll: float = 1.0,
             stop: threading.Event | None = None) -> dict[str, Any]:
        """Run this store's queued runs in this process (`worker.work`); return a summary."""
        from .engine import migrate
        from .worker import work

        names = self.check_worker(queues, beat=beat, lease=lease, poll=poll)
        migrate(self.url)
        return work(self.store, self.url, names, drain=drain, beat=beat, lease=lease,
                    poll=poll, stop=stop)


def _owned(w: Any, principal: Principal) -> bool:
    a = w.attributes or {}
    return a.get("tenant") == principal.tenant and a.get("user") == principal.subject


def _summary(w: Any) -> dict[str, Any]:
    a = w.attributes or {}
    return {"run_id": w.workflow_id, "kind": a.get("kind"), "status": w.status,
            "queue": w.queue_name, "executor": w.executor_id, "created_ms": w.created_at,
            "updated_ms": w.updated_at, "completed_ms": w.completed_at,
            "heartbeat_ms": a.get("heartbeat_ms"), "tenant": a.get("tenant"),
            "user": a.get("user"),
            **{k: a[k] for k in ("files", "docs") if k in a}}
