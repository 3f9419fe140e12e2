"""What the service groups (TOKEN DOS, MCP SCOPES, SESSIONS, FAIRNESS) serve on 127.0.0.1:
the driver of the service's apps, an app served by uvicorn in a thread, an OIDC issuer
whose key set is an HTTP endpoint that counts its fetches and can be made slow, and
clients bound to other loopback addresses (each is another client to the service).

The suite sits below the service, so the command hands the apps in (`ServiceDriver`,
`Drivers.service`); the issuer and the server here are plain HTTP on loopback.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from .builders import Spec, render
from .canaries import TokenMint
from .harness import EMBEDDER, Drivers, Workspace, run_cli

ISSUER = "https://issuer.acceptance.test/"
AUDIENCE = "pincite"
OWN = ("acme", "ana", "legal")      # the tenant whose documents the groups guard
OTHER = ("globex", "gus", "staff")  # another tenant


@dataclass(frozen=True)
class ServiceDriver:
    """The service's apps, handed in by the command that runs the suite.

    `app(lib, keys, oidc=None, **options)` is the service (`pincite serve`) over `lib` with
    the keys file `keys` and the OIDC configuration file `oidc`; options: `rate`, `burst`,
    `concurrency`, `queue_seconds` (the tenant limits), `threads`, `tenant_threads`,
    `failures` (failed authentications per address a minute), `session_seconds`.
    `mcp(lib, keys, key)` is `pincite mcp --http` acting for `key` (None without the `mcp`
    extra); it must be served with its lifespan on."""

    app: Callable[..., Any]
    mcp: Callable[..., Any] | None = None


def missing(drivers: Drivers, *, mcp: bool = False, tokens: bool = False) -> str | None:
    """Return why the service groups cannot run here (None when they can)."""
    if drivers.service is None or find_spec("httpx") is None:
        return "the service is not installed: pip install 'pincite[service]'"
    if mcp and drivers.service.mcp is None:
        return "the MCP server is not installed: pip install 'pincite[service]'"
    if tokens and (find_spec("jwt") is None or find_spec("cryptography") is None):
        return "JWT support is not installed: pip install 'pincite[service]'"
    return None


def service_figures(board: Any, group: str, names: Sequence[str], drivers: Drivers, *,
                    mcp: bool = False, tokens: bool = False) -> dict[str, Any] | None:
    """Return the group's figures by name, or None with each marked not applicable when
    the service cannot run here (`missing`)."""
    why = missing(drivers, mcp=mcp, tokens=tokens)
    if why is not None:
        for name in names:
            board.not_applicable(group, name, why)
        return None
    return {n: board.figure(group, n) for n in names}


@dataclass
class Tenants:
    """A store with one document per tenant (each holding its own canary), published, and
    its keys file."""

    lib: Any
    store: Path
    keys: Path
    canary: dict[str, str]  # tenant -> its document's canary

    def key(self, drivers: Drivers, who: tuple[str, str, str], *scopes: str) -> tuple[str, str]:
        """Make a key through `pincite keys create`; return (the key, its id)."""
        tenant, user, group = who
        run = run_cli(drivers, self.store, "keys", "create", "--keys", str(self.keys),
                      "--tenant", tenant, "--user", user, "--group", group,
                      *[a for s in scopes for a in ("--scope", s)], "--json")
        made = run.json()
        if run.returncode != 0 or not isinstance(made, dict):
            raise RuntimeError(f"keys create failed: {run.stderr.strip()[:200]}")
        return str(made["key"]), str(made["key_id"])

    def revoke(self, drivers: Drivers, key_id: str) -> bool:
        """Revoke a key through `pincite keys revoke`; return whether it said so."""
        run = run_cli(drivers, self.store, "keys", "revoke", key_id, "--keys", str(self.keys),
                      "--json")
        return run.returncode == 0

    def close(self) -> None:
        """Close the library."""
        self.lib.close()


def tenants(ws: Workspace, drivers: Drivers, seed: int, name: str) -> Tenants:
    """Return a fresh two-tenant store: `acme` holds `terms.md` (ACL group:legal), `globex`
    `supply.md` (ACL *), each with a canary; the index is published."""
    mint = TokenMint(seed)
    store = ws.path(f"{name}-store")
    lib = drivers.open_library(store, create=True)
    canary = {}
    for (tenant, _user, group), doc in ((OWN, "terms.md"), (OTHER, "supply.md")):
        token = canary[tenant] = mint.new()
        spec = Spec(f"Agreement {token}", (f"1.1 This Agreement is governed by the laws of "
                                           f"Spain. Ref {token}.",
                                           "1.2 Invoices are payable within thirty days."))
        lib.ingest_bytes(render(spec, "md"), source_id=doc, tenant=tenant,
                         acl=[f"group:{group}"], sandbox=False)
    lib.update_index(EMBEDDER)
    return Tenants(lib, Path(store), ws.path(f"{name}-keys.json"), canary)


def sign_in(client: Any, credential: str) -> int:
    """Sign `client` in to the review page through its form, as a browser does; return the
    status of the form's POST (303 when signed in)."""
    form = client.get("/signin")
    found = re.search(r'name="csrf_token" value="([^"]+)"', form.text)
    token = found.group(1) if found else ""
    return int(client.post("/signin", data={"credential": credential,
                                            "csrf_token": token}).status_code)


def p95(seconds: Sequence[float]) -> float:
    """Return the 95th percentile of `seconds` (nearest rank; 0 when empty)."""
    if not seconds:
        return 0.0
    ordered = sorted(seconds)
    return ordered[min(len(ordered) - 1, max(0, int(0.95 * len(ordered) + 0.999) - 1))]


