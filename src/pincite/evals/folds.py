"""Document-level folds of a dev split: the figure on the documents a rule was fitted on
beside the figure on documents it was not.

- `fold_of(doc_id, k)`: the document's fold, from the sha256 of its id (the same split on
  every machine and run; a copy of a document, such as a rotated page, goes with it).
- `split(per_doc, k, figure)`: with the rules as shipped, per fold the figure on the other
  folds (fit) and on the fold itself (held out); pooled, each micro-averaged over the folds
  (every document is held out once).
- `refit(...)`: each tuned constant chosen again from its grid on the fit folds only (the
  best fit figure; a tie keeps the shipped value, else the nearer one), then measured on
  the held-out fold. Per constant: the value each fold chose, the fit and held-out figures
  per fold and pooled, beside the shipped value's, and the figure over every document at
  each value of the grid (how much the constant matters there).

Per-document results are count dictionaries (`figure` turns a summed one into the
figure), so a fold's figure is over its documents' pooled counts, not a mean of ratios.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..errors import UsageError
from ..limits import check_number

Counts = Mapping[str, int]
Figure = Callable[[Counts], float]
MAX_FOLDS = 100


def fold_of(doc_id: str, k: int) -> int:
    """Return the fold (0 … k-1) of a document: its id's sha256 as an integer, modulo k."""
    return int.from_bytes(hashlib.sha256(doc_id.encode("utf-8")).digest(), "big") % k


def check_folds(k: Any, doc_ids: Iterable[str]) -> int:
    """Return `k` when it is an integer from 2 to the number of documents and every fold
    holds a document; else raise UsageError saying what to give."""
    ids = sorted(set(doc_ids))
    if len(ids) < 2:
        raise UsageError(f"--folds needs at least 2 documents; the split holds {len(ids)}")
    check_number("--folds", k, 2, min(MAX_FOLDS, len(ids)), integer=True)
    empty = sorted(set(range(k)) - {fold_of(d, k) for d in ids})
    if empty:
        raise UsageError(f"--folds {k}: fold(s) {', '.join(map(str, empty))} would hold no "
                         f"document of the {len(ids)}; give fewer folds")
    return int(k)


def _total(per_doc: Mapping[str, Counts], ids: Iterable[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for d in ids:
        out.update(per_doc[d])
    return out


def _r(x: float) -> float:
    return round(x, 4)


def split(per_doc: Mapping[str, Counts], k: int, figure: Figure,
          group: Callable[[str], str] = lambda d: d) -> dict[str, Any]:
    """Return the fit and held-out figures per fold and pooled (see the module docstring).

    `group` names the document a result belongs to (a rotated copy: its original), whose
    id sets the fold."""
    folds = [[d for d in per_doc if fold_of(group(d), k) == i] for i in range(k)]
    rows = []
    fit_all: Counter[str] = Counter()
    for i, held in enumerate(folds):
        fit_ids = [d for j, f in enumerate(folds) if j != i for d in f]
        fit = _total(per_doc, fit_ids)
        fit_all.update(fit)
        rows.append({"fold": i, "documents": len({group(d) for d in held}),
                     "fit": _r(figure(fit)), "held_out": _r(figure(_total(per_doc, held)))})
    return {"k": k, "folds": rows,
            "pooled": {"fit": _r(figure(fit_all)), "held_out": _r(figure(_total(per_doc, per_doc)))}}


def refit(k: int, runs: Mapping[str, Mapping[float, Mapping[str, Counts]]],
          shipped: Mapping[str, float], figure: Figure,
          group: Callable[[str], str] = lambda d: d) -> dict[str, Any]:
    """Return, per tuned constant, the value each fold chose on its fit folds and the fit
    and held-out figures (see the module docstring).

    `runs[name][value]` holds the per-document counts with that constant at that value
    (the others as shipped)."""
    out: dict[str, Any] = {}
    for name, by_value in runs.items():
        base = shipped[name]
        docs = list(next(iter(by_value.values())))
        folds = [[d for d in docs if fold_of(group(d), k) == i] for i in range(k)]
        rows = []
        fit_all: Counter[str] = Counter()
        held_all: Counter[str] = Counter()
        for i, held in enumerate(folds):
            fit_ids = [d for j, f in enumerate(folds) if j != i for d in f]
            scored = {v: figure(_total(per_doc, fit_ids)) for v, per_doc in by_value.items()}
            best = max(scored.values())
            chosen = min((v for v, s in scored.items() if s == best),
                         key=lambda v: (v != base, abs(v - base)))
            fit = _total(by_value[chosen], fit_ids)
            held_c = _total(by_value[chosen], held)
            fit_all.update(fit)
            held_all.update(held_c)
            rows.append({"fold": i, "chosen": chosen, "fit": _r(figure(fit)),
                         "held_out": _r(figure(held_c)),
                         "held_out_shipped": _r(figure(_total(by_value[base], held)))})
        out[name] = {"shipped": base, "folds": rows,
                     "by_value": {f"{v:g}": _r(figure(_total(by_value[v], docs)))
                                  for v in sorted(by_value)},
                     "pooled": {"fit": _r(figure(fit_all)), "held_out": _r(figure(held_all)),
                                "shipped": _r(figure(_total(by_value[base], docs)))}}
    return out


def tuned_runs(kind: str, counts: Callable[[], Mapping[str, Counts]]
               ) -> tuple[dict[str, dict[float, Mapping[str, Counts]]], dict[str, float]]:
    """Return per tuned PDF-parser constant of `kind` ("table" or "text") the per-document
    counts at each value of its grid (the others as shipped), and the shipped values."""
    from ..parse.pdf import tuning

    base = counts()
    runs: dict[str, dict[float, Mapping[str, Counts]]] = {}
    shipped: dict[str, float] = {}
    for t in (t for t in tuning.TUNED if t.kind == kind):
        shipped[t.name] = tuning.shipped(t.name)
        runs[t.name] = {shipped[t.name]: base}
        for v in t.grid:
            if float(v) != shipped[t.name]:
                with tuning.tuned({t.name: v}):
                    runs[t.name][float(v)] = counts()
    return runs, shipped
