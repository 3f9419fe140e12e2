"""The dense channel's two ways over the authorized universe U: exact scan or ANN graph
(the embedded backend's; `retrieve.dense` re-exports it).

A generation may carry one HNSW graph per large tenant (`store.ann`, hnswlib). For each
query the dense channel chooses (`use_graph`):
- the **exact scan** of U's rows (recall 1.0) when U is small — at most
  `AnnPolicy.exact_max_rows` rows, or under `exact_min_fraction` of the tenant's graph —
  because a selective filter makes the scan cheap and a filtered graph walk long;
- else the **graph walk with U as its filter** (`search_graph`): hnswlib asks U's
  membership test (`universe_filter`, a boolean mask over the ords) about every node
  before it may enter the result set, so the walk's candidates are rows of U only — no
  row outside U is ever a candidate, and nothing is dropped after a top-k. The walk
  collects `AnnPolicy.walk_size` rows of U (at least min(depth, |U|)). When it cannot
  reach that many, `search_graph` returns None and the caller scans U exactly and flags
  the bundle `fallback`: a filtered search never underfills silently.
Graph hits are rescored from the generation's vector file, so both ways give the same
float32 scores to the same rows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..errors import AnnUnavailable, UsageError
from .ann import AnnPolicy, Graph, search
from .lru import LRU


@dataclass(frozen=True, slots=True)
class DenseCandidates:
    """What the dense channel scored: positions in U, their float32 scores, which way."""

    positions: np.ndarray
    scores: np.ndarray
    path: str                     # "exact" | "ann"
    candidates: int = 0           # rows of U the graph walk collected (its ef)
    fallback: str | None = None   # why the graph was chosen but the exact scan answered


def dense_candidates(universe: np.ndarray, query: np.ndarray, depth: int, policy: AnnPolicy,
                     vectors: np.ndarray, *, scan: Callable[[], np.ndarray] | None = None,
                     graph: Callable[[], Graph] | None = None, graph_size: int = 0,
                     exact: bool = False) -> DenseCandidates:
    """Score U for `query` the way the policy chooses (see the module docstring).

    `universe` holds U's ords (sorted, never changed afterwards); `scan()` returns the
    exact scores of U's rows (the caller may keep U's rows between queries), else they
    are gathered from `vectors`; `graph()` loads the tenant's graph of `graph_size` live
    rows (it may raise AnnUnavailable)."""
    why = None
    if graph is not None and use_graph(policy, len(universe), graph_size, exact):
        try:
            got = search_graph(graph(), vectors, universe, query, depth, policy, graph_size)
        except AnnUnavailable as exc:
            why = exc.message
        else:
            if got is not None:
                return DenseCandidates(got[0], got[1], "ann", got[2])
            why = (f"the graph walk reached fewer than "
                   f"{policy.walk_size(depth, len(universe), graph_size)} authorized rows")
    scores = np.asarray(scan() if scan is not None else vectors[universe] @ query, dtype=np.float32)
    return DenseCandidates(np.arange(len(universe)), scores, "exact", 0, why)


def use_graph(policy: AnnPolicy, n_universe: int, graph_size: int, exact: bool) -> bool:
    """True when the dense channel should walk the tenant's graph rather than scan U."""
    return (graph_size > 0 and not exact and n_universe > policy.exact_max_rows
            and n_universe >= policy.exact_min_fraction * graph_size)


def search_graph(graph: Graph, vectors: np.ndarray, universe: np.ndarray, query: np.ndarray,
                 depth: int, policy: AnnPolicy, graph_size: int
                 ) -> tuple[np.ndarray, np.ndarray, int] | None:
    """Walk the graph with U (`universe`: sorted ords) as its filter; see the module
    docstring. Returns (positions in `universe`, float32 scores, rows collected) — at
    least min(depth, |U|) rows, all of U — or None when the walk could not collect them.
    Raises AnnUnavailable if the graph ever returns a row outside U (a broken graph)."""
    if not len(universe):
        return None
    k = policy.walk_size(depth, len(universe), graph_size)
    ords = search(graph, query, k, universe_filter(universe, graph.ord_end))
    if ords is None:
        return None
    pos = np.searchsorted(universe, ords)
    inside = (pos < len(universe)) & (universe[np.minimum(pos, len(universe) - 1)] == ords)
    if not inside.all():
        raise AnnUnavailable("the ANN graph returned a row outside the authorized universe; "
                             "rebuild the generation (pincite index build)")
    return pos, np.asarray(vectors[universe[pos]] @ query, dtype=np.float32), k


_FILTERS = LRU(32)  # id(U's ords) -> (U's ords, mask length, membership test)


def universe_filter(universe: np.ndarray, end: int) -> Callable[[int], bool]:
    """U's membership test for a graph walk: ord -> bool, the `__getitem__` of a boolean
    mask over the ords below max(`end`, U's last + 1) (every label of a graph that ends
    at `end`). One mask per U: kept while U's ords array is kept here (so its id cannot
    be reused by another array) and matched by identity."""
    size = max(int(end), int(universe[-1]) + 1 if len(universe) else 0)
    key = id(universe)
    hit = _FILTERS.get(key)
    if hit is not None and hit[0] is universe and hit[1] == size:
        return hit[2]
    mask = np.zeros(size, dtype=bool)
    mask[universe] = True
    test: Callable[[int], bool] = mask.__getitem__
    _FILTERS.put(key, (universe, size, test))
    return test


def checked_query(query: np.ndarray, dimension: int) -> np.ndarray:
    """Return `query` as float32 if it is `dimension` finite numbers, else raise UsageError
    (every backend refuses the same queries)."""
    q = np.asarray(query, dtype=np.float32)
    if q.shape != (dimension,) or not np.isfinite(q).all():
        raise UsageError(f"the query vector must be {dimension} finite numbers; got shape "
                         f"{q.shape}{'' if np.isfinite(q).all() else ' with a non-finite value'}")
    return q


def checked_rows(vectors: np.ndarray, n: int) -> np.ndarray:
    """Return `vectors` as float32 if they are `n` rows of finite numbers, else raise
    UsageError (a NaN would poison every score of the generation)."""
    v = np.asarray(vectors, dtype=np.float32)
    if v.ndim != 2 or v.shape[0] != n or not np.isfinite(v).all():
        raise UsageError(f"a generation's vectors must be {n} rows of finite numbers; got "
                         f"shape {v.shape}")
    return v
