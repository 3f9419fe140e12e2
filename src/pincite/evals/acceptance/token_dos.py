"""TOKEN DOS: bearer tokens cannot make the service wait on the issuer or hammer it.

The service runs over real HTTP on 127.0.0.1 with an OIDC issuer whose key set
(`jwks_url`) is served on 127.0.0.1 too, counting its fetches and answering each after
0.6 s. The service starts cold (no key held). Two bursts of forged tokens arrive,
each from its own address: tokens naming a `kid` the issuer never published and tokens
signed by another key under its real `kid`. While they are in flight, another tenant's
requests (an API key) are timed, and a valid token of the first tenant is sent. Then
one address sends wrong keys past the failed-authentication limit.

The promises: at most one fetch of the key set for both bursts (one interval), no
request of another tenant waits a second, no forged token is served, the valid token
is served once the one fetch lands, and an address past its failures gets 429 with
`Retry-After` (a valid key from it too) while another address is served.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .harness import Drivers, Size, Workspace
from .loopback import OTHER, OWN, LocalIssuer, client_at, p95, serve, service_figures, tenants
from .scoreboard import Scoreboard

GROUP = "TOKEN DOS"
F_FETCHES = "key-set fetches past one per interval while forged tokens arrive"
F_STALLED = "another tenant's requests answered in 1 s or more while forged tokens arrive"
F_FORGED = "forged tokens served"
F_LOCKOUT = "an address past its failed authentications served, or another address refused"
F_VALID = "valid tokens and keys refused (not vacuous)"
SLOW = 0.6        # seconds the issuer takes to answer each fetch
BOUND = 1.0       # seconds another tenant's request may take
FORGED = 5        # forged tokens per burst
FAILURES = 10     # failed authentications an address may make a minute


def run_token_dos(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                  seed: int) -> None:
    """Run the TOKEN DOS group into `board`."""
    names = (F_FETCHES, F_STALLED, F_FORGED, F_LOCKOUT, F_VALID)
    got = service_figures(board, GROUP, names, drivers, tokens=True)
    if got is None:
        return
    f = got
    t = tenants(ws, drivers, seed, "tokens")
    other_key, _ = t.key(drivers, OTHER, "read")
    own_key, _ = t.key(drivers, OWN, "read")
    seconds: list[float] = []
    try:
        with LocalIssuer() as issuer:
            oidc = issuer.config(ws.folder("tokens-oidc"))
            app = drivers.service.app(t.lib, t.keys, oidc, failures=FAILURES)
            with serve(app) as base:
                _warm(base, other_key)  # the first request's imports and caches, not timed
                issuer.delay = SLOW  # slow from the first fetch: the key cache starts cold
                for burst, address in enumerate(("127.0.0.2", "127.0.0.3")):
                    forged = [issuer.token("acme", "ana", groups=("legal",),
                                           kid=f"forged{burst}x{i}", forged=True)
                              for i in range(FORGED // 2)]
                    forged += [issuer.token("acme", "ana", groups=("legal",), forged=True)
                               for _ in range(FORGED - len(forged))]
                    valid = issuer.token("acme", "ana", groups=("legal",)) if burst == 0 \
                        else None
                    _burst(f, base, address, forged, valid, other_key, seconds)
                f[F_FETCHES].add(2 * FORGED, max(0, issuer.fetches - 1),
                                 f"{issuer.fetches} fetches of the key set for "
                                 f"{2 * FORGED} forged tokens")
                _lockout(f[F_LOCKOUT], f[F_VALID], base, own_key)
    finally:
        t.close()
    board.note(GROUP, f"{2 * FORGED} forged tokens in two bursts against a cold key cache "
               f"(the issuer answering each fetch in {SLOW:.1f} s); another tenant's "
               f"{len(seconds)} requests meanwhile: p95 {p95(seconds) * 1000:.0f} ms, max "
               f"{max(seconds, default=0) * 1000:.0f} ms (bound {BOUND:.0f} s)")


def _warm(base: str, key: str) -> None:
    """Answer one request of an API key (no token: the key cache stays cold)."""
    import httpx

    httpx.get(base + "/sources", headers={"Authorization": f"Bearer {key}"}, timeout=60)


def _burst(f: dict[str, Any], base: str, address: str, forged: list[str], valid: str | None,
           other_key: str, seconds: list[float]) -> None:
    """Send `forged` (and `valid`) from `address` at once; time the other tenant's
    requests until they are all answered."""
    import httpx

    tokens = forged + ([valid] if valid else [])
    with ThreadPoolExecutor(max_workers=len(tokens)) as pool, \
            httpx.Client(base_url=base, timeout=60) as c, \
            client_at(address, base, connections=len(tokens)) as sender:
        def send(token: str) -> Any:
            return sender.get("/sources", headers={"Authorization": f"Bearer {token}"})

        pending = [pool.submit(send, tok) for tok in tokens]
        deadline = time.monotonic() + 30
        while (len(seconds) < 5 or not all(p.done() for p in pending)) \
                and time.monotonic() < deadline:
            t0 = time.perf_counter()
            r = c.get("/sources", headers={"Authorization": f"Bearer {other_key}"})
            took = time.perf_counter() - t0
            seconds.append(took)
            f[F_STALLED].attempt(r.status_code == 200 and took < BOUND,
                                 f"another tenant's GET /sources -> {r.status_code} in "
                                 f"{took:.2f} s")
            time.sleep(0.05)
        answers = [p.result() for p in pending]
    for r in answers[:len(forged)]:
        f[F_FORGED].attempt(r.status_code in (401, 429) and "terms.md" not in r.text,
                            f"forged token from {address} -> {r.status_code}")
    if valid:
        r = answers[-1]
        f[F_VALID].attempt(r.status_code == 200 and "terms.md" in r.text,
                           f"a valid token sent with the forged ones -> {r.status_code}")


def _lockout(fig: Any, valid_fig: Any, base: str, own_key: str) -> None:
    """Wrong keys past the limit from one address: then 429 for it, service for another."""
    import httpx

    wrong = {"Authorization": "Bearer pck_000000000000_guessed"}
    good = {"Authorization": f"Bearer {own_key}"}
    with client_at("127.0.0.4", base) as guesser, httpx.Client(base_url=base) as c:
        codes = [guesser.get("/sources", headers=wrong).status_code for _ in range(FAILURES)]
        fig.attempt(codes == [401] * FAILURES, f"wrong keys under the limit -> {codes}")
        r = guesser.get("/sources", headers=wrong)
        fig.attempt(r.status_code == 429 and r.headers.get("retry-after", "").isdigit(),
                    f"a wrong key past the limit -> {r.status_code}")
        r = guesser.get("/sources", headers=good)
        fig.attempt(r.status_code == 429, f"a valid key from the locked address -> "
                    f"{r.status_code}")
        r = c.get("/sources", headers=good)
        fig.attempt(r.status_code == 200, f"a valid key from another address -> "
                    f"{r.status_code}")
        valid_fig.attempt(r.status_code == 200, f"a valid key -> {r.status_code}")
