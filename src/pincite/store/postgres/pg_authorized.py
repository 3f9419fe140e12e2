"""The reads of candidate generation on PostgreSQL: each applies the authorized universe
of its scope inside its own statement or before it returns a row.

- `authorized_rows`: one statement (`pg_universe_sql.sql_authorized`) joins the
  generation's rows with ACL entries, revisions and tombstones; its result is kept per
  (generation, tenant, authorization epoch, query), and the epoch is read before the
  rows, so a change that commits in between is never cached under the older epoch.
- `authorized_postings`: the terms' packed rows of the tenant (the statement names the
  tenant, and the wall checks it), then every row outside that universe is dropped
  here, before anything ranks them (as the SQLite backend does).
- `dense_candidates` (`pg_dense`): the universe's predicate inside the vector query.
"""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import StoreError
from ..index_records import AuthScope, ChunkRecord
from ..lru import LRU
from ..sqlite.postings import Postings
from ..sqlite.universe import ROW_DTYPE, RowArray, query_of
from .pg_index_sql import (
    CHUNK_COLS,
    SQL_CHUNKS_BY_ORD,
    SQL_GEN_TABLES_HAS,
    SQL_LEX_COUNT,
    SQL_QUOTES,
    SQL_UNIVERSE_KEY,
)
from .pg_postings import read_postings, table_digest
from .pg_universe_sql import sql_authorized, sql_postings

UNIVERSE_ROWS = LRU(64)  # (url, generation key, tenant, epoch, query) -> row array


