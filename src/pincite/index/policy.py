"""The ranking policy record: every number that decides an order or an answer.

A generation records its ranking policy in its manifest; a query is ranked under the
policy of the generation it reads. Changing any number here is a new policy (its `name`
changes with its parameters) and needs a new generation to take effect.
The BM25 scoring the policy parametrises is `retrieve.bm25`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from typing import Any

from ..errors import UsageError
from ..model import record_fields

SCHEMA_NAME = "pincite.ranking_policy"
# 2: `ask_min_coverage_cell` (a version-1 policy reads with its default; an older pincite
# refuses a version-2 policy as newer than it supports instead of as an unknown field)
SCHEMA_VERSION = 2


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
    # answer-or-abstain (`pincite ask`, see `ask.answer`): a statement or data cell of a
    # top passage, read with its context, must cover the question (its words weighed by
    # idf) and be close to it in the embedding space. Chosen on fit folds of CUAD and
    # TAT-QA dev (`eval ask-cuad|ask-tatqa --folds 5`, docs/evaluation.md): with the
    # answer-kind rules of issue 13 every CUAD fit fold chose coverage 0.8 and cosine 0.3,
    # and four of five TAT-QA fit folds did
    ask_min_coverage: float = 0.8    # idf-weighted share of the question a unit covers
    # a data cell is located by the question (its row label and its own column header named,
    # `ask.units.judge`) before coverage counts, so it needs less of it: TAT-QA dev fit
    # folds (issue 13) answer 30 of 36 at 0.5 with none wrong, 20 at 0.8
    ask_min_coverage_cell: float = 0.5
    ask_min_dense: float = 0.30      # cosine of unit (with its context) and question (tau)
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

