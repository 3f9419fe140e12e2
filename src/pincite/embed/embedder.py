"""The `Embedder` seam: texts in, float32 unit vectors of one named space out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from ..errors import UsageError
from ..store.lru import LRU
from .space import EmbeddingSpace

Role = Literal["document", "query"]
ROLES: tuple[Role, ...] = ("document", "query")


@dataclass(frozen=True, slots=True)
class Embedded:
    """One batch's result.

    `vectors` is float32 `(n, dimension)` in input order; `windows[i]` is how many pieces
    text i was split into (1 when it fit the input limit; record it beside the vector);
    `computed` is how many texts were run through the model in this call (cache hits and
    in-batch duplicates are not).
    """

    vectors: np.ndarray
    windows: tuple[int, ...]
    computed: int


@runtime_checkable
class Embedder(Protocol):
    """Anything that embeds text into one declared space."""

    @property
    def space(self) -> EmbeddingSpace: ...

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded: ...

    def embed_documents(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


# query vectors by (space, text): a space pins its model, so a vector is its text's forever
_QUERIES: LRU = LRU(512)


class EmbedShortcuts:
    """`embed_documents` and `embed_query` in terms of `embed` (mixed into embedders)."""

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        raise NotImplementedError

    def embed_documents(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        """Return float32 `(len(texts), dimension)` document vectors."""
        return self.embed(texts, role="document", progress=progress).vectors

    def embed_query(self, text: str) -> np.ndarray:
        """Return the float32 `(dimension,)` vector of one query (read-only; a query asked
        again in the same process and space is not run through the model again: `ask`
        reads the question's kind, searches and weighs cosines with one vector)."""
        space = getattr(getattr(self, "space", None), "space_id", None)
        key = (space, text)
        held = _QUERIES.get(key) if space is not None else None
        if held is not None:
            return held
        vec = np.array(self.embed([text], role="query").vectors[0], dtype=np.float32)
        vec.flags.writeable = False
        if space is not None:
            _QUERIES.put(key, vec)
        return vec


def prefixed(space: EmbeddingSpace, texts: Sequence[str], role: Role) -> list[str]:
    """The exact model input for each text: the role's prefix, then the text."""
    if role not in ROLES:
        raise UsageError(f"embedding role must be one of {', '.join(ROLES)}, got {role!r}")
    prefix = space.query_prefix if role == "query" else space.document_prefix
    return [prefix + t for t in texts]


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Return float32 rows scaled to unit length (computed in float64; zero rows stay zero)."""
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return (v / np.where(norms == 0.0, 1.0, norms)).astype(np.float32)
