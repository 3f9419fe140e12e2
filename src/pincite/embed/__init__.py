"""Embeddings: named spaces, embedders behind one protocol, and a cache by content digest.

    EmbeddingSpace      what a vector means; query and index must name the same one
    Embedder            the protocol: `space`, `embed`, `embed_documents`, `embed_query`
    MiniLMEmbedder      all-MiniLM-L6-v2, weights verified by digest, CPU or GPU (extra `embed`)
    HashEmbedder        deterministic hashed n-grams, no model: tests and dry runs
    EmbeddingCache      SQLite vectors keyed by (scope, space, sha256 of the model input)
    CachedEmbedder      an Embedder that only runs the model on inputs the cache lacks

Errors: SpaceMismatch (409), WeightsDigestMismatch (500), ModelLayoutError (500);
MissingExtra when the `embed` extra is not installed. torch and sentence-transformers are
imported only when a MiniLMEmbedder is built.
"""

from __future__ import annotations

from ..errors import SpaceMismatch
from .cache import CACHE_FILENAME, CachedEmbedder, EmbeddingCache, input_sha256
from .embedder import Embedded, Embedder, Role, l2_normalise
from .hashing import HashEmbedder
from .minilm import (
    MINILM_SPACE,
    MiniLMEmbedder,
    ModelLayoutError,
    WeightsDigestMismatch,
    cpu_supports_bf16,
    default_model_dir,
    verify_model_dir,
)
from .space import EmbeddingSpace, require_same_space
from .windows import plan_batches, split_windows

__all__ = [
    "CACHE_FILENAME",
    "MINILM_SPACE",
    "CachedEmbedder",
    "Embedded",
    "Embedder",
    "EmbeddingCache",
    "EmbeddingSpace",
    "HashEmbedder",
    "MiniLMEmbedder",
    "ModelLayoutError",
    "Role",
    "SpaceMismatch",
    "WeightsDigestMismatch",
    "cpu_supports_bf16",
    "default_model_dir",
    "input_sha256",
    "l2_normalise",
    "plan_batches",
    "require_same_space",
    "split_windows",
    "verify_model_dir",
]
