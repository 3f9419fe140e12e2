"""Write examples/workbook/: a fictional annual report (PDF, tables on two pages), its key
figures in Spanish (XLSX), the target operating model to fill (XLSX) and marks.csv.

    python scripts/make_workbook_example.py [OUT_DIR]

The files are deterministic (reportlab's invariant mode, fixed workbook properties).
"""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path

FIXED = dt.datetime(2025, 3, 31, 12, 0, 0)

INCOME = [
    ["", "2024", "2023"],
    ["Net sales", "1,248.6", "1,102.3"],
    ["Cost of sales", "(812.4)", "(731.9)"],
    ["Gross profit", "436.2", "370.4"],
    ["EBITDA", "198.7", "171.2"],
    ["Adjusted EBITDA", "205.1", "176.0"],
    ["Operating profit", "142.9", "118.6"],
    ["Net income", "96.0", "80.4"],
]
BALANCE = [
    ["", "31 Dec 2024", "31 Dec 2023"],
    ["Total assets", "2,015.8", "1,874.2"],
    ["Total equity", "884.5", "810.7"],
    ["Cash and cash equivalents", "221.3", "187.9"],
    ["Net debt", "402.6", "455.0"],
]
# Spanish key figures in thousands of euros; net income disagrees with the PDF's rounding
KEY_FIGURES = [
    ["Cifras clave (miles de euros)", None, None],
    [None, None, None],
    ["Concepto", "Ejercicio 2024", "Ejercicio 2023"],
    ["Importe neto de la cifra de negocios", 1248600, 1102300],
    ["Resultado del ejercicio", 95480, 80400],
    ["Inversiones en inmovilizado", 131200, 118900],
]
MODEL_ROWS = ["Revenue", "Cost of sales", "Gross profit", "EBITDA", "Operating profit (EBIT)",
              "Net income", "Gross margin %", "Capital expenditure", "Total assets",
              "Cash", "Net debt", "Dividends paid"]


def build_pdf(path: Path) -> None:
    """Write the annual report PDF: an income statement and a balance sheet, as tables."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import (
        PageBreak,
        Paragraph,
        SimpleDocTemplate,
        Spacer,
        Table,
        TableStyle,
    )

    ss = getSampleStyleSheet()
    doc = SimpleDocTemplate(str(path), pagesize=A4, invariant=1, title="Atlas Foods S.A. Annual Report 2024")

    def table(rows: list[list[str]]) -> Table:
        t = Table(rows, colWidths=[200, 130, 130])
        t.setStyle(TableStyle([("ALIGN", (1, 0), (-1, -1), "RIGHT"),
                               ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black)]))
        return t

    story = [
        Paragraph("Atlas Foods S.A. Annual Report 2024", ss["Title"]),
        Paragraph("Consolidated income statement", ss["Heading2"]),
        Paragraph("Year ended 31 December, in millions of euros.", ss["Normal"]),
        Spacer(1, 8), table(INCOME), Spacer(1, 12),
        Paragraph("The Group employed an average of 6,420 people in 2024.", ss["Normal"]),
        PageBreak(),
        Paragraph("Consolidated balance sheet", ss["Heading2"]),
        Paragraph("At 31 December, in millions of euros.", ss["Normal"]),
        Spacer(1, 8), table(BALANCE),
    ]
    doc.build(story)


def _fixed(wb) -> None:  # type: ignore[no-untyped-def]
    wb.properties.created = FIXED
    wb.properties.modified = FIXED
    wb.properties.creator = "pincite example"


def _save(wb, path: Path) -> None:  # type: ignore[no-untyped-def]
    """Save a workbook with fixed ZIP entry times and properties (same bytes every run)."""
    import io
    import re
    import zipfile

    buf = io.BytesIO()
    wb.save(buf)
    out = io.BytesIO()
    with zipfile.ZipFile(buf) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            data = src.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:modified[^>]*>)[^<]*", rb"\g<1>2025-03-31T12:00:00Z", data)
            dst.writestr(zipfile.ZipInfo(info.filename, date_time=FIXED.timetuple()[:6]), data,
                         compress_type=zipfile.ZIP_DEFLATED)
    path.write_bytes(out.getvalue())


def build_key_figures(path: Path) -> None:
    """Write the Spanish key figures workbook (thousands of euros)."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Cifras clave"
    for row in KEY_FIGURES:
        ws.append(row)
    _fixed(wb)
    _save(wb, path)


def build_model(path: Path) -> None:
    """Write the target operating model: blank cells to fill and one formula row."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    ws = wb.active
    ws.title = "Operating Model"
    ws.append(["Atlas Foods operating model (EUR millions)"])
    ws["A1"].font = Font(bold=True)
    ws.append([])
    ws.append(["Metric", "2023A", "2024A"])
    for label in MODEL_ROWS:
        ws.append([label, None, None])
    gm = 4 + MODEL_ROWS.index("Gross margin %")
    gp, rev = 4 + MODEL_ROWS.index("Gross profit"), 4 + MODEL_ROWS.index("Revenue")
    for col in ("B", "C"):
        ws[f"{col}{gm}"] = f"={col}{gp}/{col}{rev}"
        ws[f"{col}{gm}"].number_format = "0.0%"
    ws.column_dimensions["A"].width = 28
    _fixed(wb)
    _save(wb, path)


MARKS = """obligation_id,status,target_table,reason
"""


def main(out: str) -> None:
    """Write every file of the example into `out`."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    build_pdf(d / "annual-report.pdf")
    build_key_figures(d / "key-figures.xlsx")
    build_model(d / "operating-model.xlsx")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "examples/workbook")
