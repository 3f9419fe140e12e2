"""`pincite eval fill`: fill TAT-QA tables relabelled as operating models.

Each context becomes a *source* (an HTML page: its paragraphs and its table as plain
`<td>` cells, ingested through the real path) and a *target* workbook built from the
table's labels so that matching is never string equality:

- the *answer cells* are the value cells a question of the context uses (its span answers,
  the numbers of its derivation, its `facts`); they are blanked; every other value cell
  keeps its text (given), an empty one holds `–` (nothing to fill);
- the target's words come from the eval's own label file (`evals/fill_labels/`, written
  without reading the product's synonym table) and its own regexes (`fill_relabel`), never
  from `pincite.fill` or `pincite.parse`, so the product is not graded with its own
  vocabulary (the report says `"labels": "independent"`);
- a header naming one whole year is respelled in a style of the file (`2019` → `FY2019`,
  `FY19`, `2019A`, `Fiscal year 2019`, …), other header words kept, spanning headers
  merged over their columns;
- a row label takes one of the file's respellings (`Cost of revenues` → `COGS`,
  `Total revenue` → `Revenues, total`); a label with none changes case and `and`/`&`
  (`row_labels` counts each kind); rows under a section row (a label with no value) are
  indented under it;
- where the table states its scale (`(in millions)`, `$'000`, `€m`) and no `except`, the
  title states the next one up in a wording of the file (`USD billions`, `$bn`), so
  amounts must be converted (÷1000);
- a percent answer cell is formatted `0.0%`, so the expected value is the fraction.

Two other contexts' sources are passed to every fill as distractors (routing must find
the right table). A cell is `written_right` when the write equals the expected value,
`written_wrong` otherwise (class `wrong_table`, `wrong_row`, `wrong_period` or
`wrong_unit`), else `unresolved` with its class (`ambiguous`, `missing_route`,
`unsupported_write`, `schema_gap` — the target could not hold the cell — or the axis that
failed to align: `wrong_row`, `wrong_period`, `wrong_unit`). Each failure keeps the seed's
reproduce record. Table-level, per target table: whether its context's table is the first
route (`route_top1`) or among those kept (`route_found`). With `--folds K`, the contexts
are split by `evals.folds.fold_of`; per
fold, (`min_score`, `margin`) are chosen on the other folds from `GRID` and measured on
the held-out fold (the candidates are ranked once; only the write-or-stop rule varies).
"""

from __future__ import annotations

import html
import io
import re
import tempfile
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ..evals.fill_relabel import (
    NEXT_SCALE,
    TargetLabels,
    currency_of,
    default_labels,
    label_kind,
    load_labels,
    respell_label,
    respell_period,
    scale_of,
    scale_title,
    years_in,
)
from ..evals.folds import check_folds, fold_of
from ..evals.tatqa import _contexts, _is_value, _norm_space, oracle_header_rows
from ..fill.program import fill_program
from ..fill.rank import MARGIN, MIN_SCORE, choose
from ..fill.solve import run_fill

GRID_MIN = (14.0, 16.0, 18.0, 20.0, 22.0, 24.0)
GRID_MARGIN = (1.0, 2.0, 3.0, 4.0, 5.0)
WRONG_WEIGHT = 10.0  # the figure folds maximise: (right - 10 × wrong) / cells
MAX_EXAMPLES = 60
_NUM_RE = re.compile(r"-?\d[\d,]*\.?\d*")
_NOT_SPANNING = re.compile(
    r"(?i)^notes?$|ended|year|fiscal|months|september|december|june|march")


def _dec(text: Any) -> Decimal | None:
    s = re.sub(r"[$€£%,\s]", "", str(text))
    neg = s.startswith("(") and s.endswith(")")
    s = s.strip("()")
    try:
        d = Decimal(s)
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite():
        return None
    return -d if neg else d


def answer_values(ctx: Mapping[str, Any]) -> set[Decimal]:
    """Return the numbers the questions of a context use (answers, derivations, facts)."""
    out: set[Decimal] = set()
    for q in ctx.get("questions") or ():
        if q.get("answer_from") == "text":
            continue
        ans = q.get("answer")
        items = ans if isinstance(ans, list) else [ans]
        items = [*items, *(q.get("facts") or ())]
        items += _NUM_RE.findall(str(q.get("derivation") or ""))
        for a in items:
            d = _dec(a)
            if d is not None:
                out.add(abs(d))
    return out


