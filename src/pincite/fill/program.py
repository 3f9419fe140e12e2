"""Deterministic writes (`fill_program.json`) and the gate every write passes.

A write names its target cell, the value in the target's unit and scale, the source fact
ids, the conversion applied and, for a derived value, its formula (`sum`, `difference`,
`ratio` of the cited facts in order). `validate_write(write, fact_index)` is the seed's
check and nothing else decides: no cited fact → `missing_source_fact`; a fact id not in
the universe → `unknown_source_fact`; a value that is not a finite number →
`non_finite_value`; a value the cited facts under the stated conversion (and formula) do
not give → `value_not_supported_by_citation`. A rejected write is not written; its cell
is unresolved with reason `rejected_write`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from .convert import apply

FORMULAS = ("sum", "difference", "ratio")


def _dec(x: Any) -> Decimal | None:
    try:
        d = Decimal(str(x))
    except (InvalidOperation, ValueError, TypeError):
        return None
    return d if d.is_finite() else None


def derive(formula: str | None, values: Sequence[Decimal]) -> Decimal | None:
    """Return what a formula gives over the inputs in order (None: not defined)."""
    if not values:
        return None
    if formula is None:
        return values[0] if len(values) == 1 else None
    if formula == "sum":
        return sum(values, Decimal(0))
    if formula == "difference" and len(values) == 2:
        return values[0] - values[1]
    if formula == "ratio" and len(values) == 2 and values[1] != 0:
        return values[0] / values[1]
    return None


def validate_write(write: Mapping[str, Any], fact_index: Mapping[str, Mapping[str, Any]]
                   ) -> dict[str, Any]:
    """Return `{"ok": True}` or `{"ok": False, "error": code, …}` for one write."""
    ids = list(write.get("source_fact_ids") or ())
    if not ids:
        return {"ok": False, "error": "missing_source_fact"}
    for fid in ids:
        if fid not in fact_index:
            return {"ok": False, "error": "unknown_source_fact", "fact_id": fid}
    value = _dec(write.get("value"))
    if value is None:
        return {"ok": False, "error": "non_finite_value", "value": str(write.get("value"))}
    formula = write.get("formula")
    if formula is not None and formula not in FORMULAS:
        return {"ok": False, "error": "value_not_supported_by_citation", "formula": formula}
    conv = write.get("conversion") or {"kind": "none"}
    inputs = [apply(conv, fact_index[f].get("normalized_value")) for f in ids]
    if any(v is None for v in inputs):
        return {"ok": False, "error": "value_not_supported_by_citation"}
    expected = derive(formula, [v for v in inputs if v is not None])
    if expected is None or expected != value:
        return {"ok": False, "error": "value_not_supported_by_citation",
                "expected": None if expected is None else str(expected)}
    return {"ok": True}


def fill_program(ranking: Mapping[str, Any], universe: Mapping[str, Any],
                 extra: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """Return the fill program: the validated writes (winners of the ranking, then
    `extra` writes such as the model fallback's), the rejected ones, and the cells left
    unresolved with their reason and candidates."""
    index = {f["fact_id"]: f for f in universe["facts"]}
    proposed = []
    for c in ranking["cells"]:
        if c["status"] != "write":
            continue
        win = c["candidates"][0]
        proposed.append({"cell_id": c["cell_id"], "value": win["value"],
                         "source_fact_ids": [win["fact_id"]], "conversion": win["conversion"],
                         "formula": None, "origin": "deterministic", "score": c["score"],
                         "margin": c["margin"]})
    proposed.extend(dict(w) for w in extra)
    writes, rejected = [], []
    written: set[str] = set()
    for w in proposed:
        check = validate_write(w, index)
        if check["ok"] and w["cell_id"] not in written:
            written.add(w["cell_id"])
            writes.append(w)
        elif not check["ok"]:
            rejected.append({**w, "validation": check})
    rejected_cells = {r["cell_id"]: r for r in rejected}
    unresolved = []
    for c in ranking["cells"]:
        if c["cell_id"] in written:
            continue
        reason = c.get("reason") or "rejected_write"
        if c["cell_id"] in rejected_cells and c["status"] == "write":
            reason = "rejected_write"
        entry = {"cell_id": c["cell_id"], "reason": reason, "row_path": c["row_path"],
                 "column_path": c["column_path"], "candidates": c.get("candidates", [])}
        if c["cell_id"] in rejected_cells:
            r = rejected_cells[c["cell_id"]]
            entry["rejected"] = {"origin": r.get("origin"), "value": r.get("value"),
                                 "error": r["validation"]["error"]}
        unresolved.append(entry)
    return {"schema_name": "pincite.fill.program", "version": 1, "writes": writes,
            "rejected": rejected, "unresolved": unresolved}
