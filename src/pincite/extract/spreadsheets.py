"""The dictamen for spreadsheets: `records.xlsx` and `records.csv`, written beside
`records.json` and `report.html` by `extract --out`.

`records.xlsx` has three sheets: `records` (one row per field: the decision, the typed
value, the first citation and a link to the field's row of `report.html`), `citations`
(one row per provenance entry) and `run` (the run's metadata). `records.csv` is the
`records` sheet as text.

Cells are data, never formulas:
- XLSX: every text cell is stored as a string (`t="s"`), even one that starts with `=` or
  reads `#N/A`; one that starts with `= + - @`, a tab or a CR also gets Excel's quote
  prefix, so editing it keeps it text. XML cannot hold the control characters other than
  tab, LF and CR, nor U+FFFE, U+FFFF or a lone surrogate: each becomes U+FFFD
  (`readable.xml_safe`). A text over 32,767 characters (Excel's limit) is cut, ending in
  `TRUNCATED`; the whole text stays in records.json.
- CSV (the OWASP rule for CSV injection): a cell that starts with `=`, `+`, `-`, `@`, a
  tab or a CR gets a leading apostrophe, and so does a cell that already starts with one,
  so reading back is one rule: drop one leading apostrophe (`csv_value`). A plain number
  (`-731.9`, `-2e3`: no formula can hide in one) is left as it is, so a negative value
  reads back as a number.

Values keep their type: a number is a number cell (an integer beyond 2**53, which a
spreadsheet's float would round, is text), a yes/no is TRUE/FALSE, a structured value
(money, percent, duration, date) is the readable text the report shows, and
`value_json` holds every value's exact JSON. Both files are the same bytes for the same
records (the workbook's dates and ZIP entry times are fixed).
"""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import quote

from .readable import format_value, xml_safe

# The first characters that make a spreadsheet read a cell as a formula (OWASP).
FORMULA_TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
CSV_ESCAPE = "'"
XLSX_MAX_CHARS = 32767
TRUNCATED = "…[cut at 32,767 characters; the full text is in the JSON]"
_PLAIN_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")
_EPOCH = (1980, 1, 1, 0, 0, 0)
EPOCH_STAMP = "1980-01-01T00:00:00Z"
_MODIFIED = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")

RECORD_COLUMNS = ("field", "type", "outcome", "value", "value_json", "status", "reason",
                  "confidence", "quote", "locator", "page", "doc_id", "doc_sha256",
                  "quote_verified", "citations", "report")
CITATION_COLUMNS = ("field", "n", "doc_id", "doc_sha256", "text_layer", "locator", "page",
                    "char_start", "char_end", "quote", "quote_verified", "verify_reason",
                    "report")


def csv_cell(text: str) -> str:
    """Return `text` safe for a CSV cell: with a leading apostrophe when it starts with a
    formula trigger or an apostrophe, unless it is a plain number."""
    if (text[:1] in FORMULA_TRIGGERS and not _PLAIN_NUMBER.fullmatch(text)) \
            or text.startswith(CSV_ESCAPE):
        return CSV_ESCAPE + text
    return text


def csv_value(cell: str) -> str:
    """Return the text a `csv_cell` cell holds (one leading apostrophe dropped)."""
    return cell[1:] if cell.startswith(CSV_ESCAPE) else cell


def report_link(report_name: str, anchor: str) -> str:
    """Return the relative link to `anchor` in the report (the fragment percent-encoded)."""
    return f"{report_name}#{quote(anchor, safe='-._~')}"


def field_anchor(field: str) -> str:
    """Return the id of a field's row in the dictamen (`report.html`)."""
    return f"f-{field}"


def _xlsx_text(text: str) -> str:
    text = xml_safe(text)
    if len(text) > XLSX_MAX_CHARS:
        text = text[:XLSX_MAX_CHARS - len(TRUNCATED)] + TRUNCATED
    return text


