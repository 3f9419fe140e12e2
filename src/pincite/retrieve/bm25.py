"""BM25 over the caller's authorized universe (pure functions; parameters from the
generation's `RankingPolicy`).

BM25 (Robertson/Lucene form) over *term groups* (one per query word, see `index.analyze`):

    idf(g)   = ln(1 + (N - df(g) + 0.5) / (df(g) + 0.5))
    score(d) = sum_g idf(g) * tf(g,d) * (k1 + 1) / (tf(g,d) + k1 * (1 - b + b * |d| / avgdl))

N, df and avgdl are computed over the caller's **authorized universe** only, so
documents a principal cannot see change neither which rows match nor how they score
(no statistics leak across tenants or ACLs). tf(g,d) is the count of d's tokens that are
any form of the group.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np


def bm25(group_postings: Sequence[Mapping[int, int]], lengths: Mapping[int, int], n_docs: int,
         avgdl: float, k1: float, b: float) -> dict[int, float]:
    """Return {doc: BM25 score} for the docs in any group's postings ({doc: tf}): the
    reference form of `bm25_arrays` (which retrieval runs; a parity test holds them equal)."""
    docs = sorted({d for p in group_postings for d in p})
    if not docs or n_docs <= 0:
        return {}
    index = {d: i for i, d in enumerate(docs)}
    dl = np.array([lengths[d] for d in docs], dtype=np.float64)
    norm = k1 * (1.0 - b + b * dl / (avgdl if avgdl > 0 else 1.0))
    total = np.zeros(len(docs), dtype=np.float64)
    for postings in group_postings:
        if not postings:
            continue
        df = len(postings)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        idx = np.fromiter((index[d] for d in postings), dtype=np.int64, count=df)
        tf = np.fromiter(postings.values(), dtype=np.float64, count=df)
        total[idx] += idf * tf * (k1 + 1.0) / (tf + norm[idx])
    return {d: float(total[i]) for i, d in enumerate(docs)}


def bm25_arrays(groups: Sequence[tuple[np.ndarray, np.ndarray]], lengths: np.ndarray,
                n_docs: int, avgdl: float, k1: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    """`bm25` over arrays: `groups` hold (positions, tfs) per query word, each
    position once; `lengths` is every document's length. Returns, per document, the BM25
    score and the share of groups it matched. The same formula term by term (a parity
    test holds them equal); arrays because a common word matches tens of thousands of rows."""
    total = np.zeros(len(lengths), dtype=np.float64)
    hits = np.zeros(len(lengths), dtype=np.float64)
    scale = avgdl if avgdl > 0 else 1.0
    for p, f in groups:
        if not len(p):
            continue
        df = len(p)
        idf = math.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
        tf = f.astype(np.float64)
        norm = k1 * (1.0 - b + b * lengths[p].astype(np.float64) / scale)
        total[p] += idf * tf * (k1 + 1.0) / (tf + norm)
        hits[p] += 1.0
    return total, hits / max(len(groups), 1)
