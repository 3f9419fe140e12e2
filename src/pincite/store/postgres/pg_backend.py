"""The PostgreSQL store: one database shared by every worker, acting as the app role.

Connections are per thread (like the SQLite backend's); each transaction names the
tenant it acts for, which the row-level-security wall checks (`pg_security_sql`).
"""

from __future__ import annotations

import hashlib
import os
import threading
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...errors import SchemaTooOld, StoreDamaged, StoreMissing
from ..private import private_dir
from .pg_blobs import PgBlobStore
from .pg_connection import (
    ALL_TENANTS,
    connect,
    migrate,
    redact,
    schema_version,
    session_problem,
    transaction,
)
from .pg_index import PgIndexTables
from .pg_records import PgRecordTables
from .pg_review import PgReviewTables
from .pg_schema import PG_MIGRATIONS
from .pg_security_sql import app_login as make_app_login
from .pg_security_sql import secure
from .pg_sources import PgSourceTables


def cache_root(url: str) -> Path:
    """Return this machine's directory for files derived from the database at `url`
    (`$PINCITE_CACHE`, else `~/.cache/pincite`, one folder per database)."""
    base = Path(os.environ.get("PINCITE_CACHE") or Path.home() / ".cache" / "pincite")
    return base / ("pg-" + hashlib.sha256(redact(url).encode()).hexdigest()[:16])


def upgrade(url: str, *, app_login: str | None = None) -> tuple[int, int]:
    """Create or migrate the schema at `url` (as the URL's own role, the tables' owner)
    and put the security wall up; with `app_login`, make that the login the service and
    workers connect as (`pg_security_sql.app_login`). Return (version before, after)."""
    conn = connect(url, role=None)
    try:
        at = datetime.now(UTC).isoformat(timespec="seconds")
        before, after = migrate(conn, PG_MIGRATIONS, at)
        with conn.transaction():
            secure(conn)
            if app_login is not None:
                make_app_login(conn, app_login)
        return before, after
    finally:
        conn.close()


def _version(url: str) -> int:
    """Return the schema version at `url`, read as the URL's role (the owner, on a database
    it may still have to create the schema in), else as the app role (an app login, which
    holds no right of its own)."""
    import psycopg

    probe = connect(url, role=None)
    try:
        return schema_version(probe)
    except psycopg.errors.InsufficientPrivilege:
        pass
    finally:
        probe.close()
    probe = connect(url)
    try:
        return schema_version(probe)
    finally:
        probe.close()


class PostgresStore(PgSourceTables, PgIndexTables, PgRecordTables, PgReviewTables):
    """Metadata, text layers, blobs and index tables in a PostgreSQL database."""

    backend = "postgresql"

    def __init__(self, url: str, *, create: bool = True, root: Path | None = None) -> None:
        self.url = url
        version = _version(url)
        if version == 0 and not create:
            raise StoreMissing(redact(url))
        if version < len(PG_MIGRATIONS):
            if version and not create:
                raise SchemaTooOld(redact(url), version, len(PG_MIGRATIONS))
            upgrade(url)
        self.root = root or cache_root(url)
        private_dir(self.root)
        self.blobs = PgBlobStore(self._tenant_tx, "accepted")
        self.quarantine_blobs = PgBlobStore(self._tenant_tx, "quarantine")
        self._local = threading.local()
        self._opened: list[Any] = []  # every thread's connection, so `close` ends them all
        self._opened_lock = threading.Lock()
        # A store dropped without `close()` (a worker thread's, a test's) still ends them.
        weakref.finalize(self, _close_all, self._opened, self._opened_lock)

    # ---- connection and transactions ----------------------------------------------

    @property
    def conn(self) -> Any:
        """Return this thread's connection (opened on first use, acting as the app role;
        closed when the thread ends, or by `close`)."""
        held = getattr(self._local, "held", None)
        if held is None or held.conn.closed:
            held = _Held(connect(self.url))
            weakref.finalize(held, held.conn.close)  # the thread's end drops `held`
            self._local.held = held
            with self._opened_lock:
                self._opened[:] = [c for c in self._opened if not c.closed] + [held.conn]
        return held.conn

    def write(self, tenant: str = ALL_TENANTS) -> Any:
        """Run a block in one transaction for `tenant`: all of it commits, or none of it."""
        return transaction(self.conn, tenant)

    @contextmanager
    def read(self, tenant: str = ALL_TENANTS) -> Iterator[Any]:
        """Run a block of reads on one snapshot for `tenant`; re-entrant."""
        with transaction(self.conn, tenant) as c:
            yield c

    def wall_problem(self) -> str | None:
        """Return why this store's login could act past the tenant wall (see
        `pg_connection.session_problem`), or None: a worker refuses to start on one."""
        return session_problem(self.conn)

    def _tenant_tx(self, tenant: str) -> Any:
        return transaction(self.conn, tenant)

    def damage(self, exc: BaseException) -> StoreDamaged | None:
        """Return the `StoreDamaged` that `exc` means when the database reports corrupt
        data (SQLSTATE class XX: data_corrupted, index_corrupted), else None."""
        sqlstate = getattr(exc, "sqlstate", None) or ""
        if sqlstate in ("XX001", "XX002"):
            return StoreDamaged(redact(self.url), str(exc))
        return None

    def close(self) -> None:
        """Close the connections every thread opened through this store (a later call
        opens a new one)."""
        _close_all(self._opened, self._opened_lock)
        self._local.held = None


class _Held:
    """A thread's connection, held by that thread's locals only."""

    __slots__ = ("__weakref__", "conn")

    def __init__(self, conn: Any) -> None:
        self.conn = conn


def _close_all(opened: list[Any], lock: threading.Lock) -> None:
    """Close and forget every connection in `opened`."""
    with lock:
        conns = list(opened)
        opened.clear()
    for conn in conns:
        conn.close()
