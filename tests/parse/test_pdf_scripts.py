"""Superscripts, subscripts, right-to-left and CJK text in PDFs written here glyph by glyph.

The PDFs are written with `pincite.evals.strata.writer` (PDF syntax, a Type0 font whose
ToUnicode maps each glyph to its characters), drawn the way generators of each class draw:
superscripts after their line or after the page, Arabic in visual order with a lam-alef
glyph that stands for two letters, a mark drawn after its base, CJK set letter-spaced.
"""

from __future__ import annotations

import re
import unicodedata

import pytest

from pincite.evals.strata.writer import PdfWriter
from pincite.limits import Limits
from pincite.model import TextLayer
from pincite.parse.pdf import reading as pdf
from tests.loud_skips import shared_path

SIZE = 11.0
SMALL = 0.6 * SIZE  # a superscript's size


def _parse(data: bytes) -> TextLayer:
    return pdf.parse(data, password=None, limits=Limits())


def _paras(layer: TextLayer) -> list[str]:
    return [layer.text[e.char_start:e.char_end] for e in layer.elements
            if e.kind in ("paragraph", "heading", "list_item")]


def _line(pg, y: float, parts: list[tuple[str, float]], later: list | None = None,
          ) -> dict[str, list]:
    """Draw a line of (text, rise) parts left to right; a part with a rise is set small and
    drawn now, or appended to `later` to be drawn after; return each part's boxes."""
    x = 72.0
    boxes: dict[str, list] = {}
    for s, rise in parts:
        size = SMALL if rise else SIZE
        if rise and later is not None:
            later.append((x, y, size, s, rise))
        else:
            boxes[s] = pg.draw(x, y, size, list(s), rise=rise)
        x += pg.advance(s, size)
    return boxes


def _scripted(order: str) -> bytes:
    """Three paragraphs with an ordinal, m2, a footnote marker and H2O; `order` is "inline"
    (in reading order), "line" (each line's scripts after it) or "page" (after the page)."""
    w = PdfWriter()
    pg = w.page()
    later: list = []
    lines = [
        [("The Buyer gives notice on the 26", 0), ("th", 4.0), (" day of May.", 0)],
        [("The floor is 120 m", 0), ("2", 4.0), (" in all, as the Agreement", 0), ("1", 4.0),
         (" says.", 0)],
        [("Water is H", 0), ("2", -3.0), ("O by weight.", 0)],
    ]
    y = 700.0
    for parts in lines:
        _line(pg, y, parts, later if order != "inline" else None)
        if order == "line":
            for x, yy, size, s, rise in later:
                pg.draw(x, yy, size, list(s), rise=rise)
            later = []
        y -= 40
    for x, yy, size, s, rise in later:
        pg.draw(x, yy, size, list(s), rise=rise)
    return w.tobytes()


EXPECTED = ["The Buyer gives notice on the 26th day of May.",
            "The floor is 120 m2 in all, as the Agreement1 says.",
            "Water is H2O by weight."]


@pytest.mark.parametrize("order", ["inline", "line", "page"])
def test_superscripts_and_subscripts_stay_on_their_word(order: str) -> None:
    assert _parse(_scripted(order)).text == " ".join(EXPECTED)


def test_a_script_keeps_its_own_glyph_box() -> None:
    layer = _parse(_scripted("page"))
    k = layer.text.index("26th") + 2
    geo = layer.geometry
    assert geo is not None
    assert geo.pages[k - 1] == geo.pages[k] == 1
    six, t = geo.boxes[k - 1], geo.boxes[k]
    assert t[3] < six[3] - 2  # raised: its bottom well above the 6's
    assert abs(t[0] - six[2]) < 0.01  # and right after it


