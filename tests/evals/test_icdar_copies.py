"""The ICDAR 2013 eval on documents made here, in the competition's format: the price annex
on a portrait and a landscape page with gold cells and regions written for it. Its turned
copies (/Rotate 90; /Rotate 90 with the content turned back) score as the pages they copy,
for pincite, and gold boxes land on the copies' pages as shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from pincite.evals.folds import fold_of
from pincite.evals.icdar import run_icdar2013
from pincite.evals.icdar_copies import shown_boxes, turned_copy
from pincite.limits import Limits
from pincite.parse.pdf import reading
from tests.parse import turned
from tests.parse.turned import COLS, HEADER, PITCH, ROWS

DOCS = {"portrait": turned.LETTER, "landscape": turned.LANDSCAPE}


def _gold(stem: Path, size: tuple[float, float]) -> None:
    """Write NAME-str.xml and NAME-reg.xml for the annex drawn by `turned.upright(size)`."""
    ox, oy = 72.0, size[1] - 280  # the annex's origin in PDF space
    top = oy + 149  # its top rule
    cells = []
    for r, row in enumerate([HEADER, *ROWS]):
        for c, text in enumerate(row):
            x1, x2 = ox + COLS[c], ox + COLS[c + 1]
            y1, y2 = top - PITCH * (r + 1), top - PITCH * r
            cells.append(f'<cell id="{len(cells)}" start-row="{r}" start-col="{c}">'
                         f'<bounding-box x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}"/>'
                         f"<content>{text}</content></cell>")
    bottom = top - PITCH * (len(ROWS) + 1)
    region = f'<bounding-box x1="{ox}" y1="{bottom}" x2="{ox + COLS[-1]}" y2="{top}"/>'
    Path(f"{stem}-str.xml").write_text(
        f'<document><table id="1"><region id="1" page="1">{"".join(cells)}</region></table>'
        "</document>", encoding="utf-8")
    Path(f"{stem}-reg.xml").write_text(
        f'<document><table id="1"><region id="1" page="1">{region}</region></table></document>',
        encoding="utf-8")


def test_gold_boxes_land_on_the_turned_copies_as_shown() -> None:
    data = turned.reference(turned.LETTER)
    # the "Qty" header cell: x 222 … 302, y 643 … 661 in PDF space (portrait, 612 × 792)
    box = (72.0 + 150, 661.0 - 18, 72.0 + 230, 661.0)
    (upright,) = shown_boxes(data, None)
    (rot,) = shown_boxes(data, "rotate90")
    (back,) = shown_boxes(data, "rotate90_turned")
    assert upright(*box) == (222.0, 131.0, 302.0, 149.0)
    # /Rotate 90: the page turns a quarter clockwise, 792 wide: (x, top) → (792 - bottom, x)
    assert rot(*box) == (792.0 - 149.0, 222.0, 792.0 - 131.0, 302.0)
    assert back(*box) == upright(*box)  # turned back: shown as the original
    # … and the parser puts the cell's words inside those boxes on each copy
    for variant, where in (("rotate90", rot), ("rotate90_turned", back)):
        layer = reading.parse(turned_copy(data, variant), password=None, limits=Limits())
        (cell,) = [e for e in layer.elements if e.kind == "cell" and e.row == 1 and e.col == 2]
        assert layer.text[cell.char_start:cell.char_end] == "Qty"
        x0, t, x1, b = where(*box)
        assert cell.bbox is not None and x0 <= cell.bbox[0] < cell.bbox[2] <= x1
        assert t <= cell.bbox[1] < cell.bbox[3] <= b


def test_turned_copy_refuses_an_unknown_variant() -> None:
    with pytest.raises(ValueError, match="unknown copy"):
        turned_copy(turned.reference(turned.LETTER), "rotate45")


def test_eval_scores_turned_copies_as_the_pages_they_copy(tmp_path: Path) -> None:
    pytest.importorskip("pdfplumber")
    assert {fold_of(s, 2) for s in DOCS} == {0, 1}
    for stem, size in DOCS.items():
        (tmp_path / f"{stem}.pdf").write_bytes(turned.reference(size))
        _gold(tmp_path / stem, size)
    result = run_icdar2013(tmp_path, folds=2)
    rows = result["rows"]
    assert set(rows) == {"upright", "rotate90", "rotate90_turned", "all"}
    for name, row in rows.items():
        n = 3 if name == "all" else 1
        pin = row["pincite"]
        assert (pin["tables"], pin["detected"], pin["matched"]) == (2 * n, 2 * n, 2 * n)
        assert pin["relations"] == pin["correct_relations"] == pin["detected_relations"] == 62 * n
        assert pin["f1"] == 1.0
        assert 0.0 <= row["pdfplumber"]["f1"] <= 1.0  # the peer, on the same copies
    assert set(result["documents_detail"]) == {
        f"{s}{suffix}" for s in DOCS for suffix in ("", "~rotate90", "~rotate90_turned")}
    folds = result["folds"]
    assert folds["assignment"] == {"landscape": fold_of("landscape", 2), "portrait": fold_of("portrait", 2)}
    for split in folds["rows"]["all"].values():
        assert [f["documents"] for f in split["folds"]] == [1, 1]
    assert folds["rows"]["all"]["pincite"]["folds"] == [
        {"fold": 0, "documents": 1, "fit": 1.0, "held_out": 1.0},
        {"fold": 1, "documents": 1, "fit": 1.0, "held_out": 1.0}]
