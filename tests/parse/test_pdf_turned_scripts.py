"""Scripts on turned pages: right-to-left runs, superscripts and combining accents on a
/Rotate page whose content is not turned back (the text runs down, up or upside down as
shown) read exactly as on the upright page, and each composed character keeps one box in
the line's own frame as well as as shown."""

from __future__ import annotations

import io

import pytest
from reportlab.pdfgen import canvas

from pincite.evals.strata.writer import PdfWriter
from pincite.limits import Limits
from pincite.model import TextLayer
from pincite.parse.pdf import reading as pdf
from pincite.parse.pdf.nfc import compose

ACUTE, GRAVE, CIRCUMFLEX = "\u0301", "\u0300", "\u0302"


def _parse(data: bytes) -> TextLayer:
    return pdf.parse(data, password=None, limits=Limits())


def _rtl_and_scripts(rotate: int) -> bytes:
    """Three lines mixing Arabic (a lam-alef glyph, a mark drawn after its base, drawn in
    visual order) with a Latin word, then a line with a superscript drawn after it."""
    w = PdfWriter()
    pg = w.page(rotate=rotate)
    y = 700.0
    for _ in range(3):  # visual order, left to right: "أيضًا", "خلال", "Python", "من"
        pg.draw(72, y, 12, ["\u0627", "\u0636", 400, "\u064b", -250, "\u064a", "\u0623", " ",
                            "\u0644", "\u0644\u0627", "\u062e", " ", *"Python", " ",
                            "\u0646", "\u0645"])
        y -= 20
    pg.text(72, y - 20, 12, "Notice is given on the 26")
    pg.draw(72 + pg.advance("Notice is given on the 26", 12), y - 20, 7, list("th"), rise=4)
    return w.tobytes()


ARABIC_LINE = "\u0645\u0646 Python \u062e\u0644\u0627\u0644 \u0623\u064a\u0636\u064b\u0627"


@pytest.mark.parametrize("rotate", [90, 180, 270])
def test_right_to_left_runs_and_superscripts_on_a_turned_page_read_as_upright(rotate: int) -> None:
    expected = " ".join([ARABIC_LINE] * 3) + "\n\nNotice is given on the 26th"
    assert _parse(_rtl_and_scripts(0)).text == expected
    assert _parse(_rtl_and_scripts(rotate)).text == expected


def _sideways_margin(run_at: tuple[float, float]) -> bytes:
    """Upright clause lines, a note set up the right margin, and a small run "th" set up
    the page at `run_at` (PDF space)."""
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=(612, 792))
    c.setFont("Helvetica", 11)
    for y, s in [(700, "Notice is given on the 26"), (680, "of May by the Buyer to the Seller."),
                 (660, "The rest of the clause runs on here.")]:
        c.drawString(72, y, s)
    for (x, y), s, size in [((560, 200), "Draft copy for the tender board only", 9), (run_at, "th", 6)]:
        c.saveState()
        c.translate(x, y)
        c.rotate(90)
        c.setFont("Helvetica", size)
        c.drawString(0, 0, s)
        c.restoreState()
    c.showPage()
    c.save()
    return buf.getvalue()


def test_a_run_set_sideways_is_no_superscript_of_an_upright_word() -> None:
    """Set up the page at (89, 193), the run's box in its own frame lands right after "26"
    in the upright lines' frame, raised and small as a superscript would be; it reads in
    another frame, so it stays a line of its own."""
    text = _parse(_sideways_margin((89, 193))).text
    assert "26th" not in text
    assert text.startswith("Notice is given on the 26 of May") and text.endswith("\n\nth")


PRICES = [["Item", "Qty", "Price"], [f"Cafe{ACUTE} cre{GRAVE}me", "12", "4.50"],
          [f"The{ACUTE} glace{ACUTE}", "30", "3.20"], [f"Pa{CIRCUMFLEX}te{ACUTE}", "25", "9.90"],
          ["Water", "40", "1.10"]]
COLS = [72, 250, 330, 430]


def _price_list(rotate: int) -> bytes:
    """A ruled price list whose item names carry accents drawn as a letter and a combining
    mark (two glyphs, the mark moved back over its letter)."""
    w = PdfWriter()
    pg = w.page(rotate=rotate)
    pg.text(72, 720, 11, "The prices below are firm for the whole term of the contract.")
    top = 700
    for k, row in enumerate(PRICES):
        for x, s in zip(COLS, row, strict=False):
            pg.text(x + 4, top - 14 - k * 18, 10, s)
    for k in range(len(PRICES) + 1):
        pg.line(COLS[0], top - k * 18, COLS[-1], top - k * 18)
    for x in COLS:
        pg.line(x, top, x, top - 18 * len(PRICES))
    return w.tobytes()


def _cells(layer: TextLayer) -> list[tuple[int | None, int | None, str]]:
    return [(e.row, e.col, layer.text[e.char_start:e.char_end])
            for e in layer.elements if e.kind == "cell"]


@pytest.mark.parametrize("rotate", [90, 270])
def test_accented_cells_on_a_page_whose_text_runs_down_split_as_upright(rotate: int) -> None:
    """The accents compose (NFC) in the line's own frame too: the words, and so the cells,
    are cut where the glyphs stand, not one character off."""
    cells = [(r + 1, c + 1, s.replace(f"e{ACUTE}", "\u00e9").replace(f"e{GRAVE}", "\u00e8")
              .replace(f"a{CIRCUMFLEX}", "\u00e2"))
             for r, row in enumerate(PRICES) for c, s in enumerate(row)]
    assert _cells(_parse(_price_list(0))) == cells
    assert _cells(_parse(_price_list(rotate))) == cells


def test_composed_pair_unions_its_boxes_as_shown_and_in_its_frame() -> None:
    boxes = [(10.0, 5.0, 16.0, 17.0), (10.5, 2.0, 14.0, 6.0), (16.0, 5.0, 22.0, 17.0)]
    fboxes = [(5.0, 10.0, 17.0, 16.0), (2.0, 10.5, 6.0, 14.0), (5.0, 16.0, 17.0, 22.0)]
    text, shown, holes, own = compose(f"e{ACUTE}x", boxes, [], fboxes)
    assert text == "\u00e9x" and holes == []
    assert shown == [(10.0, 2.0, 16.0, 17.0), (16.0, 5.0, 22.0, 17.0)]
    assert own == [(2.0, 10.0, 17.0, 16.0), (5.0, 16.0, 17.0, 22.0)]
    assert compose(f"e{ACUTE}x", boxes, [])[3] is None  # no frame boxes given: none back
