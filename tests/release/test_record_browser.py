"""The release record page renders in Chromium: every seed item, the tables, no script."""

from __future__ import annotations

import pytest

from pincite.release.record import REQUIRED_ITEMS
from tests.loud_skips import chromium_path

pytestmark = pytest.mark.chromium


def test_the_release_record_renders_in_chromium(released):
    pytest.importorskip("playwright")
    from playwright.sync_api import sync_playwright

    page_path = released["store"] / "releases" / "R0001" / "record.html"
    errors: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            page = browser.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.as_uri())
            assert page.title() == "Release R0001 · calls-retrieval"
            assert page.inner_text("#state") == "promoted"
            assert page.inner_text("#candidate") == "g000002"
            assert page.inner_text("#rollback-target") == "g000001"
            assert page.inner_text("#owner") == "ana"
            assert page.inner_text("#approval").startswith("lucia at ")
            rows = page.locator("#required-items tr").all_inner_texts()[1:]
            assert [r.split("\t") for r in rows] == [[item, "recorded"] for item in REQUIRED_ITEMS]
            ev = page.locator("#evaluation tr").all_inner_texts()
            assert [r.split("\t")[0] for r in ev[1:]] == ["identifier", "requirement", "topic"]
            assert all(r.split("\t")[-1] == "True" for r in ev[1:])
            slas = page.locator("#slas tr").all_inner_texts()
            assert slas[1].startswith("freshness (commit → eligible result)\t")
            assert slas[2].startswith("deletion (revocation → absence)\t")
            sec = page.locator("#security tr").all_inner_texts()[1:]
            assert {r.split("\t")[0] for r in sec} == {"AUTHZ", "DELETION"} and len(sec) >= 10
            assert all(r.split("\t")[-1] == "0" for r in sec)
            assert page.locator("#triggers tr").count() == 8
            assert page.locator("#steps li").count() == 5
            assert page.locator("script").count() == 0
            # the page is usable: it has width, and the JSON is there for whoever opens it
            assert page.locator("h1").bounding_box()["width"] > 100
            page.click("summary")
            assert '"release_id": "R0001"' in page.inner_text("details pre")
        finally:
            browser.close()
    assert errors == []
