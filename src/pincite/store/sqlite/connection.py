"""The one way this backend opens a SQLite file, runs a transaction and applies migrations.

The store's database and the embedding cache beside it both go through here, so they
share the same pragmas, busy handling and schema-version check.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ...errors import SchemaTooNew, StoreBusy, StoreDamaged, StoreError

# SQLite's result codes for a file whose pages or header are not a sound database.
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def is_damage(exc: sqlite3.Error) -> bool:
    """Return True when `exc` says the database file itself is damaged."""
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in DAMAGE_CODES


def connect(path: Path, *, busy_timeout: float = 30.0, synchronous: str = "FULL",
            check_same_thread: bool = True) -> sqlite3.Connection:
    """Return an autocommit connection to `path` in WAL mode with foreign keys on."""
    try:
        conn = sqlite3.connect(path, timeout=busy_timeout, isolation_level=None,
                               check_same_thread=check_same_thread)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
    except sqlite3.Error as exc:
        if is_damage(exc):
            raise StoreDamaged(path, str(exc)) from exc
        raise StoreError(f"cannot open {path}: {exc}") from exc
    return conn


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """Run a block in one IMMEDIATE transaction: all of it commits, or none of it."""
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc) or "busy" in str(exc):
            raise StoreBusy(str(exc)) from exc
        raise
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    else:
        conn.execute("COMMIT")


def statements(script: str) -> list[str]:
    """Return the complete statements of a migration script (trigger bodies hold ';')."""
    out: list[str] = []
    buf = ""
    for piece in script.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n\t;"):
                out.append(buf.strip())
            buf = ""
    if buf.strip(" \n\t;"):
        raise StoreError("incomplete statement in a migration")
    return out


def migrate(conn: sqlite3.Connection, migrations: Sequence[str]) -> None:
    """Apply the migrations past the file's `user_version`; refuse a newer file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(migrations):
        raise SchemaTooNew(version, len(migrations))
    if version == len(migrations):
        return
    with transaction(conn) as c:
        version = c.execute("PRAGMA user_version").fetchone()[0]
        for i in range(version, len(migrations)):
            for stmt in statements(migrations[i]):
                c.execute(stmt)
        c.execute(f"PRAGMA user_version={len(migrations)}")


def vacuum(conn: sqlite3.Connection) -> None:
    """Rewrite a database with secure_delete on and truncate its WAL."""
    conn.execute("PRAGMA secure_delete=ON")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