@contextmanager
def serve(app: Any, *, lifespan: bool = False) -> Iterator[str]:
    """Serve `app` with uvicorn on a free 127.0.0.1 port in a thread; yield its base URL."""
    import uvicorn

    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="error",
                                           lifespan="on" if lifespan else "off",
                                           access_log=False, ws="none"))
    thread = threading.Thread(target=server.run, name="pincite-acceptance-serve", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    if not server.started:
        raise RuntimeError("the app did not start on 127.0.0.1")
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def client_at(address: str, base: str, timeout: float = 30.0, connections: int = 10) -> Any:
    """Return an httpx client to `base` whose connections (at most `connections` at once)
    come from `address` (another 127.x.y.z is another client to the service)."""
    import httpx

    limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
    return httpx.Client(base_url=base, timeout=timeout, follow_redirects=False,
                        transport=httpx.HTTPTransport(local_address=address, limits=limits))


class McpSession:
    """One streamable-HTTP MCP session (`initialize`, then `tools/call`), each request
    carrying the bearer credential given for it (raw JSON-RPC over httpx)."""

    PROTOCOL = "2025-06-18"

    def __init__(self, url: str, credential: str) -> None:
        import httpx

        self.url, self._http = url, httpx.Client(timeout=60)
        self._id = 0
        self.session: str | None = None
        status, _ = self._post({"method": "initialize", "params": {
            "protocolVersion": self.PROTOCOL, "capabilities": {},
            "clientInfo": {"name": "pincite-acceptance", "version": "1"}}}, credential)
        self.opened = status == 200
        if self.opened:
            self._post({"method": "notifications/initialized"}, credential, notify=True)

    def call(self, tool: str, arguments: dict[str, Any], credential: str
             ) -> tuple[int, dict[str, Any] | None, str]:
        """Call `tool` as `credential`; return (HTTP status, the JSON-RPC result or None,
        the response's text)."""
        return self._post({"method": "tools/call", "params": {"name": tool,
                                                              "arguments": arguments}},
                          credential, text=True)  # type: ignore[return-value]

    def _post(self, message: dict[str, Any], credential: str, notify: bool = False,
              text: bool = False) -> Any:
        body = {"jsonrpc": "2.0", **message}
        if not notify:
            self._id += 1
            body["id"] = self._id
        headers = {"Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {credential}",
                   "MCP-Protocol-Version": self.PROTOCOL}
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        r = self._http.post(self.url, json=body, headers=headers)
        self.session = self.session or r.headers.get("mcp-session-id")
        result = None
        for line in r.text.splitlines():
            if line.startswith("data:"):
                try:
                    got = json.loads(line[5:])
                except ValueError:
                    continue
                if isinstance(got, dict) and got.get("id") == body.get("id"):
                    result = got.get("result") or {"isError": True, "error": got.get("error")}
        return (r.status_code, result, r.text) if text else (r.status_code, result)

    def close(self) -> None:
        """Close the HTTP client."""
        self._http.close()


class LocalIssuer:
    """An OIDC issuer on 127.0.0.1: RSA keys, its key set at `jwks_url` (each fetch counted,
    each answered after `delay` seconds), and tokens it signs."""

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import rsa

        self._keys: dict[str, Any] = {}
        self.fetches = 0
        self.delay = 0.0
        self._lock = threading.Lock()
        self.kid = self.add_key()
        self._other = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                with issuer._lock:
                    issuer.fetches += 1
                    delay = issuer.delay
                time.sleep(delay)
                body = json.dumps(issuer.jwks()).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="pincite-acceptance-issuer")
        self._thread.start()
        self.jwks_url = f"http://127.0.0.1:{self._server.server_port}/jwks.json"

    def add_key(self) -> str:
        """Make a new signing key, publish it in the key set; return its kid."""
        from cryptography.hazmat.primitives.asymmetric import rsa

        kid = uuid.uuid4().hex[:12]
        self._keys[kid] = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        return kid

    def jwks(self) -> dict[str, Any]:
        """Return the published key set."""
        import jwt

        keys = []
        for kid, key in list(self._keys.items()):
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key()))
            keys.append({**jwk, "kid": kid, "use": "sig", "alg": "RS256"})
        return {"keys": keys}

    def config(self, folder: Path, leeway: float = 0.0) -> Path:
        """Write the service's OIDC configuration for this issuer; return its path."""
        path = folder / "oidc.json"
        path.write_text(json.dumps({
            "issuer": ISSUER, "audience": AUDIENCE, "jwks_url": self.jwks_url,
            "claims": {"tenant": "tenant", "user": "sub", "groups": "groups",
                       "scopes": "scope"}, "leeway_seconds": leeway}), "utf-8")
        return path

    def token(self, tenant: str, user: str, *, scope: str = "read review",
              groups: tuple[str, ...] = (), seconds: float = 300.0, kid: str | None = None,
              forged: bool = False) -> str:
        """Return a token of this issuer (`forged`: signed by a key it never published,
        under `kid`)."""
        import jwt

        now = int(time.time())
        claims = {"iss": ISSUER, "aud": AUDIENCE, "iat": now, "exp": now + int(seconds),
                  "tenant": tenant, "sub": user, "groups": list(groups), "scope": scope}
        kid = kid or self.kid
        key = self._other if forged else self._keys[kid]
        return jwt.encode(claims, key, algorithm="RS256", headers={"kid": kid})

    def close(self) -> None:
        """Stop the key set's server."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LocalIssuer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
