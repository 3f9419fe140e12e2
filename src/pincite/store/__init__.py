"""Stores: the one seam behind which metadata, text layers and bytes live.

`open_store(url)` picks the backend once, at the edge: a filesystem path is the embedded
SQLite store; `postgresql://…` is reserved for the PostgreSQL backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ..errors import UsageError
from ..model import Revision, Source, TextLayer
from ..vocab import IngestStatus
from .blobs import BlobStore
from .index_records import Tombstone
from .sqlite.backend import QuarantineRecord, SQLiteStore


class Store(Protocol):
    """What every backend provides to the stages (retrieval's part: `index_store.IndexTables`)."""

    backend: str
    blobs: BlobStore
    quarantine_blobs: BlobStore

    def source(self, tenant: str, source_id: str) -> Source | None: ...
    def sources(self, tenant: str) -> list[Source]: ...
    def revision(self, tenant: str, source_id: str, revision_id: str) -> Revision | None: ...
    def latest_revision(self, tenant: str, source_id: str) -> Revision | None: ...
    def revisions(self, tenant: str, source_id: str) -> list[Revision]: ...
    def text_layer(self, rev: Revision, layer_id: str | None = None) -> TextLayer | None: ...
    def layer_ids(self, rev: Revision) -> list[str]: ...
    def quarantined(self, tenant: str) -> list[QuarantineRecord]: ...
    def commit_revision(self, *, tenant: str, source_id: str, sha256: str, media_type: str,
                        size: int, at: str, acl: tuple[str, ...] | None,
                        flags: tuple[str, ...], layer: TextLayer) -> tuple[Revision, IngestStatus]: ...
    def add_text_layer(self, rev: Revision, layer: TextLayer, at: str) -> bool: ...
    def set_acl(self, tenant: str, source_id: str, acl: tuple[str, ...]) -> None: ...
    def add_quarantine(self, tenant: str, record: QuarantineRecord) -> None: ...
    def tombstone_for(self, tenant: str, source_id: str, seq: int) -> Tombstone | None: ...
    def close(self) -> None: ...


def open_store(url: str | Path) -> SQLiteStore:
    """Return the store named by `url` (a directory path → SQLite)."""
    text = str(url)
    if "://" in text:
        scheme = text.split("://", 1)[0]
        if scheme in ("postgresql", "postgres"):
            raise UsageError(
                "the PostgreSQL backend is not available in this version; "
                "use a directory path for the embedded SQLite store"
            )
        raise UsageError(f"unknown store URL scheme {scheme!r}: use a directory path")
    return SQLiteStore(Path(text))


__all__ = ["QuarantineRecord", "SQLiteStore", "Store", "open_store"]
