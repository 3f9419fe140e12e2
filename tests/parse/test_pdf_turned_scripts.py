"""Combining accents on a /Rotate page whose content is not turned back (the text runs
down or up as shown) read exactly as on the upright page: each composed character keeps
one box in the line's own frame as well as as shown."""

from __future__ import annotations

import pytest

from pincite.evals.strata.writer import PdfWriter
from pincite.limits import Limits
from pincite.model import TextLayer
from pincite.parse.pdf import reading as pdf
from pincite.parse.pdf.nfc import compose

ACUTE, GRAVE, CIRCUMFLEX = "\u0301", "\u0300", "\u0302"


def _parse(data: bytes) -> TextLayer:
    return pdf.parse(data, password=None, limits=Limits())


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
