"""The authorized universe U of a query, computed with numpy from arrays kept in memory.

    U(q, s, t, g) = { c in generation g | c.tenant = s.tenant, the source ACL grants one
                      of s's entries, the revision is valid at t (the current one when
                      t is None), no tombstone covers the revision, c passes the filters }

Two layers of arrays, each cached under a key that changes whenever its content can:

- per generation (key: store, generation id, created_at, chunk-list digest, purged
  rows): its rows in `ord` order (ntok, chunk id, kind, language) and its *runs*, the
  maximal spans of consecutive rows of one (tenant, source, revision). A generation is
  immutable except for purges, which change the digest and the purged count. They are
  written at build time to `indexes/<gen>/rows.npz` (temp → fsync → rename, digest in
  the manifest, checked with the generation; a purge rewrites it without the purged
  rows) so a process loads them without reading every chunk row; a generation without
  a sound file is read from SQL.
- per tenant and authorization epoch (key: the generation key, tenant, epoch): for each
  run of the tenant, its revision's seq, validity and media type and whether a
  tombstone covers it, and the sources' ACL entries. Every write that can change an
  authorization decision (source, ACL, revision, text layer, tombstone) bumps the
  tenant's epoch in the same transaction, so a stale entry is never read again.

A query then costs a few vectorised operations over the tenant's runs and a row mask
(cached per generation, epoch and query); the old single SQL statement
(`SQL_AUTHORIZED`) stays as the reference the tests compare against. Nothing here
decides what a principal may see beyond the definition above: it is the same predicate
as the SQL, evaluated over the same rows. `store.sqlite.authorized.AuthorizedReads` (mixed into the store) is
the seam candidate generation reads through: the universe's rows, and term postings
with every row outside U dropped before they are returned.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..index_records import AuthScope
from ..lru import LRU
from .index_sql import (
    SQL_TENANT_ACL_ENTRIES,
    SQL_TENANT_REVISIONS,
    SQL_TENANT_TOMBSTONES,
    SQL_UNIVERSE_ROWS,
)

ROW_DTYPE = np.dtype([("ord", np.int64), ("ntok", np.int64), ("chunk_id", "S32")])


class RowArray:
    """Rows held as one structured numpy array (`array`, for vectorised readers);
    iterating or indexing yields plain Python tuples (bytes decoded to str)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __len__(self) -> int:
        return len(self.array)

    @staticmethod
    def _plain(row: tuple[Any, ...]) -> tuple[Any, ...]:
        return tuple(x.decode() if isinstance(x, bytes) else x for x in row)

    def __getitem__(self, i: int) -> tuple[Any, ...]:
        return self._plain(self.array[i].tolist())

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return (self._plain(r) for r in self.array.tolist())


@dataclass(frozen=True, slots=True)
class TenantRuns:
    """The runs of one tenant in a generation."""

    runs: np.ndarray      # run numbers (into GenerationArrays.run_start/run_end), ascending
    sources: np.ndarray   # the tenant's distinct source ids (str)
    run_src: np.ndarray   # per run: index into `sources`
    run_rev: list[str]    # per run: revision id


@dataclass(frozen=True, slots=True)
class GenerationArrays:
    ords: np.ndarray       # int64, ascending
    ntok: np.ndarray       # int64
    ids: np.ndarray        # chunk ids, bytes
    kind: np.ndarray       # int32 codes into `kinds`
    kinds: tuple[str, ...]
    lang: np.ndarray       # int32 codes into `langs` ('' for none)
    langs: tuple[str, ...]
    run_start: np.ndarray  # int64 positions into the row arrays
    run_end: np.ndarray
    run_len: np.ndarray    # int64 rows per run
    dense: bool            # ords == arange(n): an ord is its own row position
    tenants: dict[str, TenantRuns]


@dataclass(frozen=True, slots=True)
class TenantState:
    """Authorization state of one tenant's runs at one epoch."""

    base_ok: np.ndarray    # revision row exists and no tombstone covers it
    valid_from: np.ndarray  # str ('' when unknown)
    from_null: np.ndarray
    valid_to: np.ndarray   # str ('' when open)
    to_null: np.ndarray
    media: np.ndarray      # str ('' when unknown)
    media_null: np.ndarray
    acl_src: np.ndarray    # int64 source index per ACL entry row
    acl_entry: np.ndarray  # str entry per ACL entry row


GENERATIONS = LRU(4)
TENANT_STATES = LRU(64)
RUN_MASKS = LRU(64)


def _codes(values: list[str]) -> tuple[np.ndarray, tuple[str, ...]]:
    names = tuple(sorted(set(values)))
    where = {v: i for i, v in enumerate(names)}
    return np.fromiter((where[v] for v in values), dtype=np.int32, count=len(values)), names


