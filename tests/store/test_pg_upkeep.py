"""The PostgreSQL store's upkeep: fsck, the purge's vacuum, the embedding cache, and the
edge (`open_store` on an empty or older database; no password in any message)."""

from __future__ import annotations

import hashlib

import psycopg
import pytest

import pincite
from pincite.errors import SchemaTooOld, StoreError, StoreMissing
from pincite.store import open_store
from pincite.store.postgres import PostgresStore
from pincite.store.postgres.pg_connection import redact
from pincite.store.postgres.pg_schema import PG_MIGRATIONS
from tests.store.test_pg_sources import commit, owner_sql


@pytest.fixture
def store(pg_url):
    s = PostgresStore(pg_url)
    yield s
    s.close()


def age(url: str, seconds: int) -> None:
    owner_sql(url, "UPDATE blobs SET created_at = now() - make_interval(secs => %s)", (seconds,))


# ---- fsck -----------------------------------------------------------------------------


def test_fsck_of_a_sound_store(store):
    sha = store.blobs.put("acme", b"hello")
    commit(store, sha)
    report = store.fsck()
    assert report.to_dict() == {"ok": True, "revisions": 1, "blobs_checked": 1, "damage": [],
                                "reclaimed": []}


def test_fsck_reports_missing_and_altered_bytes(store, pg_url):
    good = store.blobs.put("acme", b"hello")
    commit(store, good)
    missing = hashlib.sha256(b"gone").hexdigest()
    commit(store, missing, source="b.pdf")
    owner_sql(pg_url, "UPDATE blobs SET data = 'HELLO' WHERE sha256 = %s", (good,))
    report = store.fsck()
    assert report.damage == [f"missing blob for acme/b.pdf@r1 ({missing})",
                             f"blob of acme/a.pdf@r1 no longer hashes to {good}"]
    assert (report.ok, report.revisions, report.blobs_checked) == (False, 2, 1)


def test_fsck_reclaims_unreferenced_bytes_only_after_the_grace(store, pg_url):
    used = store.blobs.put("acme", b"used")
    commit(store, used)
    stray = store.blobs.put("acme", b"stray")           # an ingest that never committed
    qstray = store.quarantine_blobs.put("café", b"refused, never recorded")
    assert store.fsck(grace_seconds=600).reclaimed == []
    age(pg_url, 3600)
    report = store.fsck(grace_seconds=600)
    assert sorted(report.reclaimed) == sorted([f"unreferenced blob accepted/acme/{stray}",
                                               f"unreferenced blob quarantine/café/{qstray}"])
    assert store.blobs.exists("acme", used) and not store.blobs.exists("acme", stray)
    assert store.fsck(grace_seconds=0).reclaimed == []


def test_fsck_keeps_bytes_another_tenant_refers_to_apart(store, pg_url):
    """A blob is referenced per tenant: acme's revision does not keep globex's copy."""
    sha = store.blobs.put("acme", b"same bytes")
    store.blobs.put("globex", b"same bytes")
    commit(store, sha)
    age(pg_url, 3600)
    assert store.fsck().reclaimed == [f"unreferenced blob accepted/globex/{sha}"]


def test_fsck_reports_a_revision_without_a_text_layer(store, pg_url):
    sha = store.blobs.put("acme", b"x")
    commit(store, sha)
    owner_sql(pg_url, "DELETE FROM text_layers")
    assert store.fsck().damage == ["revision without text layer acme/a.pdf/r1"]


# ---- the purge's vacuum -----------------------------------------------------------------


def test_secure_vacuum_rewrites_the_tables_as_the_app_role(store, pg_url):
    sha = store.blobs.put("acme", b"to be purged")
    commit(store, sha)
    before = dict(owner_sql(pg_url, "SELECT relname, relfilenode FROM pg_class "
                                    "WHERE relname IN ('blobs', 'text_layers', 'embeddings')"))
    store.secure_vacuum()
    after = dict(owner_sql(pg_url, "SELECT relname, relfilenode FROM pg_class "
                                   "WHERE relname IN ('blobs', 'text_layers', 'embeddings')"))
    assert len(before) == 3 and all(after[t] != before[t] for t in before)  # new files
    assert store.blobs.get("acme", sha) == b"to be purged"
    with store.write("acme"), pytest.raises(StoreError, match="inside a transaction"):
        store.secure_vacuum()


# ---- the embedding cache ----------------------------------------------------------------