def test_small_text_that_is_not_a_script_stays_where_it_is() -> None:
    """A footnote line set small below the text, a page number set small at the margin and
    a same-size number drawn last stay on their own lines."""
    w = PdfWriter()
    pg = w.page()
    pg.text(72, 700, SIZE, "The Supplier shall deliver the goods.")
    pg.text(72, 686, SMALL, "1 A note set small under the text.")
    pg.text(540, 703, SMALL, "12")  # beside the line, far from its last word
    pg.text(72, 600, SIZE, "Payment is due in thirty days.")
    pg.text(250, 600, SIZE, "7")  # same size, drawn after: not a script
    text = _parse(w.tobytes()).text
    assert "The Supplier shall deliver the goods." in text
    assert "1 A note set small under the text." in text
    assert "goods.12" not in text and "goods. 12" not in text
    assert "days.7" not in text


def test_superscripts_do_not_cross_hidden_text() -> None:
    w = PdfWriter()
    pg = w.page()
    pg.text(72, 700, SIZE, "Visible term 5")
    pg.draw(72 + pg.advance("Visible term 5", SIZE), 700, SMALL, list("th"), rise=4, mode=3)
    text = _parse(w.tobytes()).text
    assert "Visible term 5th" not in text


# ---- right to left ------------------------------------------------------------------------


def _visual(logical: str) -> list[str]:
    """Return the glyphs of one right-to-left word in visual order (left to right)."""
    return list(reversed(logical))


def test_arabic_lam_alef_glyph_reads_lam_then_alef() -> None:
    """A lam-alef glyph whose ToUnicode entry is lam, alef: pdfium reverses its two
    letters with the run; the layer reads them in the font's order."""
    w = PdfWriter()
    pg = w.page()
    # "خلال" drawn left to right: lam, the lam-alef ligature, khah
    pg.draw(72, 700, 12, ["\u0644", "\u0644\u0627", "\u062e"])
    # a presentation form (U+FEFB): pdfium decomposes it itself, in logical order
    pg.draw(72, 660, 12, ["\ufefb", "\ufeb3"])
    assert _parse(w.tobytes()).text == "\u062e\u0644\u0627\u0644 \u0633\u0644\u0627"


def test_arabic_mark_drawn_after_its_base_follows_it() -> None:
    """Word draws a base then its mark, moved back over it: read in logical order the
    mark must follow its base, with no space made up in front of it."""
    w = PdfWriter()
    pg = w.page()
    # logical: alef-hamza, yeh, dad + fathatan, alef; drawn left to right
    pg.draw(72, 700, 12, ["\u0627", "\u0636", 400, "\u064b", -250, "\u064a", "\u0623"])
    assert _paras(_parse(w.tobytes())) == ["\u0623\u064a\u0636\u064b\u0627"]


def test_space_where_arabic_and_latin_runs_meet() -> None:
    """In visual order the space of the logical text can land on the far side of a Latin
    run, so the runs touch; an Arabic and a Latin letter never share a word."""
    w = PdfWriter()
    pg = w.page()
    # logical: "من R و Python في" — drawn with no space between و and Python, Python and في
    glyphs = [*_visual("\u0641\u064a"), *"Python", "\u0648", " ", "R", " ",
              *_visual("\u0645\u0646")]
    pg.draw(72, 700, 12, glyphs)
    assert _paras(_parse(w.tobytes())) == [
        "\u0645\u0646 R \u0648 Python \u0641\u064a"]


def test_hebrew_prefix_on_a_latin_word_is_left_as_drawn() -> None:
    w = PdfWriter()
    pg = w.page()
    pg.draw(72, 700, 12, [*"Google", "\u05dc", " ", *_visual("\u05e9\u05dc\u05d5\u05dd")])
    assert _paras(_parse(w.tobytes())) == ["\u05e9\u05dc\u05d5\u05dd \u05dcGoogle"]


