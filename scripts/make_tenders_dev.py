"""Build the tender dev corpus under examples/tenders-dev/ (deterministic; outputs committed).

Twenty cases (ten Spanish, ten English) in templates unlike examples/tender: ordinal
clauses, a "cuadro resumen" table, a numbered-section contract notice, an invitation to
tender with a form of tender, a profile page of label/value pairs, conditions split over a
notice, a pliego and an annex, corrigenda (a second revision of a document), conditions
absent, and templates left blank ("[●]", "____", "__/__/20__", "X%", "[insert date]",
"…… euros", ", 2026" after a drawn fill-in line). The text is written for pincite.

`batch` 2 marks the cases written after the rules were tuned on batch 1 (their first read
is in docs/evaluation.md). `gold.json` beside the cases holds, per case, its documents (in
reading order, the first the main one), the revisions ingested over them, and per field of
examples/tender/schema.yaml (`schema` names it) the stated value or `{"blank": true}`; a field not listed is
not stated. Text values may list `also` (other spans that state the same thing).

Usage: python scripts/make_tenders_dev.py [OUT]   (default examples/tenders-dev)
"""

from __future__ import annotations

import io
import json
import sys
import zipfile
from datetime import datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import tenders_dev_en  # noqa: E402
import tenders_dev_es  # noqa: E402

FIXED = datetime(2026, 1, 1, 0, 0, 0)
SCHEMA = "tender-dictamen"  # the name of examples/tender/schema.yaml


def build_pdf(path: Path, style: dict[str, Any], blocks: list[Any]) -> None:
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.platypus import (
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    font = style.get("font", "Helvetica")
    bold = {"Times": "Times-Bold", "Helvetica": "Helvetica-Bold"}[font]
    base = {"Times": "Times-Roman", "Helvetica": "Helvetica"}[font]
    ss = getSampleStyleSheet()
    body = ParagraphStyle("body", parent=ss["BodyText"], fontName=base, fontSize=10.5, leading=14)
    small = ParagraphStyle("small", parent=body, fontSize=8.5, leading=11)
    cell = ParagraphStyle("cell", parent=body, fontSize=9, leading=11)
    title = ParagraphStyle("title", parent=ss["Title"], fontName=bold, fontSize=15, leading=19)
    h1 = ParagraphStyle("h1", parent=ss["Heading1"], fontName=bold, fontSize=13, leading=16)
    h2 = ParagraphStyle("h2", parent=ss["Heading2"], fontName=bold, fontSize=11.5, leading=14)
    header, footer = style.get("header"), style.get("footer")

    def on_page(canvas: Any, doc: Any) -> None:
        canvas.saveState()
        canvas.setFont(base, 8)
        if header:
            canvas.drawString(72, A4[1] - 40, header)
        canvas.drawCentredString(A4[0] / 2, 30, f"{footer} — {doc.page}" if footer else str(doc.page))
        canvas.restoreState()

    story: list[Any] = []
    for b in blocks:
        kind = b[0]
        if kind == "break":
            story.append(PageBreak())
        elif kind == "table":
            rows = [[Paragraph(c, cell) for c in row] for row in b[1]]
            width = (A4[0] - 144) / len(rows[0])
            t = Table(rows, colWidths=[width] * len(rows[0]), hAlign="LEFT")
            t.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                                   ("VALIGN", (0, 0), (-1, -1), "TOP")]))
            story += [Spacer(1, 4), t, Spacer(1, 6)]
        else:
            story.append(Paragraph(b[1], {"title": title, "h1": h1, "h2": h2, "p": body,
                                          "small": small}[kind]))
    doc = SimpleDocTemplate(str(path), pagesize=A4, title=blocks[0][1][:80],
                            author="pincite tenders-dev", topMargin=60, bottomMargin=60,
                            invariant=1)
    doc.build(story, onFirstPage=on_page, onLaterPages=on_page)


def build_docx(path: Path, blocks: list[Any]) -> None:
    import docx

    d = docx.Document()
    props = d.core_properties
    props.author = "pincite tenders-dev"
    props.last_modified_by = "pincite tenders-dev"
    props.created = props.modified = FIXED
    props.revision = 1
    for b in blocks:
        kind = b[0]
        if kind in ("title", "h1"):
            d.add_heading(b[1], level=1)
        elif kind == "h2":
            d.add_heading(b[1], level=2)
        elif kind == "table":
            rows = b[1]
            t = d.add_table(rows=len(rows), cols=len(rows[0]))
            t.style = "Table Grid"
            for r, row in enumerate(rows):
                for c, val in enumerate(row):
                    t.cell(r, c).text = val
        else:
            d.add_paragraph(b[1])
    buf = io.BytesIO()
    d.save(buf)
    # the same bytes on every run: fixed member dates, members in the order written
    with zipfile.ZipFile(io.BytesIO(buf.getvalue())) as src, \
            zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as out:
        for info in src.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            out.writestr(fixed, src.read(info.filename))


def write_doc(root: Path, rel: str, style: Any, content: Any) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if rel.endswith(".pdf"):
        build_pdf(path, style or {}, content)
    elif rel.endswith(".docx"):
        build_docx(path, content)
    else:
        path.write_text(content, encoding="utf-8")


def main(out: str) -> None:
    root = Path(out)
    root.mkdir(parents=True, exist_ok=True)
    cases = []
    for case in tenders_dev_es.CASES + tenders_dev_en.CASES:
        name = case["case"]
        for rel, style, content in case["docs"]:
            write_doc(root, f"{name}/{rel}", style, content)
        revisions = []
        for of, rel, style, content in case.get("revisions", ()):
            write_doc(root, f"{name}/{rel}", style, content)
            revisions.append({"source": f"{name}/{of}", "file": f"{name}/{rel}"})
        fields = {}
        for field, gold in case["gold"].items():
            if gold == {"blank": True}:
                fields[field] = {"blank": True}
            elif isinstance(gold, dict) and "value" in gold and set(gold) <= {"value", "also"}:
                fields[field] = gold
            else:
                fields[field] = {"value": gold}
        cases.append({"case": name, "lang": case["lang"], "batch": case.get("batch", 1),
                      "docs": [f"{name}/{rel}" for rel, _, _ in case["docs"]],
                      "revisions": revisions, "fields": fields})
    gold = {"schema_name": "pincite.tender-gold", "version": 1, "schema": SCHEMA, "cases": cases}
    (root / "gold.json").write_text(json.dumps(gold, indent=1, ensure_ascii=False) + "\n",
                                    encoding="utf-8")
    print(f"wrote {len(cases)} cases to {root}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples/tenders-dev")
