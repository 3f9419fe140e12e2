"""Row alignment by calibrated judgement: the probability that a source row is the line
item a target row names, from signals combined by a small fitted model.

Rules (`labels.path_similarity`: synonym classes, abbreviations, spellings, shared words)
find a row spelled the way they know; a synonym no rule holds ("Payroll" for "Salaries
and wages") they miss. For each target row × source row of a table pair,
`pair_features` reads (`NAMES`):

- `rule`, `rule_gap`: the rules' path similarity, and its margin over the target row's
  best similarity to any *other* source row; `rule_claimed`: the source row's best rule
  similarity to any other target row (a row the rules give to another is taken);
- `cosine`, `cosine_gap`, `cosine_reverse_gap`: the MiniLM cosine of the two labels (as
  the rules read them: folded, abbreviations written out), its margin over the runner-up
  source row, and over the source row's best *other* target row;
- `cosine_free_gap`, `cosine_free_reverse_gap`, `mutual_free_best`: the same among the
  rows the rules leave free (target rows they align to no source row, source rows no
  target row matches by `CLAIM`) — the margins, and the cosine where the two are each
  other's best; never more than the cosine itself, so a row left alone on both sides is
  not taken for a match unless the labels say so too;
- `table_coverage`: the share of the target's rows the rules align in this table, times
  the cosine (in a table the rules show to be the source, the rest are likelier);
- `trigram`: the Jaccard overlap of the labels' character trigrams (spelling variants);
- `extra_words`: words one label has that the other lacks (`labels.extra_tokens`, ≤ 3);
- `percent_mismatch`: one row is a percentage and the other is not.

A logistic regression over them is fitted on `eval fill`'s candidate pairs
(`evals.fill_rows_fit`), its score mapped to a probability by isotonic regression on
cross-fitted scores, and the keep `threshold` chosen end to end on cross-fitted writes
(wrong ≤ 1 %, `evals.fill_choice`; docs/evaluation.md, Workbook fill). The shipped model
(`row_aligner.json`, refit by `scripts/fit_fill_aligner.py`) says what it was fitted on.
`align.align_tables` asks it only about target rows the rules align to no row of the
table, and leaves each source row to the target row that wants it most.

The model belongs to the MiniLM embedding space: without the MiniLM encoder (the hash
embedder, `PINCITE_EMBEDDER=hash`, or the `embed` extra missing) `active_aligner` is None
and rows align by the rules alone, as before. Label vectors are cached per process.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from ..errors import UsageError
from .labels import extra_tokens, path_similarity, plain_label

SHIPPED = "row_aligner.json"
SCHEMA_NAME = "pincite.fill.row_aligner"
NAMES = ("rule", "rule_gap", "rule_claimed", "cosine", "cosine_gap", "cosine_free_gap",
         "cosine_reverse_gap", "cosine_free_reverse_gap", "mutual_free_best", "table_coverage", "trigram",
         "extra_words", "percent_mismatch")
CLAIM = 0.8  # a source row another target row matches this well by the rules is taken
ROW_MIN = 0.5  # the rules' least similarity for a row (`align.ROW_MIN`)
MAX_CACHED = 65536
Encoder = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class RowAligner:
    """A fitted row aligner of one embedding space: logistic weights over `NAMES`, an
    isotonic map to a probability, and the probability a model-found row must reach."""

    space_id: str
    weights: np.ndarray
    bias: float
    iso_x: np.ndarray
    iso_y: np.ndarray
    threshold: float
    provenance: Mapping[str, Any] = field(default_factory=dict)

    def with_threshold(self, threshold: float) -> RowAligner:
        """Return the same model with another keep threshold."""
        return replace(self, threshold=float(threshold))

    def score(self, x: np.ndarray) -> np.ndarray:
        """Return the regression's (uncalibrated) probabilities of feature rows `x`."""
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ self.weights + self.bias))))

    def calibrate(self, s: np.ndarray) -> np.ndarray:
        """Return the isotonic map's probabilities at scores `s`."""
        if self.iso_x.size == 0:
            return s
        return np.clip(np.interp(s, self.iso_x, self.iso_y), 0.0, 1.0)

    def probabilities(self, target: Mapping[str, Any], source: Mapping[str, Any],
                      encode: Encoder) -> np.ndarray:
        """Return P(source row j is target row i) for a table pair, shape (targets, sources)."""
        f = pair_features(target, source, encode)
        if f.size == 0:
            return np.zeros(f.shape[:2])
        n_t, n_s, d = f.shape
        return self.calibrate(self.score(f.reshape(-1, d))).reshape(n_t, n_s)

    def to_dict(self) -> dict[str, Any]:
        """Return the model as plain data (the shipped file's shape)."""
        return {"schema_name": SCHEMA_NAME, "version": 1, "space_id": self.space_id,
                "names": list(NAMES), "weights": np.round(self.weights, 6).tolist(),
                "bias": round(self.bias, 6), "iso_x": np.round(self.iso_x, 6).tolist(),
                "iso_y": np.round(self.iso_y, 6).tolist(),
                "threshold": round(self.threshold, 6), "provenance": dict(self.provenance)}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> RowAligner:
        """Return the model a `to_dict` wrote; UsageError when its features are not `NAMES`."""
        if d.get("schema_name") != SCHEMA_NAME or list(d.get("names") or []) != list(NAMES):
            raise UsageError("the row aligner was fitted on other features; refit it with "
                             "scripts/fit_fill_aligner.py")
        return cls(str(d["space_id"]), np.asarray(d["weights"], dtype=np.float64),
                   float(d["bias"]), np.asarray(d["iso_x"], dtype=np.float64),
                   np.asarray(d["iso_y"], dtype=np.float64), float(d["threshold"]),
                   dict(d.get("provenance") or {}))


