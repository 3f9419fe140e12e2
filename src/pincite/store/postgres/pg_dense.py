"""The dense channel on PostgreSQL: a generation's vectors in `gen_vectors` (pgvector),
one HNSW index per generation, and candidate queries with the authorized universe
inside them (`pg_dense_sql`).

A query chooses its way as the embedded backend does (`dense_channel.use_graph`, the
generation's recorded `AnnPolicy`): the exact scan of U when U is small or a small
fraction of the tenant's rows, else the HNSW index scan with U's predicate as its
filter and pgvector's iterative scan on (`relaxed_order`), so a selective filter does
not starve the scan; the scan collects `AnnPolicy.walk_size` rows of U (hnswlib's ef
on the embedded backend), and one that reaches fewer than min(depth, |U|) falls back to
the exact scan, flagged. The exact scan gathers U's rows once (one statement over U's
ords) into a float32 matrix the caller keeps with its cached U, and scores it with numpy
as the embedded backend does; without such a cache it is scored in SQL. Scores are
float32 inner products (pgvector's on the index path).
The digest of a generation's vectors is the embedded backend's: sha256 of the n x d
little-endian float32 rows by ord, a purged row being zeros.
"""

from __future__ import annotations

import hashlib
import struct
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any

import numpy as np

from ...errors import VectorsUnavailable
from ..ann import INDEX_SCHEMA, SCHEMA_VERSION, AnnPolicy, policy_of
from ..dense_channel import DenseCandidates, checked_query, checked_rows, use_graph
from ..index_records import AuthScope, ChunkRecord, GenerationRow
from .pg_dense_sql import (
    SET_SCAN,
    SQL_GATHER,
    SQL_HAS_VECTORS,
    SQL_HNSW_BUILD,
    SQL_HNSW_DROP,
    SQL_INDEX_VALID,
    SQL_VECTOR_COUNT,
    SQL_VECTORS_DELETE,
    SQL_VECTORS_DROP,
    SQL_VECTORS_INSERT,
    SQL_VECTORS_OF,
    checked_gen,
    index_name,
    sql_dense_exact,
    sql_dense_index,
)
from .pg_index_sql import SQL_GEN_TENANT

ITERATIVE_SCAN = "relaxed_order"
MAX_EF_SEARCH = 1000  # pgvector's limit
ANALYZE = ("ANALYZE gen_vectors, generation_chunks, gen_lex, gen_postings, chunks, acl_entries, "
           "revisions, tombstones")
MIN_SCAN_TUPLES = 20_000
MAX_CACHED_MATRIX_BYTES = 64 << 20  # U's rows gathered once and kept with the cached U  # pgvector's default hnsw.max_scan_tuples
BUILD_MEMORY = "1GB"  # maintenance_work_mem while an HNSW index is built


def vector_bytes(row: np.ndarray) -> bytes:
    """A float32 row in pgvector's binary format (dimension, 0, big-endian floats)."""
    return struct.pack(">HH", len(row), 0) + np.asarray(row, dtype=">f4").tobytes()


def vector_of(data: bytes) -> np.ndarray:
    """A float32 row from pgvector's binary format (`vector_send`)."""
    return np.frombuffer(bytes(data)[4:], dtype=">f4").astype(np.float32)


def vector_dumper(conn: Any) -> type:
    """A binary psycopg dumper of float32 numpy rows as pgvector `vector` values."""
    from psycopg.adapt import Dumper
    from psycopg.pq import Format

    oid = conn.execute("SELECT 'vector'::regtype::oid").fetchone()[0]

    class VectorDumper(Dumper):
        format = Format.BINARY

        def dump(self, obj: Any) -> bytes:
            return vector_bytes(obj)

    VectorDumper.oid = int(oid)
    return VectorDumper


def literal(query: np.ndarray) -> str:
    """The text of a float32 query vector that pgvector reads back to the same floats."""
    return "[" + ",".join(repr(float(x)) for x in np.asarray(query, dtype=np.float32)) + "]"


