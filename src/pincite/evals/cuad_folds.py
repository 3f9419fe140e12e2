"""Held-out figures of `eval cuad`: the extraction scored per document fold.

The CUAD schema's rules and thresholds were written looking at the dev split, so the
figure over all of dev is a fit figure. `--folds K` splits the contracts by the sha256 of
their file name (`evals.folds`) and reports, per fold and pooled, each figure on the other
folds (fit) beside the figure on the fold (held out), with a Wilson 95 % interval on the
pooled held-out counts — every contract is held out exactly once. Per category it reports
the pooled held-out SHOW precision and its Wilson lower bound: the number that says
whether a category may SHOW at all (a bound under the SHOW goal means its SHOWs are not
yet evidence enough).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..review.calibration import wilson
from .folds import check_folds, fold_of, split

# figure name → (numerator count, denominator count)
FIGURES = {
    "show_precision": ("show_right", "show"),
    "abstain_precision": ("abstain_right", "abstain"),
    "shown_or_flagged": ("clauses_covered", "gold_clauses"),
}


def _ratio(num: str, den: str):  # type: ignore[no-untyped-def]
    def figure(c: Mapping[str, int]) -> float:
        return c.get(num, 0) / c[den] if c.get(den) else 0.0
    return figure


def fold_figures(per_doc: Mapping[str, Mapping[str, int]], k: int,
                 per_category: Mapping[str, Mapping[str, Mapping[str, int]]]) -> dict[str, Any]:
    """Return fit beside held-out figures per fold and pooled, the pooled held-out Wilson
    intervals, and per category the held-out SHOW precision with its lower bound.

    `per_doc`: counts per contract; `per_category[category][contract]`: the same per
    category."""
    k = check_folds(k, per_doc)
    out: dict[str, Any] = {"k": k, "figures": {}}
    total: Counter[str] = Counter()
    for counts in per_doc.values():
        total.update(counts)
    for name, (num, den) in FIGURES.items():
        sp = split(per_doc, k, _ratio(num, den))
        w = wilson(total[num], total[den])
        sp["pooled"]["held_out_counts"] = [total[num], total[den]]
        sp["pooled"]["wilson95"] = None if w is None else [round(w[0], 4), round(w[1], 4)]
        out["figures"][name] = sp
    cats: dict[str, Any] = {}
    for cat, docs in sorted(per_category.items()):
        c: Counter[str] = Counter()
        for counts in docs.values():
            c.update(counts)
        w = wilson(c["show_right"], c["show"])
        cats[cat] = {"show": c["show"], "show_right": c["show_right"],
                     "show_precision": round(c["show_right"] / c["show"], 4) if c["show"] else None,
                     "wilson_low": None if w is None else round(w[0], 4)}
    out["categories"] = cats
    return out


def per_document(pairs: Sequence[Any], counts_of: Any) -> tuple[dict[str, dict[str, int]],
                                                                dict[str, dict[str, dict[str, int]]]]:
    """Return the counts per contract and per (category, contract) of scored pairs;
    `counts_of(pairs)` gives the counts of a group (`evals.cuad._figures`)."""
    by_doc: dict[str, list[Any]] = defaultdict(list)
    by_cat: dict[str, dict[str, list[Any]]] = defaultdict(lambda: defaultdict(list))
    for p in pairs:
        by_doc[p.file].append(p)
        by_cat[p.category][p.file].append(p)
    return ({d: counts_of(ps) for d, ps in by_doc.items()},
            {cat: {d: counts_of(ps) for d, ps in docs.items()} for cat, docs in by_cat.items()})


# ---- SHOW thresholds chosen on fit folds, measured on the held-out fold -----------------

TAU_GRID = tuple(round(0.3 + 0.05 * i, 2) for i in range(15)) + (1.01,)  # 1.01: never SHOW
SHOW_GOAL = 0.97      # fit SHOW precision a threshold must reach
MIN_FIT_SHOWS = 5     # … over at least this many SHOWs on the fit folds
_REDECIDABLE = {"above_tau_show", "above_tau_flag", "low_confidence"}


def _redecide(p: Any, tau_show: float) -> Any:
    """Return the pair decided again under `tau_show` (only records the thresholds decided:
    absent, conflicting, unverified, invalid and hidden-text records keep their outcome)."""
    if p.reason not in _REDECIDABLE:
        return p
    outcome = "show" if p.confidence >= tau_show else "flag" if p.confidence >= p.tau_flag else "review"
    return replace(p, outcome=outcome)


def _choose(pairs: Sequence[Any]) -> float:
    """Return the lowest tau_show whose SHOWs over `pairs` reach SHOW_GOAL precision on at
    least MIN_FIT_SHOWS records, else 1.01 (the category does not SHOW). A category the
    schema does not let SHOW (its tau_show 1.0: a clause whose rules are not evidence of
    their own, a class decision written in the schema) stays at 1.01."""
    if not pairs or min(p.tau_show for p in pairs) >= 1.0:
        return TAU_GRID[-1]
    for tau in TAU_GRID[:-1]:
        shown = [p for p in map(lambda q: _redecide(q, tau), pairs) if p.outcome == "show"]
        right = sum(1 for p in shown if p.right())
        if len(shown) >= MIN_FIT_SHOWS and right / len(shown) >= SHOW_GOAL:
            return tau
    return TAU_GRID[-1]


def refit_tau_show(pairs: Sequence[Any], k: int,
                   counts_of: Callable[[Sequence[Any]], Mapping[str, int]]) -> dict[str, Any]:
    """Return, per fold, each category's tau_show chosen on the fit folds and the held-out
    figures of the held-out fold decided with them, pooled over folds (every contract is
    held out once): the held-out figure of the thresholds, not of the shipped ones."""
    by_cat: dict[str, list[Any]] = defaultdict(list)
    for p in pairs:
        by_cat[p.category].append(p)
    held_all: list[Any] = []
    chosen: dict[str, list[float]] = defaultdict(list)
    for i in range(k):
        for cat, ps in by_cat.items():
            fit = [p for p in ps if fold_of(p.file, k) != i]
            tau = _choose(fit)
            chosen[cat].append(tau)
            held_all += [_redecide(p, tau) for p in ps if fold_of(p.file, k) == i]
    c = counts_of(held_all)
    out: dict[str, Any] = {"goal": SHOW_GOAL, "min_fit_shows": MIN_FIT_SHOWS}
    for name, (num, den) in FIGURES.items():
        w = wilson(c[num], c[den])
        out[name] = {"held_out": round(c[num] / c[den], 4) if c[den] else None,
                     "counts": [c[num], c[den]],
                     "wilson95": None if w is None else [round(w[0], 4), round(w[1], 4)]}
    out["shows"] = c["show"]
    out["tau_show_per_fold"] = {cat: taus for cat, taus in sorted(chosen.items())
                                if any(t < 1.01 for t in taus)}
    # what the same rule chooses on all of dev: the thresholds the schema should ship
    out["tau_show_all_dev"] = {cat: tau for cat, ps in sorted(by_cat.items())
                               if (tau := _choose(ps)) < 1.01}
    return out
