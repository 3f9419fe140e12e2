"""PDF tables: ruled and unruled tables, a table continued over a page break, prose pages
left alone, the example tender."""

from __future__ import annotations

import io

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pincite.limits import Limits
from pincite.model import Element, TextLayer
from pincite.parse.pdf import reading as pdf
from tests.corpus import EXAMPLES

W, H = A4
PROSE = ("The Supplier shall deliver the Products to the Buyer at the place and on the dates "
         "set out in each purchase order, and shall bear the risk of loss until delivery. ")
HEADER = ["Region", "Units", "Revenue"]
ROWS = [["North", "1,204", "$ 15,300"], ["South", "987", "$ 12,450"], ["East", "1,530", "$ 19,020"],
        ["West", "742", "$ 9,870"]]
COLS = [72, 220, 340, 460]  # left edges of three columns and the table's right edge


def _parse(data: bytes) -> TextLayer:
    return pdf.parse(data, password=None, limits=Limits())


def _tables(layer: TextLayer) -> list[tuple[Element, list[Element]]]:
    out = []
    for t in (e for e in layer.elements if e.kind == "table"):
        cells = [e for e in layer.elements if e.kind == "cell"
                 and t.char_start <= e.char_start and e.char_end <= t.char_end]
        out.append((t, cells))
    return out


def _grid(layer: TextLayer, cells: list[Element]) -> list[list[str]]:
    n_rows = max(c.row for c in cells)
    n_cols = max(c.col for c in cells)
    grid = [[""] * n_cols for _ in range(n_rows)]
    for c in cells:
        grid[c.row - 1][c.col - 1] = layer.text[c.char_start:c.char_end]
    return grid


def _prose(c: canvas.Canvas, y: float, n: int = 3) -> float:
    c.setFont("Helvetica", 10)
    words = (PROSE * 4).split()
    for _ in range(n):
        line = ""
        while words and c.stringWidth(line + " " + words[0], "Helvetica", 10) < W - 144:
            line = (line + " " + words.pop(0)).strip()
        c.drawString(72, y, line)
        y -= 13
    return y - 8


def _row(c: canvas.Canvas, y: float, cells: list[str], bold: bool = False) -> None:
    c.setFont("Helvetica-Bold" if bold else "Helvetica", 10)
    for x, text in zip(COLS, cells, strict=False):
        c.drawString(x + 4, y, text)


def _ruled_table(c: canvas.Canvas, top: float, rows: list[list[str]], top_from: float = COLS[0]
                 ) -> float:
    """Draw a grid table whose first row is bold (its top rule from `top_from`); return
    the y under it."""
    pitch = 18
    for k, r in enumerate(rows):
        _row(c, top - 13 - k * pitch, r, bold=k == 0)
    bottom = top - pitch * len(rows)
    c.setLineWidth(0.6)
    for k in range(len(rows) + 1):
        c.line(top_from if k == 0 else COLS[0], top - k * pitch, COLS[-1], top - k * pitch)
    for x in COLS:
        c.line(x, top, x, bottom)
    return bottom - 20


def _pdf(draw) -> bytes:  # type: ignore[no-untyped-def]
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    draw(c)
    c.save()
    return buf.getvalue()


def _check_cells(layer: TextLayer, cells: list[Element]) -> None:
    sizes = layer.page_sizes
    for e in cells:
        assert layer.text[e.char_start:e.char_end].strip()
        assert e.bbox is not None and e.page is not None
        w, h = sizes[e.page - 1]
        x0, top, x1, bottom = e.bbox
        assert 0 <= x0 < x1 <= w and 0 <= top < bottom <= h


