"""A review-page client the way a browser holds one: on the page's own origin, with the
session cookie the first page set and the CSRF token that page carries."""

from __future__ import annotations

import re
from typing import Any

BASE = "http://127.0.0.1:8765"


def page_client(app: Any, base: str = BASE) -> Any:
    """Return a TestClient that opened `/` first and sends its token on every request."""
    from starlette.testclient import TestClient

    client = TestClient(app, base_url=base)
    client.headers["X-CSRF-Token"] = page_token(client.get("/").text)
    return client


def page_token(html: str) -> str:
    """Return the CSRF token a review page carries in its `<meta name="csrf-token">`."""
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', html)
    assert found, "the page carries no CSRF token"
    return found.group(1)
