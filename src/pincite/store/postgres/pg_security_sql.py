"""The second wall: the application and maintenance roles and row-level security on
every tenant table.

The tables belong to the role that ran the migrations (the owner). Nothing else acts as
the owner:

- `pincite_app` (NOLOGIN, NOSUPERUSER, NOBYPASSRLS) reads and writes rows. On every table
  with a `tenant` column (and on `embeddings`, by its `scope`, which is the tenant) row-level
  security is enabled **and forced**, with one policy for it: a row is visible and writable
  only when its tenant **equals** the transaction's `pincite.tenant` setting. Equality only:
  no value of the setting matches more than one tenant (`*` is a tenant name no tenant can
  have, so it matches nothing), and a transaction that names no tenant sees no row.
- `pincite_maint` (NOLOGIN, NOSUPERUSER, NOBYPASSRLS) does the work that spans tenants
  (index builds, `fsck`, the purge's vacuum, queue depths). Its policy holds only while a
  transaction has switched to it (`SET LOCAL ROLE pincite_maint`, what
  `pg_connection.transaction` does for `ALL_TENANTS`): `current_user = 'pincite_maint'`,
  so a login that may become it does not see every row while acting as itself. A
  generation's HNSW index is DDL, which only the owner may run: `pincite_hnsw_build` and
  `pincite_hnsw_drop` run it as the owner (SECURITY DEFINER, the generation id checked,
  executable by `pincite_maint` only).
- The service and the workers log in as a **login role that is not the owner** (made by
  `pincite db upgrade --app-login NAME`: LOGIN, NOINHERIT, a member of both roles and of
  nothing else), so `RESET ROLE` leaves them with no privilege at all. DBOS, which records
  the durable runs in the same database's `dbos` schema, connects with that login too; the
  schema is made by `db upgrade` and granted to `pincite_app`.

`secure(conn)` is idempotent; the migrator runs it after every upgrade, so tables added
by later migrations are covered too, and a policy of an older definition is replaced.
"""

from __future__ import annotations

import re
from typing import Any

from ...errors import UsageError
from .pg_connection import APP_ROLE, MAINT_ROLE

POLICY = "pincite_tenant_wall"
MAINT_POLICY = "pincite_maintenance"
# tables walled by a column of another name than `tenant` (the embedding cache's scope)
WALL_COLUMNS = {"embeddings": "scope"}

SQL_CREATE_ROLE = """
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN
        CREATE ROLE {role} NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$
"""
SQL_TENANT_TABLES = (
    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant' AND NOT a.attisdropped "
    "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname"
)
SQL_HAS_TABLE = "SELECT to_regclass(%s) IS NOT NULL"
SQL_HAS_SCHEMA = "SELECT 1 FROM pg_namespace WHERE nspname = %s"


def wall(column: str) -> str:
    """The tenant wall's condition on `column`: equality with the transaction's tenant."""
    return f"{column} = current_setting('pincite.tenant', true)"


MAINT = f"current_user = '{MAINT_ROLE}'"

# The HNSW DDL of `pg_dense_sql.hnsw_ddl`, run as the owner for the maintenance role.
SQL_HNSW_FUNCTIONS = ("""
CREATE OR REPLACE FUNCTION pincite_hnsw_build(gen text, dim integer, m integer, ef integer)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF gen !~ '^g[0-9]{6}$' THEN
        RAISE EXCEPTION 'bad generation id %', gen;
    END IF;
    EXECUTE format('DROP INDEX IF EXISTS %I', 'gen_vectors_hnsw_' || gen);
    EXECUTE format('CREATE INDEX %I ON gen_vectors USING hnsw '
                   '((embedding::vector(%s)) vector_ip_ops) '
                   'WITH (m = %s, ef_construction = %s) WHERE gen_id = %L',
                   'gen_vectors_hnsw_' || gen, dim, m, ef, gen);
END
$$
""", """
CREATE OR REPLACE FUNCTION pincite_hnsw_drop(gen text)
RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
    IF gen !~ '^g[0-9]{6}$' THEN
        RAISE EXCEPTION 'bad generation id %', gen;
    END IF;
    EXECUTE format('DROP INDEX IF EXISTS %I', 'gen_vectors_hnsw_' || gen);
END
$$
""")
HNSW_SIGNATURES = ("pincite_hnsw_build(text, integer, integer, integer)",
                   "pincite_hnsw_drop(text)")