class PgAuthorizedReads:
    """Authorized reads of candidate generation (needs `read`, `url` and `root`)."""

    url: str
    root: Path

    def read(self, tenant: str = "*") -> AbstractContextManager[Any]: ...  # type: ignore[empty-body]
    def write(self, tenant: str = "*") -> AbstractContextManager[Any]: ...  # type: ignore[empty-body]

    # ---- the generation's lexical tables ------------------------------------------------

    def lexical_exists(self, gen_id: str) -> bool:
        """Return True when the generation's lexical rows are stored (not dropped)."""
        with self.read("*") as c:
            return c.execute(SQL_GEN_TABLES_HAS, (gen_id,)).fetchone() is not None

    def postings_exist(self, gen_id: str) -> bool:
        """Return True when the generation's packed postings are stored."""
        return self.lexical_exists(gen_id)

    def lexical_rows(self, gen_id: str) -> int:
        """Return how many bodies the generation's lexical rows hold."""
        with self.read("*") as c:
            return int(c.execute(SQL_LEX_COUNT, (gen_id,)).fetchone()[0])

    def postings_digest(self, gen_id: str) -> str:
        """Recompute the digest of a generation's packed postings (integrity check)."""
        with self.read("*") as c:
            return table_digest(c, gen_id)

    # ---- the universe -----------------------------------------------------------------------

    def save_universe(self, gen_id: str, rows: Sequence[tuple[int, int, str, str, str, str, str, str]]
                      ) -> dict[str, str]:
        """Return the manifest record of a generation's universe: on PostgreSQL it is
        computed by SQL from the generation's rows, so nothing is written beside it."""
        return {"table": "generation_chunks", "rows": str(len(rows))}

    def universe_problems(self, gen_id: str, record: dict[str, Any], chunk_ids: Sequence[str]
                          ) -> list[str]:
        """Return what is wrong with a generation's universe record (empty when sound)."""
        if record.get("table") != "generation_chunks":
            return ["universe record names no generation_chunks table"]
        return []

    def _universe(self, scope: AuthScope, lexical: bool = False) -> np.ndarray:
        """U's rows (ord, ntok, chunk_id) as a structured array by ord (cached per
        generation, tenant, epoch and query); `lexical` raises StoreError when the
        generation's packed postings are gone (checked in the same round trip)."""
        with self.read(scope.tenant) as c:
            gen = c.execute(SQL_UNIVERSE_KEY, (scope.tenant, scope.gen_id)).fetchone()
            if lexical and (gen is None or not gen[4]):
                raise StoreError(f"generation {scope.gen_id} has no packed postings; "
                                 "build a new generation")
            if gen is None:
                return np.empty(0, dtype=ROW_DTYPE)
            key = (self.url, scope.gen_id, *gen[:3], scope.tenant, int(gen[3]), query_of(scope))
            got = UNIVERSE_ROWS.get(key)
            if got is not None:
                return got  # type: ignore[no-any-return]
            sql, params = sql_authorized(scope)
            rows = c.execute(sql, params).fetchall()
        arr = np.empty(len(rows), dtype=ROW_DTYPE)
        if rows:
            arr["ord"] = [r[0] for r in rows]
            arr["ntok"] = [r[1] for r in rows]
            arr["chunk_id"] = [r[2].encode() for r in rows]
        UNIVERSE_ROWS.put(key, arr)
        return arr

    def authorized_rows(self, scope: AuthScope) -> RowArray:
        """Return (ord, ntok, chunk_id) of every row in the authorized universe, by ord."""
        return RowArray(self._universe(scope))

    def authorized_rows_sql(self, scope: AuthScope) -> list[tuple[int, int, str]]:
        """The same universe read by its statement, uncached (tests, benchmarks)."""
        sql, params = sql_authorized(scope)
        with self.read(scope.tenant) as c:
            return [(int(r[0]), int(r[1]), r[2]) for r in c.execute(sql, params).fetchall()]

    def authorized_postings(self, scope: AuthScope, terms: Sequence[str]) -> Postings:
        """Return the postings (per term: ords, tfs) of the terms in authorized rows only:
        the tenant's packed rows of the terms, with every row outside the authorized
        universe dropped here, before anything ranks them. Missing postings raise
        `StoreError` (search degrades to its other channel)."""
        if not terms:
            return Postings()
        with self.read(scope.tenant) as c:  # one transaction: the calls below join it
            u = self._universe(scope, lexical=True)["ord"]
            if not len(u):
                return Postings()
            got = read_postings(c, scope.gen_id, scope.tenant, list(terms))
        masks = []
        for ords in got.ords:
            pos = np.minimum(np.searchsorted(u, ords), len(u) - 1)
            masks.append(u[pos] == ords)
        return got.keep(masks)

    def authorized_postings_sql(self, scope: AuthScope, terms: Sequence[str]
                                ) -> list[tuple[str, int, int]]:
        """The same postings by the reference statement over the bodies, which joins U
        inside SQL (tests, benchmarks)."""
        if not terms:
            return []
        sql, params = sql_postings(scope, list(terms))
        with self.read(scope.tenant) as c:
            return [(r[0], int(r[1]), int(r[2])) for r in c.execute(sql, params).fetchall()]

    # ---- rows of chosen candidates ----------------------------------------------------------

    def chunks_by_ord(self, gen_id: str, tenant: str, ords: Sequence[int]
                      ) -> dict[int, tuple[ChunkRecord, str, str | None, str]]:
        """Return {ord: (chunk, revision sha256, revision valid_to, media type)} of a tenant."""
        n = len(CHUNK_COLS)
        with self.read(tenant) as c:
            rows = c.execute(SQL_CHUNKS_BY_ORD, (gen_id, tenant, [int(o) for o in ords])).fetchall()
        return {int(r[0]): (ChunkRecord.from_row(r[1:1 + n]), r[1 + n], r[2 + n], r[3 + n])
                for r in rows}

    def span_texts(self, spans: Sequence[tuple[ChunkRecord, int, int]]) -> list[str]:
        """Return `text[start:end]` of each (chunk, start, end), in order, read in one
        statement (one round trip for a bundle's quotes); "" where the layer is gone."""
        if not spans:
            return []
        out = [""] * len(spans)
        for tenant in sorted({ch.tenant for ch, _s, _e in spans}):  # each in its tenant's wall
            mine = [i for i, (ch, _s, _e) in enumerate(spans) if ch.tenant == tenant]
            with self.read(tenant) as c:
                rows = c.execute(SQL_QUOTES, (
                    mine, [spans[i][1] for i in mine], [spans[i][2] - spans[i][1] for i in mine],
                    [tenant] * len(mine), [spans[i][0].source_id for i in mine],
                    [spans[i][0].revision_id for i in mine],
                    [spans[i][0].text_layer for i in mine])).fetchall()
            for i, text in rows:
                out[int(i)] = text or ""
        return out
