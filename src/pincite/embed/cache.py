"""`EmbeddingCache`: vectors kept by (scope, space, sha256 of the exact model input).

Republishing re-embeds nothing unchanged: a text whose prefixed input hashes the same in
the same space is read back instead of run through the model. Vectors are float32 blobs
in a SQLite file of their own (`embeddings.sqlite` beside the store). `scope` keeps
tenants apart (pass the tenant), so one tenant's cache never answers for another's text;
`forget` removes vectors whose source text was deleted, since vectors carry content too.

The SQL is written here as named statements, to move under `store/` with the others.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import SchemaTooNew, SpaceMismatch, StoreError
from ..model import timestamp
from .embedder import Embedded, Embedder, EmbedShortcuts, Role, prefixed
from .space import EmbeddingSpace

CACHE_FILENAME = "embeddings.sqlite"

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE embedding_spaces (
        space_id    TEXT PRIMARY KEY,
        record      TEXT NOT NULL,
        created_at  TEXT NOT NULL
    );
    CREATE TABLE embeddings (
        scope        TEXT NOT NULL,
        space_id     TEXT NOT NULL REFERENCES embedding_spaces (space_id),
        input_sha256 TEXT NOT NULL,
        windows      INTEGER NOT NULL,
        dtype        TEXT NOT NULL,
        vector       BLOB NOT NULL,
        created_at   TEXT NOT NULL,
        PRIMARY KEY (scope, space_id, input_sha256)
    ) WITHOUT ROWID;
    CREATE INDEX embeddings_input ON embeddings (input_sha256);
    """,
)

SQL = {
    "space_get": "SELECT record FROM embedding_spaces WHERE space_id = ?",
    "space_put": "INSERT OR IGNORE INTO embedding_spaces (space_id, record, created_at) VALUES (?, ?, ?)",
    "get_many": (
        "SELECT input_sha256, windows, vector FROM embeddings "
        "WHERE scope = ? AND space_id = ? AND input_sha256 IN (SELECT value FROM json_each(?))"
    ),
    "put": (
        "INSERT OR IGNORE INTO embeddings "
        "(scope, space_id, input_sha256, windows, dtype, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
    ),
    "forget": "DELETE FROM embeddings WHERE input_sha256 IN (SELECT value FROM json_each(?))",
    "forget_scope": "DELETE FROM embeddings WHERE scope = ?",
    "count": "SELECT count(*) FROM embeddings WHERE space_id = ?",
}

_CHUNK = 500


