"""The judge: one calibrated probability that an answer item answers, from the signals the
readers and retrieval left on it, and the bar under which an answer is given back as
related.

Features of an answer item (`features`): how the question was read (read as a kind, and
the kind model's probability), the unit's lexical coverage of the question and its cosine
to it (absent when not embedded), the passage's dense score and BM25 rank in retrieval,
whether it is the document's opening, the length of the quote, and the answer kind (one
indicator per `AnswerKind`). A logistic regression over them is fitted on answers of the
evals (right or wrong, `evals.judge_fit`), and its score is mapped to a probability by
isotonic regression fitted on *cross-fitted* scores (each document's answers scored by a
regression fitted without that document's fold), so the probability is a measured right
rate, not a score. The shipped judge (`ask/judge.json`) says what it was fitted on; its
`threshold` is the least probability whose answers, cross-fitted, keep wrong answers at
most `MAX_WRONG` of those given; only a judge shipped with `gate` on holds answers under it
back (the shipped one does not: held out, its bar kept almost no right answer — see
docs/evaluation.md), otherwise it gives each answer its calibrated confidence, and a user's
bar is `ask --min-confidence`. Without a shipped judge every answer keeps the confidence of
its kind (`confidence.answer_confidence`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..errors import UsageError
from ..retrieve.bundle import EvidenceItem
from ..vocab import AnswerKind
from .kind_model import KindGuess

SHIPPED = "judge.json"
MAX_WRONG = 0.03
L2 = 1e-2
STEPS = 600
KINDS = tuple(k.value for k in AnswerKind)
NAMES = ("read_as", "read_as_probability", "coverage", "cosine", "cosine_missing",
         "retrieval_dense", "bm25_reciprocal_rank", "opening", "quote_log_chars",
         *(f"kind_{k}" for k in KINDS))


def features(item: EvidenceItem, read_as: KindGuess | None) -> dict[str, float]:
    """Return the judge's features of an answer item (`NAMES`), by name."""
    s = item.scores or {}
    cos = s.get("evidence_dense")
    rank = (item.ranks or {}).get("bm25")
    quote = str((item.citation or {}).get("quote") or item.quote or "")
    out = {"read_as": 1.0 if read_as is not None else 0.0,
           "read_as_probability": read_as.probability if read_as is not None else 0.0,
           "coverage": float(s.get("evidence_coverage") or 0.0),
           "cosine": float(cos) if cos is not None else 0.0,
           "cosine_missing": 1.0 if cos is None else 0.0,
           "retrieval_dense": float(s.get("dense") or 0.0),
           "bm25_reciprocal_rank": 1.0 / rank if rank else 0.0,
           "opening": 1.0 if item.chunk_id == "opening" else 0.0,
           "quote_log_chars": math.log1p(len(quote)) / 8.0}
    kind = str(item.answer_kind or "")
    out.update({f"kind_{k}": 1.0 if kind == k else 0.0 for k in KINDS})
    return out


def vector(f: Mapping[str, float]) -> np.ndarray:
    """Return a feature dict as the judge's vector (`NAMES` order; absent names are 0)."""
    return np.array([float(f.get(n, 0.0)) for n in NAMES])


