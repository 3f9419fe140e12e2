"""The PDF table detector's rules, each on a document made here for the class of layouts it
states (`spans`, `blocks`): spans in ruled tables, header rows and header labels, values set
between rows, tables that follow each other, section labels, captions, diagrams."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from pincite.limits import Limits
from pincite.model import Element, TextLayer
from pincite.parse.pdf import reading as pdf

W, H = A4
PROSE = ("The contracting authority publishes this notice so that every tenderer can see how the "
         "award criteria are weighed and which documents must be sent with each tender. ")
XS = [72, 250, 330, 410]  # left edges of four columns
RULED = [72, 220, 300, 380, 470]  # the rulings of a ruled table's four columns
HEAD = ["Item", "Quantity", "Unit price", "Total"]
BODY = [["Chairs", "12", "145.00", "1,740.00"], ["Desks", "4", "310.00", "1,240.00"],
        ["Lamps", "30", "15.00", "450.00"]]
Draw = Callable[[canvas.Canvas], None]


def _prose(c: canvas.Canvas, y: float, n: int = 2) -> float:
    c.setFont("Helvetica", 10)
    words = (PROSE * 4).split()
    for _ in range(n):
        line = ""
        while words and c.stringWidth(line + " " + words[0], "Helvetica", 10) < W - 144:
            line = (line + " " + words.pop(0)).strip()
        c.drawString(72, y, line)
        y -= 13
    return y - 8


def _page(draw: Callable[[canvas.Canvas, float], float]) -> TextLayer:
    """Return the layer of a page: prose, what `draw` sets from y down, prose."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4)
    _prose(c, _draw_below(c, draw))
    c.save()
    return pdf.parse(buf.getvalue(), password=None, limits=Limits())


def _draw_below(c: canvas.Canvas, draw: Callable[[canvas.Canvas, float], float]) -> float:
    return draw(c, _prose(c, H - 72)) - 16


def _rows(c: canvas.Canvas, y: float, rows: list[list[str | None]], bold: int = 1,
          pitch: float = 14) -> float:
    """Set rows of text at the columns XS (the first `bold` rows bold); return the y below."""
    for k, r in enumerate(rows):
        c.setFont("Helvetica-Bold" if k < bold else "Helvetica", 10)
        for x, text in zip(XS, r, strict=False):
            if text:
                c.drawString(x, y, text)
        y -= pitch
    return y


def _ruled(c: canvas.Canvas, top: float, rows: list[list[str | None]],
           no_v: set[tuple[int, int]] = frozenset(),  # type: ignore[assignment]
           no_h: set[tuple[int, int]] = frozenset()) -> float:  # type: ignore[assignment]
    """Draw a ruled grid (18 pt rows); `no_v` (row, ruling) and `no_h` (ruling, column)
    leave pieces of rulings out."""
    pitch = 18
    for k, r in enumerate(rows):
        c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 10)
        for x, text in zip(RULED, r, strict=False):
            if text:
                c.drawString(x + 4, top - 13 - k * pitch, text)
    c.setLineWidth(0.6)
    for k in range(len(rows) + 1):
        for j in range(len(RULED) - 1):
            if (k, j) not in no_h:
                c.line(RULED[j], top - k * pitch, RULED[j + 1], top - k * pitch)
    for j, x in enumerate(RULED):
        for k in range(len(rows)):
            if (k, j) not in no_v:
                c.line(x, top - k * pitch, x, top - (k + 1) * pitch)
    return top - pitch * len(rows) - 10


def _tables(layer: TextLayer) -> list[tuple[Element, list[list[str]]]]:
    """Return each table and its grid; a spanning cell reads 'text [rows x cols]'."""
    out = []
    for t in (e for e in layer.elements if e.kind == "table"):
        cells = [e for e in layer.elements if e.kind == "cell"
                 and t.char_start <= e.char_start and e.char_end <= t.char_end]
        grid = [[""] * max(c.col for c in cells) for _ in range(max(c.row for c in cells))]
        for c in cells:
            m = c.meta or {}
            text = layer.text[c.char_start:c.char_end]
            rs, cs = int(m.get("row_span", 1)), int(m.get("col_span", 1))
            grid[c.row - 1][c.col - 1] = text + (f" [{rs}x{cs}]" if rs > 1 or cs > 1 else "")
        out.append((t, grid))
    return out


def _one(layer: TextLayer) -> tuple[dict, list[list[str]]]:
    [(table, grid)] = _tables(layer)
    assert table.meta is not None
    return table.meta, grid


# ---- ruled tables (spans.lattice_spans, spans.lattice_rowspans) -------------------------


