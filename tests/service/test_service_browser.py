"""The review page under the one service, in Debian's Chromium (headless, through
Playwright): a browser without a session is sent to sign in, signs in with an API key,
gets a SameSite=Strict HttpOnly session cookie (a new one: the pre-sign-in id is not
kept), claims an item and decides it; the decision is recorded as the key's user."""

from __future__ import annotations

import pytest

from tests.loud_skips import chromium_path
from tests.service.serving import running

pytestmark = pytest.mark.chromium


def test_sign_in_with_a_key_then_claim_and_decide(tmp_path):
    from playwright.sync_api import sync_playwright

    with running(tmp_path) as svc, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=chromium_path(),
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        try:
            context = browser.new_context()
            page = context.new_page()
            page.goto(svc.base + "/ui/")
            assert page.url == svc.base + "/signin"  # no session: sign in first
            before = {c["name"]: c["value"] for c in context.cookies()}
            page.fill("#credential", "pck_000000000000_forged")
            page.click("#signin")
            assert "does not sign in" in page.locator("#message").inner_text()
            page.fill("#credential", svc.keys["demo-read"])  # lacks the review scope
            page.click("#signin")
            assert page.locator("#message").count() == 1
            page.fill("#credential", svc.keys["demo"])
            page.click("#signin")
            page.wait_for_url("**/ui/")
            cookie = next(c for c in context.cookies() if c["name"] == "pincite_session")
            assert cookie["sameSite"] == "Strict" and cookie["httpOnly"]
            assert cookie["value"] != before.get("pincite_session")  # rotated at sign-in
            assert "demo:ana:analysts" in page.locator(".who").inner_text()
            assert page.locator("#queue tbody tr").count() >= 3

            page.keyboard.press("n")  # claim the next item
            page.wait_for_url("**/ui/items/*")
            item_id = int(page.url.rsplit("/", 1)[1])
            assert svc.lib.store.review_item("demo", item_id)["claimed_by"] == "ana"
            page.keyboard.press("a")  # accept
            page.wait_for_function("document.body.dataset.decided === 'accept'")
            decided = svc.lib.store.review_item("demo", item_id)
            assert decided["state"] == "decided" and decided["decided_by"] == "ana"

            # another browser with no session reaches nothing of the page
            other = browser.new_context().new_page()
            r = other.goto(svc.base + f"/ui/items/{item_id}.json")
            assert r is not None and r.status == 401
        finally:
            browser.close()
