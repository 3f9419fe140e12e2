"""The dense channel's candidate generators live in the store (each backend has its
own: `Store.dense_candidates`); the embedded backend's exact scan and graph walk are
re-exported here for the callers and tests that name them."""

from __future__ import annotations

from ..store.dense_channel import (
    DenseCandidates,
    dense_candidates,
    search_graph,
    universe_filter,
    use_graph,
)

__all__ = ["DenseCandidates", "dense_candidates", "search_graph", "universe_filter", "use_graph"]
