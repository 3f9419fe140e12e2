"""A review-page session is only as good as its credential: the key or token it signed in
with is checked on every request, so a revoked key or an expired token signs the session
out at once (401 for JSON, a redirect to sign in for a browser). The page counts against
its tenant's rate limit like the API. Over real HTTP on 127.0.0.1."""

from __future__ import annotations

import re
import time

import httpx
import pytest

from pincite.evals.acceptance.loopback import LocalIssuer
from pincite.service.oidc import OidcVerifier
from pincite.service.throttle import TenantLimits
from tests.service.serving import running, small_store

JSON = {"Accept": "application/json"}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    lib = small_store(tmp_path_factory.mktemp("sessions"))
    yield lib
    lib.close()


def sign_in(c: httpx.Client, credential: str) -> int:
    """Sign `c` in with `credential` through the form, as a browser does; return the status."""
    form = c.get("/signin")
    token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
    return c.post("/signin", data={"credential": credential, "csrf_token": token}).status_code


def _signed_out(c: httpx.Client) -> bool:
    page = c.get("/ui/")
    return (c.get("/ui/items.json", headers=JSON).status_code == 401
            and page.status_code == 303 and page.headers["location"] == "/signin")


def test_a_revoked_key_signs_its_session_out(lib, tmp_path):
    from tests.service.serving import ANA, WORKING

    with running(tmp_path, lib=lib) as svc, httpx.Client(base_url=svc.base) as c:
        key, entry = svc.ring.create(ANA, WORKING)
        assert sign_in(c, key) == 303
        assert c.get("/ui/items.json", headers=JSON).status_code == 200
        assert c.get("/ui/").status_code == 200
        svc.ring.revoke(entry.key_id)
        assert _signed_out(c)
        assert _signed_out(c)  # and stays out
        # signing in again with a live key works as before
        assert sign_in(c, svc.keys["demo"]) == 303
        assert c.get("/ui/items.json", headers=JSON).status_code == 200


def test_an_expired_token_signs_its_session_out(lib, tmp_path):
    with LocalIssuer() as issuer:
        oidc = OidcVerifier.from_file(issuer.config(tmp_path, leeway=0))
        with running(tmp_path, lib=lib, oidc=oidc) as svc, httpx.Client(base_url=svc.base) as c:
            expires = int(time.time()) + 2
            token = issuer.token("demo", "ana", groups=("analysts",),
                                 seconds=expires - time.time())
            assert sign_in(c, token) == 303
            assert c.get("/ui/items.json", headers=JSON).status_code == 200
            time.sleep(max(0.0, expires - time.time()) + 1.1)  # the token's exp has passed
            assert _signed_out(c)  # the session's own 8 hours do not matter


def test_the_review_page_counts_against_its_tenants_rate(lib, tmp_path):
    limits = TenantLimits(rate=0.5, burst=3, concurrency=4)
    with running(tmp_path, lib=lib, limits=limits) as svc, httpx.Client(base_url=svc.base) as c:
        assert sign_in(c, svc.keys["demo"]) == 303
        codes = [c.get("/ui/items.json", headers=JSON).status_code for _ in range(6)]
        assert codes[:3] == [200] * 3 and codes[3:] == [429] * 3, codes
        r = c.get("/ui/items.json", headers=JSON)
        assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
        # the page and the API share the tenant's bucket; the other tenant has its own
        assert c.get("/sources", headers=svc.auth("demo")).status_code == 429
        assert c.get("/sources", headers=svc.auth("globex")).status_code == 200
