"""Rank fusion: weighted reciprocal rank fusion (Cormack et al. 2009), a pure function.

For ranked lists L_j with weights w_j >= 0 and a constant k0 > 0,

    s(d) = sum over lists j that hold d of  w_j / (k0 + r_j(d))

with r_j(d) the 1-based rank of d in L_j (its first occurrence; later duplicates are
ignored). A list that does not hold d contributes nothing. Score magnitudes of the
lists are never used. Ties break by the id, ascending, so the output is deterministic.
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


def ranks(ranked: Sequence[str]) -> dict[str, int]:
    """Return {id: 1-based rank} of a list (first occurrence wins)."""
    return {ident: i for i, ident in enumerate(dict.fromkeys(ranked), start=1)}
