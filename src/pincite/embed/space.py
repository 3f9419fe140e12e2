"""The embedding space: the record that says which vectors may be compared with which.

A vector means something only inside the space that made it: the model and tokenizer
(by digest), the dimension, the normalisation, the metric, the prefixes put before
queries and documents, the input limit and what happens to input past it. A query is
searched against an index only when both name the same space; equal dimensions or
similar model names never make two spaces compatible.

`dtype` is recorded beside the space but is not part of its identity: a bf16 run and an
fp32 run of the same weights stay in one space only because a test holds them to
cosine >= 0.998 on real text (see tests/embed/test_embed.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..errors import SpaceMismatch, UsageError
from ..model import record_fields

SCHEMA_NAME = "pincite.embedding_space"
SCHEMA_VERSION = 1

NORMALISATIONS = ("l2", "none")
METRICS = ("cosine", "dot", "euclidean")
TRUNCATIONS = ("split-mean", "none")
DTYPES = ("fp32", "bf16", "fp16")


@dataclass(frozen=True, slots=True)
class EmbeddingSpace:
    """What a vector means. Everything but `dtype` is the space's identity."""

    space_id: str
    model_id: str
    weights_sha256: str
    tokenizer_sha256: str
    dimension: int
    normalisation: str
    metric: str
    pooling: str
    query_prefix: str
    document_prefix: str
    max_tokens: int | None
    truncation: str
    dtype: str = "fp32"

    def __post_init__(self) -> None:
        if not self.space_id or not self.model_id:
            raise UsageError("an embedding space needs a space_id and a model_id")
        if self.dimension <= 0:
            raise UsageError(f"embedding dimension must be positive, got {self.dimension}")
        _one_of("normalisation", self.normalisation, NORMALISATIONS)
        _one_of("metric", self.metric, METRICS)
        _one_of("truncation", self.truncation, TRUNCATIONS)
        _one_of("dtype", self.dtype, DTYPES)
        if self.metric == "cosine" and self.normalisation != "l2":
            raise UsageError("metric 'cosine' is served as a dot product and needs normalisation 'l2'")
        if self.max_tokens is not None and self.max_tokens <= 2:
            raise UsageError(f"max_tokens must leave room for input, got {self.max_tokens}")
        if self.max_tokens is None and self.truncation != "none":
            raise UsageError("a space without an input limit has truncation 'none'")

    def identity(self) -> dict[str, Any]:
        """The fields that decide compatibility (everything except `dtype`)."""
        out = asdict(self)
        out.pop("dtype")
        return out

    def differences(self, other: EmbeddingSpace) -> list[str]:
        """Names of the identity fields in which `other` differs from this space."""
        mine, theirs = self.identity(), other.identity()
        return [name for name in mine if mine[name] != theirs[name]]

    def require_same(self, other: EmbeddingSpace) -> None:
        """Raise SpaceMismatch unless `other` is this space (dtype may differ)."""
        diff = self.differences(other)
        if diff:
            raise SpaceMismatch(self.space_id, other.space_id, diff)

    def check_vectors(self, vectors: np.ndarray) -> np.ndarray:
        """Return `vectors` if they are a float32 (n, dimension) array, else raise SpaceMismatch."""
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension or vectors.dtype != np.float32:
            raise SpaceMismatch(
                self.space_id,
                f"array{tuple(vectors.shape)}:{vectors.dtype}",
                ["dimension" if vectors.ndim == 2 and vectors.shape[1] != self.dimension
                 else "shape or dtype"],
            )
        return vectors

    def to_dict(self) -> dict[str, Any]:
        return {"schema_name": SCHEMA_NAME, "version": SCHEMA_VERSION, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EmbeddingSpace:
        """Rebuild a space from `to_dict` output; unknown keys and newer versions are refused."""
        data = record_fields(data, cls, SCHEMA_NAME, SCHEMA_VERSION, "embedding space",
                                strict=True)
        missing = sorted({f.name for f in fields(cls)} - set(data) - {"dtype"})
        if missing:
            raise UsageError(f"embedding space record lacks: {', '.join(missing)}")
        return cls(**data)


def require_same_space(index: EmbeddingSpace, query: EmbeddingSpace) -> None:
    """Refuse a query embedded in `query` against an index built in `index`."""
    index.require_same(query)


def _one_of(what: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise UsageError(f"embedding space {what} {value!r} is not one of {', '.join(allowed)}")
