"""The reads of candidate generation over the embedded store: each applies the authorized
universe of its scope (`store.sqlite.universe`) before it returns a row."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import numpy as np

from ...errors import StoreError
from ..index_records import AuthScope
from ..vectors import generation_dir
from . import postings
from .index_sql import (
    SQL_AUTHORIZED,
    SQL_GEN_KEY,
    SQL_GEN_MANIFEST,
    SQL_POSTINGS,
    SQL_TENANT_STATE,
    TABLE_EXISTS,
    post_table,
)
from .universe import (
    ROW_DTYPE,
    GenerationArrays,
    RowArray,
    arrays_from_rows,
    generation_key,
    load_generation,
    mask_for,
    ords_in,
    query_of,
    rows_of,
    state,
)
from .universe_rows import ROWS_FILE, load_rows_file, save_rows_file


class AuthorizedReads:
    """The reads of candidate generation; each applies the authorized universe of its
    scope before returning a row (needs `conn`, `read` and `db_path`)."""

    db_path: Path
    root: Path

    @property
    def conn(self) -> sqlite3.Connection:  # provided by SQLiteStore
        raise NotImplementedError

    def read(self, tenant: str = "*") -> AbstractContextManager[sqlite3.Connection]: ...  # type: ignore[empty-body]

    def postings_exist(self, gen_id: str) -> bool:
        return bool(self.conn.execute(TABLE_EXISTS(), (post_table(gen_id),)).fetchone()[0])

    def _universe_state(self, scope: AuthScope) -> tuple[Any, ...]:
        """(generation arrays, tenant runs, tenant state, row mask of U) of a scope, from the
        in-memory caches of `store.sqlite.universe` (read on this snapshot when missing)."""
        with self.read() as c:
            row = c.execute(SQL_GEN_KEY, (scope.gen_id,)).fetchone()
            if row is None:
                return None, None, None, None
            st = c.execute(SQL_TENANT_STATE, (scope.tenant,)).fetchone()
            epoch = int(st[0]) if st else 0
            gkey = generation_key(str(self.db_path), scope.gen_id, row[0], row[1], int(row[2]))
            ga, tr, ts = state(c, gkey, lambda: self._generation_arrays(c, scope.gen_id),
                               scope.tenant, epoch)
            if tr is None or ts is None:
                return ga, None, None, None
            return ga, tr, ts, mask_for(gkey, epoch, ga, tr, ts, query_of(scope))

    def _generation_arrays(self, c: sqlite3.Connection, gen_id: str) -> GenerationArrays:
        """The generation's arrays from its rows file when it is whole, else from SQL."""

        row = c.execute(SQL_GEN_MANIFEST, (gen_id,)).fetchone()
        rec = (json.loads(row[0]) if row and row[0] else {}).get("universe") or {}
        if rec.get("file") == ROWS_FILE and rec.get("sha256"):
            ga = load_rows_file(generation_dir(self.root, gen_id) / ROWS_FILE, rec["sha256"])
            if ga is not None:
                return ga
        return load_generation(c, gen_id)

    def save_universe(self, gen_id: str, rows: Sequence[tuple[int, int, str, str, str, str, str, str]]
                      ) -> dict[str, str]:
        """Write a generation's universe arrays beside it (rows: ord, ntok, chunk_id, tenant,
        source_id, revision_id, kind, lang or '', in ord order); return the manifest record."""
        path = generation_dir(self.root, gen_id) / ROWS_FILE
        return {"file": ROWS_FILE, "sha256": save_rows_file(path, arrays_from_rows(rows))}

    def universe_problems(self, gen_id: str, record: dict[str, Any], chunk_ids: Sequence[str]
                          ) -> list[str]:
        """Return what is wrong with a generation's universe file (empty when it is sound)."""
        path = generation_dir(self.root, gen_id) / ROWS_FILE
        if not path.is_file():
            return ["universe rows file is missing"]
        ga = load_rows_file(path, record.get("sha256", ""))
        if ga is None:
            return ["universe rows file digest does not match"]
        if [i.decode() for i in ga.ids.tolist()] != list(chunk_ids):
            return ["universe rows file does not match the chunk list"]
        return []

    def authorized_rows(self, scope: AuthScope) -> RowArray:
        """Return (ord, ntok, chunk_id) of every row in the authorized universe, by ord —
        the rows of `SQL_AUTHORIZED`, computed from cached arrays (`store.sqlite.universe`);
        `.array` holds them as one structured numpy array."""
        ga, tr, _ts, ok = self._universe_state(scope)
        if tr is None:
            return RowArray(np.empty(0, dtype=ROW_DTYPE))
        return RowArray(rows_of(ga, ok))

    def authorized_rows_sql(self, scope: AuthScope) -> list[tuple[int, int, str]]:
        """The same universe by the single reference SQL statement (tests, benchmarks)."""
        return [tuple(r) for r in self.conn.execute(SQL_AUTHORIZED, scope.params())]  # type: ignore[misc]

    def authorized_postings(self, scope: AuthScope, terms: Sequence[str]) -> postings.Postings:
        """Return the postings (per term: ords, tfs) of the terms in authorized rows only:
        one row per term is read from the packed postings (terms carry the tenant's key,
        so they are the tenant's rows) and every row outside the authorized universe is
        dropped here, before anything ranks them. Missing postings, or a table SQLite cannot
        read, raise `StoreError` (search degrades to its other channel)."""
        if not terms:
            return postings.Postings()
        try:
            return self._postings(scope, terms)
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"the lexical tables of generation {scope.gen_id} are unreadable: "
                             f"{exc}") from exc

    def _postings(self, scope: AuthScope, terms: Sequence[str]) -> postings.Postings:
        with self.read() as c:
            if not self.postings_exist(scope.gen_id):
                raise StoreError(f"generation {scope.gen_id} has no packed postings; "
                                 "build a new generation")
            ga, tr, _ts, ok = self._universe_state(scope)
            if tr is None:
                return postings.Postings()
            got = postings.read(c, scope.gen_id, json.dumps(list(terms)))
        return got.keep([ords_in(ga, ok, o) for o in got.ords])

    def authorized_postings_sql(self, scope: AuthScope, terms: Sequence[str]) -> list[tuple[str, int, int]]:
        """The same postings by the reference statement over the bodies, which joins U inside
        SQL (tests, benchmarks)."""
        if not terms:
            return []
        params = {**scope.params(), "terms": json.dumps(list(terms))}
        return [tuple(r) for r in self.conn.execute(SQL_POSTINGS(scope.gen_id), params)]  # type: ignore[misc]
