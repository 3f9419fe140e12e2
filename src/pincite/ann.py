"""The dense channel's two ways over the authorized universe U: exact scan or ANN graph.

A generation may carry one ANN graph per large tenant (`store.ann`). For each query the
dense channel chooses (`use_graph`):
- the **exact scan** of U's rows (recall 1.0) when U is small — at most
  `AnnPolicy.exact_max_rows` rows, or under `exact_min_fraction` of the tenant's graph —
  because a selective filter makes the scan cheap and a graph walk wasteful;
- else the **graph, with U applied during the walk** (`search_graph`): usearch's Python
  binding takes no filter predicate, so the walk is widened instead — it starts at
  depth / (|U| / graph size) x `oversample` candidates and grows x4 until it has reached
  `depth` rows of U (the pgvector 0.8 "iterative scan" idea). Rows outside U never
  leave this function, and top-k is taken over rows of U only. When `max_candidates`
  does not reach `depth` rows of U, it returns None and the caller scans U exactly and
  flags the bundle `fallback`: a filtered search never underfills silently.
Graph hits are rescored from the generation's vector file, so both ways give the same
float32 scores to the same rows.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .store.ann import AnnPolicy, AnnUnavailable, search


@dataclass(frozen=True, slots=True)
class DenseCandidates:
    """What the dense channel scored: positions in U, their float32 scores, which way."""

    positions: np.ndarray
    scores: np.ndarray
    path: str                     # "exact" | "ann"
    candidates: int = 0           # graph candidates walked
    fallback: str | None = None   # why the graph was chosen but the exact scan answered


def dense_candidates(universe: np.ndarray, query: np.ndarray, depth: int, policy: AnnPolicy,
                     vectors: np.ndarray, *, scan: Callable[[], np.ndarray] | None = None,
                     graph: Callable[[], Any] | None = None, graph_size: int = 0,
                     exact: bool = False) -> DenseCandidates:
    """Score U for `query` the way the policy chooses (see the module docstring).

    `universe` holds U's ords (sorted); `scan()` returns the exact scores of U's rows (the
    caller may keep U's rows between queries), else they are gathered from `vectors`;
    `graph()` loads the tenant's graph of `graph_size` rows (it may raise AnnUnavailable)."""
    why = None
    if graph is not None and use_graph(policy, len(universe), graph_size, exact):
        try:
            got = search_graph(graph(), vectors, universe, query, depth, policy, graph_size)
        except AnnUnavailable as exc:
            why = exc.message
        else:
            if got is not None:
                return DenseCandidates(got[0], got[1], "ann", got[2])
            why = (f"the graph did not reach {min(depth, len(universe))} authorized rows "
                   f"within {min(graph_size, policy.max_candidates)} candidates")
    scores = np.asarray(scan() if scan is not None else vectors[universe] @ query, dtype=np.float32)
    return DenseCandidates(np.arange(len(universe)), scores, "exact", 0, why)


def use_graph(policy: AnnPolicy, n_universe: int, graph_size: int, exact: bool) -> bool:
    """True when the dense channel should walk the tenant's graph rather than scan U."""
    return (graph_size > 0 and not exact and n_universe > policy.exact_max_rows
            and n_universe >= policy.exact_min_fraction * graph_size)


def search_graph(graph: Any, vectors: np.ndarray, universe: np.ndarray, query: np.ndarray,
                 depth: int, policy: AnnPolicy, graph_size: int
                 ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Walk the graph with U (`universe`: sorted ords) applied; see the module docstring.

    Returns (positions in `universe`, float32 scores, candidates walked) of every row of U
    the walk reached — at least min(depth, |U|) of them — or None.
    """
    if not len(universe):
        return None
    want = min(depth, len(universe))
    cap = min(graph_size, policy.max_candidates)
    count = min(cap, max(want, math.ceil(want * graph_size / len(universe) * policy.oversample)))
    while True:
        keys, _sims = search(graph, query, count)
        pos = np.searchsorted(universe, keys)
        inside = (pos < len(universe)) & (universe[np.minimum(pos, len(universe) - 1)] == keys)
        if int(inside.sum()) >= want:
            pos = pos[inside]
            return pos, np.asarray(vectors[universe[pos]] @ query, dtype=np.float32), count
        if count >= cap:
            return None
        count = min(cap, count * 4)