def test_ruled_cell_runs_on_where_the_ruling_beside_it_is_missing() -> None:
    """Class: a ruled table whose cell spans columns leaves out the rulings inside it."""
    rows: list[list[str | None]] = [HEAD, BODY[0], ["Delivery", "Free", None, "0.00"], BODY[1]]
    _, grid = _one(_page(lambda c, y: _ruled(c, y, rows, no_v={(2, 2)})))
    assert grid == [HEAD, BODY[0], ["Delivery", "Free [1x2]", "", "0.00"], BODY[1]]


def test_ruled_cell_runs_down_where_the_ruling_under_it_is_missing() -> None:
    """Class: a ruled table whose cell spans rows leaves out the ruling under it."""
    rows: list[list[str | None]] = [["Lot", "Item", "Quantity", "Total"],
                                    ["Lot 1", "Chairs", "12", "1,740.00"],
                                    [None, "Desks", "4", "1,240.00"], ["Lot 2", "Lamps", "30", "450.00"]]
    _, grid = _one(_page(lambda c, y: _ruled(c, y, rows, no_h={(2, 0)})))
    assert grid == [["Lot", "Item", "Quantity", "Total"], ["Lot 1 [2x1]", "Chairs", "12", "1,740.00"],
                    ["", "Desks", "4", "1,240.00"], ["Lot 2", "Lamps", "30", "450.00"]]


# ---- header rows and labels (spans.header_zone, header_spans, merge_header, …) ------------


@pytest.mark.parametrize("rule", [True, False])
def test_numbers_head_columns_above_a_rule_across_the_table(rule: bool) -> None:
    """Class: years (or lot numbers) heading columns under a spanning label: numbers like
    the values below them, the header only because a rule across the table ends it."""
    def draw(c: canvas.Canvas, y: float) -> float:
        c.setFont("Helvetica-Bold", 10)
        c.drawString(72, y, "Criterion")
        c.drawCentredString(340, y, "Weight by year (%)")
        c.setLineWidth(0.6)
        c.line(72, y + 12, 460, y + 12)
        c.line(250, y - 3, 460, y - 3)
        y -= 16
        if rule:
            c.line(72, y - 4, 460, y - 4)
        y = _rows(c, y, [["", "2023", "2024", "2025"], ["Price", "60", "55", "50"],
                         ["Quality", "30", "35", "40"], ["Delivery", "10", "10", "10"]], pitch=16)
        c.line(72, y + 12, 460, y + 12)
        return y

    meta, grid = _one(_page(draw))
    assert grid[1:] == [["", "2023", "2024", "2025"], ["Price", "60", "55", "50"],
                        ["Quality", "30", "35", "40"], ["Delivery", "10", "10", "10"]]
    if rule:  # two header rows; "Criterion" has nothing under it: it spans both
        assert meta["header_rows"] == 2 and grid[0] == ["Criterion [2x1]", "Weight by year (%) [1x3]", "", ""]
    else:  # without the rule the years read as the first row of values
        assert meta["header_rows"] == 1 and grid[0] == ["Criterion", "Weight by year (%) [1x3]", "", ""]


def test_lone_header_label_spans_the_columns_it_is_centred_over() -> None:
    """Class: an unruled header whose top label is centred over the columns it heads; the
    labels beside it, with nothing above them, span both header rows."""
    def draw(c: canvas.Canvas, y: float) -> float:
        c.setFont("Helvetica-Bold", 10)
        c.drawCentredString(304, y, "EUR")
        return _rows(c, y - 14, [["Item", "Net", "Gross", "Stock"], ["Chairs", "145.00", "175.45", "12"],
                                 ["Desks", "310.00", "375.10", "4"], ["Lamps", "15.00", "18.15", "30"]])

    meta, grid = _one(_page(draw))
    assert meta["header_rows"] == 2
    assert grid[:2] == [["Item [2x1]", "EUR [1x2]", "", "Stock [2x1]"], ["", "Net", "Gross", ""]]


def test_header_lines_of_one_column_labels_are_one_header_row() -> None:
    """Class: column labels set on two lines, each under its own column (no spanning label,
    no rule between): one header row of two-line labels."""
    meta, grid = _one(_page(lambda c, y: _rows(c, y, [
        ["Item", "Unit", "Total", "Delivery"], [None, "price", "amount", "weeks"],
        ["Chairs", "145.00", "1,740.00", "4"], ["Desks", "310.00", "1,240.00", "6"],
        ["Lamps", "15.00", "450.00", "2"]], bold=2, pitch=12)))
    assert meta["header_rows"] == 1
    assert grid[0] == ["Item", "Unit price", "Total amount", "Delivery weeks"]


