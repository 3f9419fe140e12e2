"""The kind of a question, read from the question as a whole: a classifier over its
embedding, fitted on many phrasings per kind, with an explicit unknown.

A *kind* is a question a reader was written for ("Which law governs this agreement?"),
named (`Governing Law`) and held with its *canonical* wording. The classifier is a
softmax regression over the embedding-space vector of the question (the same vector the
dense channel searches with), fitted on phrasings written by people who never read the
readers (`evals/paraphrases/`), plus kinds without a canonical wording (`_unknown`:
questions of the same documents about something no reader handles). A question whose
top kind reaches the model's `threshold` and has a canonical wording is *read as* that
wording: retrieval, the readers and the cosine bar see the canonical question, and the
answer says so (`AskResult.read_as`); a question that is a kind's canonical wording is
read as that kind whatever the regression says. Anything else is read in its own words, by
the generic reader with a stricter bar (`UNREAD_MIN_DENSE`).

The threshold is chosen when the model is fitted, by cross-validation *by phrasing* on
the fitting phrasings alone: the least probability at which the kinds predicted for the
held-out phrasings are right at least `PRECISION` of the time. A model belongs to one
embedding space; in any other space (the hash embedder) no question is classified.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..errors import UsageError

UNKNOWN = "_unknown"
PRECISION = 0.97   # of the kinds predicted at or above the threshold, cross-validated
L2 = 1e-3          # weight decay of the softmax regression (per example, mean loss)
# unit vectors are scaled by this before the regression, so a fixed number of steps reaches
# confident weights (unscaled, 64 kinds left even the fitting phrasings at p ≈ 0.2)
SCALE = 20.0
STEPS = 400
SHIPPED = "question_kinds.json"
# the cosine a statement (not a table cell) needs to answer a question this model reads as no
# kind: the generic reader's stricter bar. Chosen on folds by phrasing of the paraphrase runs
# (scripts/choose_unread_bar.py over `eval ask-cuad|ask-tatqa --questions --json`: both
# folds chose 0.6 of 0.4-0.7 and "never", maximising right - 10 x wrong on the fit fold)
UNREAD_MIN_DENSE = 0.6


@dataclass(frozen=True, slots=True)
class KindGuess:
    """The kind a question was read as, its canonical wording and the classifier's
    probability (`read_as` in `ask`'s JSON)."""

    kind: str
    canonical: str
    probability: float

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "question": self.canonical,
                "probability": round(self.probability, 4)}


