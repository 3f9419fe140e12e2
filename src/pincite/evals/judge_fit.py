"""Fitting the judge (`ask.judge`) on the evals' answers, and measuring it held out.

Every asked question of an eval run leaves a *judge row* (`judge_row`): its document, its
group (category, kind or case), its style, whether it was answerable, and — when the
readers answered, before any judge — whether the answer was right and the answer's
features. `fit_judge` fits the logistic regression on the answered rows, the isotonic
map on cross-fitted scores (documents split into `INNER` folds: each fold scored by a
regression fitted on the others) and the bar on the calibrated cross-fitted
confidences (wrong ≤ `judge.MAX_WRONG` of answers, most right). `held_out` splits the
documents into K folds; each fold is measured with a judge fitted on the other folds
only, so every document is held out once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..ask.answer import AskResult
from ..ask.judge import Judge, bar, calibrated, features, isotonic, logistic, vector
from .ask_scoring import Outcome, by_category, count, rates
from .folds import fold_of

INNER = 5


def judge_row(doc: str, group: str, style: str, outcome: Outcome, raw: AskResult | None,
              phrasing: str = "") -> dict[str, Any]:
    """Return the judge row of one asked question (in words `phrasing`): `outcome` is
    (answerable, answered, right) of the readers' answer `raw` (judge not applied)."""
    row: dict[str, Any] = {"doc": doc, "group": group, "style": style, "phrasing": phrasing,
                           "answerable": outcome[0], "answered": outcome[1], "right": outcome[2]}
    if outcome[1] and raw is not None and raw.items:
        row["features"] = {k: round(v, 5) for k, v in features(raw.items[0], raw.read_as).items()}
    return row


def fit_judge(rows: Sequence[Mapping[str, Any]], provenance: Mapping[str, Any] | None = None
              ) -> Judge:
    """Return the judge fitted on the answered `rows` (see the module docstring)."""
    ans = [r for r in rows if r["answered"] and r.get("features")]
    x = np.stack([vector(r["features"]) for r in ans]) if ans else np.zeros((0, len(vector({}))))
    y = np.array([1.0 if r["right"] else 0.0 for r in ans])
    folds = np.array([fold_of(str(r["doc"]), INNER) for r in ans])
    cross = np.zeros(len(ans))
    for i in range(INNER):
        fit_rows, held = folds != i, folds == i
        if not held.any():
            continue
        if not fit_rows.any() or len(set(y[fit_rows].tolist())) < 2:
            cross[held] = float(y[fit_rows].mean()) if fit_rows.any() else 0.0
            continue
        w, b = logistic(x[fit_rows], y[fit_rows])
        cross[held] = 1.0 / (1.0 + np.exp(-(x[held] @ w + b)))
    iso_x, iso_y = isotonic(cross.tolist(), y.astype(bool).tolist())
    conf = [calibrated(s, iso_x, iso_y) for s in cross]
    threshold = bar(conf, y.astype(bool).tolist())
    w, b = logistic(x, y) if len(set(y.tolist())) == 2 else (np.zeros(x.shape[1]), 0.0)
    prov = {**(provenance or {}), "answers": len(ans), "right": int(y.sum()),
            "inner_folds": INNER}
    return Judge(w, b, iso_x, iso_y, threshold, prov)


def apply(judge: Judge | None, row: Mapping[str, Any], least: float | None = None) -> Outcome:
    """Return a row's outcome once the judge weighs its answer: an answer under `least`
    (default: the judge's bar) is no answer."""
    answered = bool(row["answered"])
    if answered and judge is not None:
        bar_ = judge.threshold if least is None else least
        answered = judge.confidence(row.get("features") or {}) >= bar_
    return (bool(row["answerable"]), answered, answered and bool(row["right"]))


OPERATING_POINTS = (0.0, 0.2, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def held_out(rows: Sequence[Mapping[str, Any]], k: int) -> dict[str, Any]:
    """Per document fold, the judge fitted on the other folds and the fit and held-out
    figures (with the readers' figures beside them); pooled, by group and by style."""
    docs = sorted({str(r["doc"]) for r in rows})
    out_rows, fit_all, held_all, raw_all = [], Counter[str](), Counter[str](), Counter[str]()
    labelled: list[tuple[Mapping[str, Any], Outcome]] = []
    points: dict[float, Counter[str]] = {t: Counter() for t in OPERATING_POINTS}
    for i in range(k):
        held_docs = {d for d in docs if fold_of(d, k) == i}
        fit_rows = [r for r in rows if str(r["doc"]) not in held_docs]
        held_rows = [r for r in rows if str(r["doc"]) in held_docs]
        judge = fit_judge(fit_rows)
        fit_c = count(apply(judge, r) for r in fit_rows)
        held = [(r, apply(judge, r)) for r in held_rows]
        for t in OPERATING_POINTS:  # a user's --min-confidence over the held-out confidences
            points[t].update(count(apply(judge, r, t) for r in held_rows))
        held_c = count(o for _, o in held)
        raw_c = count((bool(r["answerable"]), bool(r["answered"]), bool(r["right"]))
                      for r in held_rows)
        fit_all.update(fit_c)
        held_all.update(held_c)
        raw_all.update(raw_c)
        labelled += held
        out_rows.append({"fold": i, "documents": len(held_docs),
                         "threshold": round(judge.threshold, 4),
                         "fit": rates(fit_c), "held_out": rates(held_c),
                         "held_out_readers": rates(raw_c)})
    return {"k": k, "folds": out_rows,
            "pooled": {"fit": rates(fit_all), "held_out": rates(held_all),
                       "held_out_readers": rates(raw_all)},
            "operating_points": [{"min_confidence": t, **rates(c)} for t, c in points.items()],
            "by_style": by_category((str(r.get("style") or ""), o) for r, o in labelled),
            "by_group": by_category((str(r.get("group") or ""), o) for r, o in labelled)}
