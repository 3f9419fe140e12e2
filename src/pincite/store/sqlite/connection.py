"""The one way this backend opens a SQLite file, runs a transaction and applies migrations.

The store's database and the embedding cache beside it both go through here, so they
share the same pragmas, busy handling and schema-version check.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from ...errors import SchemaTooNew, StoreBusy, StoreDamaged, StoreError
from ..private import private_file

# SQLite's result codes for a file whose pages or header are not a sound database.
DAMAGE_CODES = (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB)


def is_damage(exc: sqlite3.Error) -> bool:
    """Return True when `exc` says the database file itself is damaged."""
    return ((getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF) in DAMAGE_CODES


def connect(path: Path, *, busy_timeout: float = 30.0, synchronous: str = "FULL",
            check_same_thread: bool = True) -> sqlite3.Connection:
    """Return an autocommit connection to `path` in WAL mode with foreign keys on; a new
    database file is made 0600 first (its -wal and -shm follow its mode)."""
    try:
        if path != ":memory:" and not str(path).startswith("file:"):
            private_file(Path(path))
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


# A migration is a SQL script, or a function run inside the migration's transaction.
Migration = str | Callable[[sqlite3.Connection], None]


def widen_check(conn: sqlite3.Connection, table: str, column: str, values: str) -> None:
    """Let `table.column`'s `CHECK (column IN (…))` accept `values` (a SQL list): a closed
    vocabulary grew. SQLite's documented way for a change that leaves the file's format
    as it is (the schema text is rewritten, the schema version bumped, then checked)."""
    row = conn.execute("SELECT sql FROM sqlite_schema WHERE type='table' AND name=?",
                       (table,)).fetchone()
    if row is None:
        return
    pattern = re.compile(rf"CHECK \({column} IN \([^)]*\)\)")
    sql = pattern.sub(lambda _: f"CHECK ({column} IN ({values}))", row[0], count=1)
    if sql == row[0]:
        return
    version = conn.execute("PRAGMA schema_version").fetchone()[0]
    conn.execute("PRAGMA writable_schema=ON")
    try:
        conn.execute("UPDATE sqlite_schema SET sql=? WHERE type='table' AND name=?", (sql, table))
        conn.execute(f"PRAGMA schema_version={int(version) + 1}")
    finally:
        conn.execute("PRAGMA writable_schema=OFF")
    problems = [r[0] for r in conn.execute("PRAGMA integrity_check")]
    if problems != ["ok"]:
        raise StoreError(f"widening the check of {table}.{column} failed: {problems[:3]}")


def migrate(conn: sqlite3.Connection, migrations: Sequence[Migration]) -> None:
    """Apply the migrations past the file's `user_version`; refuse a newer file."""
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version > len(migrations):
        raise SchemaTooNew(version, len(migrations))
    if version == len(migrations):
        return
    with transaction(conn) as c:
        version = c.execute("PRAGMA user_version").fetchone()[0]
        for i in range(version, len(migrations)):
            step = migrations[i]
            if callable(step):
                step(c)
                continue
            for stmt in statements(step):
                c.execute(stmt)
        c.execute(f"PRAGMA user_version={len(migrations)}")


def vacuum(conn: sqlite3.Connection) -> None:
    """Rewrite a database with secure_delete on and truncate its WAL."""
    conn.execute("PRAGMA secure_delete=ON")
    conn.execute("VACUUM")
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