class PgVectors:
    """Vectors of generations in PostgreSQL (needs `read`, `write` and `url`)."""

    url: str

    def read(self, tenant: str = "*") -> AbstractContextManager[Any]: ...  # type: ignore[empty-body]
    def write(self, tenant: str = "*") -> AbstractContextManager[Any]: ...  # type: ignore[empty-body]

    def save_vectors(self, gen_id: str, chunks: Sequence[ChunkRecord], vectors: np.ndarray,
                     ann: AnnPolicy) -> tuple[str, dict[str, Any]]:
        """Store a generation's vectors (row = ord) and, when it holds at least
        `ann.min_vectors` of them, build its HNSW index; return (sha256 of the n x d
        float32 rows, the manifest's `vector_index` record)."""
        vectors = np.ascontiguousarray(checked_rows(vectors, len(chunks)), dtype="<f4")
        sha = hashlib.sha256(vectors.tobytes()).hexdigest()
        with self.write("*") as c, c.cursor() as cur:
            cur.adapters.register_dumper(np.ndarray, vector_dumper(c))
            cur.executemany(SQL_VECTORS_INSERT, [
                (gen_id, i, ch.tenant, ch.source_id, ch.revision_id, ch.kind, ch.lang or "",
                 vectors[i]) for i, ch in enumerate(chunks)])
        started = time.perf_counter()
        built = None
        if len(chunks) and len(chunks) >= ann.min_vectors:
            self._build_index(gen_id, int(vectors.shape[1]), ann)
            built = index_name(gen_id)
        self._analyze()
        return sha, {"schema_name": INDEX_SCHEMA, "version": SCHEMA_VERSION, "algorithm": "hnsw",
                     "library": "pgvector", "metric": "ip", "filter": "during the index scan",
                     "iterative_scan": ITERATIVE_SCAN, "policy": ann.to_dict(),
                     "build_seconds": round(time.perf_counter() - started, 3),
                     "index": built, "partitions": []}

    def _build_index(self, gen_id: str, dimension: int, ann: AnnPolicy) -> None:
        """Build a generation's HNSW index: DDL, which the owner runs for the maintenance
        role (`pincite_hnsw_build`, SECURITY DEFINER; see `pg_security_sql`)."""
        with self.write("*") as c:
            c.execute(f"SET LOCAL maintenance_work_mem = '{BUILD_MEMORY}'")
            c.execute(SQL_HNSW_BUILD, (checked_gen(gen_id), int(dimension),
                                       int(ann.connectivity), int(ann.expansion_add)))

    def _analyze(self) -> None:
        """Refresh the planner's statistics of the tables a query of a new generation
        joins (a fresh generation's rows are otherwise unknown to it until autovacuum);
        the MAINTAIN privilege allows it without owning them."""
        with self.write("*") as c:
            c.execute(ANALYZE)

    def drop_vectors(self, gen_id: str) -> None:
        """Drop a generation's HNSW index and delete its vectors."""
        with self.write("*") as c:
            c.execute(SQL_HNSW_DROP, (checked_gen(gen_id),))
            c.execute(SQL_VECTORS_DROP, (gen_id,))

    def _digest(self, c: Any, g: GenerationRow) -> tuple[str, int]:
        """(sha256 of the n x d rows with missing ones zero, rows stored)."""
        h = hashlib.sha256()
        zero = bytes(4 * g.dimension)
        nxt = stored = 0
        with c.cursor(name=None) as cur:
            for ord_, data in cur.execute(SQL_VECTORS_OF, (g.gen_id,)):
                while nxt < ord_:
                    h.update(zero)
                    nxt += 1
                h.update(vector_of(data).astype("<f4").tobytes())
                nxt, stored = ord_ + 1, stored + 1
        for _ in range(nxt, g.n_chunks):
            h.update(zero)
        return h.hexdigest(), stored

    def vector_problems(self, g: GenerationRow) -> list[str]:
        """Return what is wrong with a generation's vectors and HNSW index (empty when
        sound): rows missing, a digest that does not match, an index that is gone."""
        problems = []
        with self.read("*") as c:
            n = int(c.execute(SQL_VECTOR_COUNT, (g.gen_id,)).fetchone()[0])
            if n != g.n_chunks - g.purged:
                problems.append(f"vector rows {n} != chunks {g.n_chunks - g.purged}")
            elif self._digest(c, g)[0] != g.vectors_sha256:
                problems.append("vector digest does not match")
            name = ((g.manifest or {}).get("vector_index") or {}).get("index")
            if name:
                row = c.execute(SQL_INDEX_VALID, (name,)).fetchone()
                if row is None or not row[0]:
                    problems.append(f"HNSW index {name} is missing or invalid")
        return problems

    def purge_vectors(self, g: GenerationRow, ords: Sequence[int]) -> str | None:
        """Delete rows `ords` of a generation's vectors; return the new digest."""
        with self.write("*") as c:
            c.execute(SQL_VECTORS_DELETE, (g.gen_id, [int(o) for o in ords]))
            return self._digest(c, g)[0]

    def dense_candidates(self, g: GenerationRow, scope: AuthScope, universe: np.ndarray,
                         query: np.ndarray, depth: int, *, exact: bool = False,
                         keep: dict[str, Any] | None = None) -> DenseCandidates:
        """Score U for `query` inside PostgreSQL: the HNSW index scan with U's predicate
        as its filter, or the exact scan of U (see the module docstring). Returns
        positions in `universe` (U's sorted ords) and float32 similarities."""
        query = checked_query(query, g.dimension)
        why = None
        with self.read(scope.tenant) as c:
            plan = self._index_plan(c, g, scope, universe, query, depth, exact, keep)
            if plan is not None:
                sql, params, k, scan = plan
                with c.pipeline():  # the scan's settings and the scan: one round trip
                    c.execute(SET_SCAN, scan)
                    cur = c.execute(sql, params)
                rows = cur.fetchall()
                got = _positions(universe, rows)
                if len(got[0]) >= min(depth, len(universe)):
                    return DenseCandidates(got[0], got[1], "ann", k)
                why = (f"the index scan reached fewer than "
                       f"{min(depth, len(universe))} authorized rows")
            if keep is not None and len(universe) * g.dimension * 4 <= MAX_CACHED_MATRIX_BYTES:
                matrix = keep.get("matrix")
                if matrix is None:
                    matrix = keep["matrix"] = self._gather(c, g, scope.tenant, universe)
                return DenseCandidates(np.arange(len(universe)), np.asarray(matrix @ query),
                                       "exact", 0, why)
            sql, params = sql_dense_exact(g.gen_id, scope.tenant, universe.tolist(),
                                          max(1, min(depth, len(universe))), literal(query))
            rows = c.execute(sql, params).fetchall()
            if not rows and len(universe) and c.execute(
                    SQL_HAS_VECTORS, (g.gen_id, scope.tenant)).fetchone() is None:
                raise VectorsUnavailable(f"the vectors of generation {g.gen_id} are missing; "
                                         "rebuild the generation (pincite index build)")
            pos, scores = _positions(universe, rows)
        return DenseCandidates(pos, scores, "exact", 0, why)

    def _gather(self, c: Any, g: GenerationRow, tenant: str, universe: np.ndarray) -> np.ndarray:
        """U's rows of the generation's vectors as one float32 matrix (the exact scan's
        input, kept by the caller with U): one statement, the rows of U's ords only."""
        row = c.execute(SQL_GATHER, (universe.tolist(), g.gen_id, tenant)).fetchone()
        ords = np.asarray(row[0] or [], dtype=np.int64)
        if len(universe) and not len(ords):
            raise VectorsUnavailable(f"the vectors of generation {g.gen_id} are missing; "
                                     "rebuild the generation (pincite index build)")
        data = np.frombuffer(bytes(row[1] or b""), dtype=">f4").reshape(len(ords), g.dimension)
        matrix = np.zeros((len(universe), g.dimension), dtype=np.float32)
        matrix[np.searchsorted(universe, ords)] = data  # a purged row stays zero
        return matrix

    def _index_plan(self, c: Any, g: GenerationRow, scope: AuthScope, universe: np.ndarray,
                    query: np.ndarray, depth: int, exact: bool, keep: dict[str, Any] | None = None
                    ) -> tuple[str, dict[str, Any], int, tuple[str, str, str]] | None:
        """(statement, parameters, rows to collect, the scan's settings for `SET_SCAN`) of
        the HNSW index scan; None when the exact scan should answer. The tenant's row
        count in the generation is kept in `keep` (the cached universe's) once read."""
        pol = policy_of(g.manifest)
        if not ((g.manifest or {}).get("vector_index") or {}).get("index"):
            return None
        size = keep.get("graph_size") if keep is not None else None
        if size is None:
            row = c.execute(SQL_GEN_TENANT, (g.gen_id, scope.tenant)).fetchone()
            size = int(row[1]) if row else 0
            if keep is not None:
                keep["graph_size"] = size
        if not use_graph(pol, len(universe), size, exact):
            return None
        k = pol.walk_size(depth, len(universe), size)
        tuples = max(MIN_SCAN_TUPLES, 2 * k * size // max(len(universe), 1))
        ef = min(MAX_EF_SEARCH, max(pol.expansion_search, k))
        sql, params = sql_dense_index(scope, g.dimension, k, literal(query))
        return sql, params, k, (str(ef), ITERATIVE_SCAN, str(tuples))

    def dense_plan(self, g: GenerationRow, scope: AuthScope, universe: np.ndarray,
                   query: np.ndarray, depth: int) -> tuple[list[str], dict[str, str]]:
        """The plan (EXPLAIN lines) of the index scan `dense_candidates` would run, and the
        scan settings in effect for it (empty when it would scan exactly)."""
        with self.read(scope.tenant) as c:
            plan = self._index_plan(c, g, scope, universe, query, depth, False)
            if plan is None:
                return [], {}
            c.execute(SET_SCAN, plan[3])
            lines = [r[0] for r in c.execute("EXPLAIN " + plan[0], plan[1]).fetchall()]
            settings = {name: c.execute(f"SHOW {name}").fetchone()[0]
                        for name in ("hnsw.iterative_scan", "hnsw.ef_search", "hnsw.max_scan_tuples")}
        return lines, settings


def _positions(universe: np.ndarray, rows: list[tuple[int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """(positions in U, float32 scores) of (ord, similarity) rows; a row outside U (one
    authorized after U was read) is left out."""
    if not rows or not len(universe):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.float32)
    ords = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    scores = np.fromiter((r[1] for r in rows), dtype=np.float32, count=len(rows))
    pos = np.minimum(np.searchsorted(universe, ords), len(universe) - 1)
    inside = universe[pos] == ords
    return pos[inside], scores[inside]
