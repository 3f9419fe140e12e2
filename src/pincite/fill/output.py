"""What a fill hands back: the filled copy of the workbook, `audit.json`, `audit.xlsx`,
`report.html`.

The filled workbook is a copy (the target's bytes are read, never written): every written
cell holds the number and a comment with the value, source document, locator, page, quote
and fact id, and the report's anchor; every unresolved cell is highlighted (`UNRESOLVED_FILL`)
with a comment giving its reason and its best candidates. Formula cells are untouched.
The copy is reproducible: the same target and program give the same bytes (every ZIP
entry dated 1980-01-01, the properties' `modified` kept as the target states it), so a
filled workbook can be compared and hashed like every other artifact.

`audit.xlsx` is `audit.json` for a spreadsheet (`audit_workbook`): a sheet per part, a
row per write, citation, unresolved or rejected cell and error, each cell linking to its
row of the report. Every cell is data, never a formula (`extract.spreadsheets.put`).
"""

from __future__ import annotations

import html
import io
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from ..extract.spreadsheets import (
    report_link,
    reproducible_zip,
    scalar,
    table_sheet,
    workbook_bytes,
)

UNRESOLVED_FILL = "FFFFE699"
WRITTEN_FILL = "FFE2EFDA"
COMMENT_AUTHOR = "pincite fill"


def _number(value: str) -> int | float:
    d = Decimal(value)
    return int(d) if d == d.to_integral_value() and abs(d) < 2**53 else float(d)


def _anchor(cell_id: str) -> str:
    return "cell-" + "".join(ch if ch.isalnum() else "-" for ch in cell_id)


def filled_workbook(target_bytes: bytes, program: Mapping[str, Any],
                    citations: Mapping[str, Sequence[Mapping[str, Any]]],
                    report_name: str = "report.html") -> bytes:
    """Return the bytes of the filled copy of the target workbook."""
    from openpyxl import load_workbook
    from openpyxl.comments import Comment
    from openpyxl.styles import PatternFill

    wb = load_workbook(io.BytesIO(target_bytes))
    modified = wb.properties.modified
    for w in program["writes"]:
        sheet, ref = w["cell_id"].rsplit("!", 1)
        cell = wb[sheet][ref]
        cell.value = _number(w["value"])
        lines = [f"value: {w['value']}"]
        for c in citations.get(w["cell_id"], ()):
            lines += [f"source: {c['doc_id']}", f"locator: {c['locator']}",
                      f"page: {c['page'] if c['page'] is not None else '-'}",
                      f"quote: {c['quote']}", f"fact: {c['fact_id']}",
                      f"verified: {c['quote_verified']}"]
        if w.get("formula"):
            lines.append(f"formula: {w['formula']}")
        lines.append(f"report: {report_name}#{_anchor(w['cell_id'])}")
        cell.comment = Comment("\n".join(lines), COMMENT_AUTHOR, width=320, height=160)
        cell.fill = PatternFill("solid", fgColor=WRITTEN_FILL)
    for u in program["unresolved"]:
        sheet, ref = u["cell_id"].rsplit("!", 1)
        cell = wb[sheet][ref]
        lines = [f"unresolved: {u['reason']}"]
        for c in u["candidates"][:2]:
            lines.append(f"candidate {c['value']} ({' > '.join(c['row_path'])} / "
                         f"{' > '.join(c['column_path'])}, score {c['score']})")
        lines.append(f"report: {report_name}#{_anchor(u['cell_id'])}")
        cell.comment = Comment("\n".join(lines), COMMENT_AUTHOR, width=320, height=120)
        cell.fill = PatternFill("solid", fgColor=UNRESOLVED_FILL)
    buf = io.BytesIO()
    wb.save(buf)
    stamp = modified.strftime("%Y-%m-%dT%H:%M:%SZ") if modified is not None else None
    return reproducible_zip(buf.getvalue(), stamp)