@lru_cache(maxsize=1)
def shipped_aligner() -> RowAligner | None:
    """Return the row aligner shipped with pincite (`fill/row_aligner.json`), or None."""
    res = resources.files(__package__).joinpath(SHIPPED)
    if not res.is_file():
        return None
    return RowAligner.from_dict(json.loads(res.read_text("utf-8")))


class LabelEncoder:
    """Unit vectors of labels in one embedding space, cached per label text."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self.space_id = embedder.space.space_id
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        """Return one unit vector per text (rows in `texts` order)."""
        todo = sorted({t for t in texts if t not in self._cache})
        if todo:
            if len(self._cache) + len(todo) > MAX_CACHED:
                self._cache.clear()
            vecs = self.embedder.embed(todo, role="query").vectors
            self._cache.update(zip(todo, np.asarray(vecs, dtype=np.float32), strict=True))
        if not texts:
            return np.zeros((0, 1), dtype=np.float32)
        return np.stack([self._cache[t] for t in texts])


@lru_cache(maxsize=1)
def label_encoder() -> LabelEncoder | None:
    """Return the MiniLM label encoder (numpy query path), or None under the hash embedder
    (`PINCITE_EMBEDDER=hash`) or without the `embed` extra."""
    if os.environ.get("PINCITE_EMBEDDER", "").strip() == "hash":
        return None
    from ..embed.factory import embedder_for_space
    from ..embed.minilm import MINILM_SPACE

    emb = embedder_for_space(MINILM_SPACE)
    return LabelEncoder(emb) if emb is not None else None


def active_aligner() -> tuple[RowAligner, LabelEncoder] | None:
    """Return the shipped aligner with its encoder when both exist and share a space,
    else None (rows align by the rules alone)."""
    model, enc = shipped_aligner(), label_encoder()
    if model is None or enc is None or enc.space_id != model.space_id:
        return None
    return model, enc


def _trigrams(text: str) -> frozenset[str]:
    t = f"  {text} "
    return frozenset(t[i:i + 3] for i in range(len(t) - 2))


def _is_percent(texts: Sequence[str]) -> bool:
    return any("%" in x or "percent" in x.casefold() for x in texts)


def _others_best(m: np.ndarray, axis: int) -> np.ndarray:
    """Return, per entry, the best value of the *other* entries along `axis` (0 when none)."""
    if m.shape[axis] < 2:
        return np.zeros_like(m)
    top2 = -np.sort(-m, axis=axis).take([0, 1], axis=axis)
    first = np.expand_dims(top2.take(0, axis=axis), axis)
    second = np.expand_dims(top2.take(1, axis=axis), axis)
    return np.asarray(np.where(m >= first, second, first))


def _gap(m: np.ndarray, axis: int) -> np.ndarray:
    """Return m minus the best value of the other entries along `axis`."""
    return np.asarray(m - _others_best(m, axis))


def pair_features(target: Mapping[str, Any], source: Mapping[str, Any],
                  encode: Encoder) -> np.ndarray:
    """Return the features (`NAMES`) of every target row × source row of two table records,
    shape (target rows, source rows, features)."""
    t_rows, s_rows = target["rows"], source["rows"]
    n_t, n_s = len(t_rows), len(s_rows)
    if not n_t or not n_s:
        return np.zeros((n_t, n_s, len(NAMES)))
    t_paths = [list(r["row_path"]) for r in t_rows]
    s_paths = [list(r["row_path"]) for r in s_rows]
    t_leaf = [plain_label(p[-1]) if p else "" for p in t_paths]
    s_leaf = [plain_label(p[-1]) if p else "" for p in s_paths]
    vt, vs = encode(t_leaf), encode(s_leaf)
    cos = np.clip(np.asarray(vt @ vs.T, dtype=np.float64), -1.0, 1.0)
    rule = np.array([[path_similarity(tp, sp) for sp in s_paths] for tp in t_paths])
    pct_cells = {c["row"] for c in target.get("cells") or () if c.get("unit") == "%"}
    t_pct = np.array([r["row"] in pct_cells or _is_percent(p) for r, p in zip(
        t_rows, t_paths, strict=True)])
    s_pct = np.array([_is_percent(p) for p in s_paths])
    tri_t, tri_s = [_trigrams(x) for x in t_leaf], [_trigrams(x) for x in s_leaf]
    tri = np.array([[len(a & b) / len(a | b) if a | b else 0.0 for b in tri_s] for a in tri_t])
    extra = np.array([[min(3, extra_tokens(tp, sp)) / 3 for sp in s_paths] for tp in t_paths])
    claimed = _others_best(rule, 0)  # the best rule match of the row's other target rows
    s_free = rule.max(axis=0) < CLAIM  # source rows no target row matches by the rules
    t_free = rule.max(axis=1) < ROW_MIN  # target rows the rules match to no source row
    pos = np.maximum(cos, 0.0)
    # elimination signals never exceed the labels' own likeness: a row left alone on both
    # sides is not the same line item unless the two labels say so too
    free = np.where(s_free[None, :] & t_free[:, None], pos, 0.0)
    free_gap = pos - _others_best(np.where(s_free[None, :], pos, 0.0), 1)
    free_rev = pos - _others_best(np.where(t_free[:, None], pos, 0.0), 0)
    mutual = (free > 0) & (free >= free.max(axis=1, keepdims=True)) & (
        free >= free.max(axis=0, keepdims=True))
    coverage = float((~t_free).mean()) * pos
    return np.stack([rule, _gap(rule, 1), claimed, cos, _gap(cos, 1), free_gap,
                     _gap(cos, 0), free_rev, np.where(mutual, pos, 0.0), coverage, tri, extra,
                     (t_pct[:, None] != s_pct[None, :]).astype(np.float64)], axis=-1)
