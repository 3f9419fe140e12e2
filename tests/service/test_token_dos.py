"""Bearer tokens cannot stall the service: the issuer's key set (`jwks_url`) is cached and
refreshed off the request path, a forged `kid` fetches it at most once per interval, no
request waits on the issuer while another tenant's is served, and an address past its
failed authentications gets 429 without affecting other addresses. Over real HTTP, with
the key set served on 127.0.0.1 by an issuer that counts its fetches and can be slow."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from pincite.evals.acceptance.loopback import ISSUER, LocalIssuer, client_at, sign_in
from pincite.service.jwks_cache import JwksCache, KeysRefreshing
from pincite.service.lockout import FailureLimit, Lockout, TooManyFailures
from pincite.service.oidc import OidcVerifier
from tests.service.serving import running, small_store

CLAIMS = {"tenant": "tenant", "user": "sub", "groups": "groups", "scopes": "scope"}


@pytest.fixture(scope="module")
def issuer():
    with LocalIssuer() as i:
        yield i


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    lib = small_store(tmp_path_factory.mktemp("tokens"))
    yield lib
    lib.close()


def _verifier(issuer: LocalIssuer, **cache: float) -> OidcVerifier:
    return OidcVerifier(ISSUER, "pincite", jwks_url=issuer.jwks_url, claims=dict(CLAIMS),
                        leeway_seconds=0, keys=JwksCache(issuer.jwks_url, **cache))


def _get(c: httpx.Client, token: str) -> tuple[int, float]:
    t = time.perf_counter()
    r = c.get("/sources", headers={"Authorization": f"Bearer {token}"})
    return r.status_code, time.perf_counter() - t


def test_forged_tokens_fetch_once_and_stall_no_other_tenant(issuer, lib, tmp_path):
    issuer.delay = 0.0
    with running(tmp_path, lib=lib, oidc=_verifier(issuer, min_interval=0.5)) as svc:
        with httpx.Client(base_url=svc.base, timeout=30) as c:
            # a cold cache: the first valid token awaits the first fetch, then is served
            assert _get(c, issuer.token("demo", "ana", groups=("analysts",)))[0] == 200
        time.sleep(0.6)  # past the interval: the next unknown kid may fetch once
        before = issuer.fetches
        issuer.delay = 2.0  # the issuer is slow from now on
        forged = [issuer.token("demo", "ana", kid=f"forged{i}", forged=True) for i in range(8)]
        forged += [issuer.token("demo", "ana", forged=True) for _ in range(4)]  # known kid
        other = svc.auth("globex")
        with ThreadPoolExecutor(max_workers=12) as pool, \
                client_at("127.0.0.2", svc.base, connections=12) as attacker, \
                httpx.Client(base_url=svc.base, timeout=30) as c:
            assert c.get("/sources", headers=other).status_code == 200  # warm, not timed
            sent = [pool.submit(_get, attacker, t) for t in forged]
            seconds: list[float] = []
            while len(seconds) < 5 or not all(f.done() for f in sent):  # while they wait
                t = time.perf_counter()
                assert c.get("/sources", headers=other).status_code == 200
                seconds.append(time.perf_counter() - t)
                time.sleep(0.05)
            codes = [f.result()[0] for f in sent]
        assert codes == [401] * len(forged)
        assert max(seconds) < 1.0, seconds  # another tenant never waits on the issuer
        assert issuer.fetches - before <= 1  # one refetch for 12 forged tokens
    issuer.delay = 0.0


def test_a_rotated_key_is_fetched_once_and_then_verifies(issuer, lib, tmp_path):
    verifier = _verifier(issuer, min_interval=0.3)
    with running(tmp_path, lib=lib, oidc=verifier) as svc, \
            httpx.Client(base_url=svc.base, timeout=30) as c:
        assert _get(c, issuer.token("demo", "ana", groups=("analysts",)))[0] == 200
        time.sleep(0.35)
        kid = issuer.add_key()  # the issuer rotates: a new key the cache does not hold
        fetched = issuer.fetches
        code, _ = _get(c, issuer.token("demo", "ana", groups=("analysts",), kid=kid))
        assert code == 200 and issuer.fetches == fetched + 1
        assert _get(c, issuer.token("demo", "ana", groups=("analysts",), kid=kid))[0] == 200
        assert issuer.fetches == fetched + 1  # held now: no fetch


def test_the_cache_alone_rate_limits_and_never_blocks_an_event_loop(issuer):
    import anyio

    cache = JwksCache(issuer.jwks_url, min_interval=60)
    before = issuer.fetches
    assert cache.signing_key(issuer.kid) is not None  # a thread: waits for the cold fetch
    for i in range(50):
        assert cache.lookup(f"nobody{i}") is None
    assert issuer.fetches - before == 1  # the unknown kids fetched nothing more

    async def on_the_loop() -> bool:
        fresh = JwksCache(issuer.jwks_url)
        with pytest.raises(KeysRefreshing):
            fresh.signing_key(issuer.kid)  # never waits on the loop
        await fresh.settled()
        return fresh.signing_key(issuer.kid) is not None

    assert anyio.run(on_the_loop)


def test_an_address_past_its_failures_gets_429_and_others_are_served(lib, tmp_path):
    with running(tmp_path, lib=lib, auth_failures=FailureLimit(limit=5)) as svc, \
            client_at("127.0.0.3", svc.base) as guesser, \
            httpx.Client(base_url=svc.base, timeout=30) as c:
        wrong = {"Authorization": "Bearer pck_000000000000_guess"}
        assert [guesser.get("/sources", headers=wrong).status_code for _ in range(5)] == [401] * 5
        r = guesser.get("/sources", headers=wrong)
        assert r.status_code == 429 and 1 <= int(r.headers["Retry-After"]) <= 60
        assert r.json()["error"]["code"] == "too_many_failures"
        # the address is refused before its credential is looked at, a valid one too
        assert guesser.get("/sources", headers=svc.auth("demo")).status_code == 429
        # another address is served as before, and requests without a credential count nothing
        assert c.get("/sources", headers=svc.auth("demo")).status_code == 200
        assert [c.get("/sources").status_code for _ in range(8)] == [401] * 8
        assert c.get("/sources", headers=svc.auth("demo")).status_code == 200
        # failed sign-ins to the review page count as well
        with client_at("127.0.0.4", svc.base) as browser:
            codes = [sign_in(browser, "pck_000000000000_guess") for _ in range(6)]
            assert codes == [401] * 5 + [429], codes
            assert sign_in(browser, svc.keys["demo"]) == 429
        with httpx.Client(base_url=svc.base) as browser:
            assert sign_in(browser, svc.keys["demo"]) == 303


def test_the_lockout_in_isolation():
    now = [0.0]
    lock = Lockout(FailureLimit(limit=2, window=10.0, max_clients=3), clock=lambda: now[0])
    lock.failed("a")
    lock.check("a")
    lock.failed("a")
    with pytest.raises(TooManyFailures) as e:
        lock.check("a")
    assert e.value.status == 429 and e.value.retry_after == 10
    lock.check("b")
    now[0] = 10.5  # the failures left the window
    lock.check("a")
    for c in ("c", "d", "e", "f"):
        lock.failed(c)
    assert len(lock._failures) <= 3  # memory bounded
