"""Rank fusion, pure functions: weighted reciprocal rank fusion (Cormack et al. 2009), and
a convex combination of min-max normalised scores (Bruch et al. 2023) for ablations.

For ranked lists L_j with weights w_j >= 0 and a constant k0 > 0,

    s(d) = sum over lists j that hold d of  w_j / (k0 + r_j(d))

with r_j(d) the 1-based rank of d in L_j (its first occurrence; later duplicates are
ignored). A list that does not hold d contributes nothing. Score magnitudes of the
lists are never used. Ties break by the id, ascending, so the output is deterministic.

`convex` uses the scores instead: each list's scores are normalised between a floor and
the list's maximum, and

    s(d) = sum over lists j that hold d of  w_j * (x_j(d) - lo_j) / (max_j - lo_j)

with lo_j the list's minimum (min-max), or a fixed floor when one is given (BM25 and
cosine scores of a top list are >= 0, so floor 0 divides by the maximum: the
"theoretical min-max" of Bruch et al.). A list whose maximum is its floor maps to 1. A
list that does not hold d contributes 0. Same tie rule.
"""

from __future__ import annotations

from collections.abc import Sequence


def rrf(ranked_lists: Sequence[Sequence[str]], k0: float,
        weights: Sequence[float] | None = None) -> list[tuple[str, float]]:
    """Return (id, fused score) pairs, best first (ties by id)."""
    if not k0 > 0:
        raise ValueError("k0 must be positive")
    weights = list(weights) if weights is not None else [1.0] * len(ranked_lists)
    if len(weights) != len(ranked_lists):
        raise ValueError("one weight is required for each ranked list")
    scores: dict[str, float] = {}
    for weight, ranked in zip(weights, ranked_lists, strict=True):
        if not weight >= 0:
            raise ValueError("weights must be non-negative")
        for rank, ident in enumerate(dict.fromkeys(ranked), start=1):
            scores[ident] = scores.get(ident, 0.0) + weight / (k0 + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def convex(scored_lists: Sequence[Sequence[tuple[str, float]]], weights: Sequence[float],
           floors: Sequence[float | None] | None = None) -> list[tuple[str, float]]:
    """Return (id, combined score) pairs, best first (ties by id); see the module docstring.
    Each list holds (id, score) pairs, higher is better; a repeated id keeps its first.
    `floors[j]` is list j's fixed floor, or None for its minimum (the default)."""
    floors = list(floors) if floors is not None else [None] * len(scored_lists)
    if len(weights) != len(scored_lists) or len(floors) != len(scored_lists):
        raise ValueError("one weight (and floor) is required for each scored list")
    scores: dict[str, float] = {}
    for weight, floor, scored in zip(weights, floors, scored_lists, strict=True):
        if not weight >= 0:
            raise ValueError("weights must be non-negative")
        first = dict(reversed(list(scored)))  # first occurrence wins
        if not first:
            continue
        hi = max(first.values())
        lo = min(first.values()) if floor is None else floor
        for ident, x in first.items():
            norm = (x - lo) / (hi - lo) if hi > lo else 1.0
            scores[ident] = scores.get(ident, 0.0) + weight * norm
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def ranks(ranked: Sequence[str]) -> dict[str, int]:
    """Return {id: 1-based rank} of a list (first occurrence wins)."""
    return {ident: i for i, ident in enumerate(dict.fromkeys(ranked), start=1)}
