"""`HashEmbedder`: a tiny deterministic embedder for tests and for runs without the model.

Words and character 3-grams (of the NFKC-casefolded text) are hashed with BLAKE2b into
`dimension` signed buckets, then the vector is L2-normalised. Texts that share words or
spellings come out close; nothing is learned, so it is no stand-in for retrieval quality.
It has its own space id, so its vectors can never be mixed with a model's.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence

import numpy as np

from ..errors import UsageError
from .embedder import Embedded, EmbedShortcuts, Role, l2_normalise, prefixed
from .space import EmbeddingSpace

ALGORITHM = "hash-ngram-v1"
_WORD = re.compile(r"\w+")
_EMPTY_FEATURE = "\x00empty"


class HashEmbedder(EmbedShortcuts):
    """Deterministic hashed word + character-3-gram vectors, L2-normalised."""

    def __init__(self, dimension: int = 384) -> None:
        if dimension < 8:
            raise UsageError(f"hash embedder dimension must be at least 8, got {dimension}")
        params = f"{ALGORITHM}:blake2b-8:words+char3:d={dimension}"
        digest = hashlib.sha256(params.encode()).hexdigest()
        self._space = EmbeddingSpace(
            space_id=f"{ALGORITHM}@{digest[:8]}-d{dimension}-cos",
            model_id=f"pincite/{ALGORITHM}",
            weights_sha256=digest,
            tokenizer_sha256=digest,
            dimension=dimension,
            normalisation="l2",
            metric="cosine",
            pooling="sum",
            query_prefix="",
            document_prefix="",
            max_tokens=None,
            truncation="none",
        )

    @property
    def space(self) -> EmbeddingSpace:
        return self._space

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        inputs = prefixed(self._space, texts, role)
        out = np.zeros((len(inputs), self._space.dimension), dtype=np.float64)
        for row, text in enumerate(inputs):
            for feature, weight in _features(text):
                h = int.from_bytes(hashlib.blake2b(feature.encode(), digest_size=8).digest(), "little")
                out[row, h % self._space.dimension] += weight if (h >> 63) & 1 else -weight
        return Embedded(l2_normalise(out), (1,) * len(inputs), len(inputs))


def _features(text: str) -> list[tuple[str, float]]:
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    feats: list[tuple[str, float]] = []
    for w in words:
        feats.append(("w:" + w, 1.0))
        padded = f" {w} "
        feats.extend(("c:" + padded[i:i + 3], 0.5) for i in range(len(padded) - 2))
    return feats or [(_EMPTY_FEATURE, 1.0)]
