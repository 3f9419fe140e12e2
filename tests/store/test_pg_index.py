"""The PostgreSQL index tables and dense channel, driven directly on a real server:
the tenant wall without the application's filter, the HNSW plan with the universe inside
it, recall against exact search, epochs, the pointer's compare-and-swap, purge."""

from __future__ import annotations

import json
import runpy
import time
from pathlib import Path

import numpy as np
import pytest

from pincite.errors import StoreBusy
from pincite.store.ann import AnnPolicy
from pincite.store.index_records import AuthScope
from pincite.store.postgres import PostgresStore
from pincite.store.postgres.pg_connection import connect, transaction

BENCH = runpy.run_path(str(Path(__file__).resolve().parents[2] / "bench" / "pg_recall.py"))
FORCED: AnnPolicy = BENCH["FORCED"]
make_generation = BENCH["make_generation"]
measure = BENCH["measure"]


@pytest.fixture
def store(pg_url, tmp_path):
    s = PostgresStore(pg_url, root=tmp_path / "cache")
    yield s
    s.close()


def test_the_wall_holds_without_the_application_filter(store, pg_url):
    gen, _ = make_generation(store, 200, 16, FORCED, other_rows=100)
    conn = connect(pg_url)
    try:
        with transaction(conn, "acme") as c:
            for table, n in (("chunks", 200), ("gen_vectors", 200), ("generation_chunks", 200),
                             ("gen_lex", 200), ("acl_entries", None), ("gen_postings", None),
                             ("chunk_sets", 10), ("revisions", 10), ("tenant_state", 1)):
                # no WHERE tenant: the raw statement the application never sends
                got = c.execute(f"SELECT tenant, count(*) FROM {table} GROUP BY tenant").fetchall()
                assert [t for t, _ in got] == ["acme"], table
                if n is not None:
                    assert got[0][1] == n, table
            # the dense channel's own ordering, with no tenant predicate at all
            rows = c.execute("SELECT DISTINCT tenant FROM (SELECT tenant FROM gen_vectors "
                             "ORDER BY embedding <#> (SELECT embedding FROM gen_vectors LIMIT 1) "
                             "LIMIT 300) x").fetchall()
            assert rows == [("acme",)]
        with transaction(conn, "globex") as c:
            assert c.execute("SELECT count(*) FROM gen_vectors").fetchone()[0] == 100
        assert conn.execute("SELECT count(*) FROM chunks").fetchone()[0] == 0  # no tenant named
    finally:
        conn.close()
    # the other tenant's principal gets nothing of acme's through the store either
    g = store.generation(gen)
    scope = AuthScope(gen, "globex", ("group:p100",))
    u = store.authorized_rows(scope).array["ord"].astype(np.int64)
    assert len(u) == 100 and u.min() >= 200
    got = store.dense_candidates(g, scope, u, np.ones(16, dtype=np.float32) / 4.0, 10)
    assert set(u[got.positions].tolist()) <= set(range(200, 300))


def test_the_dense_query_is_an_hnsw_scan_with_the_universe_inside_it(store):
    gen, vecs = make_generation(store, 2000, 32, FORCED)
    g = store.generation(gen)
    scope = AuthScope(gen, "acme", ("group:p1",))  # 1 % of the rows
    u = store.authorized_rows(scope).array["ord"].astype(np.int64)
    assert len(u) == 20
    lines, settings = store.dense_plan(g, scope, u, vecs[0], 10)
    plan = "\n".join(lines)
    assert f"Index Scan using gen_vectors_hnsw_{gen} on gen_vectors v" in plan
    assert "Order By: ((embedding)::vector(32) <#>" in plan
    # the authorization is a filter of that scan (per row), not a step after a top-k
    scan = plan.split("Index Scan using", 1)[1]
    assert "Filter:" in scan and "acl_entries" in scan and "tombstones" in scan
    assert "Sort" not in plan.split("Index Scan using", 1)[0]
    assert settings["hnsw.iterative_scan"] == "relaxed_order"
    assert int(settings["hnsw.max_scan_tuples"]) >= 20_000
    got = store.dense_candidates(g, scope, u, vecs[0], 10)
    assert got.path == "ann" and len(got.positions) == 10


def test_a_small_universe_is_scanned_exactly_and_scores_are_float32_inner_products(store):
    gen, vecs = make_generation(store, 400, 24, AnnPolicy(min_vectors=1))
    g = store.generation(gen)
    scope = AuthScope(gen, "acme", ("group:p10",))
    u = store.authorized_rows(scope).array["ord"].astype(np.int64)
    q = vecs[5]
    got = store.dense_candidates(g, scope, u, q, 10)
    assert got.path == "exact" and got.fallback is None
    want = vecs[u] @ q
    top = np.argsort(-want, kind="stable")[:10]
    assert sorted(got.positions[np.argsort(-got.scores)[:10]].tolist()) == sorted(top.tolist())
    assert got.scores.dtype == np.float32
    np.testing.assert_allclose(got.scores, want[got.positions], rtol=0, atol=2e-6)
    keep: dict = {}  # the caller's per-universe cache: U's rows gathered once
    for q2 in (q, vecs[7]):
        kept = store.dense_candidates(g, scope, u, q2, 10, keep=keep)
        assert kept.path == "exact" and kept.positions.tolist() == list(range(len(u)))
        assert np.array_equal(kept.scores, np.ascontiguousarray(vecs[u]) @ q2)  # numpy's
    assert keep["matrix"].shape == (len(u), 24)
    assert store.dense_plan(g, scope, u, q, 10) == ([], {})