@dataclass(frozen=True)
class KindModel:
    """A fitted question-kind classifier of one embedding space."""

    space_id: str
    kinds: tuple[str, ...]
    canonical: Mapping[str, str]      # kind -> its canonical wording (not every kind has one)
    weights: np.ndarray               # (dimensions, kinds)
    bias: np.ndarray                  # (kinds,)
    threshold: float
    provenance: Mapping[str, Any] = field(default_factory=dict)
    scale: float = 1.0                # what a vector is multiplied by before the weights

    def probabilities(self, vector: np.ndarray) -> np.ndarray:
        """Return the probability of each kind (`kinds` order) for a question vector."""
        z = self.scale * np.asarray(vector, dtype=np.float64) @ self.weights + self.bias
        z = np.exp(z - z.max())
        return np.asarray(z / z.sum())

    def of_wording(self, question: str) -> KindGuess | None:
        """Return the kind whose canonical wording `question` is (case and spacing aside),
        read with probability 1, or None: a kind is what its wording asks."""
        said = " ".join(question.split()).casefold()
        for kind, wording in self.canonical.items():
            if " ".join(wording.split()).casefold() == said:
                return KindGuess(kind, wording, 1.0)
        return None

    def guess(self, vector: np.ndarray, space_id: str) -> KindGuess | None:
        """Return the kind to read a question as, or None: another space, a top kind under
        the threshold, or a kind with no canonical wording."""
        if space_id != self.space_id:
            return None
        p = self.probabilities(vector)
        top = int(p.argmax())
        kind = self.kinds[top]
        if p[top] < self.threshold or kind not in self.canonical:
            return None
        return KindGuess(kind, self.canonical[kind], float(p[top]))

    def to_dict(self) -> dict[str, Any]:
        """Return the model as plain data (the shipped file's shape)."""
        return {"space_id": self.space_id, "kinds": list(self.kinds),
                "canonical": dict(self.canonical), "threshold": round(self.threshold, 4),
                "weights": np.round(self.weights, 5).tolist(),
                "bias": np.round(self.bias, 5).tolist(), "scale": self.scale,
                "provenance": dict(self.provenance)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> KindModel:
        """Return the model a `to_dict` wrote; UsageError when its shapes disagree."""
        kinds = tuple(str(k) for k in d["kinds"])
        w = np.asarray(d["weights"], dtype=np.float64)
        b = np.asarray(d["bias"], dtype=np.float64)
        if w.ndim != 2 or w.shape[1] != len(kinds) or b.shape != (len(kinds),):
            raise UsageError("the question-kind model's weights do not match its kinds; "
                             "refit it with scripts/fit_question_kinds.py")
        return cls(str(d["space_id"]), kinds, {str(k): str(v) for k, v in d["canonical"].items()},
                   w, b, float(d["threshold"]), dict(d.get("provenance") or {}),
                   float(d.get("scale", 1.0)))


@lru_cache(maxsize=1)
def shipped() -> KindModel | None:
    """Return the model shipped with pincite (`ask/question_kinds.json`), None when absent."""
    res = resources.files(__package__).joinpath(SHIPPED)
    if not res.is_file():
        return None
    return KindModel.from_dict(json.loads(res.read_text("utf-8")))


def fit(vectors: np.ndarray, labels: Sequence[str], groups: Sequence[int],
        canonical: Mapping[str, str], space_id: str, *, precision: float = PRECISION,
        provenance: Mapping[str, Any] | None = None) -> KindModel:
    """Return a model fitted on question `vectors` with their kind `labels`; its threshold is
    chosen by cross-validation over `groups` (a phrasing's group: e.g. its index within its
    style, so no wording is both fitted and held out) at `precision`."""
    x = SCALE * np.asarray(vectors, dtype=np.float64)
    kinds = tuple(sorted(set(labels)))
    y = np.array([kinds.index(label) for label in labels])
    g = np.asarray(groups)
    probs, right = [], []
    for held in sorted(set(g.tolist())):
        fit_rows, held_rows = g != held, g == held
        if not fit_rows.any() or len(set(y[fit_rows].tolist())) < 2:
            continue
        w, b = _softmax_regression(x[fit_rows], y[fit_rows], len(kinds))
        z = x[held_rows] @ w + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        for row, truth in zip(p, y[held_rows], strict=True):
            top = int(row.argmax())
            if kinds[top] in canonical:  # only a kind read as its wording can mislead
                probs.append(float(row[top]))
                right.append(top == truth)
    threshold = least_threshold(probs, right, precision)
    w, b = _softmax_regression(x, y, len(kinds))
    prov = {**(provenance or {}), "examples": len(labels), "precision_target": precision,
            "cross_validated": _curve(probs, right)}
    return KindModel(space_id, kinds, {k: v for k, v in canonical.items() if k in kinds},
                     w, b, threshold, prov, SCALE)


def least_threshold(probs: Sequence[float], right: Sequence[bool], precision: float) -> float:
    """Return the least probability t at which the guesses with probability ≥ t are right
    at least `precision` of the time (1.0 when none is: nothing is read as a kind)."""
    order = sorted(zip(probs, right, strict=True), key=lambda pr: -pr[0])
    best, hits = 1.0, 0
    for n, (p, ok) in enumerate(order, start=1):
        hits += ok
        if hits >= precision * n and (n == len(order) or order[n][0] < p):
            best = p
    return float(best)


def _curve(probs: Sequence[float], right: Sequence[bool]) -> list[dict[str, Any]]:
    """Return the cross-validated precision and share guessed at a few thresholds."""
    out = []
    for t in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9):
        kept = [ok for p, ok in zip(probs, right, strict=True) if p >= t]
        out.append({"threshold": t, "guessed": len(kept), "of": len(probs),
                    "precision": round(sum(kept) / len(kept), 4) if kept else None})
    return out


def _softmax_regression(x: np.ndarray, y: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (weights, bias) of an L2-regularised softmax regression of labels `y` (0..k-1)
    on rows `x`, fitted by full-batch Adam (deterministic: zero start, fixed steps)."""
    n, d = x.shape
    w, b = np.zeros((d, k)), np.zeros(k)
    onehot = np.eye(k)[y]
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    lr, b1, b2, eps = 0.05, 0.9, 0.999, 1e-8
    for t in range(1, STEPS + 1):
        z = x @ w + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        err = (p - onehot) / n
        gw, gb = x.T @ err + L2 * w, err.sum(axis=0)
        mw, vw = b1 * mw + (1 - b1) * gw, b2 * vw + (1 - b2) * gw * gw
        mb, vb = b1 * mb + (1 - b1) * gb, b2 * vb + (1 - b2) * gb * gb
        w -= lr * (mw / (1 - b1 ** t)) / (np.sqrt(vw / (1 - b2 ** t)) + eps)
        b -= lr * (mb / (1 - b1 ** t)) / (np.sqrt(vb / (1 - b2 ** t)) + eps)
    return w, b
