"""SESSIONS: a review-page session ends when its credential does.

The service runs over real HTTP on 127.0.0.1 with API keys and an OIDC issuer (served on
127.0.0.1). Browsers sign in to the review page through its form, each with its own
credential: keys that are then revoked through `pincite keys revoke`, and tokens that
expire three seconds after they are minted (the session itself would last eight hours).
After the revocation or the expiry, each session asks for the queue as JSON, the queue
page, and to claim the next item with its CSRF token.

The promises: no request is served on a session whose key was revoked or whose token
expired (401 for JSON and the claim, a redirect to `/signin` for the page), and live
sessions are served before (the check is not vacuous).
"""

from __future__ import annotations

import re
import time
from typing import Any

from .harness import Drivers, Size, Workspace
from .loopback import OWN, LocalIssuer, serve, service_figures, sign_in, tenants
from .scoreboard import Scoreboard

GROUP = "SESSIONS"
F_REVOKED = "requests served on a session whose key was revoked"
F_EXPIRED = "requests served on a session whose token expired"
F_LIVE = "requests on live sessions refused (not vacuous)"
KEYS = 3     # sessions signed in with a key, then revoked
TOKENS = 2   # sessions signed in with a token, which then expires
LIFETIME = 3  # seconds a token lives
JSON = {"Accept": "application/json"}


def run_sessions(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                 seed: int) -> None:
    """Run the SESSIONS group into `board`."""
    import httpx

    names = (F_REVOKED, F_EXPIRED, F_LIVE)
    got = service_figures(board, GROUP, names, drivers, tokens=True)
    if got is None:
        return
    f = got
    t = tenants(ws, drivers, seed, "sessions")
    keys = [t.key(drivers, OWN, "read", "review") for _ in range(KEYS)]
    try:
        with LocalIssuer() as issuer:
            oidc = issuer.config(ws.folder("sessions-oidc"), leeway=0)
            with serve(drivers.service.app(t.lib, t.keys, oidc)) as base:
                browsers = [httpx.Client(base_url=base, follow_redirects=False, timeout=60)
                            for _ in range(KEYS + TOKENS)]
                try:
                    expires = int(time.time()) + LIFETIME
                    tokens = [issuer.token("acme", "ana", groups=("legal",), seconds=LIFETIME)
                              for _ in range(TOKENS)]
                    credentials = [k for k, _ in keys] + tokens
                    signed = list(zip(browsers, credentials, strict=True))
                    for browser, credential in signed[KEYS:] + signed[:KEYS]:  # tokens first
                        f[F_LIVE].attempt(sign_in(browser, credential) == 303, "sign-in refused")
                        _live(f[F_LIVE], browser)
                    for (_key, key_id), browser in zip(keys, browsers, strict=False):
                        f[F_REVOKED].attempt(t.revoke(drivers, key_id),
                                             f"keys revoke {key_id} failed")
                        _ended(f[F_REVOKED], browser, "revoked key")
                    time.sleep(max(0.0, expires - time.time()) + 1.05)
                    for browser in browsers[KEYS:]:
                        _ended(f[F_EXPIRED], browser, "expired token")
                finally:
                    for b in browsers:
                        b.close()
    finally:
        t.close()
    board.note(GROUP, f"{KEYS} sessions signed in with keys then revoked, {TOKENS} with tokens "
               f"living {LIFETIME} s (sessions of 8 h); each then asked for the queue (JSON "
               "and page) and to claim an item")


def _live(fig: Any, browser: Any) -> None:
    """A live session is served: the queue as JSON and as a page."""
    r = browser.get("/ui/items.json", headers=JSON)
    fig.attempt(r.status_code == 200, f"live session: GET /ui/items.json -> {r.status_code}")
    page = browser.get("/ui/")
    fig.attempt(page.status_code == 200, f"live session: GET /ui/ -> {page.status_code}")


def _ended(fig: Any, browser: Any, why: str) -> None:
    """A session whose credential ended is served nothing, the page sends it to sign in."""
    r = browser.get("/ui/items.json", headers=JSON)
    fig.attempt(r.status_code == 401, f"{why}: GET /ui/items.json -> {r.status_code}")
    page = browser.get("/ui/")
    fig.attempt(page.status_code == 303 and page.headers.get("location") == "/signin",
                f"{why}: GET /ui/ -> {page.status_code} {page.headers.get('location')}")
    token = _page_token(browser)
    claim = browser.post("/ui/next", headers={**JSON, "X-CSRF-Token": token})
    fig.attempt(claim.status_code == 401, f"{why}: POST /ui/next -> {claim.status_code}")


def _page_token(browser: Any) -> str:
    """The CSRF token the sign-in form carries for this browser's session cookie."""
    found = re.search(r'name="csrf_token" value="([^"]+)"', browser.get("/signin").text)
    return found.group(1) if found else ""
