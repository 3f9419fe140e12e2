"""The review page on /Rotate 90 pages, in Debian's Chromium (headless, through Playwright):
the cited box is highlighted where the cited words are on the page image as rendered —
on a landscape page whose content is turned back to read upright, and on one whose text
runs down the page as shown; both cite a cell of the price table the page holds."""

from __future__ import annotations

import io
from collections.abc import Iterator
from typing import Any

import pytest
from reportlab.pdfbase.pdfmetrics import stringWidth

import pincite
from pincite.model import Principal
from pincite.store.sqlite.records_store import QueueEntry
from tests.loud_skips import chromium_path
from tests.parse import turned
from tests.service.clients import served_over_http

pytestmark = pytest.mark.chromium

ANA = Principal.parse("demo:ana:analysts")
QUOTE = "1,875.00"  # row 3, column 4 of the price table
DOCS = {"landscape.pdf": turned.landscape(90), "sideways.pdf": turned.sideways(90)}



def _queue_item(lib: Any) -> tuple[int, list[dict[str, Any]]]:
    """Ingest the two pages, cite QUOTE on each, and queue one item with both citations."""
    evidence = []
    docs = []
    for name, t in DOCS.items():
        lib.ingest_bytes(t.data, source_id=name, tenant="demo", acl=["group:analysts"],
                         sandbox=False)
        rev = lib.store.latest_revision("demo", name)
        docs.append({"doc_id": rev.doc_id, "doc_sha256": rev.sha256})
        c = lib.cite(ANA, rev.doc_id, QUOTE)
        assert c.quote_verified and c.page == 1
        evidence.append(c.to_dict())
    run = {"run_id": "run-rot", "case_id": "case-rot", "schema_name": "prices",
           "schema_digest": "0", "extractor": {"name": "test", "version": "1.0"}, "docs": docs}
    cand = {"field": "monitor_arm_total", "type": "text", "value": QUOTE, "status": "present",
            "confidence": 0.5, "provenance": evidence, "outcome": "review",
            "reason": "low_confidence", "extractor": {"name": "test", "version": "1.0",
                                                      "run_id": "run-rot"}}
    rev = lib.store.latest_revision("demo", "landscape.pdf")
    entry = QueueEntry(case_id="case-rot", source_id="landscape.pdf", revision_id=rev.revision_id,
                       doc_sha256=rev.sha256, field=cand["field"], reason="low_confidence",
                       candidate=cand, evidence=evidence, run_id="run-rot",
                       extractor_version="1.0", confidence=0.5, hard=False, due_at=None)
    lib.store.save_extraction("demo", run, [], [entry], "2026-03-01T08:00:00+00:00")
    (item,) = lib.store.review_items("demo")
    return int(item["id"]), evidence


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, int]]:
    from pincite.service.review_page import create_app

    lib = pincite.open(tmp_path / "s", create=True)
    item_id, _ = _queue_item(lib)
    app = create_app(lib, ANA)
    try:
        with served_over_http(app) as base:
            yield base, item_id
    finally:
        lib.close()


def _drawn(name: str) -> tuple[float, float, float]:
    """Return where QUOTE is drawn on the page as shown: (start, end) along the way it
    reads and the baseline across it, in points."""
    x = 72 + turned.COLS[3] + 4  # drawn at (x, y) on the upright page of its content
    y = turned.LETTER[1] - 280 + 136 - 2 * turned.PITCH if name == "sideways.pdf" else \
        turned.LANDSCAPE[1] - 280 + 136 - 2 * turned.PITCH
    width = stringWidth(QUOTE, "Helvetica", 10)
    if name == "landscape.pdf":  # reads upright: left to right, baseline 612 - y from the top
        return x, x + width, turned.LANDSCAPE[1] - y
    return x, x + width, y  # /Rotate 90 of upright content: runs down from x, baseline at y


def test_highlight_lands_on_the_cited_words_of_a_rotate_90_page(served) -> None:
    from PIL import Image
    from playwright.sync_api import sync_playwright

    base, item_id = served
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(f"{base}/items/{item_id}")
        figures = page.locator(".page-figure")
        assert figures.count() == 2
        page.wait_for_function("() => [...document.querySelectorAll('.page-figure img')]"
                               ".every(i => i.complete && i.naturalWidth > 0)")
        for k, name in enumerate(DOCS):
            section = page.locator(f"section[data-index='{k}']")
            # the cited words are a cell of the price table, whichever way the page turns
            assert section.locator(".badge").first.inner_text() == "table 1 / Monitor arm / Total"
            fig = section.locator(".page-figure").first
            img = fig.locator("img")
            img.scroll_into_view_if_needed()
            natural = img.evaluate("i => [i.naturalWidth, i.naturalHeight]")
            assert natural[0] / natural[1] == pytest.approx(792 / 612, abs=0.01)  # landscape
            ib, hb = img.bounding_box(), fig.locator(".hl").bounding_box()
            assert ib is not None and hb is not None
            sx, sy = ib["width"] / 792, ib["height"] / 612  # screen pixels per point
            start, end, baseline = _drawn(name)
            if name == "landscape.pdf":
                along = (hb["x"] - ib["x"]) / sx, (hb["x"] + hb["width"] - ib["x"]) / sx
                across = (hb["y"] - ib["y"]) / sy, (hb["y"] + hb["height"] - ib["y"]) / sy
            else:  # turned a quarter clockwise: upright x runs down, upright y runs right
                along = (hb["y"] - ib["y"]) / sy, (hb["y"] + hb["height"] - ib["y"]) / sy
                across = (hb["x"] - ib["x"]) / sx, (hb["x"] + hb["width"] - ib["x"]) / sx
            assert along == pytest.approx((start, end), abs=1.0), (name, along, start, end)
            assert across[0] < baseline < across[1] and across[1] - across[0] < 16, (name, across)
            # … and over the printed words: the rendered page is dark inside the box
            shot = Image.open(io.BytesIO(page.screenshot(clip=hb))).convert("L")
            assert shot.getextrema()[0] < 110, name
        browser.close()
