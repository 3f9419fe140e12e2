"""The review page in Debian's Chromium (headless, through Playwright): claim an item, see
the cited box highlighted over the rendered PDF page and the span inside its clause,
correct the value with keyboard shortcuts, and watch the calibration table change.

Set PINCITE_SCREENSHOTS=1 to (re)write docs/review-item.png and docs/review-metrics.png
(`python scripts/screenshots.py` does that)."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.corpus import ROOT, tender_library
from tests.loud_skips import chromium_path
from tests.review.queues import ANA, extract_tender, valid_value
from tests.service.clients import served_over_http

SHOTS = os.environ.get("PINCITE_SCREENSHOTS") == "1"

# Without Chromium the test skips, and the terminal summary says how to install it.
pytestmark = pytest.mark.chromium



@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, Any]]:
    from pincite.service.review_page import create_app

    lib = tender_library(tmp_path / "s")
    extract_tender(lib, tmp_path)
    app = create_app(lib, ANA)
    try:
        with served_over_http(app) as base:
            yield base, lib
    finally:
        lib.close()


def _overlap(a: dict[str, float], b: tuple[float, float, float, float]) -> float:
    """Return the intersection over union of a Playwright box and (x0, y0, x1, y1)."""
    ax0, ay0, ax1, ay1 = a["x"], a["y"], a["x"] + a["width"], a["y"] + a["height"]
    ix = max(0.0, min(ax1, b[2]) - max(ax0, b[0]))
    iy = max(0.0, min(ay1, b[3]) - max(ay0, b[1]))
    inter = ix * iy
    union = (ax1 - ax0) * (ay1 - ay0) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union else 0.0


def test_claim_see_highlight_correct_and_calibration_changes(served, tmp_path):
    from PIL import Image
    from playwright.sync_api import sync_playwright

    base, lib = served
    shots = ROOT / "docs" if SHOTS else tmp_path
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(base + "/metrics")
        before = page.locator("#calibration").inner_text()

        # claim items (n) until one cites a PDF box; accept the others with the keyboard (a)
        page.goto(base + "/")
        assert page.locator("#queue tbody tr").count() >= 3
        page.keyboard.press("n")
        for _ in range(20):
            page.wait_for_url("**/items/*")
            item_id = int(page.url.rsplit("/", 1)[1])
            item = lib.store.review_item("demo", item_id)
            assert item["claimed_by"] == "ana"
            if page.locator(".page-figure .hl").count():
                break
            page.keyboard.press("a")
            page.wait_for_function("document.body.dataset.decided === 'accept'")
            page.keyboard.press("n")
        else:
            pytest.fail("no queued item cites a box on a PDF page")

        # the highlight sits over the cited box, scaled to the rendered page image
        k = int(page.locator(".page-figure .hl").first.evaluate(
            "el => el.closest('section').dataset.index"))
        entry = item["evidence"][k]
        img = page.locator(".page-figure img").first
        img.wait_for()
        page.wait_for_function("() => { const i = document.querySelector('.page-figure img');"
                               " return i.complete && i.naturalWidth > 0; }")
        img.scroll_into_view_if_needed()
        ib = img.bounding_box()
        assert ib is not None
        from pincite.cite.resolve import resolve_doc

        rev = resolve_doc(lib.store, ANA, entry["doc_id"])
        pw_, ph_ = lib.store.text_layer(rev).page_sizes[entry["page"] - 1]
        x0, top, x1, bottom = entry["bbox"]
        expected = (ib["x"] + x0 / pw_ * ib["width"], ib["y"] + top / ph_ * ib["height"],
                    ib["x"] + x1 / pw_ * ib["width"], ib["y"] + bottom / ph_ * ib["height"])
        hb = page.locator(".page-figure .hl").first.bounding_box()
        assert hb is not None and _overlap(hb, expected) > 0.95, (hb, expected)
        # … and over printed text: the rendered page is dark inside the box (origin top-left)
        shot = Image.open(io.BytesIO(page.screenshot(clip=hb))).convert("L")
        assert shot.getextrema()[0] < 110
        # the text layer shows the cited span inside its clause
        mark = page.locator(f".clause[data-index='{k}'] mark.span").inner_text()
        assert " ".join(mark.split()) == " ".join(entry["quote"].split())
        if SHOTS:
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shots / "review-item.png"), full_page=True,
                            clip={"x": 0, "y": 0, "width": 1400, "height": 1250})

        # correct it: c opens the form, q takes the selected words as the quote
        quote = " ".join(entry["quote"].split())  # the words that state the value
        page.keyboard.press("c")
        good = valid_value(item)  # a value of the field's type (class 13: checked)
        page.fill("#correct-value", json.dumps(good))
        page.fill("#correct-quote", quote)
        page.keyboard.press("Control+Enter")
        page.wait_for_function("document.body.dataset.decided === 'correct'")
        assert "Saved: correct" in page.locator("#flash").inner_text()
        rec = lib.store.field_record("demo", item["case_id"], item["field"])
        assert rec["value"] == good
        assert rec["provenance"][0]["author"] == "reviewer:ana"
        assert rec["provenance"][0]["quote_verified"] is True

        # the calibration table changed: one more label for the field, not accepted
        page.goto(base + "/metrics")
        after = page.locator("#calibration").inner_text()
        assert after != before
        row = page.locator(f"#calibration tr[data-field='{item['field']}']").inner_text()
        assert row.split("\t")[2].strip() == "1"
        assert page.locator("#reliability").evaluate("i => i.complete && i.naturalWidth > 0")
        assert "100.0 %" in page.locator("#m-resolution").inner_text()
        if SHOTS:
            # more real decisions for the picture: a fast run of accepts (a rubber stamp)
            # and a few rejections, all through the page's keyboard shortcuts
            for key in "rraaaaaa":
                page.goto(base + "/")
                page.keyboard.press("n")
                page.wait_for_url("**/items/*")
                page.keyboard.press(key)
                page.wait_for_function("document.body.dataset.decided")
            page.goto(base + "/metrics")
            page.screenshot(path=str(shots / "review-metrics.png"), full_page=True)
        # a refused decision shows the error envelope's message
        token = page.locator('meta[name="csrf-token"]').get_attribute("content")
        resp = page.request.post(f"{base}/items/{item_id}/decide", data={"decision": "accept"},
                                 headers={"Accept": "application/json", "X-CSRF-Token": token or ""})
        assert resp.status == 409 and resp.json()["error"]["code"] == "review_conflict"
        browser.close()