def test_stacked_labels_in_a_header_of_two_levels_are_one_label() -> None:
    """Class: a two-level header (a label spanning columns over their own labels) where a
    one-column label beside it takes two lines: one label, not two header cells."""
    def draw(c: canvas.Canvas, y: float) -> float:
        c.setFont("Helvetica-Bold", 10)
        c.drawString(72, y, "Item")
        c.drawString(250, y, "Stock")
        c.drawCentredString(390, y, "Price (EUR)")
        c.setLineWidth(0.6)
        c.line(330, y - 3, 460, y - 3)
        c.drawString(250, y - 14, "level")
        c.drawString(330, y - 14, "Net")
        c.drawString(410, y - 14, "Gross")
        return _rows(c, y - 28, [["Chairs", "12", "145.00", "175.45"], ["Desks", "4", "310.00", "375.10"],
                                 ["Lamps", "30", "15.00", "18.15"]], bold=0)

    meta, grid = _one(_page(draw))
    assert meta["header_rows"] == 2
    assert grid[:2] == [["Item [2x1]", "Stock level [2x1]", "Price (EUR) [1x2]", ""], ["", "", "Net", "Gross"]]


def test_value_set_midway_between_two_rows_spans_both() -> None:
    """Class: a value that belongs to two rows set halfway between them (a lot letter beside
    the two items of its lot), the rows set close (a line pitch of 1.4 × the type size)."""
    def draw(c: canvas.Canvas, y: float) -> float:
        y = _rows(c, y, [["Item", "Lot", "Quantity", "Unit price"]], pitch=16)
        c.setFont("Helvetica", 10)
        for pair, lot in (([("Chairs", "12", "145.00"), ("Desks", "4", "310.00")], "A"),
                          ([("Lamps", "30", "15.00"), ("Shelves", "8", "30.00")], "B")):
            c.drawString(XS[1], y - 7, lot)
            for item, qty, price in pair:
                c.drawString(XS[0], y, item)
                c.drawString(XS[2], y, qty)
                c.drawString(XS[3], y, price)
                y -= 14
        return y

    _, grid = _one(_page(draw))
    assert grid == [["Item", "Lot", "Quantity", "Unit price"], ["Chairs", "A [2x1]", "12", "145.00"],
                    ["Desks", "", "4", "310.00"], ["Lamps", "B [2x1]", "30", "15.00"],
                    ["Shelves", "", "8", "30.00"]]


# ---- blocks of aligned rows (blocks.blocks, blocks._header_rows, blocks.boxed) ------------


def test_the_header_again_starts_the_next_table() -> None:
    """Class: two unruled tables one under the other with the same header row."""
    second = [["Boards", "6", "80.00", "480.00"], ["Easels", "3", "45.00", "135.00"],
              ["Shelves", "8", "30.00", "240.00"]]
    layer = _page(lambda c, y: _rows(c, _rows(c, y, [HEAD, *BODY]) - 4, [HEAD, *second]))
    assert [grid for _, grid in _tables(layer)] == [[HEAD, *BODY], [HEAD, *second]]


def test_section_labels_between_rows_stay_in_the_table() -> None:
    """Class: an unruled table whose rows fall into sections, each under a label alone on
    its row (at most two such rows together)."""
    rows: list[list[str | None]] = [HEAD, ["Lot 1: furniture"], BODY[0], BODY[1], ["Lot 2: lighting"],
                                    BODY[2], ["Spots", "10", "22.00", "220.00"]]
    meta, grid = _one(_page(lambda c, y: _rows(c, y, rows)))
    assert grid == [HEAD, ["Lot 1: furniture", "", "", ""], BODY[0], BODY[1],
                    ["Lot 2: lighting", "", "", ""], BODY[2], ["Spots", "10", "22.00", "220.00"]]
    assert meta["header_rows"] == 1


def test_a_caption_above_a_table_is_its_caption_not_a_header_row() -> None:
    """Class: a caption ("Table 2: …") set just above an unruled table, set in from the left
    like a header label."""
    def draw(c: canvas.Canvas, y: float) -> float:
        c.setFont("Helvetica-Bold", 10)
        c.drawString(250, y, "Table 2: Prices per item")
        return _rows(c, y - 16, [HEAD, *BODY])

    meta, grid = _one(_page(draw))
    assert grid == [HEAD, *BODY]
    assert meta["caption"] == "Table 2: Prices per item"


@pytest.mark.parametrize("boxed", [True, False])
def test_labels_in_boxes_of_their_own_are_a_diagram(boxed: bool) -> None:
    """Class: a flow chart or org chart, its labels aligned in rows and columns, each in a
    box of its own: no table. The same labels without boxes are one."""
    labels = [["Tender", "Opening", "Award"], ["Review", "Scoring", "Notice"],
              ["Appeal", "Contract", "Start"]]

    def draw(c: canvas.Canvas, y: float) -> float:
        c.setLineWidth(0.8)
        c.setFont("Helvetica", 10)
        for k, row in enumerate(labels):
            for j, text in enumerate(row):
                x = 72 + j * 160
                if boxed:
                    c.rect(x - 6, y - 5 - k * 24, 90, 17)
                c.drawString(x, y - k * 24, text)
        return y - 72

    tables = _tables(_page(draw))
    assert [grid for _, grid in tables] == ([] if boxed else [labels])
