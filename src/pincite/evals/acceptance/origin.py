"""CSRF/ORIGIN: other web sites can neither drive nor read the review page.

The review app (handed in by the command) is served over real HTTP on 127.0.0.1 by uvicorn
in a thread, acting as a reviewer whose queue holds real review items (an extraction under
strict thresholds). A victim browser opens the page (session cookie, CSRF token) and
claims an item. Then every state-changing route (claim next, decide by form and by JSON,
release, clear an incident) is sent with a hostile `Origin` or `Referer`, with no token,
a forged token or another session's token, without the cookie, and under a foreign
`Host` (DNS rebinding); the store's review state must not change and no request may be
served. Every read route is also asked for under a foreign `Host` and must leak nothing.
Requests from the page's own origin with its token must still work (the check is not
vacuous).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...extract.schema import schema_from_dict
from ...model import Principal
from .builders import Spec, render
from .canaries import TokenMint
from .harness import Drivers, Size, Workspace
from .loopback import serve
from .scoreboard import Scoreboard

GROUP = "CSRF/ORIGIN"
F_STATE = "state changes accepted from another origin or without the session token"
F_HOST = "read routes served to a foreign Host (DNS rebinding)"
F_OWN = "own-origin requests with the token served (not vacuous)"
REVIEWER = Principal.parse("acme:rita:legal")
SCHEMA = {"name": "strict", "fields": [
    {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]},
     "tau_show": 0.99, "tau_flag": 0.99},
    {"name": "term", "type": "duration", "synonyms": {"en": ["term"]},
     "tau_show": 0.99, "tau_flag": 0.99}]}


def _state(lib: Any) -> str:
    """The review state of the tenant (the reviewer's queue, labels, incidents, settings),
    as one comparable string."""
    s = lib.store
    items = [{k: it.get(k) for k in ("id", "state", "claimed_by", "lease_until", "decision")}
             for it in lib.review_queue(REVIEWER).items()]
    return json.dumps([items, len(s.review_labels("acme")), s.review_incidents("acme"),
                       s.review_settings("acme")], sort_keys=True, default=str)


def _token(html: str) -> str:
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', html)
    return found.group(1) if found else ""


def _queue(ws: Workspace, drivers: Drivers, seed: int) -> tuple[Any, str]:
    """A store whose review queue holds real items; return it and a canary of the item."""
    token = TokenMint(seed).new()
    store = ws.path("origin-store")
    lib = drivers.open_library(store, create=True)
    spec = Spec(f"Service terms {token}", ("1.1 The annual fee is 45,000 EUR.",
                                           "1.2 The term is twelve (12) months."))
    lib.ingest_bytes(render(spec, "md"), source_id="terms.md", tenant="acme",
                     acl=["group:legal"], sandbox=False)
    lib.extract(REVIEWER, schema_from_dict(SCHEMA), ["terms.md"])
    return lib, token


def run_origin(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
               seed: int) -> None:
    """Run the CSRF/ORIGIN group into `board`."""
    try:
        import httpx
        import uvicorn  # noqa: F401 - the server below needs it
    except ImportError:
        drivers = Drivers(drivers.open_library, drivers.cli, drivers.process, None)
    if drivers.review_app is None:
        for name in (F_STATE, F_HOST, F_OWN):
            board.not_applicable(GROUP, name, "the review page is not installed: "
                                 "pip install 'pincite[review]'")
        return
    lib, canary = _queue(ws, drivers, seed)
    reader = drivers.open_library(lib.store.root)
    f = {n: board.figure(GROUP, n) for n in (F_STATE, F_HOST, F_OWN)}
    try:
        with serve(drivers.review_app(lib, REVIEWER)) as base:
            host = base.removeprefix("http://")
            victim = httpx.Client(base_url=base, follow_redirects=False)
            token = _token(victim.get("/").text)
            own = {"Origin": base, "X-CSRF-Token": token, "Accept": "application/json"}
            claimed = victim.post("/next", headers=own)
            item = claimed.json() if claimed.status_code == 200 else None
            f[F_OWN].attempt(bool(item), f"own claim: {claimed.status_code} {claimed.text[:120]}")
            if not item:
                return
            other = httpx.Client(base_url=base)
            other_token = _token(other.get("/").text)
            _attacks(f[F_STATE], victim, reader, base, host, token, other_token, item["id"])
            _rebinding(f[F_HOST], victim, reader, host, canary, item["id"])
            before = _state(reader)
            done = victim.post(f"/items/{item['id']}/release", headers=own)
            f[F_OWN].attempt(done.status_code == 200 and _state(reader) != before,
                             f"own release: {done.status_code}")
            again = victim.post("/next", headers=own)
            decided = victim.post(f"/items/{again.json()['id']}/decide", headers=own,
                                  json={"decision": "accept"})
            f[F_OWN].attempt(decided.status_code == 200, f"own decide: {decided.status_code} "
                             f"{decided.text[:120]}")
            victim.close()
            other.close()
    finally:
        reader.close()
        lib.close()


def _attacks(fig: Any, victim: Any, reader: Any, base: str, host: str, token: str,
             other_token: str, item_id: int) -> None:
    """Every state-changing route under every hostile variant; count what got through."""
    import httpx

    routes = [("/next", None, None), (f"/items/{item_id}/decide", {"decision": "accept"}, None),
              (f"/items/{item_id}/decide", None, {"decision": "reject"}),
              (f"/items/{item_id}/release", None, None), ("/incidents/1/clear", None, None)]
    variants: list[tuple[str, dict[str, str], bool]] = [
        ("foreign Origin with the victim's cookie and token",
         {"Origin": "http://evil.example", "X-CSRF-Token": token}, True),
        ("Origin: null", {"Origin": "null", "X-CSRF-Token": token}, True),
        ("foreign Referer, no Origin", {"Referer": "http://evil.example/a.html",
                                        "X-CSRF-Token": token}, True),
        ("another port of 127.0.0.1", {"Origin": "http://127.0.0.1:9", "X-CSRF-Token": token},
         True),
        ("own origin, no token", {"Origin": base}, True),
        ("own origin, forged token", {"Origin": base, "X-CSRF-Token": "0" * 64}, True),
        ("own origin, another session's token", {"Origin": base, "X-CSRF-Token": other_token},
         True),
        ("no cookie, the token", {"Origin": base, "X-CSRF-Token": token}, False),
        ("no cookie, no token", {}, False),
        ("foreign Host (DNS rebinding) with cookie and token",
         {"Host": "evil.example", "Origin": "http://evil.example", "X-CSRF-Token": token}, True),
        ("foreign Host with the page's port", {"Host": "evil.example:" + host.split(":")[1],
                                               "X-CSRF-Token": token}, True),
    ]
    for what, headers, with_cookie in variants:
        client = victim if with_cookie else httpx.Client(base_url=base, follow_redirects=False)
        for path, form, body in routes:
            before = _state(reader)
            if form is not None:
                sent = headers.get("X-CSRF-Token")  # a form sends its token as a field
                data = {**form, **({"csrf_token": sent} if sent is not None else {})}
                hdrs = {k: v for k, v in headers.items() if k != "X-CSRF-Token"}
                r = client.post(path, headers=hdrs, data=data)
            elif body is not None:
                r = client.post(path, headers=headers, json=body)
            else:
                r = client.post(path, headers={**headers, "Accept": "application/json"})
            changed = _state(reader) != before
            fig.attempt(not changed and r.status_code in (403, 421),
                        f"{what}: POST {path} -> {r.status_code}"
                        + (" and the review state changed" if changed else ""))
        if client is not victim:
            client.close()


def _rebinding(fig: Any, victim: Any, reader: Any, host: str, canary: str, item_id: int) -> None:
    """Every read route under foreign Host headers: refused, nothing of the queue in it."""
    port = host.split(":")[1]
    paths = ["/", "/items.json", f"/items/{item_id}", f"/items/{item_id}.json", "/metrics",
             "/metrics.json", "/calibration.json", "/reliability.svg"]
    for bad_host in ("evil.example", f"evil.example:{port}", f"127.0.0.1.evil.example:{port}"):
        for path in paths:
            r = victim.get(path, headers={"Host": bad_host})
            leaked = canary in r.text or "terms.md" in r.text
            fig.attempt(r.status_code == 421 and not leaked,
                        f"GET {path} as Host {bad_host} -> {r.status_code}"
                        + (" with the queue's content" if leaked else ""))