def audit(target: Mapping[str, Any], universe: Mapping[str, Any], program: Mapping[str, Any],
          citations: Mapping[str, Sequence[Mapping[str, Any]]], coverage: Mapping[str, Any],
          artifacts: Mapping[str, str]) -> dict[str, Any]:
    """Return `audit.json`: the summary, every write with its verified citations, the
    unresolved and rejected cells, and the coverage errors."""
    writes = [{**w, "citations": list(citations.get(w["cell_id"], ()))}
              for w in program["writes"]]
    verified = sum(1 for w in writes if w["citations"]
                   and all(c["quote_verified"] for c in w["citations"]))
    errors = list(coverage["errors"])
    errors += [{"code": "unverified_write", "cell_id": w["cell_id"]} for w in writes
               if not (w["citations"] and all(c["quote_verified"] for c in w["citations"]))]
    summary = {"target_cells": target["target_cells"], "written": len(writes),
               "verified": verified, "unresolved": len(program["unresolved"]),
               "rejected": len(program["rejected"]),
               "documents": len(universe["documents"]),
               "obligations_high_signal": coverage["high_signal"],
               "unresolved_source_coverage": coverage["unresolved"]}
    return {"schema_name": "pincite.fill.audit", "version": 1, "target": target["target"],
            "target_sha256": target["sha256"], "summary": summary, "writes": writes,
            "unresolved": program["unresolved"], "rejected": program["rejected"],
            "errors": errors, "artifacts": dict(artifacts)}


AUDIT_SHEETS = ("writes", "citations", "unresolved", "rejected", "errors")


# the columns an audit sheet leads with (when its rows have them); the rest follow sorted,
# so the workbook is the same whether the audit was just made or read from audit.json
LEADING = ("cell_id", "n", "code", "value", "reason", "fact_id", "doc_id", "locator", "page",
           "quote", "quote_verified")


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Return the keys of `rows`: those of `LEADING` first, then the rest sorted."""
    keys = {k for r in rows for k in r}
    return [k for k in LEADING if k in keys] + sorted(keys - set(LEADING))


def audit_workbook(a: Mapping[str, Any]) -> bytes:
    """Return `audit.xlsx` of an audit: `summary` (key, value: the top level's scalars,
    then `summary.*` and `artifacts.*`), then one sheet per part with a column per key.
    A write's value is a number; a list or object is its JSON text; a null is an empty
    cell. The `report` column of a row about a cell links to its row of the report."""
    from openpyxl import Workbook

    report = a.get("artifacts", {}).get("report", "report.html")
    wb = Workbook()
    wb.remove(wb.active)
    top = [k for k in ("schema_name", "version") if k in a]
    top += sorted(k for k, v in a.items() if k not in top and not isinstance(v, dict | list))
    meta = [[k, scalar(a[k])] for k in top]
    meta += [[f"{part}.{k}", scalar(v)] for part in sorted(a) if isinstance(a[part], dict)
             for k, v in sorted(a[part].items())]
    table_sheet(wb, "summary", ("key", "value"), meta)
    cites = [{**c, "cell_id": w["cell_id"], "n": n} for w in a["writes"]
             for n, c in enumerate(w.get("citations", ()), 1)]
    parts = {"writes": [{k: v for k, v in w.items() if k != "citations"} for w in a["writes"]],
             "citations": cites, "unresolved": a["unresolved"], "rejected": a["rejected"],
             "errors": a["errors"]}
    for name in AUDIT_SHEETS:
        rows = parts[name]
        cols = _columns(rows)
        table, links = [], []
        for r in rows:
            cells = [_number(r[c]) if name == "writes" and c == "value" and r.get(c) is not None
                     else scalar(r.get(c)) for c in cols]
            link = report_link(report, _anchor(r["cell_id"])) if r.get("cell_id") else None
            table.append([*cells, link])
            links.append(link)
        table_sheet(wb, name, [*cols, "report"], table, links)
    return workbook_bytes(wb)


def summary_line(a: Mapping[str, Any]) -> str:
    """Return the one-line summary of a fill's audit."""
    s = a["summary"]
    return (f"fill {a['target']}: {s['target_cells']} cells, {s['written']} written "
            f"({s['verified']} verified), {s['unresolved']} unresolved, {s['rejected']} "
            f"rejected; coverage: {s['obligations_high_signal']} high-signal obligations, "
            f"{s['unresolved_source_coverage']} unresolved")


PX_PER_PT = 0.9
CROP_PT = 90.0