@pytest.mark.shared_data("docling_testdata/pdf")
def test_docling_arabic_words_with_lam_alef_read_as_their_groundtruth() -> None:
    """Every word of docling's expected text that holds a lam-alef pair is a word of the
    layer (before: the pair came out swapped), and no Arabic letter touches a Latin one."""
    base = shared_path("docling_testdata/pdf")
    layer = _parse((base / "sources" / "right_to_left_01.pdf").read_bytes())
    gold = (base / "groundtruth" / "right_to_left_01.md").read_text("utf-8")
    words = set(unicodedata.normalize("NFC", layer.text).split())
    lam_alef = {w.strip(".،,") for w in unicodedata.normalize("NFC", gold).split()
                if re.search("\u0644[\u0627\u0623\u0625\u0622]", w)}
    assert len(lam_alef) >= 10
    missing = [w for w in lam_alef if w not in {x.strip(".،,") for x in words}]
    assert missing == []
    assert re.search("[\u0600-\u06ff][A-Za-z]|[A-Za-z][\u0600-\u06ff]", layer.text) is None


# ---- CJK ----------------------------------------------------------------------------------

CJK_TITLE = "\u4e2d\u534e\u4eba\u6c11\u5171\u548c\u56fd\u6c11\u6cd5\u5178"


def _cjk_clause(spacing: float) -> bytes:
    w = PdfWriter()
    pg = w.page()
    x = 72.0
    for s, sp in [("This Agreement is governed by the ", 0.0), (CJK_TITLE, spacing),
                  (" as in force.", 0.0)]:
        pg.text(x, 700, SIZE, s, spacing=sp)
        x += pg.advance(s, SIZE) + sp * len(s)
    return w.tobytes()


@pytest.mark.parametrize("spacing", [0.0, 4.0])
def test_cjk_title_in_an_english_clause_is_cited(lib, ana, spacing: float) -> None:
    r = lib.ingest_bytes(_cjk_clause(spacing), source_id="law.pdf", tenant="acme",
                         acl=["group:legal"], name="law.pdf", sandbox=False)
    assert r.status == "new", r
    c = lib.cite(ana, "law.pdf", f"governed by the {CJK_TITLE} as in force")
    assert c.quote_verified and c.page == 1
    assert c.quote == f"governed by the {CJK_TITLE} as in force"
    title = lib.cite(ana, "law.pdf", CJK_TITLE)
    assert title.quote_verified and title.bbox is not None
    assert title.bbox[0] > 72 + 30 * 0.55 * SIZE - 1  # it starts after the English words


def test_cjk_paragraph_wrapped_over_lines_is_cited_across_the_break(lib, ana) -> None:
    """Chinese is written without spaces, so a line end inside it is not one either."""
    w = PdfWriter()
    pg = w.page()
    pg.text(72, 700, SIZE, "\u672c\u5408\u540c\u53d7" + CJK_TITLE[:5])
    pg.text(72, 686, SIZE, CJK_TITLE[5:] + "\u7ba1\u8f96\u3002")
    r = lib.ingest_bytes(w.tobytes(), source_id="wrap.pdf", tenant="acme",
                         acl=["group:legal"], name="wrap.pdf", sandbox=False)
    assert r.status == "new", r
    c = lib.cite(ana, "wrap.pdf", CJK_TITLE)
    assert c.quote == CJK_TITLE and c.quote_verified
    assert len(c.boxes) <= 1 and c.page == 1


def test_cjk_items_set_apart_on_one_row_keep_their_space() -> None:
    w = PdfWriter()
    pg = w.page()
    pg.text(72, 700, SIZE, "\u672c\u79d1")  # a degree, then a school far to its right
    pg.text(200, 700, SIZE, "\u5317\u4eac\u5927\u5b66")
    pg.draw(72, 640, SIZE, [*"\u9ad8\u4e2d", -1100.0, *"\u9752\u5c9b"])  # 12 pt apart
    assert _paras(_parse(w.tobytes())) == ["\u672c\u79d1 \u5317\u4eac\u5927\u5b66",
                                           "\u9ad8\u4e2d \u9752\u5c9b"]
