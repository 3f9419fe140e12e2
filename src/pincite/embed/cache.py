"""`EmbeddingCache`: vectors kept by (scope, space, sha256 of the exact model input).

Republishing re-embeds nothing unchanged: a text whose prefixed input hashes the same in
the same space is read back instead of run through the model. The rows live in the
store (`Store.embeddings()`: for SQLite, `embeddings.sqlite` beside the database; its
statements are in `store/sqlite/embeddings_sql.py`). `scope` keeps tenants apart (pass
the tenant), so one tenant's cache never answers for another's text; `forget` removes
vectors whose source text was deleted, since vectors carry content too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ..errors import SpaceMismatch, StoreError
from ..model import timestamp
from ..store import EMBEDDINGS_FILENAME, EmbeddingRows, open_embeddings
from .embedder import Embedded, Embedder, EmbedShortcuts, Role, prefixed
from .space import EmbeddingSpace

CACHE_FILENAME = EMBEDDINGS_FILENAME


def input_sha256(text: str) -> str:
    """Digest of one exact model input (prefix included), UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """Cached vectors over a store's embedding rows (or a cache file named by its path);
    use as a context manager or call `close()`."""

    def __init__(self, rows: EmbeddingRows | str | Path) -> None:
        self._rows = open_embeddings(rows) if isinstance(rows, str | Path) else rows
        self._known: dict[str, EmbeddingSpace] = {}

    def register(self, space: EmbeddingSpace) -> None:
        """Record `space` under its id; refuse an id already recorded for a different space."""
        known = self._known.get(space.space_id)
        if known is None:
            record = self._rows.space_record(space.space_id)
            if record is None:
                self._rows.add_space(space.space_id, json.dumps(space.to_dict(), sort_keys=True),
                                     timestamp())
                known = space
            else:
                known = EmbeddingSpace.from_dict(json.loads(record))
            self._known[space.space_id] = known
        known.require_same(space)

    def get_many(self, space: EmbeddingSpace, digests: Sequence[str],
                 scope: str = "") -> dict[str, tuple[np.ndarray, int]]:
        """Return {digest: (float32 vector, windows)} for the digests held in this space."""
        self.register(space)
        found: dict[str, tuple[np.ndarray, int]] = {}
        size = space.dimension * 4
        for digest, windows, blob in self._rows.vectors(scope, space.space_id,
                                                        list(dict.fromkeys(digests))):
            if len(blob) != size:
                raise StoreError(f"embedding cache {self._rows.where} holds a {len(blob)}-byte "
                                 f"vector in a {space.dimension}-d space; delete the file to "
                                 "rebuild it")
            found[digest] = (np.frombuffer(blob, dtype="<f4").astype(np.float32), windows)
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
        self._rows.put_vectors(rows)

    def forget(self, digests: Sequence[str]) -> int:
        """Delete the vectors of these inputs in every scope and space; return rows removed."""
        return self._rows.forget(digests)

    def forget_scope(self, scope: str) -> int:
        """Delete every vector of one scope (a tenant leaving); return rows removed."""
        return self._rows.forget_scope(scope)

    def count(self, space: EmbeddingSpace) -> int:
        """Return how many vectors this space holds (every scope)."""
        return self._rows.count(space.space_id)

    def close(self) -> None:
        """Close the rows."""
        self._rows.close()

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