def build_case(ctx: Mapping[str, Any], labels: TargetLabels | None = None
               ) -> dict[str, Any] | None:
    """Return the source HTML, the target workbook bytes and the expected answer cells of a
    context (None when it has no answer cell); the target's words come from `labels`
    (default: evals/fill_labels/tatqa_dev.json), never from the product's vocabulary."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment
    from openpyxl.utils import get_column_letter

    labels = labels or default_labels()
    uid = ctx["table"]["uid"]
    raw = [[_norm_space(c) for c in row] for row in ctx["table"]["table"]]
    n_cols = max((len(r) for r in raw), default=0)
    raw = [r + [""] * (n_cols - len(r)) for r in raw]
    h = oracle_header_rows(raw)
    for r in range(h, len(raw)):  # a second header inside the body: keep the first block
        if any(years_in(x) for x in raw[r][1:]) and not any(
                _is_value(x) for x in raw[r][1:]):
            raw = raw[:r]
            break
    wanted = answer_values(ctx)
    answers = {(r, c) for r in range(h, len(raw)) for c in range(1, n_cols)
               if raw[r][0] and _is_value(raw[r][c]) and (d := _dec(raw[r][c])) is not None
               and abs(d) in wanted}
    if not answers or h == 0:
        return None
    text = " ".join(" ".join(r) for r in raw)
    src_scale = scale_of(text)
    relabel = NEXT_SCALE.get(src_scale or "") if "except" not in text.casefold() else None
    wb = Workbook()
    ws = wb.active
    ws.title = "Model"
    title = scale_title(relabel, currency_of(text), uid, labels) if relabel else None
    ws.append([f"Operating model ({title})" if title else "Operating model"])
    ws.append([])
    top = 3
    year_row = next((i for i in range(h) if any(years_in(x) for x in raw[i][1:])), None)
    if year_row is None:
        return None

    def words(x: str) -> str:
        """Return a spanning header's words without its unit or scale ("(in thousand NT dollars)")."""
        return re.sub(r"\([^)]*\)", "", x).strip() if scale_of(x) or currency_of(x) else x

    def spanning(x: str) -> bool:
        """Return True when a header above the periods names something (not a date or unit)."""
        x = words(x)
        return bool(x and not years_in(x) and re.search(r"[A-Za-z]{3}", x)
                    and not scale_of(x) and not currency_of(x) and not _NOT_SPANNING.search(x))

    upper = [i for i in range(h) if i != year_row and any(spanning(x) for x in raw[i][1:])]
    out_r = top
    for i in upper:
        last = None
        for c in range(1, n_cols):
            if spanning(raw[i][c]):
                ws.cell(out_r, c + 1, words(raw[i][c]))
                last = c
            elif last is not None and raw[year_row][c]:
                ws.merge_cells(start_row=out_r, start_column=last + 1, end_row=out_r,
                               end_column=c + 1)
        out_r += 1
    ws.cell(out_r, 1, "Metric")
    for c in range(1, n_cols):
        if raw[year_row][c]:
            ws.cell(out_r, c + 1, respell_period(raw[year_row][c], f"{uid}:{c}", labels))
    out_r += 1
    expected = []
    kinds: Counter[str] = Counter()
    section = False
    for r in range(h, len(raw)):
        label = raw[r][0]
        if not label:
            continue
        values = [raw[r][c] for c in range(1, n_cols)]
        is_section = not any(values)
        lab = ws.cell(out_r, 1, respell_label(label, f"{uid}:{r}", labels))
        kinds[label_kind(label, labels)] += 1
        if section and not is_section and not label.casefold().startswith("total"):
            lab.alignment = Alignment(indent=1)
        if is_section:
            section = True
        for c in range(1, n_cols):
            if not raw[year_row][c]:
                continue
            cell = ws.cell(out_r, c + 1)
            if (r, c) in answers:
                d = _dec(raw[r][c])
                assert d is not None
                pct = "%" in raw[r][c]
                if pct:
                    cell.number_format = "0.0%"
                    d = d / 100
                elif relabel:
                    d = d / 1000
                expected.append({"ref": f"{get_column_letter(c + 1)}{out_r}", "row": r,
                                 "col": c, "cell": raw[r][c], "expected": d,
                                 "row_path": [label], "column_path": [raw[i][c] for i in range(h) if raw[i][c]]})
            elif not is_section:
                cell.value = raw[r][c] or "–"
                cell.data_type = "s"
        out_r += 1
    buf = io.BytesIO()
    wb.save(buf)
    paras = "".join(f"<p>{html.escape(p['text'])}</p>\n" for p in sorted(
        ctx.get("paragraphs") or (), key=lambda p: p.get("order", 0)))
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>\n"
                   for row in raw)
    page = (f"<!DOCTYPE html>\n<html><body>\n{paras}<table>\n{rows}</table>\n</body></html>\n")
    return {"uid": uid, "source": page.encode(), "target": buf.getvalue(),
            "cells": expected, "scale_relabel": bool(relabel), "label_kinds": kinds}


