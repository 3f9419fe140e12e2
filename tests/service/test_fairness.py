"""One tenant's load cannot starve the others: a tenant holds at most its share of the
worker threads (the pool less one by default), so while tenant demo floods the service
with slow requests, tenant globex is answered within a bound. Over real HTTP on
127.0.0.1; demo's slowness is a library whose listing holds its worker thread 0.5 s for
that tenant (as a heavy query does)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from pincite.errors import RateLimited
from pincite.service.throttle import TenantLimits, Throttle
from tests.service.serving import running, small_store

SLOW = 0.5
THREADS = 4


class SlowFor:
    """The library, except that listing sources takes `seconds` more for `tenant`."""

    def __init__(self, lib: Any, tenant: str, seconds: float) -> None:
        self._lib, self._tenant, self._seconds = lib, tenant, seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)

    def sources(self, p: Any, *args: Any, **kwargs: Any) -> Any:
        if p.tenant == self._tenant:
            time.sleep(self._seconds)
        return self._lib.sources(p, *args, **kwargs)


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    lib = small_store(tmp_path_factory.mktemp("fairness"))
    yield lib
    lib.close()


def test_a_flooding_tenant_leaves_a_thread_to_the_others(lib, tmp_path):
    limits = TenantLimits(rate=1000, burst=1000, concurrency=64)
    with running(tmp_path, lib=SlowFor(lib, "demo", SLOW), limits=limits,
                 threads=THREADS) as svc:
        demo, globex = svc.auth("demo"), svc.auth("globex")
        flood = 8 * THREADS  # without shares: eight rounds of the whole pool, 4 s of queue

        limits = httpx.Limits(max_connections=flood, max_keepalive_connections=flood)
        with ThreadPoolExecutor(max_workers=flood) as pool, \
                httpx.Client(base_url=svc.base, timeout=60) as c, \
                httpx.Client(base_url=svc.base, timeout=60, limits=limits) as flooder:
            def slow(_: int) -> int:
                return flooder.get("/sources", headers=demo).status_code

            flooding = [pool.submit(slow, i) for i in range(flood)]
            time.sleep(1.0)  # the flood is in: it holds its share and queues the rest
            seconds = []
            for _ in range(8):
                t = time.perf_counter()
                assert c.get("/sources", headers=globex).status_code == 200
                seconds.append(time.perf_counter() - t)
                time.sleep(0.05)
            codes = [f.result() for f in flooding]
        assert max(seconds) < 1.0, seconds
        assert codes == [200] * flood  # the flood waits for its own threads, and is served


def test_the_worker_share_in_isolation():
    import anyio

    t = Throttle(TenantLimits(queue_seconds=0.05), workers=2)

    async def main() -> None:
        async with t.worker("a"), t.worker("a"):
            with pytest.raises(RateLimited) as e:  # a's share is taken: it waits, then 429
                async with t.worker("a"):
                    pass
            assert e.value.status == 429 and e.value.retry_after >= 1
            async with t.worker("b"):  # another tenant's share is its own
                pass
        async with t.worker("a"):  # released
            pass

    anyio.run(main)
