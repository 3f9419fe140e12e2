"""`pincite db upgrade`: create or migrate a store's schema and say which versions it went
between, on either backend.

PostgreSQL runs its versioned migrations as the URL's own role (the tables' owner) under
an advisory lock, then puts the tenant wall up (`postgres.pg_backend.upgrade`). A SQLite
store migrates itself whenever it is opened; here the file's version is read first, so
the same command reports it, and a missing store is created.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import StoreDamaged, StoreError, UsageError


@dataclass(frozen=True, slots=True)
class SchemaUpgrade:
    """What an upgrade did: the store (a path, or a URL without its password), its
    backend, and the schema version before and after."""

    store: str
    backend: str
    before: int
    after: int

    def to_dict(self) -> dict[str, Any]:
        """Return the upgrade as a JSON object."""
        return {"store": self.store, "backend": self.backend, "before": self.before,
                "after": self.after, "changed": self.before != self.after}


def _sqlite_version(db: Path) -> int:
    """Return the `user_version` of a SQLite file (0 when it does not exist)."""
    if not db.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            return int(conn.execute("PRAGMA user_version").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreDamaged(db, str(exc)) from None


def upgrade_store(url: str | Path, *, app_login: str | None = None) -> SchemaUpgrade:
    """Create or migrate the schema of the store at `url` (a directory → SQLite,
    `postgresql://…` → PostgreSQL, with `app_login` made the login its service and workers
    connect as); return the versions before and after."""
    text = str(url)
    if app_login is not None and "://" not in text:
        raise UsageError("--app-login names a PostgreSQL role: a SQLite store has no roles")
    if "://" in text:
        scheme = text.split("://", 1)[0]
        if scheme not in ("postgresql", "postgres"):
            raise UsageError(f"unknown store URL scheme {scheme!r}: use a directory path "
                             "or a postgresql:// URL")
        from .postgres.pg_backend import upgrade
        from .postgres.pg_connection import redact

        before, after = upgrade(text, app_login=app_login)
        return SchemaUpgrade(redact(text), "postgresql", before, after)
    from .sqlite.backend import MIGRATIONS, SQLiteStore

    root = Path(text)
    before = _sqlite_version(root / "pincite.db")
    store = SQLiteStore(root, create=True)
    try:
        after = _sqlite_version(store.db_path)
    finally:
        store.close()
    if after != len(MIGRATIONS):  # pragma: no cover - SQLiteStore migrates or raises
        raise StoreError(f"the store at {root} is at schema version {after}, not {len(MIGRATIONS)}")
    return SchemaUpgrade(str(root), "sqlite", before, after)
