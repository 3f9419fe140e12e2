"""How this backend opens PostgreSQL, runs a transaction for a tenant and migrates.

A transaction names the tenant it acts for (`pincite.tenant`, a transaction-local
setting the row-level-security policies compare each row's tenant with, for equality).
Maintenance that spans tenants (`ALL_TENANTS`) names no tenant: it switches to the
maintenance role for that transaction only (`SET LOCAL ROLE pincite_maint`). Every
connection acts as the application role (`SET ROLE pincite_app`): not the owner of the
tables, so the policies apply to it (see `pg_security_sql`). `session_problem` says when
the login itself could leave the wall (`RESET ROLE` to an owner or superuser).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

from ...errors import SchemaTooNew, StoreBusy, StoreError

ALL_TENANTS = "*"  # a name no tenant has (`check_name`): the transaction acts as MAINT_ROLE
APP_ROLE = "pincite_app"
MAINT_ROLE = "pincite_maint"
# One advisory lock key for schema changes, so two machines upgrading at once take turns.
MIGRATION_LOCK = 0x70696E63

# A migration is a SQL script, or a function run inside the migration's transaction.
PgMigration = str | Callable[[Any], object]  # a statement, or a step run with the connection


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the dependency is declared
        raise StoreError("the PostgreSQL backend needs psycopg: pip install 'psycopg[binary]'"
                         ) from exc
    return psycopg


def redact(url: str) -> str:
    """Return `url` with any password (in its user part or a `password=` parameter)
    replaced by `***` (for messages and logs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<an unreadable store URL>"
    userinfo, at, hostinfo = parts.netloc.rpartition("@")
    if at and ":" in userinfo:
        userinfo = userinfo.split(":", 1)[0] + ":***"
    netloc = f"{userinfo}{at}{hostinfo}"
    query = "&".join(re.sub(r"^(password)=.*$", r"\1=***", q, flags=re.IGNORECASE)
                     for q in parts.query.split("&")) if parts.query else ""
    return urlunsplit(parts._replace(netloc=netloc, query=query))


def scrub(text: str, url: str) -> str:
    """Return `text` (a driver's message about `url`) with the URL's password removed."""
    try:
        secret = urlsplit(url).password
    except ValueError:
        secret = None
    for value in {secret, unquote(secret or "")} - {None, ""}:
        text = text.replace(str(value), "***")
    return text


def connect(url: str, *, role: str | None = APP_ROLE) -> Any:
    """Return an autocommit psycopg connection to `url`, acting as `role` when given."""
    psycopg = _psycopg()
    try:
        conn = psycopg.connect(url, autocommit=True, connect_timeout=10)
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to {redact(url)}: {scrub(str(exc).strip(), url)}; "
                         "check the URL and that the server is running") from exc
    if role:
        try:
            conn.execute(f"SET ROLE {role}")
        except psycopg.Error as exc:
            conn.close()
            raise StoreError(f"cannot act as role {role} on {redact(url)}: "
                             f"{scrub(str(exc).strip(), url)}; "
                             "run `pincite --store URL db upgrade` first") from exc
    return conn


@contextmanager
def transaction(conn: Any, tenant: str = ALL_TENANTS, *, read_only: bool = False
                ) -> Iterator[Any]:
    """Run a block in one transaction acting for `tenant`: all of it commits, or none."""
    psycopg = _psycopg()
    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        # Re-entrant: an inner block joins the outer transaction (and its tenant).
        yield conn
        return
    try:
        with conn.transaction():
            if read_only:
                conn.execute("SET TRANSACTION READ ONLY")
            act_for(conn, tenant)
            yield conn
    except psycopg.errors.LockNotAvailable as exc:
        raise StoreBusy(str(exc).strip()) from exc
    except psycopg.errors.SerializationFailure as exc:
        raise StoreBusy(str(exc).strip()) from exc


def act_for(conn: Any, tenant: str) -> None:
    """Make the open transaction act for `tenant` (the wall compares each row's tenant with
    it), or for every tenant as the maintenance role when `tenant` is `ALL_TENANTS`."""
    if tenant == ALL_TENANTS:
        conn.execute(f"SET LOCAL ROLE {MAINT_ROLE}")
    else:
        conn.execute("SELECT set_config('pincite.tenant', %s, true)", (tenant,))


SQL_SESSION = (
    "SELECT r.rolsuper, r.rolbypassrls, EXISTS (SELECT 1 FROM pg_tables t WHERE "
    "t.schemaname = current_schema() AND pg_has_role(session_user, t.tableowner, 'MEMBER')) "
    "FROM pg_roles r WHERE r.rolname = session_user")


def session_problem(conn: Any) -> str | None:
    """Return why the connection's login could act past the tenant wall (a superuser, a
    role that bypasses row-level security, or the tables' owner or a member of it: each
    can `RESET ROLE` to itself), or None for a login that cannot."""
    row = conn.execute(SQL_SESSION).fetchone()
    if row is None:  # pragma: no cover - the session user always has a row
        return "is not a role the server lists"
    if row[0]:
        return "is a superuser"
    if row[1]:
        return "bypasses row-level security (BYPASSRLS)"
    if row[2]:
        return "owns the tables (or is a member of their owner)"
    return None


def schema_version(conn: Any) -> int:
    """Return the schema version recorded in the database (0: an empty database)."""
    row = conn.execute("SELECT to_regclass('pincite_schema')").fetchone()
    if row[0] is None:
        return 0
    return int(conn.execute("SELECT max(version) FROM pincite_schema").fetchone()[0] or 0)


def statements(script: str) -> list[str]:
    """Return the statements of a migration script (no `$$` bodies hold a bare `;`)."""
    out, buf, quoted = [], "", False
    for piece in re.split(r"(\$\$|;)", script):
        if piece == "$$":
            quoted = not quoted
        if piece == ";" and not quoted:
            if buf.strip():
                out.append(buf.strip())
            buf = ""
            continue
        buf += piece
    if buf.strip():
        out.append(buf.strip())
    return out


def migrate(conn: Any, migrations: Sequence[PgMigration], at: str) -> tuple[int, int]:
    """Apply the migrations past the database's version (as the owner, under an advisory
    lock); refuse a newer database. Returns (version before, version after)."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS pincite_schema ("
                     "version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)")
        before = schema_version(conn)
        if before > len(migrations):
            raise SchemaTooNew(before, len(migrations))
        for i in range(before, len(migrations)):
            step = migrations[i]
            if callable(step):
                step(conn)
            else:
                for stmt in statements(step):
                    conn.execute(stmt)
            conn.execute("INSERT INTO pincite_schema (version, applied_at) VALUES (%s, %s)",
                         (i + 1, at))
    return before, len(migrations)
