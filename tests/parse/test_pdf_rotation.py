"""Turned pages and turned text: a price annex on landscape pages (/Rotate 90 and 270), upside
down (/Rotate 180), on /Rotate pages whose text runs down or up the page as shown, and
set sideways on a portrait page by its text matrix. Each reads exactly as the same content
on an upright page — text, reading order, table cells — and every box (characters,
paragraphs, cells, the table, citations) lands where the content is on the page as shown."""

from __future__ import annotations

import pytest

import pincite
from pincite.limits import Limits
from pincite.model import Principal, TextLayer
from pincite.parse.pdf import reading as pdf
from tests.parse import turned
from tests.parse.turned import CAPTION, HEADER, INTRO, NOTE, ROWS, Turned

TOL = 0.02  # points: float32 storage of boxes computed two ways


def _parse(data: bytes) -> TextLayer:
    return pdf.parse(data, password=None, limits=Limits())


def _close(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all(abs(x - y) <= TOL for x, y in zip(a, b, strict=True))


def _cells(layer: TextLayer) -> list[list[str]]:
    cells = [e for e in layer.elements if e.kind == "cell"]
    grid = [[""] * max(c.col for c in cells) for _ in range(max(c.row for c in cells))]
    for c in cells:
        grid[c.row - 1][c.col - 1] = layer.text[c.char_start:c.char_end]
    return grid


def _same_as_reference(t: Turned, ref: TextLayer, got: TextLayer, moved: range | None = None) -> None:
    """Assert `got` reads as `ref` and each of its boxes is the reference box moved to `t`
    (characters outside `moved` stay where they are on the reference page)."""
    assert got.text == ref.text
    w, h = t.media
    assert got.page_sizes == (((h, w) if t.rotate % 180 else (w, h)),)  # as shown

    def where(k: int, box: tuple[float, float, float, float]) -> tuple[float, float, float, float]:
        keep = moved is not None and k not in moved
        return turned.shown_box(t, box, turned.IDENTITY if keep else None)

    assert ref.geometry is not None and got.geometry is not None
    assert list(got.geometry.pages) == list(ref.geometry.pages)
    for k, (p, a, b) in enumerate(zip(ref.geometry.pages, ref.geometry.boxes, got.geometry.boxes,
                                      strict=True)):
        if p:
            assert _close(b, where(k, a)), (k, ref.text[k], a, b, where(k, a))
    kinds = [(e.kind, e.char_start, e.char_end, e.row, e.col, e.page) for e in got.elements]
    assert kinds == [(e.kind, e.char_start, e.char_end, e.row, e.col, e.page) for e in ref.elements]
    for r, g in zip(ref.elements, got.elements, strict=True):
        if g.kind == "page":
            continue
        assert g.meta == r.meta
        assert r.bbox is not None and g.bbox is not None
        assert _close(g.bbox, where(g.char_start, r.bbox)), (g.kind, g.bbox, r.bbox)


def _check_reading(layer: TextLayer) -> None:
    """The intro, the caption, the table (its cells as drawn), the note: in that order."""
    kinds = [(e.kind, layer.text[e.char_start:e.char_end]) for e in layer.elements
             if e.kind in ("paragraph", "heading", "table")]
    assert [k for k, _ in kinds][-2:] == ["table", "paragraph"]
    assert [t for _, t in kinds] == [INTRO, CAPTION, kinds[2][1], NOTE]
    assert _cells(layer) == [HEADER, *ROWS]
    (table,) = [e for e in layer.elements if e.kind == "table"]
    assert table.meta is not None and table.meta["caption"] == CAPTION
    assert table.meta["header_rows"] == 1


@pytest.mark.parametrize("rotate", [90, 270, 180])
def test_landscape_and_upside_down_pages_read_as_upright(rotate: int) -> None:
    t = turned.landscape(rotate)
    got = _parse(t.data)
    ref = _parse(turned.reference(t.reference))
    _check_reading(got)
    _same_as_reference(t, ref, got)
    # shown as the reference page: the "Qty" cell starts where its text is drawn
    qty = next(e for e in got.elements if e.kind == "cell" and got.text[e.char_start:e.char_end] == "Qty")
    assert qty.bbox is not None and qty.bbox[0] == pytest.approx(72 + 150 + 4, abs=0.01)
    baseline = t.reference[1] - (t.reference[1] - 280 + 136)
    assert qty.bbox[1] < baseline < qty.bbox[3]


@pytest.mark.parametrize("rotate", [90, 270])
def test_rotate_without_turned_content_reads_down_the_page_with_its_table(rotate: int) -> None:
    t = turned.sideways(rotate)
    got = _parse(t.data)
    ref = _parse(turned.reference(turned.LETTER))
    _check_reading(got)
    _same_as_reference(t, ref, got)
    qty = next(e for e in got.elements if e.kind == "cell" and got.text[e.char_start:e.char_end] == "Qty")
    assert qty.bbox is not None
    x0, top, x1, bottom = qty.bbox
    assert x1 - x0 < bottom - top  # as shown, the word runs down (90) or up (270) the page
    drawn_x = 72 + 150 + 4  # where "Qty" starts on the upright page
    if rotate == 90:
        assert top == pytest.approx(drawn_x, abs=0.01)
    else:
        assert bottom == pytest.approx(turned.LETTER[0] - drawn_x, abs=0.01)


def test_table_set_sideways_by_its_text_matrix_beside_upright_text() -> None:
    t = turned.sideways_table()
    got = _parse(t.data)
    ref = _parse(turned.reference(turned.LETTER))
    _check_reading(got)
    assert turned.FOOTER not in got.text  # the page number, upright at the foot, is dropped
    intro = range(len(INTRO))  # upright, where it is on the reference page; the rest turned
    _same_as_reference(t, ref, got, moved=range(len(INTRO), len(got.text)))
    assert got.text.startswith(INTRO) and len(intro) < got.text.index(CAPTION)
    caption = next(e for e in got.elements if got.text[e.char_start:e.char_end] == CAPTION)
    assert caption.bbox is not None
    x0, top, x1, bottom = caption.bbox
    # drawn at (0, 160) of the annex, turned a quarter counter-clockwise about (400, 150):
    # its baseline is the vertical x = 400 - 160, read bottom to top from y = 792 - 150
    assert x0 < 240 < x1 and bottom == pytest.approx(792 - 150, abs=0.01) and bottom - top > 100


def test_citation_boxes_on_a_landscape_page_are_as_shown(tmp_path) -> None:
    t = turned.landscape(90)
    ref_layer = _parse(turned.reference(t.reference))
    lib = pincite.open(tmp_path / "lib", create=True)
    try:
        lib.ingest_bytes(t.data, source_id="annex.pdf", tenant="t", acl=["*"], sandbox=False)
        who = Principal.parse("t:ana")
        rev, layer = lib.document(who, "annex.pdf")
        c = lib.cite(who, rev.doc_id, "1,875.00")
        cell = next(e for e in layer.elements
                    if e.kind == "cell" and layer.text[e.char_start:e.char_end] == "1,875.00")
        ref_cell = next(e for e in ref_layer.elements
                        if e.kind == "cell" and ref_layer.text[e.char_start:e.char_end] == "1,875.00")
        assert c.quote_verified and c.page == 1 and c.bbox is not None and cell.bbox is not None
        assert _close(c.bbox, cell.bbox) and _close(cell.bbox, ref_cell.bbox)
        assert cell.bbox[2] <= layer.page_sizes[0][0] == 792.0
    finally:
        lib.close()