@dataclass(frozen=True)
class Judge:
    """A fitted judge: logistic weights over `NAMES`, an isotonic map, the answer bar."""

    weights: np.ndarray
    bias: float
    iso_x: np.ndarray      # increasing scores …
    iso_y: np.ndarray      # … and the right rate measured at each
    threshold: float
    provenance: Mapping[str, Any] = field(default_factory=dict)
    # whether answers under `threshold` are given back as related; off, the judge only
    # gives each answer its calibrated confidence (a user's bar is `ask --min-confidence`)
    gate: bool = False

    def score(self, x: np.ndarray) -> float:
        """Return the regression's (uncalibrated) probability of a feature vector."""
        return float(1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias))))

    def confidence(self, f: Mapping[str, float]) -> float:
        """Return the calibrated probability that an answer with features `f` is right."""
        return calibrated(self.score(vector(f)), self.iso_x, self.iso_y)

    def to_dict(self) -> dict[str, Any]:
        """Return the judge as plain data (the shipped file's shape)."""
        return {"names": list(NAMES), "weights": np.round(self.weights, 6).tolist(),
                "bias": round(self.bias, 6), "iso_x": np.round(self.iso_x, 6).tolist(),
                "iso_y": np.round(self.iso_y, 6).tolist(), "threshold": round(self.threshold, 6),
                "gate": self.gate, "provenance": dict(self.provenance)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Judge:
        """Return the judge a `to_dict` wrote; UsageError when its features are not `NAMES`."""
        if list(d.get("names") or []) != list(NAMES):
            raise UsageError("the judge was fitted on other features; refit it with "
                             "scripts/fit_judge.py")
        return cls(np.asarray(d["weights"], dtype=np.float64), float(d["bias"]),
                   np.asarray(d["iso_x"], dtype=np.float64),
                   np.asarray(d["iso_y"], dtype=np.float64), float(d["threshold"]),
                   dict(d.get("provenance") or {}), bool(d.get("gate", False)))


@lru_cache(maxsize=1)
def shipped_judge() -> Judge | None:
    """Return the judge shipped with pincite (`ask/judge.json`), None when absent."""
    res = resources.files(__package__).joinpath(SHIPPED)
    if not res.is_file():
        return None
    return Judge.from_dict(json.loads(res.read_text("utf-8")))


def calibrated(score: float, xs: np.ndarray, ys: np.ndarray) -> float:
    """Return the isotonic map's probability at `score` (linear between its knots)."""
    if xs.size == 0:
        return score
    return float(np.clip(np.interp(score, xs, ys), 0.0, 1.0))


def logistic(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """Return (weights, bias) of an L2-regularised logistic regression of 0/1 `y` on rows `x`
    (full-batch Adam from zero: deterministic)."""
    n, d = x.shape
    w, b = np.zeros(d), 0.0
    mw, vw, mb, vb = np.zeros(d), np.zeros(d), 0.0, 0.0
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    for t in range(1, STEPS + 1):
        p = 1.0 / (1.0 + np.exp(-(x @ w + b)))
        err = (p - y) / n
        gw, gb = x.T @ err + L2 * w, float(err.sum())
        mw, vw = b1 * mw + (1 - b1) * gw, b2 * vw + (1 - b2) * gw * gw
        mb, vb = b1 * mb + (1 - b1) * gb, b2 * vb + (1 - b2) * gb * gb
        w -= lr * (mw / (1 - b1 ** t)) / (np.sqrt(vw / (1 - b2 ** t)) + eps)
        b -= lr * (mb / (1 - b1 ** t)) / (math.sqrt(vb / (1 - b2 ** t)) + eps)
    return w, b


def isotonic(scores: Sequence[float], right: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    """Return the knots (x increasing, y non-decreasing) of the isotonic regression of
    `right` on `scores` (pool adjacent violators)."""
    order = np.argsort(np.asarray(scores, dtype=np.float64), kind="stable")
    xs = np.asarray(scores, dtype=np.float64)[order]
    ys = np.asarray(right, dtype=np.float64)[order]
    blocks: list[list[float]] = []  # [sum y, count, min x, max x]
    for x, y in zip(xs, ys, strict=True):
        blocks.append([y, 1.0, x, x])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] >= blocks[-1][0] / blocks[-1][1]:
            s, c, lo, hi = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
            blocks[-1][3] = hi
    kx, ky = [], []
    for s, c, lo, hi in blocks:
        kx += [lo, hi]
        ky += [s / c, s / c]
    return np.asarray(kx), np.asarray(ky)


def bar(confidences: Sequence[float], right: Sequence[bool], max_wrong: float = MAX_WRONG) -> float:
    """Return the least confidence t whose answers (confidence ≥ t) are wrong at most
    `max_wrong` of the time with the most right answers (1.0 when no t is)."""
    order = sorted(zip(confidences, right, strict=True), key=lambda cr: -cr[0])
    best, best_right, hits = 1.0, -1, 0
    for n, (c, ok) in enumerate(order, start=1):
        hits += ok
        if (n - hits) <= max_wrong * n and (n == len(order) or order[n][0] < c) and hits > best_right:
            best, best_right = c, hits
    return float(best)
