"""Hostile numbers and JSON on the review page (issue 14, class 7): a clean 4xx in the one
error envelope, never a 500."""

from __future__ import annotations

import pytest

import pincite
from pincite.model import Principal
from pincite.store import SQLiteStore
from tests.review.queues import synthetic_queue
from tests.service.clients import BASE, page_token

HUGE = "9" * 30  # beyond SQLite's 64-bit integers
JS = {"Accept": "application/json"}


@pytest.fixture()
def client(tmp_path):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from pincite.service.review_page import create_app

    store = SQLiteStore(tmp_path / "s")
    ids = synthetic_queue(store, 2)
    app = create_app(pincite.Library(store), Principal.parse("t:ana:rev"))
    # held like a browser's: on the page's own origin, with its session and CSRF token
    c = TestClient(app, base_url=BASE, raise_server_exceptions=False)
    c.headers["X-CSRF-Token"] = page_token(c.get("/").text)
    c.ids = ids  # type: ignore[attr-defined]
    return c


def _clean(res, status: int) -> None:  # type: ignore[no-untyped-def]
    assert res.status_code == status, res.text
    assert "Traceback" not in res.text
    body = res.json()
    assert set(body) == {"error"} and "\n" not in body["error"]["message"]


@pytest.mark.parametrize("url", [f"/items/{HUGE}.json", f"/items/{HUGE}", "/items/0.json",
                                 "/items/-1.json", f"/items/1/evidence/{HUGE}/page/1.png",
                                 f"/items/1/evidence/0/page/{HUGE}.png"])
def test_item_ids_beyond_64_bits_get_a_clean_error(client, url):
    res = client.get(url, headers=JS)
    assert res.status_code in (400, 404), res.text
    _clean(res, res.status_code)


@pytest.mark.parametrize("lease", ["nan", "inf", "-inf", "1e400", "1e300", "0"])
def test_leases_that_are_not_finite_seconds_are_refused(client, lease):
    _clean(client.post(f"/next?lease={lease}", headers=JS), 400)
    assert client.get("/items.json", headers=JS).status_code == 200


def test_posts_with_huge_ids_or_deep_json_are_refused(client):
    first = client.ids[0]
    _clean(client.post(f"/items/{HUGE}/release", headers=JS), 400)
    _clean(client.post(f"/incidents/{HUGE}/clear", headers=JS), 400)
    _clean(client.post(f"/items/{HUGE}/decide", headers=JS, data={"decision": "accept"}), 400)
    deep = "[" * 100_000 + "]" * 100_000
    _clean(client.post(f"/items/{first}/decide", content=deep,
                       headers={**JS, "content-type": "application/json"}), 400)
    _clean(client.post(f"/items/{first}/decide", headers=JS,
                       data={"decision": "correct", "value": deep}), 400)
    _clean(client.post(f"/items/{first}/decide", content='{"decision": "correct", "value": NaN}',
                       headers={**JS, "content-type": "application/json"}), 400)