def _grant_schema(conn: Any, schema: str, roles: tuple[str, ...] = (APP_ROLE, MAINT_ROLE)
                  ) -> None:
    """Grant `roles` the rows (never the tables) of every table of `schema`."""
    for role in roles:
        conn.execute(f"GRANT USAGE ON SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA {schema} TO {role}")
        conn.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA {schema} TO {role}")
        conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT, INSERT, UPDATE, "
                     f"DELETE ON TABLES TO {role}")
        conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT USAGE, SELECT, UPDATE "
                     f"ON SEQUENCES TO {role}")
        # VACUUM FULL (the purges) and ANALYZE (the builds) without owning the tables
        conn.execute(f"GRANT MAINTAIN ON ALL TABLES IN SCHEMA {schema} TO {role}")
        conn.execute(f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT MAINTAIN ON TABLES "
                     f"TO {role}")


def secure(conn: Any) -> list[str]:
    """Create the application and maintenance roles, grant them the rows, and put the
    tenant wall on every table with a `tenant` column (and `embeddings`); return the
    tables walled."""
    for role in (APP_ROLE, MAINT_ROLE):
        conn.execute(SQL_CREATE_ROLE.format(role=role))
        conn.execute(f"GRANT {role} TO current_user")
    _grant_schema(conn, "public")
    if conn.execute(SQL_HAS_SCHEMA, ("dbos",)).fetchone() is not None:
        _grant_schema(conn, "dbos")  # the durable runs (no tenant column: DBOS's own tables)
    for sql in SQL_HNSW_FUNCTIONS:
        conn.execute(sql)
    for sig in HNSW_SIGNATURES:
        conn.execute(f"REVOKE ALL ON FUNCTION {sig} FROM PUBLIC")
        conn.execute(f"GRANT EXECUTE ON FUNCTION {sig} TO {MAINT_ROLE}")
    walled = {r[0]: "tenant" for r in conn.execute(SQL_TENANT_TABLES).fetchall()}
    walled.update({t: c for t, c in WALL_COLUMNS.items()
                   if conn.execute(SQL_HAS_TABLE, (t,)).fetchone()[0]})
    for table, column in sorted(walled.items()):
        conn.execute(f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY')
        conn.execute(f'ALTER TABLE "{table}" FORCE ROW LEVEL SECURITY')
        for name in (POLICY, MAINT_POLICY):  # replaced, so an older definition goes
            conn.execute(f'DROP POLICY IF EXISTS {name} ON "{table}"')
        conn.execute(f'CREATE POLICY {POLICY} ON "{table}" TO {APP_ROLE} '
                     f"USING ({wall(column)}) WITH CHECK ({wall(column)})")
        conn.execute(f'CREATE POLICY {MAINT_POLICY} ON "{table}" TO {MAINT_ROLE} '
                     f"USING ({MAINT}) WITH CHECK ({MAINT})")
    return sorted(walled)


LOGIN_RE = re.compile(r"[a-z_][a-z0-9_]{0,62}")
SQL_ROLE = "SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = %s"


def app_login(conn: Any, name: str) -> None:
    """Make `name` the login the service and the workers connect as: LOGIN, NOINHERIT, not
    superuser, no BYPASSRLS, a member of the application and maintenance roles only (a
    role of that name that exists already is made so, its password kept). Raise UsageError
    for a name that is not a plain role name or a role that owns the tables."""
    if not isinstance(name, str) or not LOGIN_RE.fullmatch(name) or name.startswith("pg_") \
            or name in (APP_ROLE, MAINT_ROLE):
        raise UsageError(f"invalid app login {str(name)[:80]!r}: give a role name of lowercase "
                         "letters, digits and '_' (not pg_…, not pincite_app or pincite_maint)")
    owner = conn.execute("SELECT tableowner FROM pg_tables WHERE schemaname = current_schema() "
                         "AND tablename = 'sources'").fetchone()
    if owner is not None and owner[0] == name:
        raise UsageError(f"{name} owns the tables: the app login must be another role, so it "
                         "cannot act as the owner (RESET ROLE) past the tenant wall")
    if conn.execute(SQL_ROLE, (name,)).fetchone() is None:
        conn.execute(f"CREATE ROLE {name} LOGIN NOINHERIT NOSUPERUSER NOBYPASSRLS NOCREATEDB "
                     "NOCREATEROLE")
    else:
        conn.execute(f"ALTER ROLE {name} LOGIN NOINHERIT NOSUPERUSER NOBYPASSRLS NOCREATEDB "
                     "NOCREATEROLE")
    for role in (APP_ROLE, MAINT_ROLE):
        conn.execute(f"GRANT {role} TO {name}")
    if conn.execute(SQL_HAS_SCHEMA, ("dbos",)).fetchone() is not None:
        _grant_schema(conn, "dbos", (name,))  # DBOS connects as the login itself
