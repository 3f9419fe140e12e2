"""ANN graphs of index generations: recall per filter selectivity against the exact scan,
the never-silently-underfilled rule, integrity (missing or damaged graph refused), kill -9
while the graph is written, and purge erasing a source's vectors from the graph."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import pincite
from pincite.ann import dense_candidates, use_graph
from pincite.index import GenerationInvalid, build, check_generation, publish
from pincite.model import Principal
from pincite.retrieve import search
from pincite.store.ann import (
    DEFAULT_ANN_POLICY,
    AnnPolicy,
    ann_path,
    build_partitions,
    load,
    partitions_of,
)
from pincite.store.vectors import generation_dir, load_vectors, vectors_path

from .corpus import EMB, TERMS_EN, add, doc_ids, items_json

ANA = Principal.parse("acme:ana:legal")
FRACTIONS = (0.001, 0.01, 0.1, 1.0)
FORCED = AnnPolicy(exact_max_rows=0, exact_min_fraction=0.0)  # always the graph


def _unit(x: np.ndarray) -> np.ndarray:
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.fixture(scope="module")
def mixture(tmp_path_factory):
    """30k x 384 unit vectors from a 48-component Gaussian mixture, and its graph."""
    rng = np.random.default_rng(20240607)
    n, d, c = 30_000, 384, 48
    means = _unit(rng.standard_normal((c, d)))
    x = _unit(means[rng.integers(0, c, n)] + 0.05 * rng.standard_normal((n, d)))
    queries = _unit(means[rng.integers(0, c, 30)] + 0.05 * rng.standard_normal((30, d)))
    gen_dir = tmp_path_factory.mktemp("gen")
    (part,) = build_partitions(gen_dir, x, [("t", 0, n)], DEFAULT_ANN_POLICY)
    graph = load(ann_path(gen_dir, part), part.sha256)
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
    auto = [dense_candidates(u, q, 100, DEFAULT_ANN_POLICY, x, graph=lambda: graph,
                             graph_size=n) for q in queries]
    want_path = "ann" if use_graph(DEFAULT_ANN_POLICY, len(u), n, False) else "exact"
    assert want_path == ("ann" if fraction == 1.0 else "exact")
    assert {c.path for c in auto} == {want_path} and not any(c.fallback for c in auto)
    recalls = [_recall(x, u, q, c) for q, c in zip(queries, auto, strict=True)]
    if want_path == "exact":
        assert recalls == [1.0] * len(queries)
    else:
        assert np.mean(recalls) >= 0.95
    # the graph forced at every selectivity: recall >= 0.95 where it answered; where it
    # could not reach 100 rows of U, the exact scan answered and the result says so
    forced = [dense_candidates(u, q, 100, FORCED, x, graph=lambda: graph, graph_size=n)
              for q in queries]
    walked = [(q, c) for q, c in zip(queries, forced, strict=True) if c.path == "ann"]
    for c in forced:
        assert (c.path == "exact") == (c.fallback is not None)
        assert len(c.positions) >= min(100, len(u))  # never underfilled
    forced_recall = np.mean([_recall(x, u, q, c) for q, c in walked]) if walked else None
    if walked:
        assert forced_recall >= 0.95
    if fraction == 0.001:
        assert not walked  # 30 rows of U are out of reach of 8,192 candidates: flagged
    if fraction >= 0.1:
        assert len(walked) == len(queries)
    print(f"ANN fraction={fraction}: auto={want_path} recall={np.mean(recalls):.3f}; forced "
          f"graph answered {len(walked)}/{len(queries)} recall={forced_recall}")


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
    (part,) = partitions_of(g.manifest)
    assert part.tenant == "acme" and part.vectors == g.n_chunks
    b = lib.search(ANA, "payment invoices warranty", embedder=EMB, channels=("dense",), k=10)
    assert b.channels["dense"]["path"] == "ann" and "fallback" not in b.flags
    ex = search(lib.store, "payment invoices warranty", ANA, embedder=EMB, channels=("dense",),
                k=10, exact=True)
    assert ex.channels["dense"]["path"] == "exact"
    assert doc_ids(b) == doc_ids(ex)  # 60 rows: the walk is exact
    assert all(int(i.source_id[1:4]) % 3 for i in b.items)  # bob's notes never appear
    # a selective filter that a narrow walk cannot fill: the exact scan answers, flagged
    _build(lib, AnnPolicy(min_vectors=10, exact_max_rows=0, exact_min_fraction=0.0,
                          max_candidates=4))
    chosen = ["n001.md", "n002.md", "n004.md"]
    sel = lib.search(ANA, "payment", embedder=EMB, channels=("dense",), k=10,
                     filters={"source_ids": chosen})
    assert sorted(doc_ids(sel)) == [f"{s}@r1" for s in chosen]
    assert {"fallback", "underfilled"} <= set(sel.flags)
    assert sel.channels["dense"]["path"] == "exact" and "did not reach" in sel.channels["dense"]["ann"]


def test_small_universe_scans_exactly_without_a_flag(lib):
    _corpus(lib)
    _build(lib, AnnPolicy(min_vectors=10))  # exact_max_rows 20,000: every U here is small
    b = lib.search(ANA, "delivery of goods", embedder=EMB, k=10)
    assert b.channels["dense"]["path"] == "exact" and "fallback" not in b.flags


@pytest.mark.parametrize("damage", ["missing", "byte", "truncated"])
def test_integrity_check_refuses_a_missing_or_damaged_graph(lib, damage):
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
from pincite.index import build, publish
from pincite.store.ann import AnnPolicy
lib = pincite.open(sys.argv[1])
r = build(lib.store, HashEmbedder(), ann=AnnPolicy(min_vectors=10))
publish(lib.store, r.gen_id)
print("published", flush=True)
"""


@pytest.mark.parametrize("fault", ["gen.ann_write", "gen.ann_fsync"])
def test_kill_while_the_graph_is_written_leaves_the_old_generation(tmp_path, fault):
    store = tmp_path / "s"
    with pincite.open(store) as lib:
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


def _bf16_patterns(v: np.ndarray) -> list[bytes]:
    """The bytes of a vector's first 16 dims in bf16, truncated and rounded."""
    bits = v[:16].astype("<f4").view("<u4")
    trunc = (bits >> 16).astype("<u2").tobytes()
    rnd = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2").tobytes()
    return [trunc, rnd]


def test_purge_erases_the_sources_vectors_from_the_graph(lib):
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
    assert any(p in raw for o in ords for p in _bf16_patterns(vecs[o]))  # the check can see
    lib.delete(ANA, "n004.md", purge=True)
    raw = Path(path).read_bytes()
    assert not any(p in raw for o in ords for p in _bf16_patterns(vecs[o]))
    assert not check_generation(lib.store, gen)  # new digest recorded in the manifest
    (after,) = partitions_of(lib.store.generation(gen).manifest)
    assert after.purged == len(ords) and after.sha256 != part.sha256
    b = lib.search(ANA, "note 4 payment", embedder=EMB, channels=("dense",), k=50)
    assert b.channels["dense"]["path"] == "ann"
    assert "n004.md" not in {i.source_id for i in b.items}
