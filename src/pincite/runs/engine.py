"""Where runs are recorded and how a process joins them: the DBOS system database.

A store given as a directory (the embedded SQLite store) records its runs in
`<store>/runs.sqlite`; a store given as `postgresql://…` records them in the `dbos` schema
of that same database. `$PINCITE_RUNS_DB` (or `runs_db=`) names another system database.

Two kinds of process use it. A *worker* (`launch_worker`) constructs the process's one
DBOS instance with its own executor id, listens to some queues and runs the workflows it
dequeues. Any other process (the CLI that enqueues, `pincite runs`) opens a `DBOSClient`
(`open_client`), which only reads and writes the system database and runs nothing.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import MissingExtra, UsageError
from ..store.private import private_sqlite
from ..store.runs_database import ENV_RUNS_DB, RUNS_FILENAME, check_db_url

APP_NAME = "pincite"
# Workflows recorded by one version are resumed only by workers of the same version: a
# step list that changed shape must not replay another's recorded outputs. Bump it when a
# workflow's step sequence, or the shape of a step's output, changes (2: `parse` and the
# extraction steps record references to staged copies, no longer text layers and records).
APP_VERSION = "pincite-runs-2"
QUEUES = ("ingest", "extract")
INGEST_WORKFLOW = "pincite.ingest"
EXTRACT_WORKFLOW = "pincite.extract"


def _dbos() -> Any:
    """Return the `dbos` module, or raise MissingExtra naming the extra."""
    try:
        import dbos
    except ImportError:  # pragma: no cover - the extra is installed in development
        raise MissingExtra("dbos", "workers") from None
    return dbos


def check_queues(names: Sequence[str] | str) -> tuple[str, ...]:
    """Return the queue names given (a list or `a,b`), each one of `QUEUES`; raise
    UsageError naming a bad one and the valid ones."""
    items = names.split(",") if isinstance(names, str) else list(names)
    out: list[str] = []
    for raw in items:
        name = raw.strip()
        if name not in QUEUES:
            raise UsageError(f"unknown queue {name!r}: use one or more of {', '.join(QUEUES)} "
                             f"(comma-separated, e.g. --queues ingest,extract)")
        if name not in out:
            out.append(name)
    if not out:
        raise UsageError(f"no queue given: use one or more of {', '.join(QUEUES)}")
    return tuple(out)


def system_db_url(store_url: str | Path, runs_db: str | None = None) -> str:
    """Return the URL of the system database that records the runs of the store at
    `store_url` (see the module docstring); raise UsageError for an unknown scheme."""
    given = runs_db or os.environ.get(ENV_RUNS_DB)
    if given:
        return check_db_url(given)
    text = str(store_url)
    if "://" in text:
        return check_db_url(text)
    return f"sqlite:///{Path(text).resolve() / RUNS_FILENAME}"


def new_executor_id() -> str:
    """Return a fresh executor id: host, process id and a random part (two workers on one
    host never share one, so one's recovery never claims the other's runs)."""
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


def migrate(url: str) -> None:
    """Create or upgrade the system database at `url` (idempotent; a SQLite file 0600)."""
    private_sqlite(url)
    _dbos().DBOS.migrate(url)


def open_client(url: str) -> Any:
    """Return a `DBOSClient` on the system database `url`, created first if missing."""
    dbos = _dbos()
    migrate(url)
    return dbos.DBOSClient(system_database_url=url, application_name=APP_NAME)


def launch_worker(url: str, queues: Sequence[str], *, executor_id: str,
                  polling_seconds: float = 1.0) -> Any:
    """Construct and launch this process's DBOS instance as a worker on `queues`; return
    the `DBOS` class (the workflows, `ingest_flow` and `extract_flow`, must have been
    imported before: importing them registers them)."""
    dbos = _dbos()

    config: dict[str, Any] = {
        "name": APP_NAME, "system_database_url": url, "application_version": APP_VERSION,
        "executor_id": executor_id, "log_level": os.environ.get("PINCITE_RUNS_LOG", "WARNING"),
        "notification_listener_polling_interval_sec": min(1.0, polling_seconds),
    }
    private_sqlite(url)
    dbos.DBOS(config=config)
    dbos.DBOS.listen_queues(list(queues))
    dbos.DBOS.launch()
    for name in QUEUES:
        dbos.DBOS.register_queue(name, worker_concurrency=1,
                                 polling_interval_sec=polling_seconds,
                                 on_conflict="always_update")
    return dbos.DBOS


def shutdown_worker() -> None:
    """Destroy this process's DBOS instance (running workflows stay pending: another
    worker, or this one restarted, resumes them)."""
    _dbos().DBOS.destroy(destroy_registry=False)
