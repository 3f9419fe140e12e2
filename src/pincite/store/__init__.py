"""Stores: the one seam behind which metadata, text layers and bytes live.

`open_store(url)` picks the backend once, at the edge: a filesystem path is the embedded
SQLite store; `postgresql://…` is the PostgreSQL backend. The stages name
only `Store` (`protocol.py`, grouped per concern), never a backend.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import UsageError
from .fsck_report import FsckReport
from .index_records import AuthScope, ChunkRecord, GenerationRow, LiveRevision, Tombstone
from .protocol import EmbeddingRows, Store
from .sqlite.backend import QuarantineRecord, SQLiteStore
from .sqlite.embeddings import EMBEDDINGS_FILENAME, SQLiteEmbeddings
from .sqlite.records_store import QueueEntry
from .sqlite.review_store import StampRule


def open_store(url: str | Path, *, create: bool = True) -> Store:
    """Return the store named by `url` (a directory path → SQLite, `postgresql://…` →
    PostgreSQL); with `create=False` a
    store that does not exist yet is refused (`StoreMissing`) instead of created."""
    text = str(url)
    if "://" in text:
        scheme = text.split("://", 1)[0]
        if scheme in ("postgresql", "postgres"):
            from .postgres import PostgresStore

            return PostgresStore(text, create=create)  # type: ignore[return-value]
        raise UsageError(f"unknown store URL scheme {scheme!r}: use a directory path "
                         "or a postgresql:// URL")
    return SQLiteStore(Path(text), create=create)


def open_embeddings(path: str | Path) -> EmbeddingRows:
    """Return the embedding rows of a standalone cache file (SQLite) at `path`."""
    return SQLiteEmbeddings(Path(path))


__all__ = [
    "EMBEDDINGS_FILENAME",
    "AuthScope",
    "ChunkRecord",
    "EmbeddingRows",
    "FsckReport",
    "GenerationRow",
    "LiveRevision",
    "QuarantineRecord",
    "QueueEntry",
    "SQLiteStore",
    "StampRule",
    "Store",
    "Tombstone",
    "open_embeddings",
    "open_store",
]