def test_ruled_table_with_caption_and_merged_header() -> None:
    def draw(c: canvas.Canvas) -> None:
        y = _prose(c, H - 72)
        c.setFont("Helvetica-Bold", 10)
        c.drawString(72, y, "Table 3: Revenue by region (in dollars)")
        y -= 10
        # a merged header cell over the last two columns, then the column headers
        c.setFont("Helvetica-Bold", 10)
        c.drawCentredString((COLS[1] + COLS[3]) / 2, y - 13, "Results 2024")
        c.setLineWidth(0.6)
        c.line(COLS[0], y, COLS[-1], y)
        for x in (COLS[0], COLS[1], COLS[-1]):
            c.line(x, y, x, y - 18)
        # the table's top rule runs under the merged cell only: "Region" spans two rows
        y = _ruled_table(c, y - 18, [HEADER] + ROWS, top_from=COLS[1])
        _prose(c, y)

    layer = _parse(_pdf(draw))
    [(table, cells)] = _tables(layer)
    grid = _grid(layer, cells)
    # no ruling under "Region": it spans both header rows
    assert grid == [["Region", "Results 2024", ""], ["", "Units", "Revenue"]] + ROWS
    spans = {layer.text[c.char_start:c.char_end]: (c.meta or {}) for c in cells}
    assert spans["Results 2024"].get("col_span") == 2 and spans["Region"].get("row_span") == 2
    assert table.meta and table.meta["caption"] == "Table 3: Revenue by region (in dollars)"
    assert table.meta["header_rows"] == 2
    _check_cells(layer, cells)
    units = next(c for c in cells if layer.text[c.char_start:c.char_end] == "1,204")
    assert units.locator == "table 1 / North / Results 2024 > Units"
    # the prose around the table is still there, outside the table's span
    assert "The Supplier" in layer.text[:table.char_start]
    assert "The Supplier" in layer.text[table.char_end:]
    assert "The Supplier" not in layer.text[table.char_start:table.char_end]


def test_unruled_table_aligned_by_whitespace() -> None:
    def draw(c: canvas.Canvas) -> None:
        y = _prose(c, H - 72)
        c.setFont("Helvetica-Bold", 10)
        for x, text in zip(COLS, HEADER, strict=False):
            c.drawString(x, y, text)
        y -= 16
        c.setFont("Helvetica", 10)
        for r in ROWS:
            c.drawString(COLS[0], y, r[0])
            for x, text in zip(COLS[1:3], r[1:], strict=True):  # numbers set flush right
                c.drawRightString(x + 80, y, text)
            y -= 14
        _prose(c, y - 10)

    layer = _parse(_pdf(draw))
    [(table, cells)] = _tables(layer)
    assert _grid(layer, cells) == [HEADER] + ROWS
    assert table.meta and table.meta["header_rows"] == 1
    _check_cells(layer, cells)


def test_table_continued_on_next_page_is_one_table_with_one_header() -> None:
    rows = [[f"Item {k}", f"{k * 7}", f"$ {k * 130:,}"] for k in range(1, 41)]

    def draw(c: canvas.Canvas) -> None:
        y = _prose(c, H - 72, 2)
        first = 34  # rows on page 1, down to the bottom margin
        _ruled_table(c, y, [HEADER] + rows[:first])
        c.setFont("Helvetica", 9)
        c.drawCentredString(W / 2, 30, "Page 1 of 2")
        c.showPage()
        y = _ruled_table(c, H - 60, [HEADER] + rows[first:])
        _prose(c, y)
        c.setFont("Helvetica", 9)
        c.drawCentredString(W / 2, 30, "Page 2 of 2")

    layer = _parse(_pdf(draw))
    [(table, cells)] = _tables(layer)
    assert table.meta and table.meta["pages"] == [1, 2]
    assert _grid(layer, cells) == [HEADER] + rows
    assert layer.text.count("Revenue") == 1  # the repeated header row is dropped
    assert {c.page for c in cells} == {1, 2}
    _check_cells(layer, cells)
    last = next(c for c in cells if layer.text[c.char_start:c.char_end] == "Item 40")
    assert last.page == 2


def test_unruled_table_with_wrapped_labels() -> None:
    """Class: an unruled table whose row labels wrap onto a second line, the values on the
    label's first line (the next line starts in small letters) or on its last (the first
    line stops mid-phrase, "… from the")."""
    lines = [("Office cleaning", "1 200", "-"), ("Maintenance and repair of", "400", "12"),
             ("lifts and escalators", None, None), ("Security", "5 000", "200"),
             ("Removal of waste from the", None, None), ("municipal depots", "150", "24"),
             ("Gardening", "300", "20")]

    def draw(c: canvas.Canvas) -> None:
        y = _prose(c, H - 72)
        c.setFont("Helvetica-Bold", 9)
        for x, text in ((72, "Service"), (300, "Hours"), (380, "Visits")):
            c.drawString(x, y, text)
        y -= 14
        c.setFont("Helvetica", 9)
        for label, hours, visits in lines:
            c.drawString(72, y, label)
            if hours:
                c.drawRightString(340, y, hours)
                c.drawRightString(420, y, visits or "")
            y -= 11
        _prose(c, y - 10)

    layer = _parse(_pdf(draw))
    [(_, cells)] = _tables(layer)
    assert _grid(layer, cells) == [
        ["Service", "Hours", "Visits"], ["Office cleaning", "1 200", "-"],
        ["Maintenance and repair of lifts and escalators", "400", "12"], ["Security", "5 000", "200"],
        ["Removal of waste from the municipal depots", "150", "24"], ["Gardening", "300", "20"]]