# ---- scoring ------------------------------------------------------------------------------

def _fact_view(f: Mapping[str, Any] | None) -> dict[str, Any] | None:
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


def _score(case: Mapping[str, Any], res: Any, decisions: Mapping[str, Mapping[str, Any]],
           program: Mapping[str, Any]) -> tuple[Counter[str], list[dict[str, Any]]]:
    facts = {f["fact_id"]: f for f in res.artifacts["facts"]["facts"]}
    src_doc = f"tatqa/{case['uid']}.html"
    by_place = {(f["grid_row"], f["grid_col"]): f for f in facts.values()
                if f["doc_id"].startswith(src_doc + "@") and f.get("table_id")}
    routed = [t["source_table"] for r in res.artifacts["routing"]["retrieval"]["routes"]
              for t in r["tables"]]
    writes = {w["cell_id"]: w for w in program["writes"]}
    rejected = {w["cell_id"] for w in program["rejected"]}
    counts: Counter[str] = Counter()
    records = []
    for route in res.artifacts["routing"]["retrieval"]["routes"]:  # table-level metrics
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
            w = writes.get(cid)
            win = facts.get(w["source_fact_ids"][0]) if w else None
            records.append({"case_id": f"{case['uid']}:{cell['ref']}", "target_cell": cid,
                            "outcome": outcome,
                            "expected": str(cell["expected"]),
                            "actual": w["value"] if w else None, "failure_class": cls,
                            "winner": _fact_view(win), "expected_fact": _fact_view(exp_fact),
                            "reason": (decisions.get(cid) or {}).get("reason"),
                            "candidates": [{k: c[k] for k in ("fact_id", "value", "row_path",
                                                              "column_path", "score", "parts")}
                                           for c in ((decisions.get(cid) or {}).get(
                                               "candidates") or [])[:2]]})
    return counts, records


def _decide(ranking: Mapping[str, Any], universe: Mapping[str, Any], min_score: float,
            margin: float) -> tuple[dict[str, Any], dict[str, Any]]:
    cells = []
    for c in ranking["cells"]:
        cands = c.get("candidates") or []
        full = c.get("_all", cands)
        cells.append({**c, **choose(full, min_score=min_score, margin=margin)})
    r = {**ranking, "cells": cells}
    return {c["cell_id"]: c for c in cells}, fill_program(r, universe)


def _rates(c: Mapping[str, int]) -> dict[str, Any]:
    n = c.get("cells", 0)
    return {"cells": n, "written_right": c.get("written_right", 0),
            "written_wrong": c.get("written_wrong", 0), "unresolved": c.get("unresolved", 0),
            "right_rate": round(c.get("written_right", 0) / n, 4) if n else 0.0,
            "wrong_rate": round(c.get("written_wrong", 0) / n, 4) if n else 0.0}


def _figure(c: Mapping[str, int]) -> float:
    n = c.get("cells", 0)
    return (c.get("written_right", 0) - WRONG_WEIGHT * c.get("written_wrong", 0)) / n if n else 0.0


def _sum(per: Mapping[str, Counter[str]], ids: list[str]) -> Counter[str]:
    out: Counter[str] = Counter()
    for d in ids:
        out.update(per[d])
    return out


