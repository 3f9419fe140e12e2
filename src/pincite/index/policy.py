"""The ranking policy record and the BM25 scoring it names (pure functions).

A generation records its ranking policy in its manifest; a query is ranked under the
policy of the generation it reads. Changing any number here is a new policy (its `name`
changes with its parameters) and needs a new generation to take effect.

BM25 (Robertson/Lucene form) over *term groups* (one per query word, see `analyze`):

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
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from ..errors import UsageError
from ..model import record_fields

SCHEMA_NAME = "pincite.ranking_policy"
SCHEMA_VERSION = 1


@dataclass(frozen=True, slots=True)
class RankingPolicy:
    """Every number that decides an order or an answer, in one record."""

    # RRF constant and channel weights: the centre of the plateau of a grid on SciFact dev
    # (k0 10-40 x bm25 weight 1.1-1.4 all within 0.003 nDCG@10; docs/evaluation.md)
    k0: float = 20.0                 # RRF constant
    weight_bm25: float = 1.25        # RRF weight of the lexical list
    weight_dense: float = 1.0        # RRF weight of the dense list
    depth: int = 100                 # candidates taken from each channel
    bm25_k1: float = 1.2
    bm25_b: float = 0.75
    rerank_depth: int = 50           # fused candidates shown to a reranker
    rerank_deadline_ms: int = 200    # a reranker slower than this is abandoned (`timeout`)
    # answer-or-abstain (`pincite ask`): a sentence of a top passage, read with its
    # neighbours (its window), must cover the question and be close to it in the
    # embedding space
    ask_min_coverage: float = 0.5    # share of the question's content words the window holds
    ask_min_dense: float = 0.30      # cosine of window (or sentence) and question (tau)
    ask_min_dense_hash: float = 0.10  # tau in the hash embedder's space (no semantics)
    ask_min_coverage_lexical_only: float = 0.8  # when no dense score exists (fallback)
    ask_depth: int = 10              # passages considered
    ask_max_items: int = 3           # passages returned

    def __post_init__(self) -> None:
        if not self.k0 > 0:
            raise UsageError("ranking policy k0 must be positive")
        if self.weight_bm25 < 0 or self.weight_dense < 0:
            raise UsageError("ranking policy weights must be non-negative")
        if self.depth < 1 or self.rerank_depth < 1 or self.ask_depth < 1 or self.ask_max_items < 1:
            raise UsageError("ranking policy depths must be positive")

    @property
    def name(self) -> str:
        """`rrf-k20-bm25w1.25-densew1` for the defaults; any other number shows in the name."""
        def n(x: float) -> str:
            return f"{x:g}"

        base = f"rrf-k{n(self.k0)}-bm25w{n(self.weight_bm25)}-densew{n(self.weight_dense)}"
        default = RankingPolicy()
        rest = [f"{f.name}={n(getattr(self, f.name))}" for f in fields(self)
                if f.name not in ("k0", "weight_bm25", "weight_dense")
                and getattr(self, f.name) != getattr(default, f.name)]
        return base + ("+" + ",".join(rest) if rest else "")

    def dense_threshold(self, space_id: str | None) -> float:
        """τ for passages scored in the embedding space `space_id`."""
        if space_id and space_id.startswith("hash-"):
            return self.ask_min_dense_hash
        return self.ask_min_dense

    def to_dict(self) -> dict[str, Any]:
        return {"schema_name": SCHEMA_NAME, "version": SCHEMA_VERSION, "name": self.name,
                **asdict(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RankingPolicy:
        """Rebuild a policy from `to_dict` output; other kinds, newer versions and unknown
        fields are refused."""
        d = record_fields(data, cls, SCHEMA_NAME, SCHEMA_VERSION, "ranking policy")
        return cls(**d)


DEFAULT_POLICY = RankingPolicy()


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
