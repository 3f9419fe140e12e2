"""Who may call the service: nothing answers without a verified credential, the principal
comes only from it, scopes gate routes, another tenant's things are "not found" exactly as
missing ones, cross-origin state changes are refused, and JWTs verify against a JWKS."""

from __future__ import annotations

import json
import os
import re
import stat
import time
from typing import Any

import httpx
import pytest

from pincite.service.keyring import KeyRing
from tests.commands import invoke
from tests.corpus import TENDER_DOCS
from tests.service.serving import CANARY, running


@pytest.fixture(scope="module")
def svc(tmp_path_factory):
    with running(tmp_path_factory.mktemp("auth")) as s:
        yield s


def _operations(svc: Any) -> list[tuple[str, str]]:
    spec = httpx.get(svc.base + "/openapi.json", headers=svc.auth("demo")).json()
    out = []
    for path, item in spec["paths"].items():
        for method in item:
            out.append((method.upper(), re.sub(r"\{[^}]+\}", "1", path)))
    return out


def test_nothing_answers_without_credentials(svc):
    ops = _operations(svc)
    assert len(ops) >= 25
    assert httpx.get(svc.base + "/healthz").json() == {"ok": True}
    bad_headers = [{}, {"Authorization": "Bearer pck_000000000000_nope"},
                   {"Authorization": "Basic YWxhZGRpbjpvcGVu"}, {"Authorization": "Bearer"},
                   {"Authorization": "Bearer " + svc.keys["demo"] + "x"},
                   {"Authorization": "Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0."}]
    with httpx.Client(base_url=svc.base) as c:
        for method, path in ops:
            if path == "/healthz":
                continue
            for h in bad_headers:
                r = c.request(method, path, headers=h, content=b"{not json")
                assert r.status_code == 401, (method, path, h, r.text)
                assert set(r.json()["error"]) == {"code", "message", "hint"}
                assert r.json()["error"]["code"] == "unauthenticated"


