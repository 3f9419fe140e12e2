"""ANN graphs of index generations: the authorized universe applied inside the graph walk
(hnswlib's filter predicate), recall per filter selectivity against the exact scan, the
never-silently-underfilled rule, integrity (missing or damaged graph refused), kill -9
while the graph is written, and purge erasing a source's vectors from the graph."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pincite
from pincite.errors import GenerationInvalid
from pincite.index.generations import build, check_generation, publish
from pincite.retrieve.dense import dense_candidates, search_graph, use_graph
from pincite.retrieve.search import search
from pincite.store.ann import (
    AnnPolicy,
    ann_path,
    build_partitions,
    load,
    partitions_of,
)
from pincite.store.ann import search as walk
from pincite.store.vectors import generation_dir, load_vectors, vectors_path
from tests.corpus import ANA, EMB, TERMS_EN, add, doc_ids, items_json

FRACTIONS = (0.001, 0.01, 0.1, 1.0)
# the default thresholds scaled to a 12k-row graph: U of <= 2,000 rows is scanned exactly
POLICY = AnnPolicy(min_vectors=1_000, exact_max_rows=2_000)
FORCED = AnnPolicy(min_vectors=1_000, exact_max_rows=0, exact_min_fraction=0.0)  # the graph


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def mixture(tmp_path_factory):
    """12k x 384 unit vectors from a 48-component Gaussian mixture, and its graph."""
    rng = np.random.default_rng(20240607)
    n, d, c = 12_000, 384, 48
    means = _unit(rng.standard_normal((c, d)))
    x = _unit(means[rng.integers(0, c, n)] + 0.05 * rng.standard_normal((n, d)))
    queries = _unit(means[rng.integers(0, c, 30)] + 0.05 * rng.standard_normal((30, d)))
    gen_dir = tmp_path_factory.mktemp("gen")
    (part,) = build_partitions(gen_dir, x, [("t", 0, n)], POLICY)
    graph = load(ann_path(gen_dir, part), part)
    return x, queries, graph


def _recall(x: np.ndarray, u: np.ndarray, q: np.ndarray, got) -> float:
    truth = u[np.argsort(-(x[u] @ q), kind="stable")[:10]]
    mine = u[got.positions[np.argsort(-got.scores, kind="stable")[:10]]]
    return len(set(truth.tolist()) & set(mine.tolist())) / len(truth)


@pytest.mark.parametrize("fraction", FRACTIONS)
def test_recall_per_selectivity(mixture, fraction):
    x, queries, graph = mixture
    n = len(x)
    u = np.sort(np.random.default_rng(int(fraction * 1e4)).choice(n, round(n * fraction),
                                                                   replace=False))
    # the policy: selective filters scan U exactly (recall 1.0), broad ones walk the graph
    auto = [dense_candidates(u, q, 100, POLICY, x, graph=lambda: graph, graph_size=n)
            for q in queries]
    want_path = "ann" if use_graph(POLICY, len(u), n, False) else "exact"
    assert want_path == ("ann" if fraction == 1.0 else "exact")
    assert {c.path for c in auto} == {want_path} and not any(c.fallback for c in auto)
    recalls = [_recall(x, u, q, c) for q, c in zip(queries, auto, strict=True)]
    if want_path == "exact":
        assert recalls == [1.0] * len(queries)
    else:
        assert np.mean(recalls) >= 0.95
    # the graph forced at every selectivity: U is the walk's filter, so the walk answers
    # with rows of U only, at least min(100, |U|) of them, recall >= 0.95
    forced = [dense_candidates(u, q, 100, FORCED, x, graph=lambda: graph, graph_size=n)
              for q in queries]
    for c in forced:
        assert c.path == "ann" and c.fallback is None
        assert len(c.positions) >= min(100, len(u))  # never underfilled
        assert len(set(c.positions.tolist())) == len(c.positions)
        assert 0 <= c.positions.min() and c.positions.max() < len(u)
    forced_recall = np.mean([_recall(x, u, q, c) for q, c in zip(queries, forced, strict=True)])
    assert forced_recall >= 0.95
    print(f"ANN fraction={fraction}: auto={want_path} recall={np.mean(recalls):.3f}; forced "
          f"graph recall={forced_recall:.3f}")


def test_the_universe_is_the_walks_filter(mixture):
    """U is applied inside the walk: hnswlib asks the predicate about the nodes it meets,
    the unauthorized nearest neighbours among them, and only allowed rows come back."""
    x, queries, graph = mixture
    n = len(x)
    for q in queries[:5]:
        order = np.argsort(-(x @ q), kind="stable")
        nearest = order[:300]                       # the 300 nearest rows: not authorized
        u = np.sort(order[300:])
        mask = np.zeros(n, dtype=bool)
        mask[u] = True
        asked: list[int] = []

        def allowed(label: int, mask=mask, asked=asked) -> bool:
            asked.append(label)
            return bool(mask[label])

        got = walk(graph, q, 100, allowed)
        assert got is not None and len(got) == 100
        assert mask[got].all()                      # every result is a row of U
        assert set(got.tolist()) <= set(asked)      # each passed the predicate in the walk
        assert set(asked) & set(nearest.tolist())   # the nearest were met and refused
        truth = u[np.argsort(-(x[u] @ q), kind="stable")[:10]]
        top = got[np.argsort(-(x[got] @ q), kind="stable")[:10]]
        assert len(set(truth.tolist()) & set(top.tolist())) >= 9
        # the dense channel over the same U: the graph answers, with rows of U only
        c = dense_candidates(u, q, 100, FORCED, x, graph=lambda: graph, graph_size=n)
        assert c.path == "ann" and not set(u[c.positions].tolist()) & set(nearest.tolist())


def test_a_walk_that_cannot_fill_falls_back_flagged(mixture):
    """U holds 150 rows the graph does not have (a graph older than the rows, say): the
    walk cannot collect 100 rows of U, so the exact scan answers and says why."""
    x, queries, graph = mixture
    n = len(x)
    extra = _unit(np.random.default_rng(3).standard_normal((150, x.shape[1])))
    vectors = np.concatenate([x, extra])
    u = np.concatenate([np.arange(0, n, n // 20), np.arange(n, n + 150)]).astype(np.int64)
    assert search_graph(graph, vectors, u, queries[0], 100, FORCED, n) is None
    c = dense_candidates(u, queries[0], 100, FORCED, vectors, graph=lambda: graph, graph_size=n)
    assert c.path == "exact" and "fewer than 100 authorized rows" in (c.fallback or "")
    assert len(c.positions) == len(u)


def _corpus(lib, n: int = 60) -> None:
    for i in range(n):
        acl = ("group:legal",) if i % 3 else ("user:bob",)
        add(lib, f"n{i:03d}.md", f"# Note {i}\n\nNote {i} on payment of invoices, clause "
            f"{i % 7}, delivery of goods number {i} and warranty terms.\n", acl=acl)


def _build(lib, ann: AnnPolicy) -> str:
    r = build(lib.store, EMB, ann=ann)
    assert r.state == "ready", r.problems
    publish(lib.store, r.gen_id)
    return r.gen_id


def test_search_walks_the_graph_with_the_universe_applied(lib):
    _corpus(lib)
    gen = _build(lib, AnnPolicy(min_vectors=10, exact_max_rows=0, exact_min_fraction=0.0))
    g = lib.store.generation(gen)
    if lib.store.backend == "sqlite":
        (part,) = partitions_of(g.manifest)
        assert part.tenant == "acme" and part.vectors == g.n_chunks
    else:  # one pgvector HNSW index over the generation's rows, every tenant's
        assert g.manifest["vector_index"]["index"] == f"gen_vectors_hnsw_{gen}"
    b = lib.search(ANA, "payment invoices warranty", embedder=EMB, channels=("dense",), k=10)
    assert b.channels["dense"]["path"] == "ann" and "fallback" not in b.flags
    ex = search(lib.store, "payment invoices warranty", ANA, embedder=EMB, channels=("dense",),
                k=10, exact=True)
    assert ex.channels["dense"]["path"] == "exact"
    assert doc_ids(b) == doc_ids(ex)  # 60 rows: the walk is exact
    assert all(int(i.source_id[1:4]) % 3 for i in b.items)  # bob's notes never appear
    # bob's note 3 is the graph's nearest row to its own text; ana's walk never yields it
    text = "Note 3 on payment of invoices, clause 3, delivery of goods number 3"
    if lib.store.backend == "sqlite":
        graph = load(ann_path(generation_dir(lib.store.root, gen), part), part)
        (nearest,) = walk(graph, np.asarray(EMB.embed_query(text), dtype=np.float32), 1,
                          lambda _o: True)
        bob3 = next(o for o, cid, _d in lib.store.generation_chunk_list(gen)
                    if cid == lib.store.conn.execute("SELECT chunk_id FROM chunks WHERE "
                                                     "source_id='n003.md'").fetchone()[0])
        assert nearest == bob3
    near = lib.search(ANA, text, embedder=EMB, channels=("dense",), k=10)
    assert near.channels["dense"]["path"] == "ann"
    assert "n003.md" not in {i.source_id for i in near.items}
    assert doc_ids(near) == doc_ids(search(lib.store, text, ANA, embedder=EMB,
                                           channels=("dense",), k=10, exact=True))
    # a selective filter: the walk collects the 3 rows of U it can, exactly those; the
    # bundle holds 3 of the 10 asked for and says so
    chosen = ["n001.md", "n002.md", "n004.md"]
    sel = lib.search(ANA, "payment", embedder=EMB, channels=("dense",), k=10,
                     filters={"source_ids": chosen})
    assert sorted(doc_ids(sel)) == [f"{s}@r1" for s in chosen]
    assert sel.channels["dense"]["path"] == "ann" and sel.channels["dense"]["candidates"] == 3
    assert "underfilled" in sel.flags and "fallback" not in sel.flags


def test_small_universe_scans_exactly_without_a_flag(lib):
    _corpus(lib)
    _build(lib, AnnPolicy(min_vectors=10))  # exact_max_rows 20,000: every U here is small
    b = lib.search(ANA, "delivery of goods", embedder=EMB, k=10)
    assert b.channels["dense"]["path"] == "exact" and "fallback" not in b.flags


@pytest.mark.parametrize("damage", ["missing", "byte", "truncated"])
def test_integrity_check_refuses_a_missing_or_damaged_graph(lib, damage):
    if lib.store.backend != "sqlite":
        pytest.skip("the hnswlib graph files are the embedded backend's; PostgreSQL's HNSW "
                    "index is checked in tests/store/test_pg_index.py")
    _corpus(lib, 20)
    g1 = _build(lib, AnnPolicy(min_vectors=10))
    before = [items_json(lib.search(ANA, q, embedder=EMB)) for q in ("payment", "warranty")]
    add(lib, "extra.md", TERMS_EN)
    built = build(lib.store, EMB, ann=AnnPolicy(min_vectors=10))
    assert built.state == "ready"
    (part,) = partitions_of(built.manifest)
    path = ann_path(generation_dir(lib.store.root, built.gen_id), part)
    if damage == "missing":
        path.unlink()
    elif damage == "byte":
        raw = bytearray(path.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        path.write_bytes(bytes(raw))
    else:
        path.write_bytes(path.read_bytes()[:100])
    problems = check_generation(lib.store, built.gen_id)
    assert any("ANN file" in p for p in problems), problems
    with pytest.raises(GenerationInvalid):
        publish(lib.store, built.gen_id)
    assert lib.store.pointer()[0] == g1
    assert [items_json(lib.search(ANA, q, embedder=EMB)) for q in ("payment", "warranty")] == before


def test_a_graph_damaged_after_publish_is_never_read(lib):
    if lib.store.backend != "sqlite":
        pytest.skip("the hnswlib graph files are the embedded backend's; PostgreSQL's HNSW "
                    "index is checked in tests/store/test_pg_index.py")
    _corpus(lib, 30)
    gen = _build(lib, AnnPolicy(min_vectors=10, exact_max_rows=0, exact_min_fraction=0.0))
    (part,) = partitions_of(lib.store.generation(gen).manifest)
    ex = search(lib.store, "warranty terms", ANA, embedder=EMB, exact=True)
    path = ann_path(generation_dir(lib.store.root, gen), part)
    raw = bytearray(path.read_bytes())
    raw[-10] ^= 0xFF
    os.replace(path, path.with_suffix(".old"))
    path.write_bytes(bytes(raw))  # a new file: the process sees new bytes and checks them
    b = lib.search(ANA, "warranty terms", embedder=EMB)
    assert "fallback" in b.flags and "digest" in b.channels["dense"]["ann"]
    assert items_json(b) == items_json(ex)


_CHILD = """
import sys
import pincite
from pincite.embed import HashEmbedder
from pincite.index.generations import build, publish
from pincite.store.ann import AnnPolicy
lib = pincite.open(sys.argv[1])
r = build(lib.store, HashEmbedder(), ann=AnnPolicy(min_vectors=10))
publish(lib.store, r.gen_id)
print("published", flush=True)
"""


@pytest.mark.parametrize("fault", ["gen.ann_write", "gen.ann_fsync"])
def test_kill_while_the_graph_is_written_leaves_the_old_generation(tmp_path, fault):
    store = tmp_path / "s"
    with pincite.open(store, create=True) as lib:
        _corpus(lib, 20)
        g1 = _build(lib, AnnPolicy(min_vectors=10))
        old = items_json(lib.search(ANA, "payment", embedder=EMB))
        add(lib, "extra.md", TERMS_EN)
    env = {**os.environ, "PINCITE_FAULTS": f"{fault}=kill"}
    out = subprocess.run([sys.executable, "-c", _CHILD, str(store)], capture_output=True,
                         text=True, env=env, timeout=120)
    assert out.returncode == -9, out.stderr
    with pincite.open(store) as lib:
        assert lib.store.pointer()[0] == g1 and not check_generation(lib.store, g1)
        assert items_json(lib.search(ANA, "payment", embedder=EMB)) == old
        r = build(lib.store, EMB, ann=AnnPolicy(min_vectors=10))  # cleans the killed build
        publish(lib.store, r.gen_id)
        states = {g.gen_id: g.state for g in lib.generations()}
        assert "building" not in states.values()
        for d in (store / "indexes").iterdir():
            assert states[d.name] in ("published", "retired", "ready")
            assert not [p for p in d.iterdir() if p.name.startswith(".tmp-")]


def _f32_pattern(v: np.ndarray) -> bytes:
    """The bytes of a vector's first 16 dims as the graph stores them (float32)."""
    return np.ascontiguousarray(v[:16], dtype="<f4").tobytes()


