"""Fitting the fill row aligner (`fill.row_model`) on `eval fill`'s candidate pairs.

A fill of an eval case compiles its target and reads its sources' tables; every target
row × source row of a target table and the first table the rules route it to (the one
the model is asked about, `fill.route`) is a *candidate pair*, with its features
(`row_model.pair_features`) and a label: 1 when the source row is the one the target row
was built from (the case's own table, the same row of the TAT-QA grid), else 0 (other
rows, and every row of a distractor document's table when one routes first). The own
table is read twice: whole, and without the source rows of every `DROP_EVERY`-th target
row, whose pairs are then all 0 — the eval's targets mirror their table row for row, so
without that view a row left alone on both sides would look like a match whatever its
label says. Only the pairs of
target rows the rules align to no row of the source table (similarity under `ROW_MIN`)
are fitted: the model is asked about those alone (`align._row_keep`). `fit_row_aligner` fits an L2-regularised logistic regression
(`L2`, Newton steps: deterministic) on them, the isotonic map on cross-fitted scores
(contexts split into `INNER` folds, each scored by a regression fitted on the others) —
so the probability is a measured rate of true rows, not a score. The keep threshold is
not chosen here: `eval fill` chooses it end to end on the fit folds (wrong writes
≤ 1 %), and `scripts/fit_fill_aligner.py` ships the choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..ask.judge import isotonic
from ..fill.route import route_tables
from ..fill.row_model import NAMES, ROW_MIN, Encoder, RowAligner, pair_features
from .folds import fold_of

INNER = 5
L2 = 1.0  # ridge on the weights (not the bias), over the sum of the pairs' log losses
FLOOR = 0.5  # the least keep threshold `eval fill` tries
# every DROP_EVERY-th target row (from the second) loses its source row in a second view of
# the table, so the model also sees rows with no counterpart (workbooks hold rows no
# source has: drivers, headcount, notes), not only rows left alone by elimination
DROP_EVERY = 3


def case_pairs(uid: str, row_map: Mapping[int, int], target: Mapping[str, Any],
               universe: Mapping[str, Any], encode: Encoder) -> dict[str, Any]:
    """Return a case's candidate pairs: features (n, len(NAMES)) and labels (n,), with the
    context `uid` (`row_map`: target sheet row → the TAT-QA grid row it was built from)."""
    own = f"tatqa/{uid}.html@"
    xs, ys = [], []
    first = {r["target_table"]: r["tables"][0]["source_table"]
             for r in route_tables(target["tables"], universe["tables"])["retrieval"]["routes"]
             if r["tables"]}
    sources = {s["table_id"]: s for s in universe["tables"]}
    for t in target["tables"]:
        if t["table_id"] not in first:
            continue
        s = sources[first[t["table_id"]]]
        mine = s["doc_id"].startswith(own)
        truth = {row_map.get(tr["row"]) for k, tr in enumerate(t["rows"]) if k % DROP_EVERY == 1}
        lacking = {**s, "rows": [sr for sr in s["rows"] if not mine or sr["row"] not in truth]}
        for view in (s, lacking) if mine else (s,):
            f = pair_features(t, view, encode)
            if f.size == 0:
                continue
            y = np.array([[1.0 if mine and row_map.get(tr["row"]) == sr["row"] else 0.0
                           for sr in view["rows"]] for tr in t["rows"]])
            x, y = f.reshape(-1, len(NAMES)), y.reshape(-1)
            keep = np.repeat(f[:, :, NAMES.index("rule")].max(axis=1) < ROW_MIN, f.shape[1])
            xs.append(x[keep])
            ys.append(y[keep])
    if not xs:
        return {"uid": uid, "x": np.zeros((0, len(NAMES))), "y": np.zeros(0)}
    return {"uid": uid, "x": np.concatenate(xs), "y": np.concatenate(ys)}


def logistic(x: np.ndarray, y: np.ndarray, l2: float = L2, steps: int = 100
             ) -> tuple[np.ndarray, float]:
    """Return (weights, bias) of the ridge logistic regression of 0/1 `y` on rows `x`."""
    xb = np.hstack([x, np.ones((len(x), 1))])
    w = np.zeros(xb.shape[1])
    ridge = l2 * np.eye(xb.shape[1])
    ridge[-1, -1] = 0.0
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-np.clip(xb @ w, -30, 30)))
        grad = xb.T @ (p - y) + ridge @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + ridge
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-9:
            break
    return w[:-1], float(w[-1])


def fit_row_aligner(pairs: Sequence[Mapping[str, Any]], space_id: str,
                    provenance: Mapping[str, Any] | None = None,
                    threshold: float = FLOOR) -> RowAligner:
    """Return the row aligner fitted on the cases' `pairs` (see the module docstring)."""
    x = np.concatenate([p["x"] for p in pairs]) if pairs else np.zeros((0, len(NAMES)))
    y = np.concatenate([p["y"] for p in pairs]) if pairs else np.zeros(0)
    fold = np.concatenate([np.full(len(p["y"]), fold_of(p["uid"], INNER)) for p in pairs]
                          ) if pairs else np.zeros(0, dtype=int)
    cross = np.zeros(len(y))
    for i in range(INNER):
        fit, held = fold != i, fold == i
        if not held.any():
            continue
        if len(set(y[fit].tolist())) < 2:
            cross[held] = float(y[fit].mean()) if fit.any() else 0.0
            continue
        w, b = logistic(x[fit], y[fit])
        cross[held] = 1.0 / (1.0 + np.exp(-(x[held] @ w + b)))
    iso_x, iso_y = isotonic(cross.tolist(), y.astype(bool).tolist())
    w, b = logistic(x, y) if len(set(y.tolist())) == 2 else (np.zeros(x.shape[1]), 0.0)
    prov = {**(provenance or {}), "pairs": int(len(y)), "true_pairs": int(y.sum()),
            "contexts": len(pairs), "inner_folds": INNER}
    return RowAligner(space_id, w, float(b), iso_x, iso_y, threshold, prov)