def test_dense_recall_against_exact_search_at_every_selectivity(store):
    # 10k clustered unit vectors (100 topics) in 384-d; the HNSW index answers at every
    # selectivity (the default policy would scan the small universes exactly)
    started = time.perf_counter()
    gen, vecs = make_generation(store, 10_000, 384, FORCED, spread=1.0)
    rows = measure(store, gen, vecs, queries=20, spread=1.0)
    print(BENCH["table"]("hnsw (test)", rows))
    assert [r["selectivity"] for r in rows] == ["0.1%", "1%", "10%", "100%"]
    assert [r["universe"] for r in rows] == [20, 100, 1000, 10_000]
    for r in rows:
        assert r["path"] == "ann", r
        assert r["recall@10"] >= 0.95, r
    assert time.perf_counter() - started < 60


def test_epochs_and_acl_entries_follow_the_rows(store, pg_url):
    conn = connect(pg_url)
    try:
        with transaction(conn, "acme") as c:
            c.execute("INSERT INTO sources (tenant, source_id, acl, created_at) "
                      "VALUES ('acme', 'a', '[\"group:x\", \"*\"]', 't')")
        assert store.tenant_state("acme") == (1, 0)
        with transaction(conn, "acme") as c:
            c.execute("INSERT INTO revisions (tenant, source_id, revision_id, seq, sha256, "
                      "media_type, size, acquired_at, valid_from) VALUES "
                      "('acme', 'a', 'r1', 1, 'x', 'text/plain', 1, 't', 't')")
            c.execute("UPDATE sources SET acl = '[\"user:ana\"]' WHERE source_id = 'a'")
            entries = c.execute("SELECT entry FROM acl_entries ORDER BY entry").fetchall()
        assert entries == [("user:ana",)]
        assert store.tenant_state("acme") == (3, 1)
        assert store.tenant_rev_epochs() == {"acme": 1}
        store.add_tombstone("acme", "a", 1, "t2", "acme:ana", ["user:ana"])
        assert store.tenant_state("acme") == (4, 1)
        assert store.deleted_through("acme", "a") == 1
        assert store.tombstone_for("acme", "a", 1).acl == ("user:ana",)
        assert store.tombstone_for("globex", "a", 1) is None
        with transaction(conn, "acme") as c:
            c.execute("UPDATE sources SET acl = 'not json' WHERE source_id = 'a'")
            assert c.execute("SELECT count(*) FROM acl_entries").fetchone()[0] == 0
    finally:
        conn.close()


def test_the_pointer_switch_is_a_compare_and_swap(store):
    a = store.new_generation("test:1", "t1")
    b = store.new_generation("test:1", "t2")
    assert (a, b) == ("g000001", "g000002")
    store.switch_pointer(a, None, "t3", expect_current=None)
    with pytest.raises(StoreBusy):
        store.switch_pointer(b, None, "t4", expect_current=None)  # lost the race
    store.switch_pointer(b, a, "t5", expect_current=a)
    assert store.pointer() == (b, a, "t5")
    assert [g.state for g in store.generations()] == ["retired", "published"]


def test_purge_removes_vectors_bodies_and_postings_and_keeps_digests_honest(store):
    gen, vecs = make_generation(store, 60, 8, AnnPolicy(min_vectors=1))
    g = store.generation(gen)
    assert store.vector_problems(g) == []
    chunks, ords, _shas, _q = store.purge_plan("acme", "s00001")
    assert len(chunks) == 20 and ords == {gen: list(range(20, 40))}
    before = store.postings_digest(gen)
    sha = store.purge_vectors(g, ords[gen])
    zeroed = vecs.copy()
    zeroed[20:40] = 0
    import hashlib

    assert sha == hashlib.sha256(zeroed.astype("<f4").tobytes()).hexdigest()
    store.purge_generation_rows(gen, ords[gen], sha, lambda gid: "digest")
    g = store.generation(gen)
    assert g.purged == 20 and g.vectors_sha256 == sha
    assert store.vector_problems(g) == []
    assert store.lexical_rows(gen) == 40 and store.generation_chunk_count(gen) == 40
    assert store.postings_digest(gen) != before
    post = store.authorized_postings(AuthScope(gen, "acme", ("group:p100",)), ["kacme", "kacmew3"])
    assert post.terms == ["kacme", "kacmew3"] and len(post.ords[0]) == 40
    assert not {o for ords_ in post.ords for o in ords_.tolist()} & set(range(20, 40))
    store.drop_generation_tables(gen, "dropped", "test")
    assert not store.lexical_exists(gen)
    assert store.vector_problems(store.generation(gen)) != []


