"""How `eval fill` decides cells offline and chooses its settings on fit folds.

A setting is (row aligner keep threshold, `min_score`, `margin`). A case's cells are
ranked once per row aligner and keep threshold (`rank_grid`: routing, alignment and
candidates, exactly as a fill does), then decided under every write rule of the grid
(`fill.rank.choose`). A fold's setting is chosen on the other folds (`best_setting`):
among the settings whose fit wrong writes are at most `MAX_WRONG` of the cells, the one
with the best (right − `WRONG_WEIGHT` × wrong) / cells; a tie keeps the shipped
thresholds, then the higher keep threshold. The fit contexts are ranked by *cross-fitted*
aligners (`cross_fitted`: each context by a model fitted without its inner fold), so the
threshold is chosen on probabilities the model did not fit; the held-out fold is ranked
by the model fitted on all the fit contexts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..fill.program import fill_program
from ..fill.rank import MARGIN, MIN_SCORE, choose, rank_cells
from ..fill.route import route_tables
from ..fill.row_model import NAMES, Encoder, RowAligner
from .fill_rows_fit import INNER, fit_row_aligner
from .fill_scoring import FactsAt, score_case
from .folds import fold_of

GRID_MIN = (14.0, 16.0, 18.0, 20.0, 22.0, 24.0)
GRID_MARGIN = (1.0, 2.0, 3.0, 4.0, 5.0)
GRID_RULES = tuple((ms, mg) for ms in GRID_MIN for mg in GRID_MARGIN)
SHIPPED_RULE = ((MIN_SCORE, MARGIN),)
# keep thresholds of the row aligner tried on the fit folds, from 0.5 (a row the model
# finds more likely wrong than right is never kept: the eval's targets hold no row that
# lacks a source row, so they cannot show what a lower bar costs); OFF keeps no model row
OFF = 1.01
GRID_KEEP = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, OFF)
WRONG_WEIGHT = 10.0  # the figure folds maximise: (right - 10 × wrong) / cells
MAX_WRONG = 0.01

Setting = tuple[float, float, float]  # (keep threshold, min_score, margin)
Grid = dict[Setting, dict[str, Counter[str]]]


@dataclass
class Ranked:
    """One case ready to be ranked again: its compiled target and fact universe."""

    case: dict[str, Any]
    target: dict[str, Any]
    universe: dict[str, Any]
    facts_at: FactsAt


def decide(ranking: Mapping[str, Any], universe: Mapping[str, Any], min_score: float,
           margin: float) -> tuple[dict[str, Any], dict[str, Any]]:
    """Return (decision per cell id, fill program) of a ranking under one write rule."""
    cells = [{**c, **choose(c.get("_all", c.get("candidates") or []), min_score=min_score,
                            margin=margin)} for c in ranking["cells"]]
    r = {**ranking, "cells": cells}
    return {c["cell_id"]: c for c in cells}, fill_program(r, universe)


def keep_all(ranking: dict[str, Any]) -> dict[str, Any]:
    """Return the ranking with each cell's full candidate list kept aside (`_all`)."""
    for cell in ranking["cells"]:
        cell["_all"] = cell.get("candidates") or []
    return ranking


def rank_grid(r: Ranked, model: RowAligner | None, encoder: Encoder | None,
              rules: Sequence[tuple[float, float]], out: Grid) -> None:
    """Rank a case with `model` at every keep threshold (only OFF without a model) and add
    its counts under every write rule of `rules` to `out`."""
    for keep in GRID_KEEP if model is not None and encoder is not None else (OFF,):
        al = (model.with_threshold(keep), encoder) if model is not None and encoder else None
        routing = route_tables(r.target["tables"], r.universe["tables"], al)
        ranking = keep_all(rank_cells(r.target, r.universe, routing, min_score=0.0,
                                      margin=0.0))
        for ms, mg in rules:
            dec, prog = decide(ranking, r.universe, ms, mg)
            out.setdefault((keep, ms, mg), {})[r.case["uid"]] = score_case(
                r.case, r.facts_at, routing, dec, prog, keep=False)[0]


def fit_on(pairs: Mapping[str, Mapping[str, Any]], uids: Iterable[str],
           encoder: Encoder | None, provenance: Mapping[str, Any] | None = None
           ) -> RowAligner | None:
    """Return the aligner fitted on the pairs of the contexts `uids` (None without an
    encoder or pairs)."""
    chosen = [pairs[u] for u in uids if u in pairs]
    space = getattr(encoder, "space_id", None)
    if space is None or not chosen:
        return None
    return fit_row_aligner(chosen, space, provenance)


def cross_fitted(ranked: Sequence[Ranked], pairs: Mapping[str, Mapping[str, Any]],
                 encoder: Encoder | None, rules: Sequence[tuple[float, float]]) -> Grid:
    """Return the counts of `ranked` with each context ranked by an aligner fitted on the
    others' inner folds (`INNER`) only."""
    out: Grid = {}
    uids = [r.case["uid"] for r in ranked]
    for i in range(INNER):
        mine = [r for r in ranked if fold_of(r.case["uid"], INNER) == i]
        if not mine:
            continue
        model = fit_on(pairs, [u for u in uids if fold_of(u, INNER) != i], encoder)
        for r in mine:
            rank_grid(r, model, encoder, rules, out)
    return out


