"""Scoring `eval fill`: each answer cell's outcome and failure class, and a case's counts.

A cell is `right` when the write equals the expected value, `wrong` otherwise (class
`wrong_table`, `wrong_row`, `wrong_period` or `wrong_unit`: the first place where the
winning fact parts from the expected one), else `unresolved` with its class
(`ambiguous`, `missing_route`, `unsupported_write`, `schema_gap` — the target could not
hold the cell — or the axis that failed to align). Each failure keeps the seed's
reproduce record (expected, actual, winner, expected fact, the two best candidates).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

FactsAt = tuple[dict[str, Any], dict[tuple[int, int], Any]]


def fact_view(f: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Return the short view of a fact a failure record shows (None for None)."""
    if f is None:
        return None
    return {"fact_id": f["fact_id"], "value": f["value"], "row_path": f["row_path"],
            "column_path": f["column_path"], "table_id": f.get("table_id")}


def classify(cell: Mapping[str, Any], decision: Mapping[str, Any] | None,
             write: Mapping[str, Any] | None, expected_fact: Mapping[str, Any] | None,
             facts: Mapping[str, Mapping[str, Any]], routed: list[str],
             rejected: bool) -> tuple[str, str | None]:
    """Return (outcome, failure class) of one answer cell: outcome `right`, `wrong` or
    `unresolved`; the class is None when right."""
    want = cell["expected"]
    if decision is None:
        return "unresolved", "schema_gap"
    if write is not None:
        if Decimal(write["value"]) == want:
            return "right", None
        win = facts.get(write["source_fact_ids"][0])
        if expected_fact is None or win is None or win.get("table_id") != expected_fact.get("table_id"):
            return "wrong", "wrong_table"
        if win.get("grid_row") != expected_fact.get("grid_row"):
            return "wrong", "wrong_row"
        if win.get("grid_col") != expected_fact.get("grid_col"):
            return "wrong", "wrong_period"
        return "wrong", "wrong_unit"
    if rejected:
        return "unresolved", "unsupported_write"
    if expected_fact is None or expected_fact.get("table_id") not in routed:
        return "unresolved", "missing_route"
    if decision.get("reason") == "ambiguous":
        return "unresolved", "ambiguous"
    ids = {c["fact_id"] for c in decision.get("candidates") or ()}
    if decision.get("reason") == "scale_unstated":
        return "unresolved", "wrong_unit"
    if expected_fact["fact_id"] in ids:
        return "unresolved", "wrong_unit" if decision.get("reason") == "below_min_score" else "ambiguous"
    same_row = [c for c in decision.get("candidates") or ()
                if facts.get(c["fact_id"], {}).get("grid_row") == expected_fact.get("grid_row")]
    return "unresolved", "wrong_period" if same_row else "wrong_row"


def facts_of(case: Mapping[str, Any], universe: Mapping[str, Any]) -> FactsAt:
    """Return a fill's facts by id, and its own table's facts by grid place."""
    facts = {f["fact_id"]: f for f in universe["facts"]}
    src_doc = f"tatqa/{case['uid']}.html"
    return facts, {(f["grid_row"], f["grid_col"]): f for f in facts.values()
                   if f["doc_id"].startswith(src_doc + "@") and f.get("table_id")}


def score_case(case: Mapping[str, Any], facts_at: FactsAt, routing: Mapping[str, Any],
               decisions: Mapping[str, Mapping[str, Any]], program: Mapping[str, Any],
               keep: bool = True) -> tuple[Counter[str], list[dict[str, Any]]]:
    """Return a case's counts (cells, outcomes, classes, routing) under one decision, and
    its failure records (`keep=False`: counts only)."""
    facts, by_place = facts_at
    src_doc = f"tatqa/{case['uid']}.html"
    routed = [t["source_table"] for r in routing["retrieval"]["routes"] for t in r["tables"]]
    writes = {w["cell_id"]: w for w in program["writes"]}
    rejected = {w["cell_id"] for w in program["rejected"]}
    counts: Counter[str] = Counter()
    records = []
    for route in routing["retrieval"]["routes"]:  # table-level metrics
        kept = [t["source_table"] for t in route["tables"]]
        own = [t for t in kept if t.startswith(src_doc + "@")]
        counts["target_tables"] += 1
        counts["route_top1"] += int(bool(kept) and kept[0].startswith(src_doc + "@"))
        counts["route_found"] += int(bool(own))
    for cell in case["cells"]:
        cid = f"Model!{cell['ref']}"
        exp_fact = by_place.get((cell["row"], cell["col"]))
        outcome, cls = classify(cell, decisions.get(cid), writes.get(cid), exp_fact, facts,
                                routed, cid in rejected)
        counts["cells"] += 1
        counts[{"right": "written_right", "wrong": "written_wrong",
                "unresolved": "unresolved"}[outcome]] += 1
        if cls:
            counts["class:" + cls] += 1
            if not keep:
                continue
            w = writes.get(cid)
            win = facts.get(w["source_fact_ids"][0]) if w else None
            records.append({"case_id": f"{case['uid']}:{cell['ref']}", "target_cell": cid,
                            "outcome": outcome,
                            "expected": str(cell["expected"]),
                            "actual": w["value"] if w else None, "failure_class": cls,
                            "winner": fact_view(win), "expected_fact": fact_view(exp_fact),
                            "reason": (decisions.get(cid) or {}).get("reason"),
                            "candidates": [{k: c[k] for k in ("fact_id", "value", "row_path",
                                                              "column_path", "score", "parts")}
                                           for c in ((decisions.get(cid) or {}).get(
                                               "candidates") or [])[:2]]})
    return counts, records