def test_purge_erases_the_sources_vectors_from_the_graph(lib):
    if lib.store.backend != "sqlite":
        pytest.skip("the hnswlib graph files are the embedded backend's; PostgreSQL's HNSW "
                    "index is checked in tests/store/test_pg_index.py")
    _corpus(lib, 30)
    gen = _build(lib, AnnPolicy(min_vectors=10, exact_max_rows=0, exact_min_fraction=0.0))
    g = lib.store.generation(gen)
    (part,) = partitions_of(g.manifest)
    path = ann_path(generation_dir(lib.store.root, gen), part)
    vecs = np.array(load_vectors(vectors_path(lib.store.root, gen), g.n_chunks, g.dimension))
    ords = [o for (o, cid, _d) in lib.store.generation_chunk_list(gen)
            if lib.store.conn.execute("SELECT source_id FROM chunks WHERE chunk_id=?",
                                      (cid,)).fetchone()[0] == "n004.md"]
    assert ords
    raw = Path(path).read_bytes()
    assert all(_f32_pattern(vecs[o]) in raw for o in ords)  # the check can see
    lib.delete(ANA, "n004.md", purge=True)
    raw = Path(path).read_bytes()
    assert not any(_f32_pattern(vecs[o]) in raw for o in ords)
    assert not check_generation(lib.store, gen)  # new digest recorded in the manifest
    (after,) = partitions_of(lib.store.generation(gen).manifest)
    assert after.purged == len(ords) and after.sha256 != part.sha256
    # marked deleted too: a walk that allows every row never returns them
    got = walk(load(path, after), vecs[ords[0]], after.vectors - after.purged, lambda _o: True)
    assert got is not None and not set(got.tolist()) & set(ords)
    b = lib.search(ANA, "note 4 payment", embedder=EMB, channels=("dense",), k=50)
    assert b.channels["dense"]["path"] == "ann"
    assert "n004.md" not in {i.source_id for i in b.items}