def input_sha256(text: str) -> str:
    """Digest of one exact model input (prefix included), UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A SQLite file of vectors; use as a context manager or call `close()`."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._db = sqlite3.connect(self.path, timeout=30.0, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._migrate()
            self._known: dict[str, EmbeddingSpace] = {}
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"cannot open embedding cache {self.path}: {exc}; "
                             "delete the file to rebuild it (it holds only derived vectors)") from exc

    def _migrate(self) -> None:
        found = self._db.execute("PRAGMA user_version").fetchone()[0]
        if found > len(MIGRATIONS):
            raise SchemaTooNew(found, len(MIGRATIONS))
        for version in range(found, len(MIGRATIONS)):
            self._db.executescript(
                f"BEGIN IMMEDIATE; {MIGRATIONS[version]} PRAGMA user_version = {version + 1}; COMMIT;"
            )

    def register(self, space: EmbeddingSpace) -> None:
        """Record `space` under its id; refuse an id already recorded for a different space."""
        known = self._known.get(space.space_id)
        if known is None:
            row = self._db.execute(SQL["space_get"], (space.space_id,)).fetchone()
            if row is None:
                record = json.dumps(space.to_dict(), sort_keys=True)
                self._db.execute(SQL["space_put"], (space.space_id, record, timestamp()))
                known = space
            else:
                known = EmbeddingSpace.from_dict(json.loads(row[0]))
            self._known[space.space_id] = known
        known.require_same(space)

    def get_many(self, space: EmbeddingSpace, digests: Sequence[str],
                 scope: str = "") -> dict[str, tuple[np.ndarray, int]]:
        """Return {digest: (float32 vector, windows)} for the digests held in this space."""
        self.register(space)
        found: dict[str, tuple[np.ndarray, int]] = {}
        size = space.dimension * 4
        wanted = list(dict.fromkeys(digests))
        for i in range(0, len(wanted), _CHUNK):
            chunk = json.dumps(wanted[i:i + _CHUNK])
            for digest, windows, blob in self._db.execute(SQL["get_many"], (scope, space.space_id, chunk)):
                if len(blob) != size:
                    raise StoreError(f"embedding cache {self.path} holds a {len(blob)}-byte vector "
                                     f"in a {space.dimension}-d space; delete the file to rebuild it")
                found[digest] = (np.frombuffer(blob, dtype="<f4").astype(np.float32), int(windows))
        return found

    def put_many(self, space: EmbeddingSpace, items: Iterable[tuple[str, np.ndarray, int]],
                 scope: str = "") -> None:
        """Store (digest, vector, windows) rows; rows already present are kept as they are."""
        self.register(space)
        now = timestamp()
        rows = []
        for digest, vector, windows in items:
            v = np.asarray(vector)
            if v.shape != (space.dimension,):
                raise SpaceMismatch(space.space_id, f"vector{v.shape}", ["dimension"])
            rows.append((scope, space.space_id, digest, int(windows), space.dtype,
                         v.astype("<f4").tobytes(), now))
        with self._tx():
            self._db.executemany(SQL["put"], rows)

    def forget(self, digests: Sequence[str]) -> int:
        """Delete the vectors of these inputs in every scope and space; return rows removed."""
        removed = 0
        with self._tx():
            for i in range(0, len(digests), _CHUNK):
                cur = self._db.execute(SQL["forget"], (json.dumps(list(digests[i:i + _CHUNK])),))
                removed += cur.rowcount
        return removed

    def forget_scope(self, scope: str) -> int:
        """Delete every vector of one scope (a tenant leaving); return rows removed."""
        with self._tx():
            return self._db.execute(SQL["forget_scope"], (scope,)).rowcount

    def count(self, space: EmbeddingSpace) -> int:
        return int(self._db.execute(SQL["count"], (space.space_id,)).fetchone()[0])

    def _tx(self) -> _Transaction:
        return _Transaction(self._db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CachedEmbedder(EmbedShortcuts):
    """An `Embedder` that asks `cache` first and runs `inner` only on inputs it lacks.

    `hits` and `misses` count texts over the embedder's life; each distinct input is run
    once per call even if it repeats in the batch.
    """

    def __init__(self, inner: Embedder, cache: EmbeddingCache, scope: str = "") -> None:
        self.inner = inner
        self.cache = cache
        self.scope = scope
        self.hits = 0
        self.misses = 0

    @property
    def space(self) -> EmbeddingSpace:
        return self.inner.space

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        space = self.inner.space
        digests = [input_sha256(t) for t in prefixed(space, texts, role)]
        held = self.cache.get_many(space, digests, self.scope)
        todo: dict[str, int] = {}
        for i, d in enumerate(digests):
            if d not in held and d not in todo:
                todo[d] = i
        computed = 0
        if todo:
            fresh = self.inner.embed([texts[i] for i in todo.values()], role=role, progress=progress)
            space.check_vectors(fresh.vectors)
            rows = list(zip(todo, fresh.vectors, fresh.windows, strict=True))
            self.cache.put_many(space, rows, self.scope)
            held.update({d: (v, w) for d, v, w in rows})
            computed = fresh.computed
        self.hits += len(texts) - len(todo)
        self.misses += len(todo)
        vectors = np.zeros((len(texts), space.dimension), dtype=np.float32)
        windows = []
        for i, d in enumerate(digests):
            vectors[i], w = held[d]
            windows.append(w)
        return Embedded(vectors, tuple(windows), computed)


class _Transaction:
    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db.execute("BEGIN IMMEDIATE")

    def __exit__(self, exc_type: object, *rest: object) -> None:
        self._db.execute("COMMIT" if exc_type is None else "ROLLBACK")