def test_generation_rows_round_trip(store):
    gen, _ = make_generation(store, 40, 8, AnnPolicy())
    assert store.generation_tenant(gen, "acme") == (1, 40)
    assert store.lexical_exists(gen) and store.postings_exist(gen)
    got = store.chunks_by_ord(gen, "acme", [0, 39])
    assert sorted(got) == [0, 39] and got[39][0].source_id == "s00001"
    assert store.chunks_by_ord(gen, "globex", [0]) == {}
    scope = AuthScope(gen, "acme", ("group:p10",))
    assert [r[0] for r in store.authorized_rows(scope)] == list(range(20))
    assert store.authorized_rows_sql(scope) == list(store.authorized_rows(scope))
    assert json.loads(json.dumps(store.generation(gen).manifest))["vector_index"]["index"] is None


def test_the_postgres_backend_implements_the_index_side_of_the_protocol():
    import inspect

    from pincite.store.protocol import AuthorizedReads, DeletionStore, GenerationStore, VectorStore

    others = {"purge_records_of_source", "purge_review_of_source", "scrub_source"}  # records, review
    for proto in (GenerationStore, AuthorizedReads, VectorStore, DeletionStore):
        for name, member in vars(proto).items():
            if name.startswith("_") or name in others or not callable(member):
                continue
            want = list(inspect.signature(member).parameters)
            got = list(inspect.signature(getattr(PostgresStore, name)).parameters)
            assert want == got or name == "read", (name, want, got)


def test_two_processes_switching_from_the_same_pointer_cannot_both_win(store, pg_url, tmp_path):
    import threading

    a, b = store.new_generation("t:1", "t1"), store.new_generation("t:2", "t2")
    other = PostgresStore(pg_url, root=tmp_path / "other")  # its own connection
    results: list[object] = []
    try:
        with store.write("*") as c:
            c.execute("SELECT current_gen FROM index_pointer WHERE id = 1 FOR UPDATE")
            c.execute("UPDATE index_pointer SET current_gen = %s WHERE id = 1", (a,))

            def racer() -> None:
                try:
                    other.switch_pointer(b, None, "t3", expect_current=None)
                    results.append("won")
                except StoreBusy as exc:
                    results.append(exc)

            t = threading.Thread(target=racer)
            t.start()
            t.join(0.5)
            assert t.is_alive()  # it waits on the pointer row, it does not read past it
        t.join(10)
        assert len(results) == 1 and isinstance(results[0], StoreBusy)
        assert store.pointer()[0] == a
    finally:
        other.close()


def test_a_missing_hnsw_index_fails_the_check(store, pg_url):
    gen, _ = make_generation(store, 100, 8, AnnPolicy(min_vectors=50))
    g = store.generation(gen)
    assert g.manifest["vector_index"]["index"] == f"gen_vectors_hnsw_{gen}"
    assert store.vector_problems(g) == []
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute(f"DROP INDEX gen_vectors_hnsw_{gen}")
    assert store.vector_problems(g) == [f"HNSW index gen_vectors_hnsw_{gen} is missing or invalid"]


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_both_backends_refuse_non_finite_or_misshapen_vectors(backend, pg_url, tmp_path):
    from pincite.errors import UsageError
    from pincite.store import open_store

    s = open_store(pg_url if backend == "postgresql" else tmp_path / "s")
    try:
        chunks = [_chunk(i) for i in range(3)]
        gen = s.new_generation("t:1", "t")
        bad = np.ones((3, 4), dtype=np.float32)
        bad[1, 2] = np.nan
        for vectors in (bad, np.ones((2, 4), dtype=np.float32), np.ones(4, dtype=np.float32)):
            with pytest.raises(UsageError, match="finite numbers"):
                s.save_vectors(gen, chunks, vectors, AnnPolicy())
        sha, record = s.save_vectors(gen, chunks, np.ones((3, 4), dtype=np.float32), AnnPolicy())
        s.finish_generation(gen, "ready", {"vector_index": record}, 3, 4, sha, "")
        g = s.generation(gen)
        scope = AuthScope(gen, "acme", ("*",))
        u = np.arange(3, dtype=np.int64)
        for q in (np.array([1, np.inf, 0, 0], dtype=np.float32), np.ones(5, dtype=np.float32)):
            with pytest.raises(UsageError, match="query vector must be 4 finite numbers"):
                s.dense_candidates(g, scope, u, q, 10)
    finally:
        s.close()


def _chunk(i: int):
    from pincite.store.index_records import ChunkRecord

    return ChunkRecord(f"c{i:031d}", "acme", "a", "r1", "plain", "p1", "paragraph", 0, 1, "p",
                       None, (), "p", None, None, "en", (), "x", f"d{i}")