def put(ws: Any, row: int, col: int, value: Any, link: str | None = None) -> Any:
    """Write `value` into a worksheet cell as data (text stays text, never a formula or
    an error code) and return the cell; `link` makes it a hyperlink."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 2**53:
        value = str(value)
    if isinstance(value, str):
        text = _xlsx_text(value)
        cell = ws.cell(row=row, column=col, value=text)
        cell.data_type = "s"  # openpyxl reads "=…" as a formula and "#N/A" as an error
        if text[:1] in FORMULA_TRIGGERS:
            cell.quotePrefix = True
    else:
        cell = ws.cell(row=row, column=col, value=value)
    if link is not None:
        cell.hyperlink = link
        cell.style = "Hyperlink"
    return cell


def table_sheet(wb: Any, title: str, columns: Sequence[str], rows: Iterable[Sequence[Any]],
                links: Sequence[str | None] | None = None, link_col: str = "report") -> Any:
    """Add a sheet of `columns` and `rows` (the `link_col` cell of row i linking to
    `links[i]`), with a bold frozen header and a filter; return it."""
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter

    ws = wb.create_sheet(title)
    for j, name in enumerate(columns, 1):
        put(ws, 1, j, name).font = Font(bold=True)
    at = columns.index(link_col) + 1 if link_col in columns else None
    n = 1
    for i, row in enumerate(rows):
        n = i + 2
        for j, v in enumerate(row, 1):
            put(ws, n, j, v, links[i] if links is not None and j == at else None)
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:{get_column_letter(len(columns))}{n}"
    for j, name in enumerate(columns, 1):
        ws.column_dimensions[get_column_letter(j)].width = 60 if name in {
            "quote", "value", "value_json", "candidates", "report"} else 18
    return ws


def json_text(value: Any) -> str:
    """Return `value` as compact JSON text, keys sorted (the form a nested value takes in a
    cell)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def scalar(value: Any) -> Any:
    """Return a JSON value as a cell holds it: a scalar as itself, a list or object as
    its JSON text."""
    return json_text(value) if isinstance(value, dict | list | tuple) else value


def value_cell(value: Any) -> Any:
    """Return a record's value as the `value` cell holds it: typed when it is a number,
    a yes/no or text; the report's readable form when structured."""
    if isinstance(value, dict | list | tuple):
        shown = format_value(value)
        return json_text(value) if shown == str(value) else shown
    return value


def _record_rows(doc: Mapping[str, Any], report_name: str
                 ) -> tuple[list[list[Any]], list[str], list[list[Any]], list[str]]:
    rows, links, cites, cite_links = [], [], [], []
    for rec in doc["records"]:
        link = report_link(report_name, field_anchor(rec["field"]))
        prov = rec.get("provenance") or []
        first = prov[0] if prov else {}
        rows.append([rec["field"], rec.get("type"), rec.get("outcome"), value_cell(rec["value"]),
                     json_text(rec["value"]), rec.get("status"), rec.get("reason"),
                     rec.get("confidence"), first.get("quote"), first.get("locator"),
                     first.get("page"), first.get("doc_id"), first.get("doc_sha256"),
                     first.get("quote_verified"), len(prov), link])
        links.append(link)
        for n, p in enumerate(prov, 1):
            cites.append([rec["field"], n] + [p.get(k) for k in CITATION_COLUMNS[2:-1]] + [link])
            cite_links.append(link)
    return rows, links, cites, cite_links


def workbook_bytes(wb: Any) -> bytes:
    """Return the saved workbook, the same bytes every time: created and modified set to
    `EPOCH_STAMP`, every ZIP entry dated 1980-01-01."""
    wb.properties.created = datetime(*_EPOCH)
    buf = io.BytesIO()
    wb.save(buf)
    return reproducible_zip(buf.getvalue(), EPOCH_STAMP)


def reproducible_zip(data: bytes, modified: str | None) -> bytes:
    """Return the workbook `data` with every entry dated 1980-01-01 and the core
    properties' `modified` set to `modified` (dropped when None)."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "docProps/core.xml":
                body = _MODIFIED.sub(
                    (lambda m: m.group(1) + modified.encode() + m.group(2)) if modified
                    else b"", body)
            entry = zipfile.ZipInfo(info.filename, date_time=_EPOCH)
            entry.compress_type, entry.external_attr = info.compress_type, info.external_attr
            dst.writestr(entry, body)
    return out.getvalue()


def records_workbook(doc: Mapping[str, Any], report_name: str = "report.html") -> bytes:
    """Return `records.xlsx` of a `records.json` document: the records, citations and run
    sheets."""
    from openpyxl import Workbook

    wb = Workbook()
    wb.remove(wb.active)
    rows, links, cites, cite_links = _record_rows(doc, report_name)
    table_sheet(wb, "records", RECORD_COLUMNS, rows, links)
    table_sheet(wb, "citations", CITATION_COLUMNS, cites, cite_links)
    meta = [["schema_name", doc.get("schema_name")], ["version", doc.get("version")]]
    meta += [[f"run.{k}", scalar(v)] for k, v in doc["run"].items()]
    table_sheet(wb, "run", ("key", "value"), meta)
    return workbook_bytes(wb)


def _csv_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json_text(value)  # numbers and booleans as JSON writes them


def records_csv(doc: Mapping[str, Any], report_name: str = "report.html") -> bytes:
    """Return `records.csv` of a `records.json` document (UTF-8 with a BOM, so a
    spreadsheet reads the accents; every cell made safe by `csv_cell`)."""
    rows, _links, _c, _cl = _record_rows(doc, report_name)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    w.writerow(RECORD_COLUMNS)
    for row in rows:
        w.writerow([csv_cell(_csv_text(v)) for v in row])
    return buf.getvalue().encode("utf-8-sig")
