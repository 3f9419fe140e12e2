"""PgSourceTables: sources, revisions, text layers and quarantine records on PostgreSQL.

The SQLite backend's `SQLiteStore` methods of the same names are the reference; every
method opens its transaction for its tenant, so the row-level-security wall is real.
Where SQLite relied on its single writer (numbering a source's next revision), a row
lock on the source takes its place: two processes committing to one source take turns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from ... import faults
from ...errors import StoreError
from ...model import Revision, Source, TextLayer
from ...vocab import IngestStatus
from ..source_rows import QuarantineRecord, decode_layer, encode_layer, revision_row, source_row
from ..sqlite.index_store import source_key
from .pg_sources_sql import (
    SQL_ALL_REVISIONS,
    SQL_BLOB_USED,
    SQL_CLOSE_REVISION,
    SQL_INSERT_LAYER,
    SQL_INSERT_QUARANTINE,
    SQL_INSERT_REVISION,
    SQL_INSERT_SOURCE,
    SQL_LATEST,
    SQL_LATEST_LAYER,
    SQL_LATEST_LIVE,
    SQL_LAYER,
    SQL_LAYER_IDS,
    SQL_LIVE_SOURCE,
    SQL_LOCK_SOURCE,
    SQL_MARK_STALE,
    SQL_NEXT_SEQ,
    SQL_QUARANTINE_BLOB_USED,
    SQL_QUARANTINED,
    SQL_REVISION,
    SQL_REVISIONS,
    SQL_SET_ACL,
    SQL_SOURCES,
)
from .pg_upkeep import PgUpkeep


class PgSourceTables(PgUpkeep):
    """Sources, revisions, text layers and quarantine records, and the store's upkeep
    (needs `write`, `read`)."""

    # provided by PostgresStore
    write: Callable[..., AbstractContextManager[Any]]
    read: Callable[..., AbstractContextManager[Any]]

    # ---- reads ------------------------------------------------------------------------

    def source(self, tenant: str, source_id: str) -> Source | None:
        """Return a source of a tenant, or None (also when it was deleted)."""
        with self.read(tenant) as c:
            row = c.execute(SQL_LIVE_SOURCE, (tenant, source_id)).fetchone()
        return source_row(row) if row else None

    def sources(self, tenant: str) -> list[Source]:
        """Return every (not deleted) source of a tenant, by id."""
        with self.read(tenant) as c:
            return [source_row(r) for r in c.execute(SQL_SOURCES, (tenant,)).fetchall()]

    def revision(self, tenant: str, source_id: str, revision_id: str) -> Revision | None:
        """Return one revision, or None (also when it was deleted)."""
        with self.read(tenant) as c:
            row = c.execute(SQL_REVISION, (tenant, source_id, revision_id)).fetchone()
        return revision_row(row) if row else None

    def latest_revision(self, tenant: str, source_id: str) -> Revision | None:
        """Return the newest (not deleted) revision of a source, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_LATEST_LIVE, (tenant, source_id)).fetchone()
        return revision_row(row) if row else None

    def revisions(self, tenant: str, source_id: str) -> list[Revision]:
        """Return a source's (not deleted) revisions, oldest first."""
        with self.read(tenant) as c:
            return [revision_row(r) for r in c.execute(SQL_REVISIONS, (tenant, source_id)).fetchall()]

    def all_revisions(self) -> list[Revision]:
        """Return every revision of every tenant (maintenance only)."""
        with self.read() as c:
            return [revision_row(r) for r in c.execute(SQL_ALL_REVISIONS).fetchall()]

    def text_layer(self, rev: Revision, layer_id: str | None = None) -> TextLayer | None:
        """Return a revision's text layer by id, or its newest one when `layer_id` is None."""
        key = (rev.tenant, rev.source_id, rev.revision_id)
        with self.read(rev.tenant) as c:
            if layer_id:
                row = c.execute(SQL_LAYER, (*key, layer_id)).fetchone()
            else:
                row = c.execute(SQL_LATEST_LAYER, key).fetchone()
        return decode_layer(row) if row else None

    def layer_ids(self, rev: Revision) -> list[str]:
        """Return the ids of a revision's text layers, oldest first."""
        with self.read(rev.tenant) as c:
            rows = c.execute(SQL_LAYER_IDS, (rev.tenant, rev.source_id, rev.revision_id)).fetchall()
        return [r[0] for r in rows]

    def quarantined(self, tenant: str) -> list[QuarantineRecord]:
        """Return the quarantine records of a tenant, oldest first."""
        with self.read(tenant) as c:
            return [QuarantineRecord(*r) for r in c.execute(SQL_QUARANTINED, (tenant,)).fetchall()]

    def blob_in_use(self, tenant: str, sha256: str, quarantine: bool = False) -> bool:
        """Return True when a revision (or a quarantine record) of `tenant` refers to the bytes."""
        sql = SQL_QUARANTINE_BLOB_USED if quarantine else SQL_BLOB_USED
        with self.read(tenant) as c:
            return c.execute(sql, (tenant, sha256)).fetchone() is not None

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
        The source's row is locked for the transaction, so concurrent commits to one
        source take turns and each sees the revisions committed before it.
        """
        with self.write(tenant) as c:
            status = IngestStatus.REVISED
            row = c.execute(SQL_LOCK_SOURCE, (tenant, source_id)).fetchone()
            if row is None:
                if acl is None:
                    raise StoreError(f"source {source_id!r} is new and needs an ACL")
                created = c.execute(SQL_INSERT_SOURCE, (tenant, source_id, json.dumps(list(acl)),
                                                        at, owner)).rowcount
                # A racing writer may have created it first: its row is the one to lock.
                row = c.execute(SQL_LOCK_SOURCE, (tenant, source_id)).fetchone()
                if created:
                    status = IngestStatus.NEW
            if status is not IngestStatus.NEW and acl is not None \
                    and tuple(json.loads(row[2])) != tuple(acl):
                c.execute(SQL_SET_ACL, (json.dumps(list(acl)), tenant, source_id))
            live = c.execute(SQL_LATEST_LIVE, (tenant, source_id)).fetchone()
            if live is not None and live[3] == sha256:
                return revision_row(live), IngestStatus.UNCHANGED
            if live is None:
                status = IngestStatus.NEW
            latest = c.execute(SQL_LATEST, (tenant, source_id)).fetchone()
            seq = int(c.execute(SQL_NEXT_SEQ, {"tenant": tenant, "source": source_id,
                                               "key": source_key(source_id)}).fetchone()[0])
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
        with self.write(rev.tenant) as c:
            cur = c.execute(SQL_INSERT_LAYER, (rev.tenant, rev.source_id, rev.revision_id,
                                               layer.layer_id, *encode_layer(layer), at))
            return cur.rowcount == 1

    def set_acl(self, tenant: str, source_id: str, acl: tuple[str, ...]) -> None:
        """Replace a source's ACL and bump its ACL epoch."""
        with self.write(tenant) as c:
            c.execute(SQL_SET_ACL, (json.dumps(list(acl)), tenant, source_id))

    def add_quarantine(self, tenant: str, record: QuarantineRecord) -> None:
        """Record a refused file."""
        with self.write(tenant) as c:
            c.execute(SQL_INSERT_QUARANTINE, (
                tenant, record.source_id, record.path, record.sha256, record.size,
                record.reason, record.detail, record.at, record.owner,
            ))