def test_a_revoked_key_stops_on_the_next_request(svc, tmp_path):
    ring = KeyRing(svc.ring.path)
    from pincite.service.scopes import Scope
    from tests.service.serving import ANA

    key, entry = ring.create(ANA, (Scope.READ,))
    h = {"Authorization": f"Bearer {key}"}
    assert httpx.get(svc.base + "/sources", headers=h).status_code == 200
    r = invoke("keys", "revoke", entry.key_id, "--keys", str(ring.path), "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["revoked_at"]
    assert httpx.get(svc.base + "/sources", headers=h).status_code == 401


def test_scopes_gate_routes(svc):
    with httpx.Client(base_url=svc.base) as c:
        read = svc.auth("demo-read")
        assert c.get("/search", params={"q": "garantía"}, headers=read).status_code == 200
        r = c.post("/ingest", params={"source_id": "x.md"}, content=b"# x\n\ny\n", headers=read)
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
        assert c.post("/review/next", headers=read).status_code == 403
        assert c.get("/generations", headers=svc.auth("demo")).status_code == 403
        assert c.get("/metrics", headers=svc.auth("demo")).status_code == 403
        r = c.delete("/sources", params={"source_id": "tender/anuncio.html", "purge": "true"},
                     headers=svc.auth("demo"))
        assert r.status_code == 403  # purge needs admin
        # every tenant's numbers take the operator's scope, not a tenant's admin
        assert c.get("/metrics", headers=svc.auth("demo-admin")).status_code == 403
        assert c.get("/generations", headers=svc.auth("demo-admin")).status_code == 403
        m = c.get("/metrics", headers=svc.auth("operator"))
        assert m.status_code == 200 and "pincite_request_seconds_bucket" in m.text
        assert "demo" not in m.text and "globex" not in m.text  # no label names a tenant


def test_another_tenants_things_are_not_found_like_missing_ones(svc):
    demo, globex = svc.auth("demo"), svc.auth("globex")
    with httpx.Client(base_url=svc.base) as c:
        theirs = c.get("/show", params={"doc": "globex/supply.md"}, headers=demo)
        missing = c.get("/show", params={"doc": "globex/nothing.md"}, headers=demo)
        assert theirs.status_code == missing.status_code == 404
        assert theirs.json()["error"]["message"].replace("supply", "nothing") == \
            missing.json()["error"]["message"]
        assert c.get("/show", params={"doc": "globex/supply.md"}, headers=globex).status_code == 200
        assert c.get("/show", params={"doc": TENDER_DOCS[0]}, headers=globex).status_code == 404
        r = c.post("/cite", json={"doc": "globex/supply.md", "quotes": ["Invoices"]}, headers=demo)
        assert r.status_code == 404
        for q in (CANARY, "Invoices are payable within thirty days"):
            # the query is echoed back; nothing else may carry the other tenant's token
            got = c.get("/search", params={"q": q}, headers=demo).json()
            assert CANARY not in json.dumps({**got, "query": ""})
            got = c.get("/ask", params={"q": q}, headers=demo).json()
            assert CANARY not in json.dumps({**got, "question": ""})
        r = c.get("/search", params={"q": CANARY}, headers=globex)
        assert CANARY in r.text
        items = c.get("/review/items", headers=globex).json()
        assert items == []  # the queue is demo's
        assert c.get("/review/items/1", headers=globex).status_code == 404
        assert c.delete("/sources", params={"source_id": TENDER_DOCS[0]},
                        headers=globex).status_code == 404


def test_the_principal_never_comes_from_the_request(svc):
    demo = svc.auth("demo")
    with httpx.Client(base_url=svc.base) as c:
        r = c.post("/cite", json={"doc": TENDER_DOCS[0], "quotes": ["garantía"],
                                  "tenant": "globex"}, headers=demo)
        assert r.status_code == 400 and r.json()["error"]["code"] == "usage"
        spoof = {**demo, "X-Tenant": "globex", "X-User": "gus", "X-Pincite-As": "globex:gus"}
        got = c.get("/search", params={"q": CANARY, "as": "globex:gus", "tenant": "globex"},
                    headers=spoof).json()
        assert CANARY not in json.dumps({**got, "query": ""})


def test_cross_origin_state_changes_are_refused(svc):
    demo = svc.auth("demo")
    with httpx.Client(base_url=svc.base) as c:
        for h in ({**demo, "Origin": "http://evil.example"}, {"Origin": "null"},
                  {**demo, "Referer": "http://evil.example/page"}):
            r = c.post("/review/next", headers=h)
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site_request"
        own = svc.base
        assert c.post("/review/next", headers={**demo, "Origin": own}).status_code == 200
        r = c.get("/healthz", headers={"Host": "rebound.example"})
        assert r.status_code == 421


def test_keys_are_hashed_at_rest_and_private(svc):
    path = svc.ring.path
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    text = path.read_text()
    for key in svc.keys.values():
        secret = key.split("_", 2)[2]
        assert secret not in text
    r = invoke("keys", "create", "--tenant", "acme", "--user", "ana", "--group", "legal",
               "--scope", "read", "--scope", "review", "--keys", str(path), "--json")
    assert r.returncode == 0, r.stderr
    made = json.loads(r.stdout)
    assert made["key"].startswith("pck_") and made["scopes"] == ["read", "review"]
    assert made["key"].split("_", 2)[2] not in path.read_text()
    listed = invoke("keys", "list", "--tenant", "acme", "--keys", str(path), "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [r["key_id"] for r in rows] == [made["key_id"]] and "key" not in rows[0]
    bad = invoke("keys", "create", "--tenant", "acme", "--user", "ana", "--scope", "root",
                 "--keys", str(path))
    assert bad.returncode == 2 and "unknown scope 'root'" in bad.stderr
    none = invoke("keys", "create", "--tenant", "acme", "--user", "ana", "--keys", str(path))
    assert none.returncode == 2 and "--scope" in none.stderr


# ---- OIDC / JWT ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oidc(tmp_path_factory):
    """An issuer's RSA key pair, its JWKS file and the service's OIDC configuration."""
    import jwt
    from cryptography.hazmat.primitives.asymmetric import rsa

    root = tmp_path_factory.mktemp("oidc")
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
    (root / "jwks.json").write_text(json.dumps({"keys": [{**jwk, "kid": "k1", "use": "sig",
                                                          "alg": "RS256"}]}))
    (root / "oidc.json").write_text(json.dumps({
        "issuer": "https://id.example.test/", "audience": "pincite", "jwks_file": "jwks.json",
        "claims": {"tenant": "org", "user": "preferred_username", "groups": "groups",
                   "scopes": "scope"}}))
    return root, key


def _token(key: Any, **claims: Any) -> str:
    import jwt

    now = int(time.time())
    body = {"iss": "https://id.example.test/", "aud": "pincite", "exp": now + 300, "iat": now,
            "org": "demo", "preferred_username": "ana", "groups": ["analysts"],
            "scope": "read review", **claims}
    return jwt.encode({k: v for k, v in body.items() if v is not None}, key, algorithm="RS256",
                      headers={"kid": "k1"})


def test_jwt_bearer_tokens_map_claims_to_the_principal(oidc, tmp_path):
    from cryptography.hazmat.primitives.asymmetric import rsa

    from pincite.service.oidc import OidcVerifier
    from tests.service.serving import build_store

    root, key = oidc
    lib = build_store(tmp_path)
    try:
        from pincite.service.auth import Authenticator
        from pincite.service.served import ServiceConfig
        from pincite.service.server import create_service
        from tests.service.clients import served_over_http

        app = create_service(lib, ServiceConfig(auth=Authenticator(
            keys=KeyRing(tmp_path / "keys.json"),
            oidc=OidcVerifier.from_file(root / "oidc.json"))))
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        with served_over_http(app) as base, httpx.Client(base_url=base) as c:
            def search(token: str) -> httpx.Response:
                return c.get("/search", params={"q": "garantía definitiva"},
                             headers={"Authorization": f"Bearer {token}"})

            ok = search(_token(key))
            assert ok.status_code == 200 and ok.json()["items"]
            assert c.post("/review/next", headers={
                "Authorization": f"Bearer {_token(key)}"}).json()["claimed_by"] == "ana"
            refused = {
                "expired": _token(key, exp=int(time.time()) - 3600),
                "wrong audience": _token(key, aud="someone-else"),
                "wrong issuer": _token(key, iss="https://evil.example/"),
                "another key": _token(other),
                "no tenant": _token(key, org=None),
                "bad tenant": _token(key, org="de mo"),
                "hs256": _hs256(),
            }
            for why, token in refused.items():
                r = search(token)
                assert r.status_code == 401, why
            globex = search(_token(key, org="globex", preferred_username="gus",
                                   groups=["staff"]))
            assert globex.status_code == 200 and "tender/" not in globex.text
            no_scope = search(_token(key, scope="review"))
            assert no_scope.status_code == 403
    finally:
        lib.close()


def _hs256() -> str:
    import jwt

    return jwt.encode({"iss": "https://id.example.test/", "aud": "pincite", "org": "demo",
                       "preferred_username": "ana", "exp": int(time.time()) + 300,
                       "scope": "read"}, "k1" * 16, algorithm="HS256", headers={"kid": "k1"})


def test_sign_in_needs_the_forms_token_and_the_pages_origin(svc):
    with httpx.Client(base_url=svc.base) as c:
        form = c.get("/signin")
        token = re.search(r'name="csrf_token" value="([^"]+)"', form.text).group(1)
        assert "samesite=strict" in form.headers["set-cookie"].lower()
        r = c.post("/signin", data={"credential": svc.keys["demo"]})  # no token
        assert r.status_code == 403 and "pincite_session" not in r.headers.get("set-cookie", "")
        r = c.post("/signin", data={"credential": svc.keys["demo"], "csrf_token": token},
                   headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
        r = c.post("/signin", data={"credential": svc.keys["demo"], "csrf_token": token})
        assert r.status_code == 303 and r.headers["location"] == "/ui/"
        # the session signs in the page only: the API still wants a bearer credential
        assert c.get("/sources").status_code == 401
        assert c.get("/ui/items.json").status_code == 200


def test_the_jwks_may_come_from_a_url(oidc, tmp_path):
    import http.server
    import threading

    from pincite.service.oidc import OidcVerifier

    root, key = oidc
    jwks = (root / "jwks.json").read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(jwks)

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        cfg = json.loads((root / "oidc.json").read_text())
        cfg.pop("jwks_file")
        cfg["jwks_url"] = f"http://127.0.0.1:{server.server_port}/jwks.json"
        (tmp_path / "oidc.json").write_text(json.dumps(cfg))
        verifier = OidcVerifier.from_file(tmp_path / "oidc.json")
        caller = verifier.authenticate(_token(key))
        assert str(caller.principal) == "demo:ana:analysts"
        with pytest.raises(Exception) as e:
            verifier.authenticate(_token(key, aud="other"))
        assert getattr(e.value, "status", None) == 401
    finally:
        server.shutdown()
        server.server_close()