def rates(c: Mapping[str, int]) -> dict[str, Any]:
    """Return cells, right, wrong, unresolved and the two rates of summed counts."""
    n = c.get("cells", 0)
    return {"cells": n, "written_right": c.get("written_right", 0),
            "written_wrong": c.get("written_wrong", 0), "unresolved": c.get("unresolved", 0),
            "right_rate": round(c.get("written_right", 0) / n, 4) if n else 0.0,
            "wrong_rate": round(c.get("written_wrong", 0) / n, 4) if n else 0.0}


def figure(c: Mapping[str, int]) -> float:
    """Return (right − WRONG_WEIGHT × wrong) / cells."""
    n = c.get("cells", 0)
    return (c.get("written_right", 0) - WRONG_WEIGHT * c.get("written_wrong", 0)) / n if n else 0.0


def total(per: Mapping[str, Counter[str]], ids: Iterable[str]) -> Counter[str]:
    """Return the counts of the contexts `ids`, summed."""
    out: Counter[str] = Counter()
    for d in ids:
        out.update(per.get(d, Counter()))
    return out


def best_setting(grid: Mapping[Setting, Mapping[str, Counter[str]]],
                 fit: Sequence[str]) -> Setting:
    """Return the setting chosen on the fit contexts (module docstring)."""
    def key(s: Setting) -> tuple[bool, float, bool, float, float, float]:
        c = total(grid[s], fit)
        n = c.get("cells", 0)
        ok = not n or c.get("written_wrong", 0) <= MAX_WRONG * n
        return (ok, figure(c), (s[1], s[2]) == (MIN_SCORE, MARGIN), s[0], s[1], s[2])
    return max(grid, key=key)


VARIANTS = {  # which settings a fold may choose from
    "aligner": lambda s: True,                                   # keep threshold and write rule
    "shipped_rule": lambda s: (s[1], s[2]) == (MIN_SCORE, MARGIN),  # keep threshold only
    "rules_only": lambda s: s[0] == OFF,                          # write rule only, no model rows
}


def fold_report(ranked: Sequence[Ranked], pairs: Mapping[str, Mapping[str, Any]],
                encoder: Encoder | None, folds: int) -> dict[str, Any]:
    """Return per fold the setting chosen on the other folds (cross-fitted there) and the
    fit and held-out figures, pooled too; beside them the same choosing only the keep
    threshold at the shipped write rule (`shipped_rule`), and with rules alone."""
    rows: list[dict[str, Any]] = []
    pooled = {name: {"fit": Counter[str](), "held_out": Counter[str]()} for name in VARIANTS}
    uids = [r.case["uid"] for r in ranked]
    for k in range(folds):
        fit = [u for u in uids if fold_of(u, folds) != k]
        held = [u for u in uids if fold_of(u, folds) == k]
        grid = cross_fitted([r for r in ranked if r.case["uid"] in set(fit)], pairs, encoder,
                            GRID_RULES)
        model = fit_on(pairs, fit, encoder)
        held_grid: Grid = {}
        for r in ranked:
            if r.case["uid"] in set(held):
                rank_grid(r, model, encoder, GRID_RULES, held_grid)
        row: dict[str, Any] = {"fold": k, "contexts": len(held)}
        for name, allowed in VARIANTS.items():
            best = best_setting({s: v for s, v in grid.items() if allowed(s)}, fit)
            f_c, h_c = total(grid[best], fit), total(held_grid.get(best, {}), held)
            pooled[name]["fit"].update(f_c)
            pooled[name]["held_out"].update(h_c)
            part = {"row_keep": best[0] if best[0] < OFF else None, "min_score": best[1],
                    "margin": best[2], "fit": rates(f_c), "held_out": rates(h_c)}
            if name == "aligner":
                row.update(part)
            else:
                row[name] = part
        row["row_model"] = None if model is None else {
            "weights": dict(zip(NAMES, (round(float(w), 4) for w in model.weights), strict=True)),
            "bias": round(model.bias, 4), "pairs": model.provenance.get("pairs")}
        rows.append(row)
    out: dict[str, Any] = {"k": folds, "folds": rows}
    for name in VARIANTS:
        out["pooled" if name == "aligner" else name] = {
            "fit": rates(pooled[name]["fit"]), "held_out": rates(pooled[name]["held_out"])}
    return out


def refit_shipped(ranked: Sequence[Ranked], pairs: Mapping[str, Mapping[str, Any]],
                  encoder: Encoder | None, provenance: Mapping[str, Any]) -> dict[str, Any]:
    """Return the aligner to ship: fitted on every context's pairs, its keep threshold
    chosen on every context ranked by cross-fitted aligners at the shipped write rule."""
    grid = cross_fitted(ranked, pairs, encoder, SHIPPED_RULE)
    uids = [r.case["uid"] for r in ranked]
    best = best_setting(grid, uids)
    model = fit_on(pairs, uids, encoder, provenance)
    return {"cross_fitted": {str(s[0]): rates(total(v, uids)) for s, v in sorted(grid.items())},
            "threshold": best[0], "model": None if model is None or best[0] >= OFF
            else model.with_threshold(best[0]).to_dict()}
