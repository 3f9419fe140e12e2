"""The PostgreSQL schema: versioned migrations, the app role, and the tenant wall (RLS)."""

from __future__ import annotations

import psycopg
import pytest

from pincite.errors import SchemaTooNew
from pincite.store.postgres.pg_backend import upgrade
from pincite.store.postgres.pg_connection import APP_ROLE, connect, schema_version, transaction
from pincite.store.postgres.pg_schema import PG_MIGRATIONS


def test_upgrade_creates_then_is_a_no_op(pg_server):
    url = pg_server.fresh_database(migrated=False)
    assert upgrade(url) == (0, len(PG_MIGRATIONS))
    assert upgrade(url) == (len(PG_MIGRATIONS), len(PG_MIGRATIONS))


def test_a_newer_database_is_refused(pg_url):
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO pincite_schema (version, applied_at) VALUES (%s, 'x')",
                  (len(PG_MIGRATIONS) + 1,))
    with pytest.raises(SchemaTooNew):
        upgrade(pg_url)


def test_the_app_role_is_not_the_owner_and_the_wall_is_forced(pg_url):
    conn = connect(pg_url)
    try:
        assert conn.execute("SELECT current_user").fetchone()[0] == APP_ROLE
        rows = conn.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity, pg_get_userbyid(relowner) "
            "FROM pg_class WHERE relname IN ('sources', 'revisions', 'blobs')").fetchall()
        assert len(rows) == 3
        for _, enabled, forced, owner in rows:
            assert enabled and forced and owner != APP_ROLE
        assert schema_version(conn) == len(PG_MIGRATIONS)
    finally:
        conn.close()


def test_a_query_without_a_tenant_filter_sees_only_its_tenant(pg_url):
    conn = connect(pg_url)
    try:
        for tenant in ("acme", "globex"):
            with transaction(conn, tenant) as c:
                c.execute("INSERT INTO sources (tenant, source_id, acl, created_at) "
                          "VALUES (%s, 'a.pdf', '[]', 'now')", (tenant,))
        with transaction(conn, "acme") as c:
            assert c.execute("SELECT tenant FROM sources").fetchall() == [("acme",)]
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute("INSERT INTO sources (tenant, source_id, acl, created_at) "
                          "VALUES ('globex', 'b.pdf', '[]', 'now')")
        # No tenant named: nothing is visible.
        assert conn.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
        with transaction(conn) as c:
            assert c.execute("SELECT count(*) FROM sources").fetchone()[0] == 2
    finally:
        conn.close()