def test_embedding_rows_round_trip_and_forget(store, pg_url):
    rows = store.embeddings()
    try:
        assert rows.space_record("s1") is None
        rows.add_space("s1", '{"d": 2}', "t")
        rows.add_space("s1", '{"d": 3}', "t")  # kept as it is
        assert rows.space_record("s1") == '{"d": 2}'
        v = b"\x00" * 8
        rows.put_vectors([("acme", "s1", "d1", 1, "float32", v, "t"),
                          ("acme", "s1", "d2", 2, "float32", v, "t"),
                          ("globex", "s1", "d1", 1, "float32", v, "t")])
        rows.put_vectors([("acme", "s1", "d1", 9, "float32", b"\x01" * 8, "t")])  # kept
        assert sorted(rows.vectors("acme", "s1", ["d1", "d2", "d3"])) == [
            ("d1", 1, v), ("d2", 2, v)]
        assert rows.vectors("acme", "s2", ["d1"]) == []
        assert rows.count("s1") == 3
        assert "***" in rows.where or "@" not in rows.where
        assert rows.forget_scope("globex") == 1
    finally:
        rows.close()
    assert store.forget_embeddings([]) == 0
    assert store.forget_embeddings(["d1", "d9"]) == 1
    other = store.embeddings()
    try:
        assert other.vectors("acme", "s1", ["d1", "d2"]) == [("d2", 2, v)]
    finally:
        other.close()


# ---- the edge ---------------------------------------------------------------------------


def with_password(url: str, password: str) -> str:
    return url.replace("postgres:@", f"postgres:{password}@", 1)


def test_an_empty_database_is_missing_not_created(pg_server):
    url = with_password(pg_server.fresh_database(migrated=False), "s3cr%40t")
    with pytest.raises(StoreMissing) as err:
        pincite.open(url, create=False)
    assert "s3cr" not in str(err.value) and "postgres:***@" in str(err.value)
    assert owner_sql(url, "SELECT to_regclass('sources')") == [(None,)]
    store = open_store(url, create=True)  # ingest creates it
    try:
        assert store.sources("acme") == []
    finally:
        store.close()


def test_an_older_schema_asks_for_db_upgrade(pg_url):
    url = with_password(pg_url, "hunter2")
    owner_sql(url, "DELETE FROM pincite_schema WHERE version = %s", (len(PG_MIGRATIONS),))
    with pytest.raises(SchemaTooOld, match="pincite --store URL db upgrade") as err:
        pincite.open(url, create=False)
    assert "hunter2" not in str(err.value)
    assert (err.value.found, err.value.needed) == (len(PG_MIGRATIONS) - 1, len(PG_MIGRATIONS))


def test_no_password_in_a_connection_failure():
    url = "postgresql://ana:hunter%232@127.0.0.1:1/db?connect_timeout=2"
    with pytest.raises(StoreError) as err:
        open_store(url)
    assert "hunter" not in str(err.value) and "ana:***@127.0.0.1:1" in str(err.value)


@pytest.mark.parametrize("url, shown", [
    ("postgresql://u:p@ss@h:5/db", "postgresql://u:***@h:5/db"),
    ("postgresql://u:a%40b@h/db?sslmode=require&password=zz",
     "postgresql://u:***@h/db?sslmode=require&password=***"),
    ("postgres://h/db", "postgres://h/db"),
    ("postgresql://u@h/db?PassWord=x&x=1", "postgresql://u@h/db?PassWord=***&x=1"),
])
def test_redact(url, shown):
    assert redact(url) == shown


def test_a_connection_as_the_app_role_cannot_touch_the_schema(store):
    with store.write("acme") as c, pytest.raises(psycopg.errors.InsufficientPrivilege):
        c.execute("DROP TABLE blobs")


def test_derived_files_go_to_a_cache_dir_per_database_under_pincite_cache(pg_server, tmp_path,
                                                                          monkeypatch):
    from pincite.store.postgres.pg_backend import cache_root

    monkeypatch.setenv("PINCITE_CACHE", str(tmp_path / "cache"))
    a, b = pg_server.fresh_database(), pg_server.fresh_database()
    store = PostgresStore(with_password(a, "hunter2"))
    try:
        assert store.root.parent == tmp_path / "cache" and store.root.is_dir()
        assert store.root == cache_root(a)  # the password is not part of its name
        assert cache_root(b) != store.root
        assert "hunter2" not in str(store.root)
    finally:
        store.close()


def _others(url: str, want: int | None = None) -> int:
    """Return how many other sessions the database has (waiting up to 5 s for `want`: a
    closed connection's backend exits a moment after the client hangs up)."""
    import time

    for _ in range(50):
        n = owner_sql(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid()")[0][0]
        if want is None or n == want:
            break
        time.sleep(0.1)
    return n


def test_connections_end_with_their_thread_with_close_and_with_the_store(pg_url):
    import gc
    import threading

    for drop in (False, True):
        store = PostgresStore(pg_url)
        workers = [threading.Thread(target=store.sources, args=("acme",)) for _ in range(3)]
        for t in workers:
            t.start()
            t.join()
        assert _others(pg_url, want=0) == 0  # a thread's connection ends with the thread
        store.sources("acme")
        assert _others(pg_url) == 1
        if drop:
            del store, workers
            gc.collect()
        else:
            store.close()
            assert store.sources("acme") == []  # a later call opens a new one
            store.close()
        assert _others(pg_url, want=0) == 0
