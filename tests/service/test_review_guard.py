"""Other web sites cannot drive the review page: a foreign `Host` is refused on every route
(DNS rebinding), and a state-changing request from another origin or without the session's
CSRF token is refused with 403 and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest

import pincite
from pincite.model import Principal
from pincite.store import SQLiteStore
from tests.review.queues import synthetic_queue
from tests.service.clients import BASE, page_client, page_token

pytest.importorskip("fastapi")

REV = Principal.parse("t:ana:rev")
JS = {"Accept": "application/json"}


@pytest.fixture
def served(tmp_path) -> tuple[Any, SQLiteStore, list[int]]:
    from pincite.service.review_page import create_app

    store = SQLiteStore(tmp_path / "s")
    ids = synthetic_queue(store, 2)
    return create_app(pincite.Library(store), REV), store, ids


def _unclaimed(store: SQLiteStore, item_id: int) -> bool:
    item = store.review_item("t", item_id)
    return item["claimed_by"] is None and item["decision"] is None


def test_a_cross_origin_post_is_refused_and_changes_nothing(served):
    app, store, ids = served
    client = page_client(app)
    for origin in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                   {"Referer": "http://evil.example/attack.html"},
                   {"Origin": "http://127.0.0.1:9999"}):
        # even with the victim's cookie and token, another origin is refused
        r = client.post("/next", headers={**JS, **origin})
        assert r.status_code == 403, (origin, r.text)
        assert r.json()["error"]["code"] == "cross_site_request"
        form = client.post(f"/items/{ids[0]}/decide", headers=origin, follow_redirects=False,
                           data={"decision": "accept"})
        assert form.status_code == 403 and "text/html" in form.headers["content-type"]
    assert all(_unclaimed(store, i) for i in ids)
    # the page's own origin is served
    own = client.post("/next", headers={**JS, "Origin": BASE, "Referer": BASE + "/"})
    assert own.status_code == 200 and own.json()["id"] == ids[0]


def test_a_post_without_the_session_token_is_refused(served):
    from starlette.testclient import TestClient

    app, store, ids = served
    bare = TestClient(app, base_url=BASE)  # a forged form: no cookie, no token
    for path in ("/next", f"/items/{ids[0]}/release", "/incidents/1/clear"):
        r = bare.post(path, headers=JS)
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site_request"
    r = bare.post(f"/items/{ids[0]}/decide", data={"decision": "accept"}, follow_redirects=False)
    assert r.status_code == 403
    # a cookie without the token, a wrong token, another session's token
    page = bare.get("/")
    assert page.status_code == 200 and "pincite_session" in bare.cookies
    assert bare.post("/next", headers=JS).status_code == 403
    assert bare.post("/next", headers={**JS, "X-CSRF-Token": "0" * 64}).status_code == 403
    other = TestClient(app, base_url=BASE)
    other_token = page_token(other.get("/").text)
    assert bare.post("/next", headers={**JS, "X-CSRF-Token": other_token}).status_code == 403
    assert all(_unclaimed(store, i) for i in ids)
    # the page's own form (its hidden field) and its script (the header) are served
    token = page_token(page.text)
    assert f'name="csrf_token" value="{token}"' in page.text
    claimed = bare.post("/next", data={"csrf_token": token}, follow_redirects=False)
    assert claimed.status_code == 303 and claimed.headers["location"] == f"/items/{ids[0]}"
    item_page = bare.get(f"/items/{ids[0]}").text
    assert '"X-CSRF-Token": document.querySelector' in item_page
    ok = bare.post(f"/items/{ids[0]}/decide", json={"decision": "accept"},
                   headers={**JS, "X-CSRF-Token": page_token(item_page)})
    assert ok.status_code == 200 and ok.json()["item"]["state"] == "decided"


def test_the_session_cookie_is_samesite_strict_and_httponly(served):
    from starlette.testclient import TestClient

    app, _, _ = served
    cookie = TestClient(app, base_url=BASE).get("/").headers["set-cookie"].lower()
    assert "pincite_session=" in cookie and "samesite=strict" in cookie and "httponly" in cookie


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8765", "127.0.0.1.nip.io",
                                  "localhost.evil.example", "", "127.0.0.2"])
def test_a_foreign_host_is_refused_on_every_route(served, host):
    app, store, ids = served
    client = page_client(app)
    item = store.review_item("t", ids[0])
    routes = [("get", "/"), ("get", "/items.json"), ("get", f"/items/{ids[0]}.json"),
              ("get", f"/items/{ids[0]}"), ("get", f"/items/{ids[0]}/evidence/0/page/1.png"),
              ("get", "/metrics"), ("get", "/metrics.json"), ("get", "/calibration.json"),
              ("get", "/reliability.svg"), ("get", "/no/such/page"), ("post", "/next"),
              ("post", f"/items/{ids[0]}/decide"), ("post", f"/items/{ids[0]}/release"),
              ("post", "/incidents/1/clear")]
    for method, path in routes:
        r = getattr(client, method)(path, headers={**JS, "Host": host})
        assert r.status_code == 421, (host, path, r.status_code)
        assert r.json()["error"]["code"] == "unknown_host"
        assert item["field"] not in r.text and "doc.md" not in r.text
    assert all(_unclaimed(store, i) for i in ids)


def test_the_allow_list_is_configurable(tmp_path):
    from starlette.testclient import TestClient

    from pincite.service.review_page import create_app

    store = SQLiteStore(tmp_path / "s")
    synthetic_queue(store, 1)
    app = create_app(pincite.Library(store), REV, allowed_hosts=["review.example:8443"])
    assert TestClient(app, base_url="https://review.example:8443").get("/").status_code == 200
    for base in (BASE, "https://review.example:9000"):
        assert TestClient(app, base_url=base).get("/items.json").status_code == 421
    default = create_app(pincite.Library(store), REV)
    for base in ("http://localhost:1234", "http://127.0.0.1", "http://[::1]:8765"):
        assert TestClient(default, base_url=base).get("/items.json").status_code == 200
