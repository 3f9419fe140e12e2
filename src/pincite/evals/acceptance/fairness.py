"""FAIRNESS: one tenant's load cannot starve another's, through the API or the review page.

The service runs over real HTTP on 127.0.0.1 with a pool of four worker threads. Tenant
`acme` floods it: sixteen requests at once, each holding its worker thread half a second
(a library whose listing of acme's sources takes that long, as a heavy query does): two
seconds of work for the whole pool. Half a second after the flood starts, tenant
`globex` sends its requests one after another until the flood is answered, each timed.
Then, on a service whose tenants may make one request every five seconds (a burst of
three), a browser signed in to the review page asks for the queue six times in a row.

The promises: the other tenant's p95 stays under a second and none of its requests
fails, the flooding tenant's requests are served or refused with 429 and `Retry-After`
(never failed), and the review page is held to its tenant's rate like the API (429 past
the burst).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .harness import Drivers, Size, Workspace
from .loopback import OTHER, OWN, p95, serve, service_figures, sign_in, tenants
from .scoreboard import Scoreboard

GROUP = "FAIRNESS"
F_P95 = "another tenant's p95 at 1 s or more while one tenant floods"
F_FAILED = "another tenant's requests failed while one tenant floods"
F_FLOOD = "the flooding tenant's requests failed (not served, nor 429 with Retry-After)"
F_UI = "review-page requests past the tenant's rate served"
THREADS = 4
FLOOD = 16
HOLD = 0.5   # seconds each flooding request holds its worker thread
BOUND = 1.0  # seconds another tenant's request may take


class HeavyFor:
    """The library, except that listing `tenant`'s sources holds the thread `seconds`."""

    def __init__(self, lib: Any, tenant: str, seconds: float) -> None:
        self._lib, self._tenant, self._seconds = lib, tenant, seconds

    def __getattr__(self, name: str) -> Any:
        return getattr(self._lib, name)

    def sources(self, principal: Any, *args: Any, **kwargs: Any) -> Any:
        """The sources `principal` may read (after `seconds` for the heavy tenant)."""
        if principal.tenant == self._tenant:
            time.sleep(self._seconds)
        return self._lib.sources(principal, *args, **kwargs)


def run_fairness(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                 seed: int) -> None:
    """Run the FAIRNESS group into `board`."""
    names = (F_P95, F_FAILED, F_FLOOD, F_UI)
    got = service_figures(board, GROUP, names, drivers)
    if got is None:
        return
    f = got
    t = tenants(ws, drivers, seed, "fairness")
    heavy, _ = t.key(drivers, OWN, "read", "review")
    other, _ = t.key(drivers, OTHER, "read")
    seconds: list[float] = []
    try:
        app = drivers.service.app(HeavyFor(t.lib, "acme", HOLD), t.keys, threads=THREADS)
        with serve(app) as base:
            _flood(f, base, heavy, other, seconds)
        app = drivers.service.app(t.lib, t.keys, rate=0.2, burst=3)
        with serve(app) as base:
            _page_rate(f[F_UI], base, heavy)
    finally:
        t.close()
    board.note(GROUP, f"{FLOOD} requests of one tenant at once, each holding a worker thread "
               f"{HOLD} s, on a pool of {THREADS}; the other tenant's {len(seconds)} requests "
               f"meanwhile: p95 {p95(seconds) * 1000:.0f} ms, max "
               f"{max(seconds, default=0) * 1000:.0f} ms (bound {BOUND:.0f} s)")


def _flood(f: dict[str, Any], base: str, heavy: str, other: str, seconds: list[float]) -> None:
    import httpx

    pool_limits = httpx.Limits(max_connections=FLOOD, max_keepalive_connections=FLOOD)
    with httpx.Client(base_url=base, timeout=60) as c, \
            httpx.Client(base_url=base, timeout=60, limits=pool_limits) as flooder:
        def slow(_: int) -> Any:
            return flooder.get("/sources", headers={"Authorization": f"Bearer {heavy}"})

        c.get("/sources", headers={"Authorization": f"Bearer {other}"})  # warm, not timed
        with ThreadPoolExecutor(max_workers=FLOOD) as pool:
            flood = [pool.submit(slow, i) for i in range(FLOOD)]
            time.sleep(0.5)  # the flood is in: it holds its threads and queues the rest
            deadline = time.monotonic() + 30
            while (len(seconds) < 5 or not all(x.done() for x in flood)) \
                    and time.monotonic() < deadline:
                t0 = time.perf_counter()
                r = c.get("/sources", headers={"Authorization": f"Bearer {other}"})
                took = time.perf_counter() - t0
                seconds.append(took)
                f[F_FAILED].attempt(r.status_code == 200, "the other tenant's GET /sources "
                                    f"-> {r.status_code}")
                time.sleep(0.05)
            answers = [x.result() for x in flood]
    f[F_P95].attempt(p95(seconds) < BOUND, f"p95 {p95(seconds):.2f} s over {len(seconds)} "
                     f"requests (max {max(seconds, default=0):.2f} s)")
    for r in answers:
        f[F_FLOOD].attempt(r.status_code == 200 or (
            r.status_code == 429 and r.headers.get("retry-after", "").isdigit()),
            f"a flooding request -> {r.status_code}")


def _page_rate(fig: Any, base: str, key: str) -> None:
    """Six queue requests in a row on a signed-in page: past the burst of three, 429."""
    import httpx

    with httpx.Client(base_url=base, follow_redirects=False, timeout=60) as browser:
        if sign_in(browser, key) != 303:
            fig.attempt(False, "the review page's sign-in was refused")
            return
        codes = [browser.get("/ui/items.json", headers={"Accept": "application/json"})
                 .status_code for _ in range(6)]
    served = codes.count(200)
    fig.add(6, max(0, served - 3), f"six queue requests with a burst of three: {codes}")
    fig.attempt(codes.count(429) >= 2, f"no 429 past the burst: {codes}")
