"""Align a target table with a source table (`table_alignment.json`): which source rows
and columns each target row and column may stand for, by full header paths.

Rows: `path_similarity` of the target row path and each source row path (synonym classes,
EN/ES, then content words); every source row at `ROW_MIN` or above is kept, best first;
an axis is *ambiguous* when the two best differ by less than `AXIS_TIE`. With a row
aligner (`row_model`: MiniLM cosine, lexical overlap, the rules' similarity and the
margins to the runner-up, combined by a fitted, calibrated model), a target row the rules
align to no row of the source table keeps the source rows the model gives probability
`threshold` or more, each with that probability as its similarity (`by: "model"`); rows
the rules keep say `by: "rule"`. Without one, rows align by the rules alone. Columns: the
`Period` of each path (FY / calendar / `2024A` / `ejercicio 2024`, scenario) must match
(`period_match`); where neither side names a period the non-period words decide.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from .labels import Period, label_tokens, path_similarity, period_match
from .row_model import CLAIM, ROW_MIN, Encoder, RowAligner

AXIS_TIE = 0.1
_PERIODISH = re.compile(r"^(?:(?:19|20)\d{2}[a-z]?|fy\d{2,4}[a-z]?|fiscal|year|ended|ejercicio"
                        r"|actual|budget|forecast|q[1-4]|h[12]|december|june|march"
                        r"|september|dec|jun|mar|sep|31|30|periodo|ano)$")


def as_period(d: Mapping[str, Any] | None) -> Period:
    """Return the `Period` of a JSON period object."""
    d = d or {}
    return Period(d.get("year"), d.get("grain"), d.get("scenario"))


def column_words(path: Sequence[str]) -> frozenset[str]:
    """Return the words of a column path that are not about its period."""
    return frozenset(w for p in path for w in label_tokens(p) if not _PERIODISH.match(w))


def column_similarity(target: Mapping[str, Any], source: Mapping[str, Any]) -> tuple[float, float]:
    """Return (period match -1/0/1, similarity of the non-period words 0 … 1) of two
    column records."""
    pm = period_match(as_period(target.get("period")), as_period(source.get("period")))
    tw, sw = column_words(target["column_path"]), column_words(source["column_path"])
    if not tw:
        words = 1.0  # a target column that names only a period asks nothing more
    elif not sw:
        words = 0.5
    else:
        words = len(tw & sw) / len(tw)
    return pm, words


def _row_keep(tr: Mapping[str, Any], source: Mapping[str, Any], probs: Any,
              threshold: float) -> list[dict[str, Any]]:
    """Return the source rows a target row may be, best first: the rules' (similarity
    ≥ `ROW_MIN`); where the rules keep none and the model gave probabilities, the model's
    (probability ≥ `threshold`)."""
    found: list[tuple[float, int, dict[str, Any]]] = []
    sims = [path_similarity(tr["row_path"], sr["row_path"]) for sr in source["rows"]]
    for s, sr in zip(sims, source["rows"], strict=True):
        if s >= ROW_MIN:
            found.append((s, sr["row"], {} if probs is None else {"by": "rule"}))
    if probs is not None and not found:
        for j, sr in enumerate(source["rows"]):
            p = round(float(probs[j]), 4)
            if p >= threshold:
                found.append((p, sr["row"], {"by": "model", "probability": p}))
    found.sort(key=lambda x: (-x[0], x[1]))
    return [{"row": r, "similarity": round(s, 4), **extra} for s, r, extra in found]


def _one_to_one(target: Mapping[str, Any], source: Mapping[str, Any], probs: Any) -> Any:
    """Return the model's probabilities with every source row left only to the target row
    that wants it most (of those the rules align to no row here), and none for a source
    row the rules already give another target row (similarity ≥ `CLAIM`)."""
    import numpy as np

    rule = np.array([[path_similarity(tr["row_path"], sr["row_path"]) for sr in source["rows"]]
                     for tr in target["rows"]]).reshape(probs.shape)
    free_t = rule.max(axis=1, initial=0.0) < ROW_MIN
    free_s = rule.max(axis=0, initial=0.0) < CLAIM
    p = np.where(free_t[:, None] & free_s[None, :], probs, 0.0)
    return np.where(p >= p.max(axis=0, initial=0.0, keepdims=True), p, 0.0)


def align_tables(target: Mapping[str, Any], source: Mapping[str, Any],
                 aligner: tuple[RowAligner, Encoder] | None = None) -> dict[str, Any]:
    """Return the alignment of a target table with a source table: per target row the
    source rows it may be (with similarity; with `aligner`, also the rows its model
    finds), per target column the source columns of the same period, the ambiguous axes,
    and the mapped counts."""
    rows = []
    ambiguous = []
    probs = _one_to_one(target, source, aligner[0].probabilities(
        target, source, aligner[1])) if aligner else None
    for i, tr in enumerate(target["rows"]):
        keep = _row_keep(tr, source, None if probs is None else probs[i],
                         aligner[0].threshold if aligner else 1.0)
        rows.append({"row": tr["row"], "row_path": tr["row_path"], "source_rows": keep})
        if len(keep) > 1 and keep[0]["similarity"] - keep[1]["similarity"] < AXIS_TIE:
            ambiguous.append({"axis": "row", "target": tr["row_path"],
                              "source_rows": [k["row"] for k in keep[:2]]})
    cols = []
    for tc in target["columns"]:
        keep = []
        for sc in source["columns"]:
            pm, words = column_similarity(tc, sc)
            if pm >= 0 and (pm > 0 or words > 0):
                keep.append({"col": sc["col"], "period_match": pm, "words": round(words, 4)})
        keep.sort(key=lambda k: (-k["period_match"], -k["words"], k["col"]))
        cols.append({"col": tc["col"], "column_path": tc["column_path"], "source_cols": keep})
        best = [k for k in keep if (k["period_match"], k["words"]) == (
            keep[0]["period_match"], keep[0]["words"])] if keep else []
        if len(best) > 1:
            ambiguous.append({"axis": "column", "target": tc["column_path"],
                              "source_cols": [k["col"] for k in best]})
    return {"target_table": target["table_id"], "source_table": source["table_id"],
            "rows": rows, "columns": cols,
            "row_mapped": sum(1 for r in rows if r["source_rows"]),
            "column_mapped": sum(1 for c in cols if c["source_cols"]),
            "ambiguous_axes": ambiguous}


def coverage_of(alignment: Mapping[str, Any], n_rows: int, n_cols: int) -> float:
    """Return the share of the target's rows and columns the alignment maps (0 … 1)."""
    if not n_rows or not n_cols:
        return 0.0
    return (alignment["row_mapped"] / n_rows) * (alignment["column_mapped"] / n_cols)
