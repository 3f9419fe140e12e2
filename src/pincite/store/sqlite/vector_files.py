"""The embedded backend's vectors: a file per generation beside the database
(`store.vectors`), per-tenant hnswlib graphs (`store.ann`), and the dense channel over
them (`store.dense_channel`). Mixed into `SQLiteStore`."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..ann import (
    AnnPolicy,
    ann_path,
    build_partitions,
    check_partitions,
    index_record,
    partitions_of,
    policy_of,
)
from ..ann import Graph as AnnGraph
from ..ann import load as load_graph
from ..blobs import sha256_file
from ..dense_channel import DenseCandidates, checked_query, checked_rows, dense_candidates
from ..index_records import AuthScope, ChunkRecord, GenerationRow
from ..vectors import generation_dir, load_vectors, vectors_path, write_vectors, zero_rows

MAX_CACHED_MATRIX_BYTES = 64 << 20  # gathered authorized rows kept per cached universe


def tenant_ranges(chunks: Sequence[ChunkRecord]) -> list[tuple[str, int, int]]:
    """(tenant, first ord, end ord) of each tenant's rows (chunks are sorted by tenant)."""
    out: list[tuple[str, int, int]] = []
    for i, ch in enumerate(chunks):
        if out and out[-1][0] == ch.tenant:
            out[-1] = (ch.tenant, out[-1][1], i + 1)
        else:
            out.append((ch.tenant, i, i + 1))
    return out


def scan(universe: np.ndarray, vecs: np.ndarray, qvec: np.ndarray, keep: dict[str, Any]
         ) -> np.ndarray:
    """Exact scores of U's rows. U's rows are gathered once and kept in `keep` (the
    caller's per-universe cache) when small enough; a U that fills most of its ord range
    is scored over the range in place (no copy) and its rows picked from the scores
    before any top-k."""
    matrix = keep.get("matrix")
    if matrix is not None:
        return np.asarray(matrix @ qvec)
    lo, hi = int(universe[0]), int(universe[-1])
    span = hi - lo + 1
    if span == len(universe):
        keep["matrix"] = vecs[lo:hi + 1]  # the tenant's rows are contiguous: a view, no copy
        return np.asarray(keep["matrix"] @ qvec)
    if span <= 2 * len(universe) and len(universe) * vecs.shape[1] * 4 > MAX_CACHED_MATRIX_BYTES:
        return np.asarray(vecs[lo:hi + 1] @ qvec)[universe - lo]
    matrix = np.ascontiguousarray(vecs[universe])
    if matrix.nbytes <= MAX_CACHED_MATRIX_BYTES:
        keep["matrix"] = matrix
    return np.asarray(matrix @ qvec)


class VectorFiles:
    """Vectors of generations as files beside the database (needs `root`)."""

    root: Path

    def save_vectors(self, gen_id: str, chunks: Sequence[ChunkRecord], vectors: np.ndarray,
                     ann: AnnPolicy) -> tuple[str, dict[str, Any]]:
        """Write a generation's vectors (row = ord) and its tenants' ANN graphs; return
        (sha256 of the n x d float32 rows, the manifest's `vector_index` record)."""
        vectors = checked_rows(vectors, len(chunks))
        sha = write_vectors(vectors_path(self.root, gen_id), vectors)
        started = time.perf_counter()
        parts = build_partitions(generation_dir(self.root, gen_id), vectors,
                                 tenant_ranges(chunks), ann)
        return sha, index_record(ann, parts, time.perf_counter() - started)

    def vector_problems(self, g: GenerationRow) -> list[str]:
        """Return what is wrong with a generation's vectors and graphs (empty when sound)."""
        m = g.manifest or {}
        n = int(m.get("counts", {}).get("chunks", g.n_chunks))
        problems = []
        path = vectors_path(self.root, g.gen_id)
        if not path.is_file():
            problems.append("vector file is missing")
        else:
            size = path.stat().st_size
            if size != n * g.dimension * 4:
                problems.append(f"vector file holds {size} bytes, expected {n} x {g.dimension} float32")
            elif sha256_file(path) != g.vectors_sha256:
                problems.append("vector file digest does not match")
        return problems + check_partitions(generation_dir(self.root, g.gen_id), m, n, g.dimension)

    def purge_vectors(self, g: GenerationRow, ords: Sequence[int]) -> str | None:
        """Zero rows `ords` of a generation's vector file (a new file); return its sha256
        (the old digest when there is no file). Its graphs are purged with the rows."""
        path = vectors_path(self.root, g.gen_id)
        if path.is_file() and g.n_chunks and g.dimension:
            return zero_rows(path, ords, g.n_chunks, g.dimension)
        return g.vectors_sha256

    def dense_candidates(self, g: GenerationRow, scope: AuthScope, universe: np.ndarray,
                         query: np.ndarray, depth: int, *, exact: bool = False,
                         keep: dict[str, Any] | None = None) -> DenseCandidates:
        """Score U (`universe`: its sorted ords, from `authorized_rows`) for `query`: the
        exact scan of its rows, or the tenant's graph walked with U as its filter
        (`store.dense_channel`); scores are float32 inner products."""
        query = checked_query(query, g.dimension)
        vecs = load_vectors(vectors_path(self.root, g.gen_id), g.n_chunks, g.dimension)
        part = next((p for p in partitions_of(g.manifest) if p.tenant == scope.tenant), None)
        pol = policy_of(g.manifest)
        cache = keep if keep is not None else {}

        def graph() -> AnnGraph:
            assert part is not None
            return load_graph(ann_path(generation_dir(self.root, g.gen_id), part), part)

        return dense_candidates(universe, query, depth, pol, vecs,
                                scan=lambda: scan(universe, vecs, query, cache),
                                graph=graph if part else None,
                                graph_size=part.vectors - part.purged if part else 0, exact=exact)
