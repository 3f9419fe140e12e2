"""The second wall: the application role and row-level security on every tenant table.

The tables belong to the role that ran the migrations; the application acts as
`pincite_app` (`pg_connection.connect` runs `SET ROLE`), which is not their owner, and
`FORCE ROW LEVEL SECURITY` is on besides. Every table with a `tenant` column gets one
policy: a row is visible and writable only when its tenant is the transaction's
`pincite.tenant` setting, or when that setting is `*` (maintenance that spans tenants:
generation builds, fsck). A transaction that names no tenant sees no tenant row at all.
So a query that forgets its `WHERE tenant = …` still sees only its own tenant's rows.

`secure(conn)` is idempotent; the migrator runs it after every upgrade, so tables added
by later migrations are covered too.
"""

from __future__ import annotations

from typing import Any

from .pg_connection import APP_ROLE

POLICY = "pincite_tenant_wall"

SQL_CREATE_ROLE = f"""
DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{APP_ROLE}') THEN
        CREATE ROLE {APP_ROLE} NOLOGIN NOSUPERUSER NOBYPASSRLS;
    END IF;
END
$$
"""
SQL_TENANT_TABLES = (
    "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
    "JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant' AND NOT a.attisdropped "
    "WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') ORDER BY c.relname"
)
SQL_HAS_POLICY = "SELECT 1 FROM pg_policies WHERE schemaname = current_schema() AND tablename = %s AND policyname = %s"
WALL = ("tenant = current_setting('pincite.tenant', true) "
        "OR current_setting('pincite.tenant', true) = '*'")


def secure(conn: Any) -> list[str]:
    """Create the application role, grant it the tables, and put the tenant wall on every
    table with a `tenant` column; return the tables walled."""
    conn.execute(SQL_CREATE_ROLE)
    conn.execute(f"GRANT {APP_ROLE} TO current_user")
    conn.execute(f"GRANT USAGE ON SCHEMA public TO {APP_ROLE}")
    conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {APP_ROLE}")
    conn.execute(f"GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO {APP_ROLE}")
    # The purge's VACUUM FULL (`PgUpkeep.secure_vacuum`) without owning the tables.
    conn.execute(f"GRANT MAINTAIN ON ALL TABLES IN SCHEMA public TO {APP_ROLE}")
    walled = [r[0] for r in conn.execute(SQL_TENANT_TABLES).fetchall()]
    for table in walled:
        conn.execute(f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY')
        conn.execute(f'ALTER TABLE "{table}" FORCE ROW LEVEL SECURITY')
        if conn.execute(SQL_HAS_POLICY, (table, POLICY)).fetchone() is None:
            conn.execute(f'CREATE POLICY {POLICY} ON "{table}" TO {APP_ROLE} '
                         f"USING ({WALL}) WITH CHECK ({WALL})")
    return walled
