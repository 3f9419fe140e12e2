"""Per-tenant limits and body caps: a tenant over its rate gets 429 with Retry-After while
another tenant is served; bodies over the cap are refused with 413, by Content-Length and
by counting a chunked body."""

from __future__ import annotations

import math
import threading
import time

import httpx
import pytest

from pincite.errors import RateLimited, UsageError
from pincite.service.throttle import TenantLimits, Throttle
from tests.service.serving import running


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running(tmp_path_factory.mktemp("limits"),
                 limits=TenantLimits(rate=2.0, burst=5, concurrency=4),
                 max_body=64 * 1024) as s:
        yield s


def test_a_tenant_over_its_rate_gets_429_while_another_is_served(svc):
    demo, globex = svc.auth("demo"), svc.auth("globex")
    with httpx.Client(base_url=svc.base) as c:
        codes = [c.get("/sources", headers=demo).status_code for _ in range(12)]
        assert codes[:5] == [200] * 5 and codes.count(429) >= 6, codes
        r = c.get("/sources", headers=demo)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(r.headers["Retry-After"]) <= 2
        # the other tenant's bucket is its own
        assert [c.get("/sources", headers=globex).status_code for _ in range(5)] == [200] * 5
        assert c.get("/healthz").status_code == 200  # no credentials, no bucket


def test_bodies_over_the_cap_are_refused(svc):
    time.sleep(2.6)  # globex's bucket refills (2 per second, 5 at most)
    globex = svc.auth("globex-admin")
    big = {"doc": "globex/supply.md", "quotes": ["x" * (70 * 1024)]}
    with httpx.Client(base_url=svc.base) as c:
        r = c.post("/cite", json=big, headers=globex)
        assert r.status_code == 413 and r.json()["error"]["code"] == "body_too_large"

        def chunks():
            for _ in range(20):
                yield b'{"doc": "globex/supply.md", "quotes": ["' + b"y" * 8192
            yield b'"]}'

        r = c.post("/verify", content=chunks(), headers={**globex,
                                                          "Content-Type": "application/json"})
        assert r.status_code == 413, r.text


def test_the_throttle_in_isolation():
    now = [0.0]
    t = Throttle(TenantLimits(rate=1.0, burst=2, concurrency=1), clock=lambda: now[0])
    t.take("a")
    t.take("a")
    with pytest.raises(RateLimited) as e:
        t.take("a")
    assert e.value.retry_after == 1 and e.value.status == 429
    t.take("b")  # another tenant
    now[0] += 1.0
    t.take("a")  # refilled
    entered = threading.Event()
    with t.slot("a"):
        entered.set()
        with pytest.raises(RateLimited):
            with t.slot("a"):
                pass
        with t.slot("b"):
            pass
    with t.slot("a"):
        pass
    assert t.in_flight() == {}
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(UsageError):
            TenantLimits(rate=bad)
    with pytest.raises(UsageError):
        TenantLimits(concurrency=0)
