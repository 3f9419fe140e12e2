"""The fill report in Chromium (headless, through Playwright): a written cell's row shows its
cited quote and, for the PDF, the cited box drawn over the rendered page; an unresolved
cell shows its reason and candidates."""

from __future__ import annotations

import pytest

import pincite
from pincite.library import fill_workbook
from tests.fill.test_fill import ANA, DOCS, TARGET, WB, _ingest
from tests.loud_skips import chromium_path

pytestmark = pytest.mark.chromium


def test_the_fill_report_shows_a_highlighted_box(tmp_path):
    from playwright.sync_api import sync_playwright

    lib = pincite.open(tmp_path / "s", create=True)
    _ingest(lib)
    res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "out", marks=WB / "marks.csv")
    lib.close()
    report = tmp_path / "out" / "report.html"
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(report.as_uri())
        assert page.locator("#summary").inner_text().startswith("22 cells · 19 written (19 verified)")
        row = page.locator("#cell-Operating-Model-C4")
        assert row.locator(".value").inner_text() == "1248.6"
        assert row.locator("mark.quote").inner_text() == "1,248.6"
        crop, box = row.locator(".crop"), row.locator(".crop .box")
        assert box.count() == 1
        cb, bb = crop.bounding_box(), box.bounding_box()
        assert cb and bb and bb["width"] > 5 and bb["height"] > 5
        assert cb["x"] <= bb["x"] and bb["x"] + bb["width"] <= cb["x"] + cb["width"]
        assert cb["y"] <= bb["y"] and bb["y"] + bb["height"] <= cb["y"] + cb["height"]
        # the page image is loaded behind the box
        bg = crop.evaluate("el => getComputedStyle(el).backgroundImage")
        assert bg.startswith('url("data:image/png;base64,')
        assert box.evaluate("el => getComputedStyle(el).borderTopColor") == "rgb(209, 36, 47)"
        # a cell from the XLSX has its quote but no page box
        capex = page.locator("#cell-Operating-Model-C11")
        assert capex.locator("mark.quote").inner_text() == "131200" and capex.locator(".crop").count() == 0
        # the unresolved cell: reason and both candidates
        amb = page.locator("#cell-Operating-Model-C9")
        assert amb.locator(".reason").inner_text() == "ambiguous"
        assert amb.locator("li").count() == 2
        browser.close()
    assert res.audit["summary"]["verified"] == 19
