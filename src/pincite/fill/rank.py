"""Rank fact candidates per target cell, with score parts and a margin (seed 003).

A cell's candidates are the facts of the routed source tables at the source rows and
columns its row and column align with. Each gets score parts:

- `row`      path similarity of the row paths × `W["row"]` (for a row only the row
             aligner found, its probability; `row_alignment` says which)
- `column`   share of the target column's non-period words the source column has × `W["column"]`
- `period`   `W["period"]` when the periods match (0 when neither names one)
- `unit`     `W["unit"]` when unit and scale are known on both sides and compatible,
             `-2 W["unit"]` when the target names a scale the source does not state, and
             `-3 W["unit"]` for a percent against an amount
- `route`    `W["route"]` × the share of the target table its source table aligns
- `source`   authority: `W["source"]` for a table cell, half for a value in prose
- `agreement` `W["agreement"]` when another document gives the same value for the cell
- `negatives` `-W["negatives"]` per word the source row label adds (`adjusted`), up to 3

The winner is written only when its score is at least `MIN_SCORE` and it beats the best
candidate *with another value* by `MARGIN` (two sources that agree do not block each
other); else the cell is unresolved: `no_candidate`, `scale_unstated` (the target names a
scale the winner's source does not state), `below_min_score` or `ambiguous` (both
candidates kept).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from .align import as_period
from .convert import convert
from .labels import extra_tokens, period_match

W = {"row": 8.0, "column": 6.0, "period": 10.0, "unit": 4.0, "route": 4.0, "source": 1.0,
     "agreement": 1.0, "negatives": 2.0}
MIN_SCORE = 18.0
MARGIN = 3.0
MAX_CANDIDATES_KEPT = 5


def _unit_part(cell: Mapping[str, Any], fact: Mapping[str, Any], conv: Mapping[str, Any]) -> float:
    t_pct = cell.get("unit") == "%"
    f_pct = fact["value_type"] == "percent" or fact.get("unit") == "%"
    if t_pct != f_pct:
        return -3 * W["unit"]  # a percent for an amount, or the reverse: never the same
    if conv["kind"] == "scale_unstated":  # the target names a scale the source does not
        return -2 * W["unit"]
    tu, fu = cell.get("unit"), fact.get("currency") or fact.get("unit")
    if tu and fu and tu != fu and not t_pct:
        return -W["unit"]
    return W["unit"]


def cell_candidates(cell: Mapping[str, Any], routes: Sequence[Mapping[str, Any]],
                    aligns: Mapping[tuple[str, str], Mapping[str, Any]],
                    facts_at: Mapping[tuple[str, int, int], Sequence[Mapping[str, Any]]],
                    target_table: str) -> list[dict[str, Any]]:
    """Return a target cell's candidates with score parts, best first (`aligns` holds each
    alignment with its rows and columns indexed by target row and column: `_rows`,
    `_cols`)."""
    out = []
    tp = as_period(cell["period"])
    for route in routes:
        al = aligns.get((target_table, route["source_table"]))
        if al is None:
            continue
        row, col = al["_rows"].get(cell["row"]), al["_cols"].get(cell["col"])
        if row is None or col is None:
            continue
        for sr in row["source_rows"]:
            for sc in col["source_cols"]:
                for f in facts_at.get((route["source_table"], sr["row"], sc["col"]), ()):
                    value, conv = convert(f, cell)
                    pm = period_match(tp, as_period(f["period"]))
                    parts = {
                        "row": round(sr["similarity"] * W["row"], 4),
                        "column": round(sc["words"] * W["column"], 4),
                        "period": W["period"] * max(pm, 0.0),
                        "unit": _unit_part(cell, f, conv),
                        "route": round(W["route"] * route["alignment_coverage"], 4),
                        "source": W["source"] if f["origin_type"] == "table_cell" else W["source"] / 2,
                        "agreement": 0.0,
                        "negatives": -W["negatives"] * min(3, extra_tokens(cell["row_path"],
                                                                           f["row_path"])),
                    }
                    rec = {"fact_id": f["fact_id"], "doc_id": f["doc_id"],
                           "table_id": f["table_id"], "value": value,
                           "source_value": f["value"], "row_path": f["row_path"],
                           "column_path": f["column_path"], "conversion": conv,
                           "parts": parts}
                    if "by" in sr:  # aligned with a row model: how, and its probability
                        rec["row_alignment"] = {"by": sr["by"],
                                                "probability": sr.get("probability")}
                    out.append(rec)
    docs_by_value: dict[str, set[str]] = defaultdict(set)
    for c in out:
        docs_by_value[c["value"]].add(c["doc_id"])
    seen: set[str] = set()
    uniq = []
    for c in out:
        if len(docs_by_value[c["value"]]) > 1:
            c["parts"]["agreement"] = W["agreement"]
        c["score"] = round(sum(c["parts"].values()), 4)
        if c["fact_id"] not in seen:  # one fact reached through two routes: its best
            seen.add(c["fact_id"])
            uniq.append(c)
    uniq.sort(key=lambda c: (-c["score"], c["fact_id"]))
    best: dict[str, dict[str, Any]] = {}
    for c in uniq:
        if c["fact_id"] not in best or best[c["fact_id"]]["score"] < c["score"]:
            best[c["fact_id"]] = c
    return sorted(best.values(), key=lambda c: (-c["score"], c["fact_id"]))


def choose(cands: Sequence[Mapping[str, Any]], *, min_score: float = MIN_SCORE,
           margin: float = MARGIN) -> dict[str, Any]:
    """Return the decision for one cell: `write` with winner, score and margin, or
    `unresolved` with a reason and the candidates kept."""
    if not cands:
        return {"status": "unresolved", "reason": "no_candidate", "candidates": []}
    winner = cands[0]
    rival = next((c for c in cands[1:] if Decimal(c["value"]) != Decimal(winner["value"])), None)
    m = winner["score"] - rival["score"] if rival else winner["score"]
    kept = [dict(c) for c in cands[:MAX_CANDIDATES_KEPT]]
    base = {"winner": winner["fact_id"], "score": winner["score"], "margin": round(m, 4),
            "runner_up": rival["fact_id"] if rival else None, "parts": winner["parts"]}
    if winner["conversion"]["kind"] == "scale_unstated":  # the target's scale, not the source's
        return {"status": "unresolved", "reason": "scale_unstated", **base, "candidates": kept}
    if winner["score"] < min_score:
        return {"status": "unresolved", "reason": "below_min_score", **base, "candidates": kept}
    if rival is not None and m < margin:
        return {"status": "unresolved", "reason": "ambiguous", **base,
                "candidates": [dict(winner), dict(rival)]}
    return {"status": "write", **base, "candidates": kept}


def rank_cells(target: Mapping[str, Any], universe: Mapping[str, Any],
               routing: Mapping[str, Any], *, min_score: float = MIN_SCORE,
               margin: float = MARGIN) -> dict[str, Any]:
    """Return the ranking artifact: per target cell its candidates and decision."""
    facts_at: dict[tuple[str, int, int], list[Mapping[str, Any]]] = defaultdict(list)
    for f in universe["facts"]:
        if f.get("table_id") is not None:
            facts_at[(f["table_id"], f["grid_row"], f["grid_col"])].append(f)
    aligns = {(a["target_table"], a["source_table"]): {
        **a, "_rows": {r["row"]: r for r in a["rows"]},
        "_cols": {c["col"]: c for c in a["columns"]}}
        for a in routing["alignment"]["alignments"]}
    routes = {r["target_table"]: r["tables"] for r in routing["retrieval"]["routes"]}
    cells = []
    for t in target["tables"]:
        for cell in t["cells"]:
            if cell["kind"] != "target":
                continue
            cands = cell_candidates(cell, routes.get(t["table_id"], ()), aligns, facts_at,
                                    t["table_id"])
            decision = choose(cands, min_score=min_score, margin=margin)
            cells.append({"cell_id": cell["cell_id"], "table_id": t["table_id"],
                          "row_path": cell["row_path"], "column_path": cell["column_path"],
                          "unit": cell.get("unit"), "scale": cell.get("scale"),
                          "number_format": cell.get("number_format") or "", **decision})
    return {"schema_name": "pincite.fill.candidates", "version": 1, "cells": cells,
            "min_score": min_score, "margin": margin}
