"""Scoring answer-or-abstain: the counts, their rates with Wilson intervals, and document
folds with the thresholds chosen again on fit folds.

Every question is *answerable* (the document states the answer) or *unanswerable*; every
outcome is an answer or an abstention. An answer is right when its first item's citation
holds the gold (each eval states how); every other answer is wrong — a wrong span on an
answerable question, or any answer to an unanswerable one. Rates:
- `right_rate` = answered_right / answerable;
- `wrong_rate` = answered_wrong / answered (answered = right + wrong);
- `abstain_rate` = abstained_right / unanswerable;
each with its 95 % Wilson interval.

Folds: a document's fold is the sha256 of its id modulo K (the same split on every run).
`refit` chooses the ask thresholds (`ask_min_coverage`, `ask_min_dense`) again per fold
from `GRID`, on the other folds only — the feasible setting (wrong_rate ≤ `MAX_WRONG`,
abstain_rate ≥ `MIN_ABSTAIN`) with the most right answers, a tie going to the shipped
value and then the nearer one; with none feasible, the lowest wrong_rate — and measures
the held-out fold with what its fit folds chose. Pooled figures add the counts of the
folds (every document is held out once).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from ..errors import UsageError
from ..index.policy import RankingPolicy
from ..limits import check_number
from ..review.calibration import wilson as calibration_wilson
from .folds import fold_of

COUNTS = ("answerable", "answered_right", "answered_wrong", "unanswerable", "abstained_right",
          "wrong_span", "answered_unanswerable")
MAX_WRONG = 0.03
MIN_ABSTAIN = 0.95
GRID = {"ask_min_coverage": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
        "ask_min_dense": (0.2, 0.3, 0.4, 0.5, 0.6)}
MAX_FOLDS = 50
Outcome = tuple[bool, bool, bool]  # (answerable, answered, right)


def check_folds(k: Any, doc_ids: Iterable[str]) -> int:
    """`k` when it is an integer from 2 to the number of documents and every fold holds a
    document; else UsageError saying what to give."""
    ids = sorted(set(doc_ids))
    if len(ids) < 2:
        raise UsageError(f"--folds needs at least 2 documents; the data holds {len(ids)}")
    check_number("--folds", k, 2, min(MAX_FOLDS, len(ids)), integer=True)
    empty = sorted(set(range(k)) - {fold_of(d, k) for d in ids})
    if empty:
        raise UsageError(f"--folds {k}: fold(s) {', '.join(map(str, empty))} would hold no "
                         f"document of the {len(ids)}; give fewer folds")
    return int(k)


def count(outcomes: Iterable[Outcome]) -> Counter[str]:
    """The counts of a list of (answerable, answered, right) outcomes."""
    c: Counter[str] = Counter({k: 0 for k in COUNTS})
    for answerable, answered, right in outcomes:
        if answerable:
            c["answerable"] += 1
        else:
            c["unanswerable"] += 1
        if answered and right:
            c["answered_right"] += 1
        elif answered:
            c["answered_wrong"] += 1
            c["wrong_span" if answerable else "answered_unanswerable"] += 1
        elif not answerable:
            c["abstained_right"] += 1
    return c


def wilson(k: int, n: int) -> list[float] | None:
    """The 95 % Wilson score interval of k successes in n trials, rounded to 4 places (None
    when n is 0): `review.calibration.wilson`'s."""
    w = calibration_wilson(k, n) if n > 0 else None
    return None if w is None else [round(w[0], 4), round(w[1], 4)]


def rates(c: Mapping[str, int]) -> dict[str, Any]:
    """The counts with their three rates and Wilson intervals."""
    answered = c["answered_right"] + c["answered_wrong"]
    out: dict[str, Any] = {k: int(c[k]) for k in COUNTS}
    for name, k, n in (("right_rate", c["answered_right"], c["answerable"]),
                       ("wrong_rate", c["answered_wrong"], answered),
                       ("abstain_rate", c["abstained_right"], c["unanswerable"])):
        out[name] = round(k / n, 4) if n else None
        out[name + "_ci"] = wilson(k, n)
    return out


