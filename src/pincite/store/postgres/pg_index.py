"""The retrieval side of the PostgreSQL store: chunks, generations, the pointer,
tombstones and purge (the SQLite counterpart is `store.sqlite.index_store`).

Every method acts in one transaction; a tenant's rows are read and written in a
transaction for that tenant, so the row-level-security wall is real. Generation-wide
work (building, checking, dropping a generation; the pointer) spans tenants (`*`).
Where SQLite relied on its single writer, this uses locks: an advisory lock while a
generation takes the next sequence number, and `SELECT … FOR UPDATE` on the pointer row,
so two processes cannot both switch it from the same generation.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ... import faults
from ...errors import StoreBusy
from ..index_records import (
    BuildSnapshot,
    ChunkRecord,
    GenerationRow,
    LiveRevision,
    Tombstone,
    gen_row,
)
from ..sqlite.postings import PostingsBuilder, digest
from .pg_authorized import PgAuthorizedReads
from .pg_connection import ALL_TENANTS, act_for
from .pg_dense import PgVectors
from .pg_index_sql import (
    GEN_LOCK,
    SQL_CHUNK_SET,
    SQL_CHUNK_TENANTS,
    SQL_CHUNK_TEXTS,
    SQL_CHUNKS_OF,
    SQL_CHUNKS_OF_SOURCE,
    SQL_CONTENT_DIGEST_USED,
    SQL_DELETE_CHUNK_SETS_OF_SOURCE,
    SQL_DELETE_CHUNKS_OF_SOURCE,
    SQL_DELETE_GEN_CHUNKS,
    SQL_DELETE_LAYERS_OF_SOURCE,
    SQL_DELETE_QUARANTINE_OF_SOURCE,
    SQL_DELETE_REVISIONS_OF_SOURCE,
    SQL_DELETE_SOURCE,
    SQL_DELETION_WATERMARK,
    SQL_DROP_GEN_CHUNKS,
    SQL_DROP_GEN_TENANTS,
    SQL_FINISH_GENERATION,
    SQL_GEN_CHUNK_COUNT,
    SQL_GEN_CHUNK_LIST,
    SQL_GEN_CHUNK_MAP,
    SQL_GEN_CHUNKS_FILL,
    SQL_GEN_ORDS_OF_CHUNKS,
    SQL_GEN_PURGED,
    SQL_GEN_TABLES_ADD,
    SQL_GEN_TABLES_DROP,
    SQL_GEN_TENANT,
    SQL_GENERATION,
    SQL_GENERATIONS,
    SQL_INSERT_CHUNK,
    SQL_INSERT_CHUNK_SET,
    SQL_INSERT_GEN_TENANT,
    SQL_INSERT_GENERATION,
    SQL_INSERT_TOMBSTONE,
    SQL_LEX_BODIES_OF,
    SQL_LEX_COPY,
    SQL_LEX_DELETE,
    SQL_LEX_DROP,
    SQL_LEX_FILL,
    SQL_LIVE_REVISIONS,
    SQL_MARK_PUBLISHED,
    SQL_MARK_PURGED,
    SQL_MARK_RETIRED,
    SQL_NEXT_GEN_SEQ,
    SQL_POINTER,
    SQL_POINTER_LOCK,
    SQL_POST_DROP,
    SQL_POST_FILL,
    SQL_QUARANTINE_OF_SOURCE,
    SQL_QUARANTINE_SHA_USED,
    SQL_SET_GEN_STATE,
    SQL_SET_MANIFEST,
    SQL_SET_POINTER,
    SQL_SHA_USED,
    SQL_SHAS_OF_SOURCE,
    SQL_SOURCE_WATERMARK,
    SQL_TENANT_STATE,
    SQL_TENANT_STATES,
    SQL_TOMBSTONE_FOR,
    SQL_TOMBSTONE_MAX,
)
from .pg_postings import purge_postings, table_digest

ALL = ALL_TENANTS


@contextmanager
def snapshot(conn: Any, tenant: str) -> Iterator[Any]:
    """Run a block of reads on ONE snapshot (REPEATABLE READ, read only) for `tenant`; an
    inner block joins an open transaction (and its snapshot)."""
    import psycopg

    if conn.info.transaction_status != psycopg.pq.TransactionStatus.IDLE:
        yield conn
        return
    with conn.transaction():
        conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        act_for(conn, tenant)
        yield conn


def source_key(source_id: str) -> str:
    """The name a tombstone keeps for a source after its id is purged."""
    return hashlib.sha256(source_id.encode()).hexdigest()


class PgIndexTables(PgAuthorizedReads, PgVectors):
    """Chunks, generations, pointer, tombstones and purge on PostgreSQL (needs `write`,
    `read` and `url` from `PostgresStore`)."""

    # ---- tenant state and watermarks --------------------------------------------------

    def tenant_state(self, tenant: str) -> tuple[int, int]:
        """Return (epoch, rev_epoch) of a tenant: (0, 0) when it has nothing."""
        with self.read(tenant) as c:
            row = c.execute(SQL_TENANT_STATE, (tenant,)).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def tenant_rev_epochs(self) -> dict[str, int]:
        """Return {tenant: rev_epoch} of every tenant."""
        with self.read(ALL) as c:
            return {t: int(rev) for t, _e, rev in c.execute(SQL_TENANT_STATES).fetchall()}

    def build_snapshot(self, history: bool = True) -> BuildSnapshot:
        """Return the live revisions, tenant revision epochs and watermarks, on one snapshot."""
        with snapshot(self.conn, ALL) as c:  # type: ignore[attr-defined]
            revs = [LiveRevision(*r) for r in c.execute(SQL_LIVE_REVISIONS,
                                                         {"history": history}).fetchall()]
            epochs = {t: int(rev) for t, _e, rev in c.execute(SQL_TENANT_STATES).fetchall()}
            src_wm = c.execute(SQL_SOURCE_WATERMARK).fetchone()[0]
            del_wm = c.execute(SQL_DELETION_WATERMARK).fetchone()[0]
        return BuildSnapshot(revs, epochs, src_wm, del_wm)

    # ---- chunks -------------------------------------------------------------------------

    def chunk_set_size(self, rev: LiveRevision, layer_id: str, policy: str) -> int | None:
        """Return how many chunks a (revision, layer, policy) has, or None if not segmented."""
        with self.read(rev.tenant) as c:
            row = c.execute(SQL_CHUNK_SET, (rev.tenant, rev.source_id, rev.revision_id,
                                            layer_id, policy)).fetchone()
        return None if row is None else int(row[0])

    def chunks_of(self, rev: LiveRevision, layer_id: str, policy: str) -> list[ChunkRecord]:
        """Return the stored chunks of a (revision, layer, policy), in text order."""
        with self.read(rev.tenant) as c:
            rows = c.execute(SQL_CHUNKS_OF, (rev.tenant, rev.source_id, rev.revision_id,
                                             layer_id, policy)).fetchall()
        return [ChunkRecord.from_row(r) for r in rows]

    def add_chunk_set(self, rev: LiveRevision, layer_id: str, policy: str,
                      chunks: Sequence[ChunkRecord], at: str) -> None:
        """Store the chunks of a (revision, layer, policy) and mark it segmented, atomically."""
        with self.write(rev.tenant) as c:
            with c.cursor() as cur:
                cur.executemany(SQL_INSERT_CHUNK, [ch.to_row() for ch in chunks])
            c.execute(SQL_INSERT_CHUNK_SET, (rev.tenant, rev.source_id, rev.revision_id,
                                             layer_id, policy, len(chunks), at))

    # ---- generations ----------------------------------------------------------------------

    def new_generation(self, builder: str, at: str) -> str:
        """Create a generation in state `building`; return its id (one process at a time
        takes the next number: an advisory lock, and `seq` is unique besides)."""
        with self.write(ALL) as c:
            c.execute("SELECT pg_advisory_xact_lock(%s)", (GEN_LOCK,))
            seq = int(c.execute(SQL_NEXT_GEN_SEQ).fetchone()[0])
            gen_id = f"g{seq:06d}"
            c.execute(SQL_INSERT_GENERATION, (gen_id, seq, at, builder))
        return gen_id

    def fill_generation(self, gen_id: str,
                        rows: Iterable[tuple[int, str, str, int, str | None]],
                        copy_from: str | None,
                        tenants: Sequence[tuple[str, int, int]]) -> str:
        """Fill the generation's bodies, packed postings and chunk list in one transaction;
        return the postings digest. `rows` are (ord, chunk_id, tenant key, ntok, body or
        None); a None body is copied from the same chunk's row in `copy_from`."""
        rows = list(rows)
        with self.write(ALL) as c:
            owner = dict(c.execute(SQL_CHUNK_TENANTS, ([r[1] for r in rows],)).fetchall())
            old: dict[str, int] = {}
            if copy_from is not None:
                old = {r[0]: int(r[1]) for r in c.execute(SQL_GEN_CHUNK_MAP, (copy_from,))}
            c.execute(SQL_GEN_TABLES_ADD, (gen_id,))
            c.execute(SQL_GEN_CHUNKS_FILL, (gen_id, [r[0] for r in rows], [r[1] for r in rows],
                                            [r[3] for r in rows], [owner[r[1]] for r in rows]))
            fresh = [r for r in rows if r[4] is not None]
            c.execute(SQL_LEX_FILL, (gen_id, [r[0] for r in fresh], [owner[r[1]] for r in fresh],
                                     [r[4] for r in fresh]))
            copied = [(r[0], old[r[1]]) for r in rows if r[4] is None]
            if copied:
                assert copy_from is not None
                c.execute(SQL_LEX_COPY, (gen_id, [a for a, _ in copied], [b for _, b in copied],
                                         copy_from))
            bodies = dict(c.execute(SQL_LEX_BODIES_OF, (gen_id, [r[0] for r in rows])).fetchall())
            builders: dict[str, PostingsBuilder] = {}
            for ord_, chunk_id, _key, _ntok, _body in rows:
                builders.setdefault(owner[chunk_id], PostingsBuilder()).add(ord_, bodies[ord_])
            packed = sorted(((t, row) for t, b in builders.items() for row in b.rows()),
                            key=lambda x: x[1][0])
            c.execute(SQL_POST_FILL, (gen_id, [t for t, _ in packed], [r[0] for _, r in packed],
                                      [r[1] for _, r in packed], [r[2] for _, r in packed]))
            faults.hit("gen.fts_written")
            with c.cursor() as cur:
                cur.executemany(SQL_INSERT_GEN_TENANT, [(gen_id, *t) for t in tenants])
        return digest(row for _t, row in packed)

    def chunk_ords(self, gen_id: str) -> dict[str, tuple[int, int]]:
        """Return {chunk_id: (ord, ntok)} of a generation."""
        with self.read(ALL) as c:
            return {r[0]: (int(r[1]), int(r[2]))
                    for r in c.execute(SQL_GEN_CHUNK_MAP, (gen_id,)).fetchall()}

    def finish_generation(self, gen_id: str, state: str, manifest: dict[str, Any], n_chunks: int,
                          dimension: int, vectors_sha256: str, chunks_sha256: str,
                          note: str | None = None) -> None:
        """Record a built generation's state, manifest and digests (only while `building`)."""
        with self.write(ALL) as c:
            c.execute(SQL_FINISH_GENERATION, (state, json.dumps(manifest, sort_keys=True),
                                              n_chunks, dimension, vectors_sha256, chunks_sha256,
                                              note, gen_id))

    def set_generation_state(self, gen_id: str, state: str, note: str | None = None) -> None:
        """Set a generation's state and note."""
        with self.write(ALL) as c:
            c.execute(SQL_SET_GEN_STATE, (state, note, gen_id))

    def generation(self, gen_id: str) -> GenerationRow | None:
        """Return a generation's row, or None."""
        with self.read(ALL) as c:
            row = c.execute(SQL_GENERATION, (gen_id,)).fetchone()
        return gen_row(row) if row else None

    def generations(self) -> list[GenerationRow]:
        """Return every generation, oldest first."""
        with self.read(ALL) as c:
            return [gen_row(r) for r in c.execute(SQL_GENERATIONS).fetchall()]

    def generation_chunk_list(self, gen_id: str) -> list[tuple[int, str, str | None]]:
        """Return (ord, chunk_id, content digest or None when the chunk row is gone)."""
        with self.read(ALL) as c:
            return [(int(r[0]), r[1], r[2]) for r in c.execute(SQL_GEN_CHUNK_LIST, (gen_id,))]

    def generation_chunk_count(self, gen_id: str) -> int:
        """Return how many rows a generation's chunk list holds."""
        with self.read(ALL) as c:
            return int(c.execute(SQL_GEN_CHUNK_COUNT, (gen_id,)).fetchone()[0])

    def generation_tenant(self, gen_id: str, tenant: str) -> tuple[int, int] | None:
        """Return (rev_epoch at build, chunks) of a tenant in a generation, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_GEN_TENANT, (gen_id, tenant)).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def drop_generation_tables(self, gen_id: str, state: str, note: str) -> None:
        """Drop a generation's lexical rows, vectors (and their HNSW index) and chunk list;
        keep its row (and manifest)."""
        self.drop_vectors(gen_id)
        with self.write(ALL) as c:
            c.execute(SQL_POST_DROP, (gen_id,))
            c.execute(SQL_LEX_DROP, (gen_id,))
            c.execute(SQL_GEN_TABLES_DROP, (gen_id,))
            c.execute(SQL_DROP_GEN_CHUNKS, (gen_id,))
            c.execute(SQL_DROP_GEN_TENANTS, (gen_id,))
            c.execute(SQL_SET_GEN_STATE, (state, note, gen_id))

    # ---- the pointer ------------------------------------------------------------------------

    def pointer(self) -> tuple[str | None, str | None, str | None]:
        """Return (current, previous, switched_at)."""
        with self.read(ALL) as c:
            row = c.execute(SQL_POINTER).fetchone()
        return (row[0], row[1], row[2]) if row else (None, None, None)

    def switch_pointer(self, current: str, previous: str | None, at: str,
                       expect_current: str | None) -> None:
        """Point readers at `current` in ONE transaction; refused (StoreBusy) if the pointer
        moved: the pointer row is locked (`FOR UPDATE`) before it is compared, so of two
        processes switching from the same generation only the first wins."""
        with self.write(ALL) as c:
            now = c.execute(SQL_POINTER_LOCK).fetchone()[0]
            if now != expect_current:
                raise StoreBusy(f"the index pointer moved to {now} during the switch")
            if now is not None and now != current:
                c.execute(SQL_MARK_RETIRED, (now,))
            c.execute(SQL_MARK_PUBLISHED, (at, current))
            c.execute(SQL_SET_POINTER, (current, previous, at))
            faults.hit("gen.pointer_swap")

    # ---- tombstones ---------------------------------------------------------------------------

    def deleted_through(self, tenant: str, source_id: str) -> int:
        """Return the highest revision seq of a source that a tombstone covers (0: none)."""
        with self.read(tenant) as c:
            return int(c.execute(SQL_TOMBSTONE_MAX, (tenant, source_key(source_id))).fetchone()[0])

    def tombstone_for(self, tenant: str, source_id: str, seq: int) -> Tombstone | None:
        """Return the tombstone that covers revision `seq` of a source, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_TOMBSTONE_FOR, (tenant, source_key(source_id), seq)).fetchone()
        if row is None:
            return None
        return Tombstone(int(row[0]), row[1], row[2], row[3], tuple(json.loads(row[4])), row[5])

    def add_tombstone(self, tenant: str, source_id: str, through_seq: int, at: str, by: str,
                      acl: Sequence[str]) -> None:
        """Record that revisions `<= through_seq` of a source are deleted (effective at once)."""
        with self.write(tenant) as c:
            c.execute(SQL_INSERT_TOMBSTONE, (tenant, source_key(source_id), through_seq,
                                             source_id, at, by, json.dumps(list(acl))))
            faults.hit("delete.tombstone")

    # ---- purge --------------------------------------------------------------------------------

    def purge_plan(self, tenant: str, source_id: str) -> tuple[list[tuple[str, str]],
                                                               dict[str, list[int]],
                                                               list[str], list[str]]:
        """Return (chunk ids and digests, {gen: ords}, blob shas, quarantine shas) of a source."""
        with self.read(tenant) as c:
            chunks = [(r[0], r[1]) for r in c.execute(SQL_CHUNKS_OF_SOURCE, (tenant, source_id))]
            ords: dict[str, list[int]] = {}
            for gen, o in c.execute(SQL_GEN_ORDS_OF_CHUNKS, ([cid for cid, _ in chunks],)):
                ords.setdefault(gen, []).append(int(o))
            shas = [r[0] for r in c.execute(SQL_SHAS_OF_SOURCE, (tenant, source_id))]
            qshas = [r[0] for r in c.execute(SQL_QUARANTINE_OF_SOURCE, (tenant, source_id)) if r[0]]
        return chunks, ords, shas, qshas

    def purge_generation_rows(self, gen_id: str, ords: Sequence[int], vectors_sha256: str | None,
                              chunks_sha256_fn: Any) -> None:
        """Remove rows of a generation (bodies, postings, chunk list; vectors went with
        `purge_vectors`) and record the new digests, in one transaction."""
        g = self.generation(gen_id)
        manifest = g.manifest if g is not None else None
        with self.write(ALL) as c:
            bodies = c.execute(SQL_LEX_BODIES_OF, (gen_id, list(ords))).fetchall()
            changed = purge_postings(c, gen_id, bodies)
            if changed and manifest is not None and "postings_sha256" in manifest.get("lexical", {}):
                manifest["lexical"]["postings_sha256"] = table_digest(c, gen_id)
                c.execute(SQL_SET_MANIFEST, (json.dumps(manifest, sort_keys=True), gen_id))
            c.execute(SQL_LEX_DELETE, (gen_id, list(ords)))
            c.execute(SQL_DELETE_GEN_CHUNKS, (gen_id, list(ords)))
            chunks_sha = chunks_sha256_fn(gen_id)
            c.execute(SQL_GEN_PURGED, (len(ords), vectors_sha256, chunks_sha, gen_id))

    def purge_source_rows(self, tenant: str, source_id: str, at: str) -> None:
        """Delete every row of a source (chunks, layers, revisions, source, quarantine
        records) and strip its id from its tombstones, in one transaction."""
        with self.write(tenant) as c:
            c.execute(SQL_DELETE_CHUNKS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_CHUNK_SETS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_LAYERS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_REVISIONS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_QUARANTINE_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_MARK_PURGED, (at, tenant, source_key(source_id)))

    def blob_in_use(self, tenant: str, sha256: str, quarantine: bool = False) -> bool:
        """Return True when a revision (or quarantine record) of the tenant names the blob."""
        sql = SQL_QUARANTINE_SHA_USED if quarantine else SQL_SHA_USED
        with self.read(tenant) as c:
            return c.execute(sql, (tenant, sha256)).fetchone() is not None

    def content_digest_in_use(self, digest: str) -> bool:
        """Return True when any stored chunk has this content digest."""
        with self.read(ALL) as c:
            return c.execute(SQL_CONTENT_DIGEST_USED, (digest,)).fetchone() is not None

    def chunk_texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Return {chunk_id: index text} of stored chunks."""
        with self.read(ALL) as c:
            return dict(c.execute(SQL_CHUNK_TEXTS, (list(chunk_ids),)).fetchall())
