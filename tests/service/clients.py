"""A review-page client the way a browser holds one: on the page's own origin, with the
session cookie the first page set and the CSRF token that page carries."""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
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


@contextmanager
def served_over_http(app: Any) -> Iterator[str]:
    """Serve `app` with uvicorn on a free 127.0.0.1 port in a thread; yield its base URL and
    stop the server afterwards (what a browser test drives)."""
    import uvicorn

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                           ws="none", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not server.started:
        assert time.time() < deadline, "the review server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
