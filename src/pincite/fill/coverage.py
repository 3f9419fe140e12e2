"""Coverage obligations (`coverage.json`): which high-signal source facts the fill left
unaccounted for.

An obligation is one row of a source table the routing kept for a target table, limited
to the facts in the periods the target asks for: `obligation_id` (a hash of table and
row), `region_id` (the table), `measure_family` (the row's synonym class, else its label),
`fact_ids`, and `high_signal` (the table is the first route of a target table, or the row's
family is one the target asks for). After the fill, each high-signal obligation is either
cited by a write, or marked — from the user's `marks.csv`
(`obligation_id,status,target_table,reason`) or, when the same value was cited from
another fact, `duplicate_lower_authority` — else it is an `unresolved_source_coverage`
error. A marks file naming a status outside `ALLOWED_MARKS` is refused.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model.cells import csv_text
from .align import as_period
from .labels import fold, label_class

ALLOWED_MARKS = ("schema_not_representable", "duplicate_lower_authority", "context_only",
                 "not_applicable")
MARKS_HEADER = ("obligation_id", "status", "target_table", "reason")
MAX_MARKS_BYTES = 2 * 1024 * 1024


def read_marks(path: Path | None) -> dict[str, dict[str, str]]:
    """Return the marks of a marks.csv by obligation id ({} without a file); raise
    UsageError for a file past the limit, a missing column or a status not allowed."""
    if path is None:
        return {}
    try:
        if path.stat().st_size > MAX_MARKS_BYTES:
            raise UsageError(f"--marks {path.name}: larger than {MAX_MARKS_BYTES} bytes")
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise UsageError(f"--marks {path}: cannot be read ({exc.strerror})") from None
    rows = list(csv.DictReader(io.StringIO(text)))
    out = {}
    for n, r in enumerate(rows, start=2):
        if not r.get("obligation_id") or not r.get("status"):
            raise UsageError(f"--marks {path.name} line {n}: give obligation_id and status "
                             f"(columns: {','.join(MARKS_HEADER)})")
        if r["status"] not in ALLOWED_MARKS:
            raise UsageError(f"--marks {path.name} line {n}: status {r['status']!r} is not "
                             f"one of {', '.join(ALLOWED_MARKS)}")
        out[r["obligation_id"]] = {k: r.get(k) or "" for k in MARKS_HEADER}
    return out


def _slug(text: str, n: int = 32) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", fold(text)))[:n].strip("-") or "x"


def obligation_id(table_id: str, row: int, label: str) -> str:
    """Return a readable, stable obligation id: source, table, row and label
    (`obl_annual-report-pdf_t1_r5_adjusted-ebitda`); the same for every revision."""
    source = table_id.split("@", 1)[0].rsplit("/", 1)[-1]
    return f"obl_{_slug(source)}_{table_id.rsplit('#', 1)[-1]}_r{row}_{_slug(label)}"


def obligations(target: Mapping[str, Any], universe: Mapping[str, Any],
                routing: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the coverage obligations of a fill, before it writes (see the docstring)."""
    tables = {t["table_id"]: t for t in universe["tables"]}
    by_row: dict[tuple[str, int], list[Mapping[str, Any]]] = {}
    for f in universe["facts"]:
        if f.get("table_id") is not None:
            by_row.setdefault((f["table_id"], f["grid_row"]), []).append(f)
    out: dict[str, dict[str, Any]] = {}
    for route in routing["retrieval"]["routes"]:
        tt = next(t for t in target["tables"] if t["table_id"] == route["target_table"])
        years = {as_period(c["period"]).year for c in tt["columns"]}
        families = {label_class(r["row_path"][-1]) for r in tt["rows"]} - {None}
        for kept in route["tables"]:
            st = tables[kept["source_table"]]
            for r in st["rows"]:
                facts = [f for f in by_row.get((st["table_id"], r["row"]), ())
                         if f["period"]["year"] in years]
                if not facts:
                    continue
                label = r["row_path"][-1] if r["row_path"] else ""
                fam = label_class(label)
                oid = obligation_id(st["table_id"], r["row"], label)
                high = kept["rank"] == 1 or (fam is not None and fam in families)
                prev = out.get(oid)
                if prev is None:
                    out[oid] = {"obligation_id": oid, "region_id": st["table_id"],
                                "target_table": tt["table_id"], "row_path": r["row_path"],
                                "measure_family": fam or label,
                                "fact_ids": [f["fact_id"] for f in facts],
                                "values": sorted({f["normalized_value"] for f in facts}),
                                "high_signal": high}
                else:
                    prev["high_signal"] = prev["high_signal"] or high
    return sorted(out.values(), key=lambda o: (o["region_id"], o["obligation_id"]))


def validate_coverage(obls: list[dict[str, Any]], program: Mapping[str, Any],
                      universe: Mapping[str, Any], marks: Mapping[str, Mapping[str, str]]
                      ) -> dict[str, Any]:
    """Return `coverage.json`: every obligation with its state (`cited`, a mark, or
    `unresolved`) and the `unresolved_source_coverage` errors."""
    cited = {fid for w in program["writes"] for fid in w["source_fact_ids"]}
    index = {f["fact_id"]: f for f in universe["facts"]}
    cited_values = {(index[f]["family"], index[f]["period"]["year"], index[f]["normalized_value"])
                    for f in cited if f in index}
    errors = []
    rows = []
    for o in obls:
        state, reason = "unresolved", ""
        if set(o["fact_ids"]) & cited:
            state = "cited"
        elif o["obligation_id"] in marks:
            state, reason = marks[o["obligation_id"]]["status"], marks[o["obligation_id"]]["reason"]
        elif all((index[f]["family"], index[f]["period"]["year"], index[f]["normalized_value"])
                 in cited_values for f in o["fact_ids"]):
            state, reason = "duplicate_lower_authority", "the same values are cited from another source"
        elif not o["high_signal"]:
            state = "low_signal"
        rows.append({**o, "state": state, "reason": reason})
        if state == "unresolved":
            errors.append({"code": "unresolved_source_coverage",
                           "obligation_id": o["obligation_id"], "region_id": o["region_id"],
                           "measure_family": o["measure_family"], "row_path": o["row_path"]})
    return {"schema_name": "pincite.fill.coverage", "version": 1,
            "allowed_marks": list(ALLOWED_MARKS), "obligations": rows, "errors": errors,
            "high_signal": sum(1 for o in obls if o["high_signal"]),
            "unresolved": len(errors)}


def marks_template(coverage: Mapping[str, Any]) -> str:
    """Return marks.csv text listing each unresolved obligation for a person to mark; a
    cell a spreadsheet would run as a formula (a row label `=HYPERLINK(…)` copied from a
    source workbook) is escaped (`model.cells.csv_text`)."""
    rows: list[list[Any]] = [list(MARKS_HEADER)]
    for e in coverage["errors"]:
        o = next(x for x in coverage["obligations"] if x["obligation_id"] == e["obligation_id"])
        rows.append([e["obligation_id"], "", o["target_table"],
                     " > ".join(o["row_path"]) or o["measure_family"]])
    return csv_text(rows)
