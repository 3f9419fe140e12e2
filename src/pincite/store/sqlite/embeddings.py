"""`SQLiteEmbeddings`: the embedding cache's rows in a SQLite file of their own.

The file holds only derived vectors, so a damaged one is reported with the advice to
delete it (the next build re-embeds). Opened through the backend's connection helper.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path

from ...errors import SchemaTooNew, StoreError
from ..private import private_dir
from .connection import connect, migrate, transaction, vacuum
from .embeddings_sql import (
    EMBEDDINGS_MIGRATIONS,
    SQL_COUNT,
    SQL_FORGET,
    SQL_FORGET_SCOPE,
    SQL_PUT_VECTOR,
    SQL_SPACE_GET,
    SQL_SPACE_PUT,
    SQL_VECTORS,
)

EMBEDDINGS_FILENAME = "embeddings.sqlite"
_CHUNK = 500


class SQLiteEmbeddings:
    """Embedding spaces and vectors in one SQLite file; call `close()` when done."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.where = str(self.path)
        private_dir(self.path.parent)
        try:
            self._db = connect(self.path)
            migrate(self._db, EMBEDDINGS_MIGRATIONS)
        except SchemaTooNew:
            raise
        except (sqlite3.DatabaseError, StoreError) as exc:
            raise StoreError(f"cannot open embedding cache {self.path}: {exc}; "
                             "delete the file to rebuild it (it holds only derived vectors)") from exc

    def space_record(self, space_id: str) -> str | None:
        """Return the JSON record of a space, or None when it is not recorded."""
        row = self._db.execute(SQL_SPACE_GET, (space_id,)).fetchone()
        return None if row is None else str(row[0])

    def add_space(self, space_id: str, record: str, at: str) -> None:
        """Record a space (a space id already recorded is kept as it is)."""
        self._db.execute(SQL_SPACE_PUT, (space_id, record, at))

    def vectors(self, scope: str, space_id: str, digests: Sequence[str]
                ) -> list[tuple[str, int, bytes]]:
        """Return (digest, windows, float32 blob) of the digests held in this scope and space."""
        out: list[tuple[str, int, bytes]] = []
        for i in range(0, len(digests), _CHUNK):
            chunk = json.dumps(list(digests[i:i + _CHUNK]))
            out.extend((d, int(w), bytes(b))
                       for d, w, b in self._db.execute(SQL_VECTORS, (scope, space_id, chunk)))
        return out

    def put_vectors(self, rows: Sequence[tuple[str, str, str, int, str, bytes, str]]) -> None:
        """Store (scope, space, digest, windows, dtype, blob, at) rows in one transaction;
        rows already present are kept as they are."""
        with transaction(self._db) as c:
            c.executemany(SQL_PUT_VECTOR, rows)

    def forget(self, digests: Sequence[str]) -> int:
        """Delete the vectors of these inputs in every scope and space; return rows removed."""
        removed = 0
        with transaction(self._db) as c:
            for i in range(0, len(digests), _CHUNK):
                removed += c.execute(SQL_FORGET, (json.dumps(list(digests[i:i + _CHUNK])),)).rowcount
        return removed

    def forget_scope(self, scope: str) -> int:
        """Delete every vector of one scope; return rows removed."""
        with transaction(self._db) as c:
            return int(c.execute(SQL_FORGET_SCOPE, (scope,)).rowcount)

    def count(self, space_id: str) -> int:
        """Return how many vectors a space holds (every scope)."""
        return int(self._db.execute(SQL_COUNT, (space_id,)).fetchone()[0])

    def vacuum(self) -> None:
        """Rewrite the file so deleted vectors leave no trace in it."""
        vacuum(self._db)

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
