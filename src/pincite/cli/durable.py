"""Durable runs: `pincite worker` carries out queued runs, `pincite runs` shows them."""

from __future__ import annotations

import signal
import threading
from datetime import UTC, datetime
from typing import Annotated, Any

import typer

from .context import emit, errors, library, principal, shown, store_url
from .options import AsOpt, JsonOpt, StoreOpt


def register(app: typer.Typer) -> None:
    """Add `worker` and `runs` to `app`."""
    app.command("worker")(worker)
    app.command("runs")(runs)


def worker(
    queues: Annotated[str, typer.Option(
        "--queues", help="Queues to take runs from, comma-separated: ingest, extract.")
    ] = "ingest,extract",
    drain: Annotated[bool, typer.Option(
        "--drain", help="Exit once no run of these queues is queued or pending (a dead "
        "worker's runs are taken over first); default: run until interrupted.")] = False,
    beat: Annotated[float, typer.Option(
        "--beat", help="Seconds between heartbeats for the runs this worker holds.")] = 2.0,
    lease: Annotated[float, typer.Option(
        "--lease", help="Seconds without a heartbeat after which another worker's runs are "
        "taken over (resumed from their last recorded step).")] = 30.0,
    poll: Annotated[float, typer.Option(
        "--poll", help="Seconds between looks at the queues.")] = 1.0,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Carry out the runs queued by `ingest --async` and `extract --async` until interrupted.
    Start one on each machine that shares the store's database; a worker killed mid-run is
    replaced by any other, which resumes the run without redoing its finished steps.

    Example: pincite --store postgresql://pincite_worker@db/pincite worker --queues ingest
    """
    from ..errors import UsageError

    stop = threading.Event()
    old = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        with library(store) as lib:
            problem = lib.store.wall_problem()
            if problem:  # the login could RESET ROLE past the tenant wall
                raise UsageError(
                    f"the worker's login {problem}, so it could act past the tenant wall: "
                    "connect workers as the app login (`pincite db upgrade --app-login NAME` "
                    "as the owner, then --store postgresql://NAME@host/db)")
            book = lib.runs(store_url(store))
            book.check_worker(queues, beat=beat, lease=lease, poll=poll)
            if not json_:
                typer.echo(f"worker on queues {queues}; runs recorded in "
                           f"{_where(book.url)}", err=True)
            try:
                summary = book.work(queues, drain=drain, beat=beat, lease=lease, poll=poll,
                                    stop=stop)
            except KeyboardInterrupt:
                summary = {"interrupted": True}
            finally:
                book.close()
    finally:
        signal.signal(signal.SIGTERM, old)
    if json_:
        emit(summary)
    elif summary.get("recovered"):
        typer.echo(f"took over {len(summary['recovered'])} run(s) of stopped workers", err=True)


def runs(
    run_id: Annotated[str | None, typer.Argument(help="A run id (default: list your runs).")] = None,
    limit: Annotated[int, typer.Option("--limit", help="Runs listed, newest first (1-1000).")] = 50,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List your durable runs, or show one with its step history: each step's state,
    start and finish, and how many times its body ran (1 unless a crash cut it short).
    A run is visible only to the principal that enqueued it.

    Example: pincite runs run-0193a0c2d4e5f-8c1d2e3f4a5b --as acme:ann
    """
    with errors(), library(store) as lib:
        book = lib.runs(store_url(store))
        try:
            who = principal(as_)
            if run_id is None:
                rows = book.runs(who, limit=limit)
                if json_:
                    for r in rows:
                        emit(r)
                    return
                for r in rows:
                    typer.echo(f"{r['run_id']}  {r['kind'] or '?':7} {r['status']:9} "
                               f"{_when(r['created_ms'])}")
                if not rows:
                    typer.echo("no runs", err=True)
                return
            run = book.run(who, run_id)
        finally:
            book.close()
    if json_:
        emit(run)
        return
    typer.echo(f"run {run['run_id']}  {run['kind']}  {run['status']}  "
               f"executor {shown(str(run['executor']))}")
    for s in run["steps"]:
        typer.echo(f"  {s['step_id']:4} {shown(str(s['step'])):14} {s['state']:11} "
                   f"attempts {s['attempts']}  {_when(s['started_ms'])} → "
                   f"{_when(s['finished_ms'])}")
    if run.get("error"):
        typer.echo(f"error: {shown(run['error'])}")


def _when(ms: Any) -> str:
    if not ms:
        return "-"
    return datetime.fromtimestamp(int(ms) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _where(url: str) -> str:
    """The system database named without its password."""
    head, sep, tail = url.partition("://")
    return f"{head}{sep}{tail.rpartition('@')[2]}" if "@" in tail else url
