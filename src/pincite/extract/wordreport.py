"""The dictamen for Word: `report.docx`, written beside `report.html` by `extract --out`.

A title, the run's details (case, run, extractor, deadline; each document with its full
sha256 and the date it was acquired), the counts of each outcome, then one table with a
row per field: Field | Outcome | Value | Evidence | Where, on a landscape A4 page. The
columns have fixed widths, set on the table grid and on every cell (Word ignores a
column's width alone and re-fits an autofit table), with Evidence the widest, so the
quotes are not squeezed as they are when Word converts `report.html`.

The words are the HTML report's: the outcome's badge (`readable.BADGES`: a FLAG row says
"flagged"), "not stated in the document" for ABSTAIN, and a REVIEW value shown as a
candidate, never as fact. Evidence is each quote in quotation marks, the value in bold
within it, and its verification ("verified", or "not verified: REASON"); Where is the
document id (`SOURCE@rN`), the locator and the page. Text XML cannot hold becomes U+FFFD
(`readable.xml_safe`). The same records and acquisition dates give the same bytes: the
core properties are fixed (author "pincite", dates 1980-01-01), so is every ZIP entry's
date, and no clock is read.
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ..vocab import Outcome, RecordFlag
from .readable import BADGES, CANDIDATE, NOT_STATED, format_value, xml_safe
from .spreadsheets import EPOCH_STAMP, reproducible_zip

AUTHOR = "pincite"
PAGE_CM = (29.7, 21.0)  # A4, landscape
MARGIN_CM = 1.5
# the table's columns and their widths in cm: 26.7 cm, the page less its margins
COLUMNS = (("Field", 3.0), ("Outcome", 2.2), ("Value", 4.0), ("Evidence", 13.5),
           ("Where", 4.0))
FONT_PT = 9
_DATE = datetime(1980, 1, 1)


def _text(value: Any) -> str:
    return xml_safe("" if value is None else str(value))


def _para(cell: Any, text: str = "", *, bold: bool = False, italic: bool = False,
          small: bool = False, first: bool = False) -> Any:
    """Add a paragraph holding `text` to `cell` (its first, empty one when `first`)."""
    from docx.shared import Pt

    p = cell.paragraphs[0] if first else cell.add_paragraph()
    if text:
        run = p.add_run(_text(text))
        run.bold, run.italic = bold or None, italic or None
        if small:
            run.font.size = Pt(FONT_PT - 1)
    return p


def _fix_widths(table: Any) -> None:
    """Turn autofit off and set each column's width on the grid, the table and every cell."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn
    from docx.shared import Cm

    table.autofit = False
    tbl_pr = table._tbl.tblPr
    tbl_w = tbl_pr.find(qn("w:tblW"))
    if tbl_w is None:
        tbl_w = OxmlElement("w:tblW")
        tbl_pr.append(tbl_w)
    tbl_w.set(qn("w:type"), "dxa")
    tbl_w.set(qn("w:w"), str(sum(Cm(w) for _, w in COLUMNS) // 635))  # EMU to twips
    for col, (_, w) in zip(table.columns, COLUMNS, strict=True):
        col.width = Cm(w)
    for row in table.rows:
        for cell, (_, w) in zip(row.cells, COLUMNS, strict=True):
            cell.width = Cm(w)


def _header(table: Any) -> None:
    """Write the header row: bold, shaded, repeated at the top of every page."""
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    row = table.rows[0]
    repeat = OxmlElement("w:tblHeader")
    row._tr.get_or_add_trPr().append(repeat)
    for cell, (name, _) in zip(row.cells, COLUMNS, strict=True):
        _para(cell, name, bold=True, first=True)
        shd = OxmlElement("w:shd")
        shd.set(qn("w:val"), "clear")
        shd.set(qn("w:color"), "auto")
        shd.set(qn("w:fill"), "F1F3F5")
        cell._tc.get_or_add_tcPr().append(shd)


def _quote(cell: Any, rec: Mapping[str, Any], p: Mapping[str, Any], first: bool) -> None:
    """Add one citation's quote in quotation marks, the value's span in bold."""
    quote = str(p.get("quote") or "")
    vs = rec.get("value_span") or {}
    s, e = p.get("char_start", 0), p.get("char_end", 0)
    a = b = 0
    if (vs.get("doc_id") == p.get("doc_id") and len(quote) == e - s
            and s <= vs["char_start"] < vs["char_end"] <= e):
        a, b = vs["char_start"] - s, vs["char_end"] - s
    para = _para(cell, first=first)
    for text, bold in (("\u201c" + quote[:a], False), (quote[a:b], True),
                       (quote[b:] + "\u201d", False)):
        if text:
            para.add_run(_text(text)).bold = bold or None


def _status(p: Mapping[str, Any]) -> str:
    """Return a citation's verification, and its hidden-text and OCR marks."""
    out = ["verified" if p.get("quote_verified")
           else f"not verified: {p.get('verify_reason') or 'unknown'}"]
    flags = p.get("flags") or ()
    if RecordFlag.HIDDEN_TEXT in flags:
        out.append("hidden text")
    if RecordFlag.OCR in flags and p.get("ocr_confidence") is not None:
        out.append(f"OCR {p['ocr_confidence']:.0f}")
    return " · ".join(out)


def _row(table: Any, rec: Mapping[str, Any]) -> None:
    """Add the row of one field record."""
    cells = table.add_row().cells
    outcome: Any = rec.get("outcome")
    _para(cells[0], rec["field"], bold=True, first=True)
    if rec.get("hard"):
        _para(cells[0], "disqualifying", small=True)
    _para(cells[1], BADGES.get(outcome, str(outcome)), bold=True, first=True)
    reason = str(rec.get("reason") or "")
    if outcome != Outcome.ABSTAIN and rec.get("confidence") is not None:
        reason += f" · conf {rec['confidence']:.2f}"
    _para(cells[1], reason, small=True)
    if outcome == Outcome.ABSTAIN:
        _para(cells[2], NOT_STATED, italic=True, first=True)
    elif outcome == Outcome.REVIEW:
        _para(cells[2], format_value(rec.get("value")), italic=True, first=True)
        _para(cells[2], CANDIDATE, small=True)
    else:
        _para(cells[2], format_value(rec.get("value")), bold=True, first=True)
    for alt in rec.get("alternatives") or ():
        _para(cells[2], "other passage says: " + format_value(alt.get("value")), small=True)
    for i, p in enumerate(rec.get("provenance") or ()):
        _quote(cells[3], rec, p, first=i == 0)
        _para(cells[3], _status(p), small=True)
        page = f" · p. {p['page']}" if p.get("page") else ""
        _para(cells[4], str(p.get("doc_id", "")), first=i == 0)
        _para(cells[4], f"{p.get('locator', '')}{page}", small=True)


def _details(d: Any, doc: Mapping[str, Any], acquired: Mapping[str, str]) -> None:
    """Write the title, the run's details and the counts of each outcome."""
    run = doc["run"]
    d.add_heading(_text(f"Dictamen · {run.get('schema_name', '')}"), level=0)
    ex = run.get("extractor") or {}
    d.add_paragraph(_text(f"Case {run.get('case_id')} · run {run.get('run_id')} · extractor "
                          f"{ex.get('name', '')} {ex.get('version', '')}".rstrip()))
    if run.get("due_at"):
        d.add_paragraph(_text(f"Deadline: {run['due_at']}"))
    d.add_paragraph("Documents:")
    for item in run.get("docs") or ():
        when = acquired.get(item["doc_id"])
        d.add_paragraph(_text(f"{item['doc_id']} · sha256 {item['doc_sha256']}"
                              + (f" · acquired {when}" if when else "")), style="List Bullet")
    counts = {k: 0 for k in Outcome}
    for rec in doc["records"]:
        if rec.get("outcome") in counts:
            counts[Outcome(rec["outcome"])] += 1
    d.add_paragraph(
        f"{counts[Outcome.SHOW]} shown · {counts[Outcome.FLAG]} flagged · "
        f"{counts[Outcome.REVIEW]} waiting for review · {counts[Outcome.ABSTAIN]} not stated. "
        "Every value below is a pointer into the documents; each citation was verified "
        "against the stored bytes before this report was written.")


def report_docx(doc: Mapping[str, Any], acquired: Mapping[str, str] | None = None) -> bytes:
    """Return `report.docx` of a `records.json` document (`acquired`: each document id's
    acquisition date, shown beside its sha256), the same bytes for the same input."""
    import docx
    from docx.enum.section import WD_ORIENT
    from docx.shared import Cm, Pt

    d = docx.Document()
    sec = d.sections[0]
    sec.orientation = WD_ORIENT.LANDSCAPE
    sec.page_width, sec.page_height = Cm(PAGE_CM[0]), Cm(PAGE_CM[1])
    sec.left_margin = sec.right_margin = sec.top_margin = sec.bottom_margin = Cm(MARGIN_CM)
    d.styles["Normal"].font.size = Pt(FONT_PT)
    _details(d, doc, acquired or {})
    table = d.add_table(rows=1, cols=len(COLUMNS))
    table.style = d.styles["Table Grid"]
    _header(table)
    for rec in doc["records"]:
        _row(table, rec)
    _fix_widths(table)
    core = d.core_properties
    core.author = core.last_modified_by = AUTHOR
    core.title = _text(f"Dictamen · {doc['run'].get('case_id', '')}")
    core.comments = ""
    core.created = core.modified = _DATE
    core.revision = 1
    buf = io.BytesIO()
    d.save(buf)
    return reproducible_zip(buf.getvalue(), EPOCH_STAMP)