def arrays_from_rows(rows: Sequence[Sequence[Any]]) -> GenerationArrays:
    """Cut rows (ord, ntok, chunk_id, tenant, source_id, revision_id, kind, lang or '')
    in ord order into the generation's arrays and runs."""
    n = len(rows)
    ords = np.fromiter((r[0] for r in rows), dtype=np.int64, count=n)
    ntok = np.fromiter((r[1] for r in rows), dtype=np.int64, count=n)
    ids = np.array([r[2].encode() for r in rows], dtype="S32") if n else np.zeros(0, "S32")
    kind, kinds = _codes([r[6] for r in rows])
    lang, langs = _codes([r[7] for r in rows])
    starts: list[int] = []
    keys: list[tuple[str, str, str]] = []
    prev = None
    for i, r in enumerate(rows):
        key = (r[3], r[4], r[5])
        if key != prev:
            starts.append(i)
            keys.append(key)
            prev = key
    run_start = np.array(starts, dtype=np.int64)
    return assemble(ords, ntok, ids, kind, kinds, lang, langs, run_start,
                     [k[0] for k in keys], [k[1] for k in keys], [k[2] for k in keys])


def assemble(ords: np.ndarray, ntok: np.ndarray, ids: np.ndarray, kind: np.ndarray,
             kinds: tuple[str, ...], lang: np.ndarray, langs: tuple[str, ...],
             run_start: np.ndarray, run_tenant: list[str], run_source: list[str],
             run_rev: list[str]) -> GenerationArrays:
    """Return a generation's arrays from its rows and its runs' (tenant, source, revision)."""
    n = len(ords)
    run_end = np.append(run_start[1:], n).astype(np.int64)
    by_tenant: dict[str, list[int]] = {}
    for j, tenant in enumerate(run_tenant):
        by_tenant.setdefault(tenant, []).append(j)
    tenants = {}
    for tenant, runs in by_tenant.items():
        src_names = sorted({run_source[j] for j in runs})
        where = {s: i for i, s in enumerate(src_names)}
        tenants[tenant] = TenantRuns(
            np.array(runs, dtype=np.int64), np.array(src_names, dtype=str),
            np.fromiter((where[run_source[j]] for j in runs), dtype=np.int64, count=len(runs)),
            [run_rev[j] for j in runs])
    return GenerationArrays(ords, ntok, ids, kind, kinds, lang, langs, run_start, run_end,
                            run_end - run_start,
                            bool(n == 0 or (ords[0] == 0 and ords[-1] == n - 1)), tenants)


def load_generation(conn: sqlite3.Connection, gen_id: str) -> GenerationArrays:
    """Read a generation's rows from SQL (one statement) and cut them into runs."""
    return arrays_from_rows(conn.execute(SQL_UNIVERSE_ROWS, (gen_id,)).fetchall())


def load_tenant(conn: sqlite3.Connection, tr: TenantRuns, tenant: str) -> TenantState:
    """Read a tenant's revisions, tombstones and ACL entries and lay them over its runs."""
    revs = {(r[0], r[1]): r[2:] for r in conn.execute(SQL_TENANT_REVISIONS, (tenant,))}
    tombs = {r[0]: int(r[1]) for r in conn.execute(SQL_TENANT_TOMBSTONES, (tenant,))}
    n = len(tr.run_rev)
    base_ok = np.zeros(n, dtype=bool)
    vfrom, vto, media = [""] * n, [""] * n, [""] * n
    from_null = np.ones(n, dtype=bool)
    to_null = np.ones(n, dtype=bool)
    media_null = np.ones(n, dtype=bool)
    src_names = tr.sources.tolist()
    for j, (si, rev_id) in enumerate(zip(tr.run_src.tolist(), tr.run_rev, strict=True)):
        src = src_names[si]
        rev = revs.get((src, rev_id))
        if rev is None:
            continue
        seq, valid_from, valid_to, media_type = rev
        base_ok[j] = tombs.get(src, -1) < int(seq)
        if valid_from is not None:
            vfrom[j], from_null[j] = valid_from, False
        if valid_to is not None:
            vto[j], to_null[j] = valid_to, False
        if media_type is not None:
            media[j], media_null[j] = media_type, False
    where = {s: i for i, s in enumerate(src_names)}
    pairs = [(where[s], e) for s, e in conn.execute(SQL_TENANT_ACL_ENTRIES, (tenant,)) if s in where]
    return TenantState(base_ok, np.array(vfrom, dtype=str), from_null, np.array(vto, dtype=str),
                       to_null, np.array(media, dtype=str), media_null,
                       np.array([p[0] for p in pairs], dtype=np.int64),
                       np.array([p[1] for p in pairs], dtype=str))


@dataclass(frozen=True, slots=True)
class Query:
    """What a universe depends on besides the generation and the tenant's state."""

    tenant: str
    entries: tuple[str, ...]
    as_of: str | None
    source_ids: tuple[str, ...] | None
    source_prefix: str | None
    kinds: tuple[str, ...] | None
    langs: tuple[str, ...] | None
    media_types: tuple[str, ...] | None


