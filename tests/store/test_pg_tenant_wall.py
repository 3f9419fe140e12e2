"""PostgreSQL's tenant wall holds for equality only (issue 25).

- No value of `pincite.tenant` matches more than one tenant: `*` used to match every
  tenant; now it matches none, and cross-tenant maintenance acts as its own role
  (`pincite_maint`, switched to for one transaction) whose rows a login acting as itself
  never sees.
- `embeddings` is behind the wall (by `scope`, its tenant), forced like every other table.
- The service and workers log in as a role that is not the owner (`db upgrade
  --app-login`): `RESET ROLE` leaves it with no privilege; a worker refuses to start as the
  owner; DBOS records runs through that login.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest

import pincite
from pincite.model import Principal
from pincite.store.postgres.pg_backend import upgrade
from pincite.store.postgres.pg_connection import connect, transaction
from pincite.store.postgres.pg_embeddings import PgEmbeddings
from tests.commands import invoke, run_cli
from tests.corpus import EMB, TERMS_EN, add, doc_ids, publish
from tests.pg_server import APP_LOGIN


def as_login(url: str, name: str = APP_LOGIN) -> str:
    """Return `url` logging in as `name` (the test server trusts local logins)."""
    parts = urlsplit(url)
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{name}@{host}"))


def owner_sql(url: str, sql: str, params: tuple = ()) -> list[tuple]:
    with psycopg.connect(url, autocommit=True) as c:
        cur = c.execute(sql, params)
        return cur.fetchall() if cur.description else []


def _two_tenants(url: str) -> None:
    with pincite.open(url, create=True) as lib:
        add(lib, "terms.md", TERMS_EN, tenant="acme")
        add(lib, "other.md", TERMS_EN, tenant="globex")
        publish(lib)


def _seen(conn, tenant: str, sql: str) -> list:
    with transaction(conn, tenant) as c:
        return [r[0] for r in c.execute(sql).fetchall()]


def test_the_wall_matches_one_tenant_and_star_matches_none(pg_url):
    _two_tenants(pg_url)
    conn = connect(pg_url)  # acting as pincite_app
    try:
        assert _seen(conn, "acme", "SELECT tenant FROM sources") == ["acme"]
        for setting in ("*", "", "%", "acme' OR 'x'='x"):
            with conn.transaction():
                conn.execute("SELECT set_config('pincite.tenant', %s, true)", (setting,))
                assert conn.execute("SELECT count(*) FROM sources").fetchone()[0] == 0, setting
                assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0, setting
        conn.execute("SET pincite.tenant = '*'")  # a session setting, outside any transaction
        assert conn.execute("SELECT count(*) FROM revisions").fetchone()[0] == 0
        with conn.transaction():  # the maintenance role, for one transaction only
            conn.execute("SET LOCAL ROLE pincite_maint")
            assert sorted(r[0] for r in conn.execute("SELECT tenant FROM sources")) == [
                "acme", "globex"]
        assert conn.execute("SELECT current_user").fetchone()[0] == "pincite_app"
        assert conn.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
    finally:
        conn.close()
    policies = owner_sql(pg_url, "SELECT tablename, policyname, qual, with_check FROM pg_policies")
    assert policies and all("'*'" not in (q or "") + (w or "") for _t, _p, q, w in policies)
    walls = {t for t, p, _q, _w in policies if p == "pincite_tenant_wall"}
    assert {"sources", "chunks", "gen_vectors", "embeddings"} <= walls


def test_embeddings_are_behind_the_forced_wall(pg_url):
    _two_tenants(pg_url)
    forced = owner_sql(pg_url, "SELECT relrowsecurity, relforcerowsecurity FROM pg_class "
                               "WHERE relname = 'embeddings'")
    assert forced == [(True, True)]
    rows = owner_sql(pg_url, "SELECT DISTINCT scope FROM embeddings ORDER BY scope")
    assert rows == [("acme",), ("globex",)]  # the build cached each tenant's vectors
    conn = connect(pg_url)
    try:
        assert set(_seen(conn, "acme", "SELECT scope FROM embeddings")) == {"acme"}
        with conn.transaction():
            conn.execute("SELECT set_config('pincite.tenant', '*', true)")
            assert conn.execute("SELECT count(*) FROM embeddings").fetchone()[0] == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege), transaction(conn, "acme") as c:
            c.execute("INSERT INTO embeddings (scope, space_id, input_sha256, windows, dtype, "
                      "vector, created_at) SELECT 'globex', space_id, 'x', 1, 'f4', '', 'now' "
                      "FROM embedding_spaces LIMIT 1")
    finally:
        conn.close()
    rows_api = PgEmbeddings(pg_url)
    try:
        digests = [r[0] for r in owner_sql(pg_url, "SELECT input_sha256 FROM embeddings "
                                                   "WHERE scope = 'globex'")]
        space = owner_sql(pg_url, "SELECT space_id FROM embeddings LIMIT 1")[0][0]
        assert rows_api.vectors("acme", space, digests) != []  # the same passage, acme's row
        assert len(rows_api.vectors("globex", space, digests)) == len(digests)
        assert rows_api.count(space) == len(owner_sql(pg_url, "SELECT 1 FROM embeddings "
                                                              "WHERE space_id = %s", (space,)))
    finally:
        rows_api.close()


def test_an_app_login_cannot_leave_the_wall_and_runs_the_store(pg_url):
    upgrade(pg_url, app_login=APP_LOGIN)
    app_url = as_login(pg_url)
    with pincite.open(app_url) as lib:  # the store's work, as the app login
        assert lib.store.wall_problem() is None
        add(lib, "terms.md", TERMS_EN, tenant="acme")
        add(lib, "other.md", TERMS_EN, tenant="globex")
        publish(lib)  # a build spans tenants: the maintenance role, for its transactions
        bundle = lib.search(Principal.parse("acme:ana:legal"), "governing law", embedder=EMB)
        assert set(doc_ids(bundle)) == {"terms.md@r1"}
        g = lib.store.generations()[-1]
        with transaction(lib.store.conn, "*") as c:  # an HNSW graph: DDL, by the owner's function
            c.execute("SELECT pincite_hnsw_build(%s, %s, 16, 64)", (g.gen_id, g.dimension))
        with pytest.raises(psycopg.errors.RaiseException), transaction(lib.store.conn, "*") as c:
            c.execute("SELECT pincite_hnsw_build('g1; DROP TABLE sources', 8, 16, 64)")
    with psycopg.connect(app_url, autocommit=True) as raw:
        assert raw.execute("SELECT rolsuper, rolbypassrls, rolinherit FROM pg_roles "
                           "WHERE rolname = current_user").fetchone() == (False, False, False)
        for sql in ("SELECT count(*) FROM sources", "SELECT count(*) FROM embeddings",
                    "ALTER TABLE sources DISABLE ROW LEVEL SECURITY",
                    "SELECT pincite_hnsw_drop('g000002')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                raw.execute(sql)  # the login itself, RESET ROLE's target, holds no right
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("SET ROLE postgres")
        raw.execute("SET ROLE pincite_app")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            raw.execute("SELECT pincite_hnsw_drop('g000002')")  # the maintenance role's only
        raw.execute("SET pincite.tenant = '*'")
        assert raw.execute("SELECT count(*) FROM sources").fetchone()[0] == 0
        raw.execute("RESET ROLE")
        assert raw.execute("SELECT current_user").fetchone()[0] == APP_LOGIN
    with pincite.open(pg_url) as lib:  # the tests' own URL is the superuser
        assert lib.store.wall_problem() == "is a superuser"


def test_a_worker_refuses_the_owner_and_runs_as_the_app_login(tmp_path, pg_url):
    up = invoke("db", "upgrade", "--app-login", APP_LOGIN, "--json", env={"PINCITE_STORE": pg_url})
    assert up.returncode == 0, up.stderr
    env = {"PINCITE_EMBEDDER": "hash"}
    owner = run_cli("worker", "--drain", store=pg_url, env=env)
    assert owner.returncode == 2 and "is a superuser" in owner.stderr, owner.stderr
    assert "--app-login" in owner.stderr and "Traceback" not in owner.stderr
    app_url = as_login(pg_url)
    doc = tmp_path / "terms.md"
    doc.write_text(TERMS_EN, "utf-8")
    queued = run_cli("ingest", str(doc), "--tenant", "acme", "--acl", "*", "--async",
                     store=app_url, env=env)
    assert queued.returncode == 0, queued.stderr
    worked = run_cli("worker", "--drain", store=app_url, env=env, timeout=300)
    assert worked.returncode == 0, worked.stderr
    with pincite.open(pg_url) as lib:
        assert [s.source_id for s in lib.store.sources("acme")] == ["terms.md"]
    owners = owner_sql(pg_url, "SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname "
                               "IN ('public', 'dbos')")
    assert APP_LOGIN not in {o for (o,) in owners}  # the login made and owns nothing
