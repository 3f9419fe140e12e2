"""The retrieval side of the SQLite store: chunks, generations, the pointer, tombstones,
and the authorized reads of candidate generation. Mixed into `SQLiteStore`.

Every read that can reach a candidate applies the authorized universe (`AuthScope`)
before it returns a row (`store.sqlite.authorized.AuthorizedReads`).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from ... import faults
from ..ann import purge_rows as ann_purge_rows
from ..index_records import AuthScope as AuthScope
from ..index_records import (
    BuildSnapshot,
    ChunkRecord,
    GenerationRow,
    LiveRevision,
    Tombstone,
    gen_row,
)
from . import postings
from .authorized import AuthorizedReads
from .connection import vacuum
from .index_sql import (
    CHUNK_COLS,
    LEGACY_BODIES,
    LEX_BODIES,
    LEX_BODY,
    LEX_COUNT,
    LEX_DELETE,
    LEX_INSERT,
    LEXICAL_DDL,
    LEXICAL_DROP,
    POST_INSERT,
    SQL_CHUNK_SET,
    SQL_CHUNK_TEXTS,
    SQL_CHUNKS_BY_ORD,
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
    SQL_GEN_ORDS_OF_CHUNKS,
    SQL_GEN_PURGED,
    SQL_GEN_TENANT,
    SQL_GENERATION,
    SQL_GENERATIONS,
    SQL_INSERT_CHUNK,
    SQL_INSERT_CHUNK_SET,
    SQL_INSERT_GEN_CHUNK,
    SQL_INSERT_GEN_TENANT,
    SQL_INSERT_GENERATION,
    SQL_INSERT_TOMBSTONE,
    SQL_LIVE_REVISIONS,
    SQL_MARK_PUBLISHED,
    SQL_MARK_PURGED,
    SQL_MARK_RETIRED,
    SQL_NEXT_GEN_SEQ,
    SQL_POINTER,
    SQL_QUARANTINE_OF_SOURCE,
    SQL_QUARANTINE_SHA_USED,
    SQL_QUOTE,
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
    TABLE_EXISTS,
    legacy_table,
    lex_table,
)
from .universe_rows import purge_rows_file
from .vector_files import VectorFiles


def source_key(source_id: str) -> str:
    """The name a tombstone keeps for a source after its id is purged."""
    return hashlib.sha256(source_id.encode()).hexdigest()


class IndexTables(AuthorizedReads, VectorFiles):
    """Chunks, generations, pointer, tombstones, vectors (needs `conn`, `write`, `read`)."""

    root: Path       # provided by SQLiteStore
    db_path: Path

    @property
    def conn(self) -> sqlite3.Connection:  # provided by SQLiteStore
        raise NotImplementedError

    def write(self) -> AbstractContextManager[sqlite3.Connection]: ...  # type: ignore[empty-body]
    def read(self, tenant: str = "*") -> AbstractContextManager[sqlite3.Connection]: ...  # type: ignore[empty-body]

    # ---- tenant state and watermarks ------------------------------------------------

    def tenant_state(self, tenant: str) -> tuple[int, int]:
        """Return (epoch, rev_epoch) of a tenant: (0, 0) when it has nothing."""
        row = self.conn.execute(SQL_TENANT_STATE, (tenant,)).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def tenant_rev_epochs(self) -> dict[str, int]:
        """Return {tenant: rev_epoch} of every tenant."""
        return {t: int(rev) for t, _e, rev in self.conn.execute(SQL_TENANT_STATES)}

    def build_snapshot(self, history: bool = True) -> BuildSnapshot:
        """Return the live revisions, tenant revision epochs and watermarks, on one snapshot."""
        with self.read() as c:
            revs = [LiveRevision(*r) for r in c.execute(SQL_LIVE_REVISIONS,
                                                         {"history": 1 if history else 0})]
            epochs = {t: int(rev) for t, _e, rev in c.execute(SQL_TENANT_STATES)}
            src_wm = c.execute(SQL_SOURCE_WATERMARK).fetchone()[0]
            del_wm = c.execute(SQL_DELETION_WATERMARK).fetchone()[0]
        return BuildSnapshot(revs, epochs, src_wm, del_wm)

    # ---- chunks -----------------------------------------------------------------------

    def chunk_set_size(self, rev: LiveRevision, layer_id: str, policy: str) -> int | None:
        """Return how many chunks a (revision, layer, policy) has, or None if not segmented."""
        row = self.conn.execute(SQL_CHUNK_SET, (rev.tenant, rev.source_id, rev.revision_id,
                                                layer_id, policy)).fetchone()
        return None if row is None else int(row[0])

    def chunks_of(self, rev: LiveRevision, layer_id: str, policy: str) -> list[ChunkRecord]:
        """Return the stored chunks of a (revision, layer, policy), in text order."""
        return [ChunkRecord.from_row(r) for r in self.conn.execute(
            SQL_CHUNKS_OF, (rev.tenant, rev.source_id, rev.revision_id, layer_id, policy))]

    def add_chunk_set(self, rev: LiveRevision, layer_id: str, policy: str,
                      chunks: Sequence[ChunkRecord], at: str) -> None:
        """Store the chunks of a (revision, layer, policy) and mark it segmented, atomically."""
        with self.write() as c:
            c.executemany(SQL_INSERT_CHUNK, [ch.to_row() for ch in chunks])
            c.execute(SQL_INSERT_CHUNK_SET, (rev.tenant, rev.source_id, rev.revision_id,
                                             layer_id, policy, len(chunks), at))

    # ---- generations --------------------------------------------------------------------

    def new_generation(self, builder: str, at: str) -> str:
        """Create a generation in state `building`; return its id."""
        with self.write() as c:
            seq = int(c.execute(SQL_NEXT_GEN_SEQ).fetchone()[0])
            gen_id = f"g{seq:06d}"
            c.execute(SQL_INSERT_GENERATION, (gen_id, seq, at, builder))
        return gen_id

    def fill_generation(self, gen_id: str,
                        rows: Iterable[tuple[int, str, str, int, str | None]],
                        copy_from: str | None,
                        tenants: Sequence[tuple[str, int, int]]) -> str:
        """Create the generation's lexical tables (bodies, packed postings) and fill them and
        its chunk list in one transaction; return the postings digest.

        `rows` are (ord, chunk_id, tenant key, ntok, body or None); a None body is copied
        from the same chunk's row in `copy_from` (an earlier generation, same analyzer).
        """
        builder = postings.PostingsBuilder()
        with self.write() as c:
            for stmt in LEXICAL_DDL(gen_id):
                c.execute(stmt)
            old: dict[str, int] = {}
            if copy_from is not None:
                old = {r[0]: r[1] for r in c.execute(SQL_GEN_CHUNK_MAP, (copy_from,))}
            ins, body_sql = LEX_INSERT(gen_id), LEX_BODY(copy_from) if copy_from else None
            for ord_, chunk_id, key, ntok, body in rows:
                if body is None:
                    assert body_sql is not None
                    got = c.execute(body_sql, (old[chunk_id],)).fetchone()
                    body = got[1]
                c.execute(ins, (ord_, key, body))
                c.execute(SQL_INSERT_GEN_CHUNK, (gen_id, ord_, chunk_id, ntok))
                builder.add(ord_, body)
            packed = list(builder.rows())
            c.executemany(POST_INSERT(gen_id), packed)
            faults.hit("gen.fts_written")
            c.executemany(SQL_INSERT_GEN_TENANT, [(gen_id, *t) for t in tenants])
        return postings.digest(packed)

    def chunk_ords(self, gen_id: str) -> dict[str, tuple[int, int]]:
        """Return {chunk_id: (ord, ntok)} of a generation."""
        return {r[0]: (int(r[1]), int(r[2])) for r in self.conn.execute(SQL_GEN_CHUNK_MAP, (gen_id,))}

    def finish_generation(self, gen_id: str, state: str, manifest: dict[str, Any], n_chunks: int,
                          dimension: int, vectors_sha256: str, chunks_sha256: str,
                          note: str | None = None) -> None:
        with self.write() as c:
            c.execute(SQL_FINISH_GENERATION, (state, json.dumps(manifest, sort_keys=True),
                                              n_chunks, dimension, vectors_sha256, chunks_sha256,
                                              note, gen_id))

    def set_generation_state(self, gen_id: str, state: str, note: str | None = None) -> None:
        with self.write() as c:
            c.execute(SQL_SET_GEN_STATE, (state, note, gen_id))

    def generation(self, gen_id: str) -> GenerationRow | None:
        row = self.conn.execute(SQL_GENERATION, (gen_id,)).fetchone()
        return gen_row(row) if row else None

    def generations(self) -> list[GenerationRow]:
        return [gen_row(r) for r in self.conn.execute(SQL_GENERATIONS)]

    def generation_chunk_list(self, gen_id: str) -> list[tuple[int, str, str | None]]:
        """Return (ord, chunk_id, content digest or None when the chunk row is gone)."""
        return [tuple(r) for r in self.conn.execute(SQL_GEN_CHUNK_LIST, (gen_id,))]  # type: ignore[misc]

    def generation_chunk_count(self, gen_id: str) -> int:
        return int(self.conn.execute(SQL_GEN_CHUNK_COUNT, (gen_id,)).fetchone()[0])

    def generation_tenant(self, gen_id: str, tenant: str) -> tuple[int, int] | None:
        """Return (rev_epoch at build, chunks) of a tenant in a generation, or None."""
        row = self.conn.execute(SQL_GEN_TENANT, (gen_id, tenant)).fetchone()
        return (int(row[0]), int(row[1])) if row else None

    def lexical_exists(self, gen_id: str) -> bool:
        """Return True when the generation's body table exists."""
        return bool(self.conn.execute(TABLE_EXISTS(), (lex_table(gen_id),)).fetchone()[0])

    def postings_digest(self, gen_id: str) -> str:
        """Recompute the digest of a generation's packed postings (integrity check)."""
        return postings.table_digest(self.conn, gen_id)

    def lexical_rows(self, gen_id: str) -> int:
        """Return how many bodies the generation's body table holds."""
        return int(self.conn.execute(LEX_COUNT(gen_id)).fetchone()[0])

    def drop_generation_tables(self, gen_id: str, state: str, note: str) -> None:
        """Drop a generation's lexical tables and chunk list; keep its row (and manifest)."""
        with self.write() as c:
            for stmt in LEXICAL_DROP(gen_id):
                c.execute(stmt)
            c.execute(SQL_DROP_GEN_CHUNKS, (gen_id,))
            c.execute(SQL_DROP_GEN_TENANTS, (gen_id,))
            c.execute(SQL_SET_GEN_STATE, (state, note, gen_id))

    # ---- the pointer ----------------------------------------------------------------------

    def pointer(self) -> tuple[str | None, str | None, str | None]:
        """Return (current, previous, switched_at)."""
        row = self.conn.execute(SQL_POINTER).fetchone()
        return (row[0], row[1], row[2]) if row else (None, None, None)

    def switch_pointer(self, current: str, previous: str | None, at: str,
                       expect_current: str | None) -> None:
        """Point readers at `current` in ONE transaction (refused if the pointer moved)."""
        from ...errors import StoreBusy

        with self.write() as c:
            now = c.execute(SQL_POINTER).fetchone()[0]
            if now != expect_current:
                raise StoreBusy(f"the index pointer moved to {now} during the switch")
            if now is not None and now != current:
                c.execute(SQL_MARK_RETIRED, (now,))
            c.execute(SQL_MARK_PUBLISHED, (at, current))
            c.execute(SQL_SET_POINTER, (current, previous, at))
            faults.hit("gen.pointer_swap")

    # ---- authorized reads (candidate generation) ----------------------------------------

    def chunks_by_ord(self, gen_id: str, tenant: str, ords: Sequence[int]
                      ) -> dict[int, tuple[ChunkRecord, str, str | None, str]]:
        """Return {ord: (chunk, revision sha256, revision valid_to, media type)} of a tenant."""
        out = {}
        n = len(CHUNK_COLS)
        for row in self.conn.execute(SQL_CHUNKS_BY_ORD, (gen_id, tenant, json.dumps(list(ords)))):
            out[int(row[0])] = (ChunkRecord.from_row(row[1:1 + n]), row[1 + n], row[2 + n], row[3 + n])
        return out

    def span_texts(self, spans: Sequence[tuple[ChunkRecord, int, int]]) -> list[str]:
        """Return `text[start:end]` of each (chunk, start, end) of its text layer, read in
        SQL, in order ("" where the layer is gone; in-process, a read per span is cheap)."""
        out = []
        for ch, start, end in spans:
            row = self.conn.execute(SQL_QUOTE, (start, end - start, ch.tenant, ch.source_id,
                                                ch.revision_id, ch.text_layer)).fetchone()
            out.append(row[0] if row and row[0] is not None else "")
        return out

    # ---- tombstones -------------------------------------------------------------------------

    def deleted_through(self, tenant: str, source_id: str) -> int:
        """Return the highest revision seq of a source that a tombstone covers (0: none)."""
        return int(self.conn.execute(SQL_TOMBSTONE_MAX, (tenant, source_key(source_id))).fetchone()[0])

    def tombstone_for(self, tenant: str, source_id: str, seq: int) -> Tombstone | None:
        """Return the tombstone that covers revision `seq` of a source, or None."""
        row = self.conn.execute(SQL_TOMBSTONE_FOR, (tenant, source_key(source_id), seq)).fetchone()
        if row is None:
            return None
        return Tombstone(int(row[0]), row[1], row[2], row[3], tuple(json.loads(row[4])), row[5])

    def add_tombstone(self, tenant: str, source_id: str, through_seq: int, at: str, by: str,
                      acl: Sequence[str]) -> None:
        """Record that revisions `<= through_seq` of a source are deleted (effective at once)."""
        with self.write() as c:
            c.execute(SQL_INSERT_TOMBSTONE, (tenant, source_key(source_id), through_seq, source_id,
                                             at, by, json.dumps(list(acl))))
            faults.hit("delete.tombstone")

    # ---- purge ------------------------------------------------------------------------------

    def purge_plan(self, tenant: str, source_id: str) -> tuple[list[tuple[str, str]],
                                                               dict[str, list[int]],
                                                               list[str], list[str]]:
        """Return (chunk ids and digests, {gen: ords}, blob shas, quarantine shas) of a source."""
        c = self.conn
        chunks = [(r[0], r[1]) for r in c.execute(SQL_CHUNKS_OF_SOURCE, (tenant, source_id))]
        ords: dict[str, list[int]] = {}
        ids = json.dumps([cid for cid, _ in chunks])
        for gen, o in c.execute(SQL_GEN_ORDS_OF_CHUNKS, (ids,)):
            ords.setdefault(gen, []).append(int(o))
        shas = [r[0] for r in c.execute(SQL_SHAS_OF_SOURCE, (tenant, source_id))]
        qshas = [r[0] for r in c.execute(SQL_QUARANTINE_OF_SOURCE, (tenant, source_id)) if r[0]]
        return chunks, ords, shas, qshas

    def purge_generation_rows(self, gen_id: str, ords: Sequence[int], vectors_sha256: str | None,
                              chunks_sha256_fn: Any) -> None:
        """Remove rows of a generation (bodies, postings, chunk list and ANN graphs) and record the new
        digests. The ANN files are rewritten first (temp → fsync → rename); the manifest
        names their new digests in the same transaction as the rest."""
        g = self.generation(gen_id)
        manifest = g.manifest if g is not None else None
        manifest_changed = False
        if manifest is not None:
            gen_dir = self.root / "indexes" / gen_id
            manifest_changed = ann_purge_rows(gen_dir, manifest, ords)
            manifest_changed = purge_rows_file(gen_dir, manifest, ords) or manifest_changed
        with self.write() as c:
            keys = json.dumps(list(ords))
            legacy = False  # built with an FTS5 table (before 2026-12)
            if self.lexical_exists(gen_id):
                bodies: str | None = LEX_BODIES(gen_id)
            elif self._table_exists(legacy_table(gen_id)):
                bodies, legacy = LEGACY_BODIES(gen_id), True
            else:
                bodies = None
            if bodies is not None and self.postings_exist(gen_id):
                postings.purge(c, gen_id, c.execute(bodies, (keys,)).fetchall())
                if manifest is not None and "postings_sha256" in manifest.get("lexical", {}):
                    manifest["lexical"]["postings_sha256"] = postings.table_digest(c, gen_id)
                    manifest_changed = True
            if legacy:  # nothing reads it: drop it, so no purged body survives in it
                for stmt in LEXICAL_DROP(gen_id)[2:]:
                    c.execute(stmt)
            elif bodies is not None:
                c.execute(LEX_DELETE(gen_id), (keys,))
            c.execute(SQL_DELETE_GEN_CHUNKS, (gen_id, json.dumps(list(ords))))
            chunks_sha = chunks_sha256_fn(gen_id)
            c.execute(SQL_GEN_PURGED, (len(ords), vectors_sha256, chunks_sha, gen_id))
            if manifest_changed:
                c.execute(SQL_SET_MANIFEST, (json.dumps(manifest, sort_keys=True), gen_id))

    def purge_source_rows(self, tenant: str, source_id: str, at: str) -> None:
        """Delete every row of a source (chunks, layers, revisions, source, quarantine records)
        and strip its id from its tombstones, in one transaction."""
        with self.write() as c:
            c.execute(SQL_DELETE_CHUNKS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_CHUNK_SETS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_LAYERS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_REVISIONS_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_SOURCE, (tenant, source_id))
            c.execute(SQL_DELETE_QUARANTINE_OF_SOURCE, (tenant, source_id))
            c.execute(SQL_MARK_PURGED, (at, tenant, source_key(source_id)))

    def blob_in_use(self, tenant: str, sha256: str, quarantine: bool = False) -> bool:
        sql = SQL_QUARANTINE_SHA_USED if quarantine else SQL_SHA_USED
        return self.conn.execute(sql, (tenant, sha256)).fetchone() is not None

    def content_digest_in_use(self, digest: str) -> bool:
        return self.conn.execute(SQL_CONTENT_DIGEST_USED, (digest,)).fetchone() is not None

    def _table_exists(self, name: str) -> bool:
        return bool(self.conn.execute(TABLE_EXISTS(), (name,)).fetchone()[0])

    def chunk_texts(self, chunk_ids: Sequence[str]) -> dict[str, str]:
        """Return {chunk_id: index text} of stored chunks."""
        return dict(self.conn.execute(SQL_CHUNK_TEXTS, (json.dumps(list(chunk_ids)),)).fetchall())

    def secure_vacuum(self) -> None:
        """Rewrite the database with secure_delete on and truncate the WAL."""
        vacuum(self.conn)