def run_mask(tr: TenantRuns, ts: TenantState, q: Query) -> np.ndarray:
    """Which of the tenant's runs are in U (row-level filters aside)."""
    ok = ts.base_ok.copy()
    allowed = np.zeros(len(tr.sources), dtype=bool)
    if len(ts.acl_entry):
        allowed[ts.acl_src[np.isin(ts.acl_entry, np.array(q.entries, dtype=str))]] = True
    ok &= allowed[tr.run_src]
    if q.as_of is None:
        ok &= ts.to_null
    else:
        ok &= ~ts.from_null & (ts.valid_from <= q.as_of)
        ok &= ts.to_null | (ts.valid_to > q.as_of)
    if q.source_ids is not None:
        ok &= np.isin(tr.sources, np.array(q.source_ids, dtype=str))[tr.run_src]
    if q.source_prefix is not None:
        ok &= np.char.startswith(tr.sources, q.source_prefix)[tr.run_src]
    if q.media_types is not None:
        ok &= ~ts.media_null & np.isin(ts.media, np.array(q.media_types, dtype=str))
    return ok


def row_mask(ga: GenerationArrays, tr: TenantRuns, ok: np.ndarray, q: Query) -> np.ndarray:
    """Per row position of the generation: is the row in U (runs chosen, row filters)."""
    chosen = np.zeros(len(ga.run_start), dtype=bool)
    chosen[tr.runs[ok]] = True
    rows = np.repeat(chosen, ga.run_len)
    if q.kinds is not None:
        codes = [i for i, k in enumerate(ga.kinds) if k in set(q.kinds)]
        rows &= np.isin(ga.kind, np.array(codes, dtype=np.int32))
    if q.langs is not None:
        codes = [i for i, k in enumerate(ga.langs) if k in set(q.langs)]
        rows &= np.isin(ga.lang, np.array(codes, dtype=np.int32))
    return rows


def rows_of(ga: GenerationArrays, rows: np.ndarray) -> np.ndarray:
    """The universe as a structured array (ord, ntok, chunk_id), by ord."""
    pos = np.flatnonzero(rows)
    out = np.empty(len(pos), dtype=ROW_DTYPE)
    out["ord"] = ga.ords[pos]
    out["ntok"] = ga.ntok[pos]
    out["chunk_id"] = ga.ids[pos]
    return out


def ords_in(ga: GenerationArrays, rows: np.ndarray, ords: np.ndarray) -> np.ndarray:
    """Mask over `ords`: which are rows of the universe (without materialising it)."""
    if not len(ords) or not len(ga.ords):
        return np.zeros(len(ords), dtype=bool)
    if ga.dense:
        inside = (ords >= 0) & (ords < len(ga.ords))
        pos = np.where(inside, ords, 0)
    else:
        pos = np.minimum(np.searchsorted(ga.ords, ords), len(ga.ords) - 1)
        inside = ga.ords[pos] == ords
    return inside & rows[pos]


def generation_key(db_path: str, gen_id: str, created_at: str, chunks_sha256: str | None,
                   purged: int) -> tuple[Any, ...]:
    return (db_path, gen_id, created_at, chunks_sha256, purged)


def state(conn: sqlite3.Connection, gkey: tuple[Any, ...], load: Callable[[], GenerationArrays],
          tenant: str, epoch: int) -> tuple[GenerationArrays, TenantRuns | None, TenantState | None]:
    """The cached arrays of a generation (`load()` on a miss) and of a tenant's state at
    `epoch`."""
    ga = GENERATIONS.get(gkey)
    if ga is None:
        ga = load()
        GENERATIONS.put(gkey, ga)
    tr = ga.tenants.get(tenant)
    if tr is None:
        return ga, None, None
    tkey = (gkey, tenant, epoch)
    ts = TENANT_STATES.get(tkey)
    if ts is None:
        ts = load_tenant(conn, tr, tenant)
        TENANT_STATES.put(tkey, ts)
    return ga, tr, ts


def mask_for(gkey: tuple[Any, ...], epoch: int, ga: GenerationArrays, tr: TenantRuns,
             ts: TenantState, q: Query) -> np.ndarray:
    """The row mask of U (cached per generation, epoch and query)."""
    key = (gkey, epoch, q)
    rows = RUN_MASKS.get(key)
    if rows is None:
        rows = row_mask(ga, tr, run_mask(tr, ts, q), q)
        RUN_MASKS.put(key, rows)
    return rows


def clear() -> None:
    """Forget every cached array (tests; a process that wants its memory back)."""
    for c in (GENERATIONS, TENANT_STATES, RUN_MASKS):
        c.clear()


def query_of(scope: AuthScope) -> Query:
    """Return the universe query of an authorization scope."""
    return Query(scope.tenant, tuple(scope.entries), scope.as_of, scope.source_ids,
                 scope.source_prefix, scope.kinds, scope.langs, scope.media_types)