def _crop(c: Mapping[str, Any], pages: Mapping[str, tuple[str, float, float]]) -> str:
    """Return the page-image crop of a citation with its box drawn, or "" without one."""
    info = pages.get(f"{c['doc_id']}#{c.get('page')}")
    if info is None or not c.get("bbox"):
        return ""
    cls, w, h = info
    k = PX_PER_PT
    x0, y0, x1, y1 = c["bbox"]
    top = max(0.0, min(y0 - CROP_PT / 2, h - CROP_PT))
    return (f"<div class='crop {cls}' style='width:{round(w * k)}px;height:{round(CROP_PT * k)}px;"
            f"background-size:{round(w * k)}px {round(h * k)}px;background-position:0 "
            f"-{round(top * k)}px'><div class='box' style='left:{round(x0 * k)}px;"
            f"top:{round((y0 - top) * k)}px;width:{round((x1 - x0) * k)}px;"
            f"height:{round((y1 - y0) * k)}px'></div></div>")


def report_html(a: Mapping[str, Any], coverage: Mapping[str, Any],
                pages: Mapping[str, tuple[str, float, float]] | None = None,
                images: Mapping[str, str] | None = None) -> str:
    """Return the fill's review page: writes with their cited quotes (and, for a PDF, the
    cited box drawn on a crop of the page image), unresolved cells with reason and
    candidates, and the coverage obligations. `pages` maps `doc_id#page` to (CSS class,
    width pt, height pt); `images` maps the class to its PNG data URI."""
    e = html.escape
    pages = pages or {}
    rows = []
    for w in a["writes"]:
        cites = "".join(
            f"<div class='cite' data-verified='{str(c['quote_verified']).lower()}'>"
            f"{e(c['doc_id'])} · {e(c['locator'])}"
            f"{' · p.' + str(c['page']) if c['page'] is not None else ''} — "
            f"<mark class='quote'>{e(c['quote'])}</mark>{_crop(c, pages)}</div>"
            for c in w["citations"])
        rows.append(f"<tr id='{_anchor(w['cell_id'])}' class='write'><td>{e(w['cell_id'])}</td>"
                    f"<td class='value'>{e(w['value'])}</td><td>{e(w['conversion']['kind'])}"
                    f"</td><td>{w.get('score', '')}</td><td>{w.get('margin', '')}</td>"
                    f"<td>{cites}</td></tr>")
    unres = []
    for u in a["unresolved"]:
        cands = "".join(f"<li>{e(c['value'])} — {e(' > '.join(c['row_path']))} / "
                        f"{e(' > '.join(c['column_path']))} (score {c['score']})</li>"
                        for c in u["candidates"][:3])
        unres.append(f"<tr id='{_anchor(u['cell_id'])}' class='unresolved'><td>"
                     f"{e(u['cell_id'])}</td><td class='reason'>{e(u['reason'])}</td>"
                     f"<td><ul>{cands}</ul></td></tr>")
    obls = "".join(f"<tr class='obligation {e(o['state'])}'><td>{e(o['obligation_id'])}</td>"
                   f"<td>{e(o['region_id'])}</td><td>{e(' > '.join(o['row_path']))}</td>"
                   f"<td>{e(o['state'])}</td></tr>" for o in coverage["obligations"])
    s = a["summary"]
    css = "".join(f".{cls}{{background-image:url({uri})}}\n" for cls, uri in (images or {}).items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Fill report · {e(a['target'])}</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse;margin-bottom:2em}}
td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top}}mark.quote{{background:#ffe699}}
tr.unresolved{{background:#fff4d6}}tr.write{{background:#eef7e9}}
.crop{{position:relative;overflow:hidden;border:1px solid #999;margin-top:4px;background-repeat:no-repeat}}
.box{{position:absolute;border:2px solid #d1242f;background:rgba(255,211,61,.25)}}
{css}</style>
</head><body><h1>Fill report · {e(a['target'])}</h1>
<p id="summary">{s['target_cells']} cells · {s['written']} written ({s['verified']} verified) ·
{s['unresolved']} unresolved · {s['unresolved_source_coverage']} coverage errors</p>
<h2>Writes</h2><table id="writes"><tr><th>cell</th><th>value</th><th>conversion</th>
<th>score</th><th>margin</th><th>cited fact</th></tr>{''.join(rows)}</table>
<h2>Unresolved</h2><table id="unresolved"><tr><th>cell</th><th>reason</th><th>candidates</th>
</tr>{''.join(unres)}</table>
<h2>Coverage obligations</h2><table id="obligations"><tr><th>obligation</th><th>region</th>
<th>row</th><th>state</th></tr>{obls}</table></body></html>
"""
