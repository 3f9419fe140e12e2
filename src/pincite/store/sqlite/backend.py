"""The embedded store: one SQLite file (WAL) plus content-addressed blobs beside it.

All SQL of the SQLite backend lives in this module, as named statements.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from ... import faults
from ...errors import NotAStore, StoreDamaged, StoreError, StoreMissing
from ...model import Revision, Source, TextLayer
from ...vocab import IngestStatus, ReviewReason, sql_in
from ..blobs import BlobStore
from ..fsck_report import FsckReport
from ..private import private_dir
from ..source_rows import QuarantineRecord, decode_layer, encode_layer
from ..source_rows import revision_row as _revision
from ..source_rows import source_row as _source
from .connection import Migration, connect, is_damage, migrate, transaction, widen_check
from .embeddings import EMBEDDINGS_FILENAME, SQLiteEmbeddings
from .fsck import fsck
from .index_sql import MIGRATION_2
from .index_store import IndexTables
from .records_sql import MIGRATION_3
from .records_store import RecordTables
from .review_sql import MIGRATION_4, SQL_MARK_STALE
from .review_store import ReviewTables


def _migration_6(conn: sqlite3.Connection) -> None:
    """6: a text layer's record of what produced it beyond the parser (OCR engine, packs,
    word confidences: `TextLayer.meta`); the review queue accepts the reasons added since
    it was made (`low_ocr_confidence`)."""
    conn.execute("ALTER TABLE text_layers ADD COLUMN meta TEXT")
    widen_check(conn, "review_queue", "reason", sql_in(ReviewReason))


MIGRATIONS: tuple[Migration, ...] = (
    # 1: sources, revisions, text layers, quarantine
    """
    CREATE TABLE sources (
        tenant      TEXT NOT NULL,
        source_id   TEXT NOT NULL,
        acl         TEXT NOT NULL,
        acl_epoch   INTEGER NOT NULL DEFAULT 1,
        created_at  TEXT NOT NULL,
        PRIMARY KEY (tenant, source_id)
    );
    CREATE TABLE revisions (
        tenant       TEXT NOT NULL,
        source_id    TEXT NOT NULL,
        revision_id  TEXT NOT NULL,
        seq          INTEGER NOT NULL,
        sha256       TEXT NOT NULL,
        media_type   TEXT NOT NULL,
        size         INTEGER NOT NULL,
        acquired_at  TEXT NOT NULL,
        valid_from   TEXT NOT NULL,
        valid_to     TEXT,
        flags        TEXT NOT NULL DEFAULT '[]',
        PRIMARY KEY (tenant, source_id, revision_id),
        UNIQUE (tenant, source_id, seq),
        FOREIGN KEY (tenant, source_id) REFERENCES sources (tenant, source_id)
    );
    CREATE INDEX revisions_sha ON revisions (tenant, sha256);
    CREATE TABLE text_layers (
        tenant       TEXT NOT NULL,
        source_id    TEXT NOT NULL,
        revision_id  TEXT NOT NULL,
        layer_id     TEXT NOT NULL,
        parser       TEXT NOT NULL,
        version      TEXT NOT NULL,
        text         TEXT NOT NULL,
        elements     BLOB NOT NULL,
        geometry     BLOB,
        page_count   INTEGER NOT NULL,
        page_sizes   TEXT NOT NULL,
        flags        TEXT NOT NULL,
        created_at   TEXT NOT NULL,
        PRIMARY KEY (tenant, source_id, revision_id, layer_id),
        FOREIGN KEY (tenant, source_id, revision_id)
            REFERENCES revisions (tenant, source_id, revision_id)
    );
    CREATE TABLE quarantine (
        id          INTEGER PRIMARY KEY,
        tenant      TEXT NOT NULL,
        source_id   TEXT NOT NULL,
        path        TEXT NOT NULL,
        sha256      TEXT,
        size        INTEGER NOT NULL,
        reason      TEXT NOT NULL,
        detail      TEXT NOT NULL,
        at          TEXT NOT NULL
    );
    CREATE INDEX quarantine_tenant ON quarantine (tenant, id);
    """,
    # 2: ACL entries, tenant epochs, tombstones, chunks, index generations (see index_sql)
    MIGRATION_2,
    # 3: extraction runs, field records, the review queue (see records_sql)
    MIGRATION_3,
    # 4: claims, labels, incidents, review settings (see review_sql)
    MIGRATION_4,
    # 5: who first ingested a source or a refused file (its owner may change the ACL; a
    # refused file that never became a source is shown to its owner), and the checks of
    # the schema a run used (a reviewer's correction passes them too)
    """
    ALTER TABLE sources ADD COLUMN owner TEXT;
    ALTER TABLE quarantine ADD COLUMN owner TEXT;
    ALTER TABLE extraction_runs ADD COLUMN checks TEXT;
    """,
    _migration_6,
)

_SOURCE_COLS = "tenant, source_id, acl, acl_epoch, created_at, owner"
SQL_SOURCE = f"SELECT {_SOURCE_COLS} FROM sources WHERE tenant=? AND source_id=?"
# A source whose newest revision is tombstoned is deleted: readers never see it.
_LIVE = ("NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant=s.tenant AND t.source_id=s.source_id "
         "AND t.through_seq >= (SELECT max(seq) FROM revisions r WHERE r.tenant=s.tenant "
         "AND r.source_id=s.source_id))")
SQL_LIVE_SOURCE = (f"SELECT {_SOURCE_COLS} FROM sources s "
                   f"WHERE tenant=? AND source_id=? AND {_LIVE}")
SQL_SOURCES = (f"SELECT {_SOURCE_COLS} FROM sources s "
               f"WHERE tenant=? AND {_LIVE} ORDER BY source_id")
SQL_INSERT_SOURCE = ("INSERT INTO sources (tenant, source_id, acl, acl_epoch, created_at, owner) "
                     "VALUES (?,?,?,1,?,?)")
SQL_SET_ACL = "UPDATE sources SET acl=?, acl_epoch=acl_epoch+1 WHERE tenant=? AND source_id=?"
_REV_COLS = "tenant, source_id, revision_id, sha256, media_type, size, acquired_at, valid_from, valid_to, flags"
_NOT_DELETED = ("NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant=r.tenant AND t.source_id=r.source_id "
                "AND t.through_seq >= r.seq)")
SQL_REVISION = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant=? AND source_id=? AND revision_id=? "
                f"AND {_NOT_DELETED}")
SQL_LATEST = f"SELECT {_REV_COLS} FROM revisions WHERE tenant=? AND source_id=? ORDER BY seq DESC LIMIT 1"
SQL_REVISIONS = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant=? AND source_id=? AND {_NOT_DELETED} "
                 "ORDER BY seq")
SQL_ALL_REVISIONS = f"SELECT {_REV_COLS} FROM revisions ORDER BY tenant, source_id, seq"
SQL_MAX_SEQ = "SELECT COALESCE(MAX(seq), 0) FROM revisions WHERE tenant=? AND source_id=?"
SQL_LATEST_LIVE = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant=? AND source_id=? "
                   f"AND {_NOT_DELETED} ORDER BY seq DESC LIMIT 1")
SQL_CLOSE_REVISION = "UPDATE revisions SET valid_to=? WHERE tenant=? AND source_id=? AND revision_id=? AND valid_to IS NULL"
SQL_INSERT_REVISION = f"INSERT INTO revisions ({_REV_COLS}, seq) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
_LAYER_COLS = "parser, version, text, elements, geometry, page_count, page_sizes, flags, meta"
SQL_INSERT_LAYER = (
    f"INSERT OR IGNORE INTO text_layers (tenant, source_id, revision_id, layer_id, {_LAYER_COLS}, created_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
SQL_LAYER = f"SELECT {_LAYER_COLS} FROM text_layers WHERE tenant=? AND source_id=? AND revision_id=? AND layer_id=?"
SQL_LATEST_LAYER = (
    f"SELECT {_LAYER_COLS} FROM text_layers WHERE tenant=? AND source_id=? AND revision_id=? "
    "ORDER BY created_at DESC, rowid DESC LIMIT 1"
)
SQL_LAYER_IDS = (
    "SELECT layer_id FROM text_layers WHERE tenant=? AND source_id=? AND revision_id=? "
    "ORDER BY created_at, rowid"
)
SQL_INSERT_QUARANTINE = (
    "INSERT INTO quarantine (tenant, source_id, path, sha256, size, reason, detail, at, owner) "
    "VALUES (?,?,?,?,?,?,?,?,?)"
)
SQL_QUARANTINED = ("SELECT source_id, path, sha256, size, reason, detail, at, owner FROM quarantine "
                   "WHERE tenant=? ORDER BY id")
SQL_ORPHAN_LAYERS = (
    "SELECT l.tenant, l.source_id, l.revision_id, l.layer_id FROM text_layers l "
    "LEFT JOIN revisions r USING (tenant, source_id, revision_id) WHERE r.revision_id IS NULL"
)
SQL_ORPHAN_REVISIONS = (
    "SELECT r.tenant, r.source_id, r.revision_id FROM revisions r "
    "LEFT JOIN sources s USING (tenant, source_id) WHERE s.source_id IS NULL"
)
SQL_REVISIONS_WITHOUT_LAYER = (
    "SELECT r.tenant, r.source_id, r.revision_id FROM revisions r "
    "LEFT JOIN text_layers l USING (tenant, source_id, revision_id) WHERE l.layer_id IS NULL"
)
SQL_DELETE_LAYER = "DELETE FROM text_layers WHERE tenant=? AND source_id=? AND revision_id=? AND layer_id=?"
SQL_BLOB_REFS = "SELECT DISTINCT tenant, sha256 FROM revisions"
SQL_QUARANTINE_REFS = "SELECT DISTINCT tenant, sha256 FROM quarantine WHERE sha256 IS NOT NULL"


class SQLiteStore(IndexTables, RecordTables, ReviewTables):
    """Metadata, text layers and quarantine records in `<root>/pincite.db`; bytes in `<root>/blobs`."""

    backend = "sqlite"

    def __init__(self, root: Path, *, busy_timeout: float = 30.0, create: bool = True) -> None:
        self.root = root
        if root.exists() and not root.is_dir():
            raise NotAStore(root, "it is a file, not a directory")
        if not create and not (root / "pincite.db").is_file():
            raise StoreMissing(root)
        try:
            private_dir(root)
        except OSError as exc:
            raise NotAStore(root, exc.strerror or type(exc).__name__) from None
        self.blobs = BlobStore(root / "blobs")
        self.quarantine_blobs = BlobStore(root / "quarantine")
        self.db_path = root / "pincite.db"
        self._busy_timeout = busy_timeout
        self._local = threading.local()
        self._migrate()

    # ---- connection and transactions ----------------------------------------------

    @property
    def conn(self) -> sqlite3.Connection:
        """Return this thread's connection to the database (opened on first use)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = connect(self.db_path, busy_timeout=self._busy_timeout)
            self._local.conn = conn
        return conn

    def write(self) -> AbstractContextManager[sqlite3.Connection]:
        """Run a block in one IMMEDIATE transaction: all of it commits, or none of it."""
        return transaction(self.conn)

    @contextmanager
    def read(self, tenant: str = "*") -> Iterator[sqlite3.Connection]:
        """Run a block of reads on one snapshot (a deferred transaction); re-entrant. The
        `tenant` is PostgreSQL's row-level wall; one SQLite file has none to set."""
        conn = self.conn
        if conn.in_transaction:
            yield conn
            return
        conn.execute("BEGIN")
        try:
            yield conn
        finally:
            if conn.in_transaction:
                conn.execute("COMMIT")

    def wall_problem(self) -> str | None:
        """Return None: one SQLite file has no roles to act past (see PostgresStore's)."""
        return None

    def damage(self, exc: BaseException) -> StoreDamaged | None:
        """Return the `StoreDamaged` that `exc` means when it says the database file is
        damaged (a query met a corrupt page), else None."""
        if isinstance(exc, sqlite3.DatabaseError) and is_damage(exc):
            return StoreDamaged(self.db_path, str(exc))
        return None

    def close(self) -> None:
        """Close this thread's connection."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None

    def _migrate(self) -> None:
        try:
            migrate(self.conn, MIGRATIONS)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            self.close()
            raise StoreDamaged(self.db_path, str(exc)) from exc

    # ---- reads ------------------------------------------------------------------------

    def source(self, tenant: str, source_id: str) -> Source | None:
        """Return a source of a tenant, or None (also when it was deleted)."""
        row = self.conn.execute(SQL_LIVE_SOURCE, (tenant, source_id)).fetchone()
        return _source(row) if row else None

    def sources(self, tenant: str) -> list[Source]:
        """Return every (not deleted) source of a tenant, by id."""
        return [_source(r) for r in self.conn.execute(SQL_SOURCES, (tenant,))]

    def revision(self, tenant: str, source_id: str, revision_id: str) -> Revision | None:
        """Return one revision, or None (also when it was deleted)."""
        row = self.conn.execute(SQL_REVISION, (tenant, source_id, revision_id)).fetchone()
        return _revision(row) if row else None

    def latest_revision(self, tenant: str, source_id: str) -> Revision | None:
        """Return the newest (not deleted) revision of a source, or None."""
        row = self.conn.execute(SQL_LATEST_LIVE, (tenant, source_id)).fetchone()
        return _revision(row) if row else None

    def revisions(self, tenant: str, source_id: str) -> list[Revision]:
        """Return a source's (not deleted) revisions, oldest first."""
        return [_revision(r) for r in self.conn.execute(SQL_REVISIONS, (tenant, source_id))]

    def all_revisions(self) -> list[Revision]:
        """Return every revision of every tenant (maintenance only)."""
        return [_revision(r) for r in self.conn.execute(SQL_ALL_REVISIONS)]

    def text_layer(self, rev: Revision, layer_id: str | None = None) -> TextLayer | None:
        """Return a revision's text layer by id, or its newest one when `layer_id` is None."""
        if layer_id:
            row = self.conn.execute(
                SQL_LAYER, (rev.tenant, rev.source_id, rev.revision_id, layer_id)).fetchone()
        else:
            row = self.conn.execute(
                SQL_LATEST_LAYER, (rev.tenant, rev.source_id, rev.revision_id)).fetchone()
        return decode_layer(row) if row else None

    def layer_ids(self, rev: Revision) -> list[str]:
        """Return the ids of a revision's text layers, oldest first."""
        return [r[0] for r in self.conn.execute(
            SQL_LAYER_IDS, (rev.tenant, rev.source_id, rev.revision_id))]

    def quarantined(self, tenant: str) -> list[QuarantineRecord]:
        """Return the quarantine records of a tenant, oldest first."""
        return [QuarantineRecord(*r) for r in self.conn.execute(SQL_QUARANTINED, (tenant,))]

    # ---- writes -----------------------------------------------------------------------

    def commit_revision(self, *, tenant: str, source_id: str, sha256: str, media_type: str,
                        size: int, at: str, acl: tuple[str, ...] | None,
                        flags: tuple[str, ...], layer: TextLayer,
                        owner: str | None = None) -> tuple[Revision, IngestStatus]:
        """Record a new revision with its text layer in one transaction.

        Returns (revision, status) with status `new`, `revised` or `unchanged` (when the
        latest revision already has these bytes: a racing duplicate). The previous
        revision's `valid_to` becomes `at`. `acl=None` keeps an existing source's ACL.
        A deleted source starts again (`new`) with revision numbers after the deleted ones.
        `owner` (the ingesting user) is recorded when the source is created, never changed.
        """
        with self.write() as c:
            row = c.execute(SQL_SOURCE, (tenant, source_id)).fetchone()
            status = IngestStatus.REVISED
            if row is None:
                if acl is None:
                    raise StoreError(f"source {source_id!r} is new and needs an ACL")
                c.execute(SQL_INSERT_SOURCE, (tenant, source_id, json.dumps(list(acl)), at, owner))
                status = IngestStatus.NEW
            elif acl is not None and tuple(json.loads(row[2])) != tuple(acl):
                c.execute(SQL_SET_ACL, (json.dumps(list(acl)), tenant, source_id))
            live = c.execute(SQL_LATEST_LIVE, (tenant, source_id)).fetchone()
            if live is not None and live[3] == sha256:
                return _revision(live), IngestStatus.UNCHANGED
            if live is None:
                status = IngestStatus.NEW
            latest = c.execute(SQL_LATEST, (tenant, source_id)).fetchone()
            seq = max(c.execute(SQL_MAX_SEQ, (tenant, source_id)).fetchone()[0],
                      self.deleted_through(tenant, source_id)) + 1
            revision_id = f"r{seq}"
            if latest is not None:
                c.execute(SQL_CLOSE_REVISION, (at, tenant, source_id, latest[2]))
            c.execute(SQL_INSERT_REVISION, (
                tenant, source_id, revision_id, sha256, media_type, size, at, at, None,
                json.dumps(list(flags)), seq,
            ))
            c.execute(SQL_INSERT_LAYER, (tenant, source_id, revision_id, layer.layer_id,
                                         *encode_layer(layer), at))
            c.execute(SQL_MARK_STALE, {"tenant": tenant, "source": source_id, "sha": sha256})
            faults.hit("ingest.before_commit")
        rev = Revision(tenant, source_id, revision_id, sha256, media_type, size, at, at, None,
                       tuple(flags))
        return rev, status

    def add_text_layer(self, rev: Revision, layer: TextLayer, at: str) -> bool:
        """Add a text layer to a revision; return False if that layer id already exists."""
        with self.write() as c:
            cur = c.execute(SQL_INSERT_LAYER, (rev.tenant, rev.source_id, rev.revision_id,
                                               layer.layer_id, *encode_layer(layer), at))
            return cur.rowcount == 1

    def set_acl(self, tenant: str, source_id: str, acl: tuple[str, ...]) -> None:
        """Replace a source's ACL and bump its ACL epoch."""
        with self.write() as c:
            c.execute(SQL_SET_ACL, (json.dumps(list(acl)), tenant, source_id))

    def add_quarantine(self, tenant: str, record: QuarantineRecord) -> None:
        """Record a refused file."""
        with self.write() as c:
            c.execute(SQL_INSERT_QUARANTINE, (
                tenant, record.source_id, record.path, record.sha256, record.size,
                record.reason, record.detail, record.at, record.owner,
            ))

    # ---- maintenance --------------------------------------------------------------

    def integrity_check(self) -> list[str]:
        """Return SQLite's integrity problems (empty when sound)."""
        rows = [r[0] for r in self.conn.execute("PRAGMA integrity_check")]
        return [] if rows == ["ok"] else rows

    def orphan_rows(self) -> dict[str, list[tuple[str, ...]]]:
        """Return rows whose parents are missing, by kind."""
        c = self.conn
        return {
            "text_layers": [tuple(r) for r in c.execute(SQL_ORPHAN_LAYERS)],
            "revisions": [tuple(r) for r in c.execute(SQL_ORPHAN_REVISIONS)],
            "revisions_without_layer": [tuple(r) for r in c.execute(SQL_REVISIONS_WITHOUT_LAYER)],
        }

    def delete_orphan_layer(self, key: tuple[str, ...]) -> None:
        """Remove one orphaned text-layer row."""
        with self.write() as c:
            c.execute(SQL_DELETE_LAYER, key)

    def blob_refs(self, quarantine: bool = False) -> set[tuple[str, str]]:
        """Return every (tenant, sha256) that a revision (or a quarantine record) refers to."""
        sql = SQL_QUARANTINE_REFS if quarantine else SQL_BLOB_REFS
        return {(r[0], r[1]) for r in self.conn.execute(sql)}

    def fsck(self, grace_seconds: float = 600.0) -> FsckReport:
        """Check the whole store, reclaim debris older than `grace_seconds`; return the report."""
        return fsck(self, grace_seconds=grace_seconds)

    # ---- the embedding cache (a file of its own beside the database) -------------------

    def embeddings(self) -> SQLiteEmbeddings:
        """Open the store's embedding cache (the caller closes it)."""
        return SQLiteEmbeddings(self.root / EMBEDDINGS_FILENAME)

    def forget_embeddings(self, digests: Sequence[str]) -> int:
        """Delete the cached vectors of these inputs (every scope and space) and vacuum the
        cache so no deleted vector survives in the file; return rows removed (0: no cache)."""
        path = self.root / EMBEDDINGS_FILENAME
        if not path.is_file() or not digests:
            return 0
        rows = SQLiteEmbeddings(path)
        try:
            removed = rows.forget(digests)
            rows.vacuum()
        finally:
            rows.close()
        return removed