def feasible(c: Mapping[str, int]) -> bool:
    """Whether counts meet the targets (wrong ≤ MAX_WRONG of answered, abstained right ≥
    MIN_ABSTAIN of unanswerable)."""
    answered = c["answered_right"] + c["answered_wrong"]
    wrong_ok = c["answered_wrong"] <= MAX_WRONG * answered
    abstain_ok = not c["unanswerable"] or c["abstained_right"] >= MIN_ABSTAIN * c["unanswerable"]
    return wrong_ok and abstain_ok


def refit(per_doc: Mapping[str, Mapping[tuple[float, float], Sequence[Outcome]]], k: int,
          shipped: RankingPolicy) -> dict[str, Any]:
    """Per fold, the thresholds chosen on the other folds and the fit and held-out figures;
    pooled, the fit and held-out figures (see the module docstring). `per_doc[doc][(c, t)]`
    holds the outcomes of that document's questions under coverage c and cosine t."""
    base = (shipped.ask_min_coverage, shipped.ask_min_dense)
    docs = sorted(per_doc)
    folds = [[d for d in docs if fold_of(d, k) == i] for i in range(k)]
    settings = sorted(next(iter(per_doc.values()))) if docs else []

    def total(ids: Sequence[str], s: tuple[float, float]) -> Counter[str]:
        out: Counter[str] = Counter({x: 0 for x in COUNTS})
        for d in ids:
            out.update(count(per_doc[d][s]))
        return out

    def rank(c: Counter[str], s: tuple[float, float]) -> tuple[Any, ...]:
        answered = c["answered_right"] + c["answered_wrong"]
        wrong = c["answered_wrong"] / answered if answered else 0.0
        near = abs(s[0] - base[0]) + abs(s[1] - base[1])
        if feasible(c):
            return (1, c["answered_right"], s == base, -near)
        return (0, -wrong, c["answered_right"], s == base, -near)

    rows = []
    fit_all: Counter[str] = Counter({x: 0 for x in COUNTS})
    held_all: Counter[str] = Counter({x: 0 for x in COUNTS})
    for i, held in enumerate(folds):
        fit_ids = [d for j, f in enumerate(folds) if j != i for d in f]
        chosen = max(settings, key=lambda s: rank(total(fit_ids, s), s))
        fit, out = total(fit_ids, chosen), total(held, chosen)
        fit_all.update(fit)
        held_all.update(out)
        rows.append({"fold": i, "documents": len(held),
                     "chosen": {"ask_min_coverage": chosen[0], "ask_min_dense": chosen[1]},
                     "fit": rates(fit), "held_out": rates(out),
                     "held_out_shipped": rates(total(held, base))})
    return {"k": k, "folds": rows, "pooled": {"fit": rates(fit_all), "held_out": rates(held_all)}}


def grid_policies(shipped: RankingPolicy) -> dict[tuple[float, float], RankingPolicy]:
    """The shipped policy with each (coverage, cosine) of `GRID` (the shipped pair included);
    the bar for data cells (`ask_min_coverage_cell`, a located cell) stays the shipped one."""
    pairs = {(c, t) for c in GRID["ask_min_coverage"] for t in GRID["ask_min_dense"]}
    pairs.add((shipped.ask_min_coverage, shipped.ask_min_dense))
    return {p: replace(shipped, ask_min_coverage=p[0], ask_min_dense=p[1]) for p in sorted(pairs)}


def by_category(rows: Iterable[tuple[str, Outcome]]) -> dict[str, dict[str, Any]]:
    """Counts and rates per category (or any label) of (label, outcome) rows."""
    groups: dict[str, list[Outcome]] = {}
    for label, o in rows:
        groups.setdefault(label, []).append(o)
    return {label: rates(count(os)) for label, os in sorted(groups.items())}