def run_fill_eval(data: Path, store_url: str | None = None, folds: int | None = None,
                  limit: int | None = None, label_file: Path | None = None) -> dict[str, Any]:
    """Run the fill eval on a TAT-QA folder; return the JSON report (module docstring)."""
    from ..limits import check_number
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    if limit is not None:
        check_number("--limit", limit, 1, 10**6, integer=True)
    contexts = [ctx for _, ctx in _contexts(data)][:limit]
    labels = load_labels(label_file) if label_file is not None else default_labels()
    cases = [c for c in (build_case(ctx, labels) for ctx in contexts) if c is not None]
    if folds is not None:
        folds = check_folds(folds, [c["uid"] for c in cases])
    who = Principal.parse("eval:fill:analysts")
    per_setting: dict[tuple[float, float], dict[str, Counter[str]]] = {}
    shipped: dict[str, Counter[str]] = {}
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pincite-fill-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store", create=True)
        try:
            with Ingestor(store, tenant="eval", acl=["group:analysts"], sandbox=False) as ing:
                for c in cases:
                    ing.ingest(c["source"], source_id=f"tatqa/{c['uid']}.html",
                               path=f"{c['uid']}.html", name=f"{c['uid']}.html")
            for i, c in enumerate(cases):
                tpath = Path(tmp) / f"{c['uid']}.xlsx"
                tpath.write_bytes(c["target"])
                others = [cases[(i + k) % len(cases)]["uid"] for k in (1, 2) if len(cases) > k]
                docs = [f"tatqa/{c['uid']}.html", *(f"tatqa/{u}.html" for u in others)]
                res = run_fill(store, who, tpath, docs, min_score=0.0, margin=0.0)
                ranking = res.artifacts["candidates"]
                for cell in ranking["cells"]:
                    cell["_all"] = cell.get("candidates") or []
                uni = res.artifacts["facts"]
                for ms in GRID_MIN:
                    for mg in GRID_MARGIN:
                        dec, prog = _decide(ranking, uni, ms, mg)
                        cnt, recs = _score(c, res, dec, prog)
                        per_setting.setdefault((ms, mg), {})[c["uid"]] = cnt
                        if (ms, mg) == (MIN_SCORE, MARGIN):
                            shipped[c["uid"]] = cnt
                            records.extend(recs)
        finally:
            store.close()
    total = _sum(shipped, list(shipped))
    classes = {k[6:]: v for k, v in sorted(total.items()) if k.startswith("class:")}
    by_class: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_class.setdefault(r["failure_class"], []).append(r)
    out: dict[str, Any] = {
        **_rates(total), "contexts": len(cases), "min_score": MIN_SCORE, "margin": MARGIN,
        "failure_classes": classes,
        "examples": {k: v[:MAX_EXAMPLES] for k, v in sorted(by_class.items())},
        "scale_relabelled_contexts": sum(1 for c in cases if c["scale_relabel"]),
        "labels": "independent", "label_file": labels.path,
        "row_labels": dict(sorted(sum((c["label_kinds"] for c in cases), Counter()).items())),
        "tables": {"target_tables": total["target_tables"],
                   "route_top1": total["route_top1"], "route_found": total["route_found"]}}
    if folds is not None:
        rows = []
        fit_all: Counter[str] = Counter()
        held_all: Counter[str] = Counter()
        uids = list(shipped)
        for k in range(folds):
            held = [u for u in uids if fold_of(u, folds) == k]
            fit = [u for u in uids if fold_of(u, folds) != k]
            best = max(per_setting, key=lambda s: (_figure(_sum(per_setting[s], fit)),
                                                   s == (MIN_SCORE, MARGIN), s))
            f_c, h_c = _sum(per_setting[best], fit), _sum(per_setting[best], held)
            fit_all.update(f_c)
            held_all.update(h_c)
            rows.append({"fold": k, "contexts": len(held), "min_score": best[0],
                         "margin": best[1], "fit": _rates(f_c), "held_out": _rates(h_c)})
        out["folds"] = {"k": folds, "folds": rows, "pooled": {
            "fit": _rates(fit_all), "held_out": _rates(held_all)}}
    return out