def test_table_in_one_column_of_a_two_column_page() -> None:
    def column(c: canvas.Canvas, x0: float, x1: float, y: float, n: int) -> float:
        c.setFont("Helvetica", 9)
        words = (PROSE * 8).split()
        for _ in range(n):
            line = ""
            while words and c.stringWidth(line + " " + words[0], "Helvetica", 9) < x1 - x0:
                line = (line + " " + words.pop(0)).strip()
            c.drawString(x0, y, line)
            y -= 11.7
        return y - 8

    def draw(c: canvas.Canvas) -> None:
        column(c, 72, 290, H - 72, 40)
        y = column(c, 310, 520, H - 72, 4)
        c.setFont("Helvetica-Bold", 8)
        for x, text in ((310, "Year"), (380, "Sales"), (450, "Profit")):
            c.drawString(x, y, text)
        y -= 11
        c.setFont("Helvetica", 8)
        for year, sales, profit in (("2019", "120", "12"), ("2020", "98", "7"), ("2021", "143", "15")):
            c.drawString(310, y, year)
            c.drawRightString(410, y, sales)
            c.drawRightString(480, y, profit)
            y -= 10
        column(c, 310, 520, y - 8, 10)

    layer = _parse(_pdf(draw))
    [(_, cells)] = _tables(layer)
    assert _grid(layer, cells) == [["Year", "Sales", "Profit"], ["2019", "120", "12"],
                                   ["2020", "98", "7"], ["2021", "143", "15"]]


def test_numbered_transcript_lines_are_no_table() -> None:
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Courier", 11)
        words = (PROSE * 6).split()
        for n in range(1, 26):
            line = " ".join(words[(n * 7) % 40:(n * 7) % 40 + 8])
            c.drawString(72, H - 72 - 22 * n, str(n))
            c.drawString(110, H - 72 - 22 * n, line)

    assert not _tables(_parse(_pdf(draw)))


def test_prose_page_has_no_table() -> None:
    def draw(c: canvas.Canvas) -> None:
        y = H - 72
        c.setFont("Helvetica-Bold", 12)
        c.drawString(72, y, "1. Delivery")
        y = _prose(c, y - 20, 8)
        c.setFont("Helvetica", 10)
        for k, item in enumerate(["(a)   the place of delivery;", "(b)   the date of delivery;",
                                  "(c)   the carrier.", "(d)   the insurer."]):
            c.drawString(90, y - 14 * k, item)
        _prose(c, y - 80, 8)
        c.line(72, 120, 200, 120)  # a signature line
        c.drawString(72, 108, "By: ____________________")

    layer = _parse(_pdf(draw))
    assert not _tables(layer)
    assert "the place of delivery;" in layer.text


def test_tender_example_tables() -> None:
    layer = _parse((EXAMPLES / "tender" / "pliego.pdf").read_bytes())
    tables = _tables(layer)
    assert [(t.meta["n_rows"], t.meta["n_cols"]) for t, _ in tables] == [(4, 3), (3, 2)]  # type: ignore[index]
    (_, solvency), (_, award) = tables
    assert _grid(layer, solvency)[1] == ["Volumen anual de negocios", "450.000 €",
                                         "Cuentas anuales depositadas"]
    assert _grid(layer, award)[0] == ["Criterio", "Ponderación"]
    locators = {c.locator: layer.text[c.char_start:c.char_end] for c in solvency + award}
    assert locators["table 1 / Volumen anual de negocios / Umbral mínimo"] == "450.000 €"
    assert locators["table 2 / Oferta económica (precio) / Ponderación"] == "60 puntos"
    assert locators["table 2 / Calidad técnica de la propuesta / Ponderación"] == "40 puntos"
    _check_cells(layer, solvency + award)
