"""`pincite serve` (the HTTP service with the review page) and `pincite mcp` (the MCP
server for agents)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .context import errors, store_url
from .keys import KeysOpt
from .options import StoreOpt

OidcOpt = Annotated[Path | None, typer.Option(
    "--oidc", help="OIDC/JWT configuration (JSON: issuer, audience, jwks_file or jwks_url, "
    "claims); without it only API keys sign in.")]


def register(app: typer.Typer) -> None:
    """Add `serve` and `mcp` to `app`."""
    app.command("serve")(serve)
    app.command("mcp")(mcp)


def _authenticator(keys: Path | None, oidc: Path | None, store: str | None) -> Any:
    from ..service.auth import Authenticator
    from ..service.keyring import KeyRing, default_keys_path
    from ..service.oidc import OidcVerifier

    ring = KeyRing(keys if keys is not None else default_keys_path(store_url(store)))
    return Authenticator(keys=ring, oidc=OidcVerifier.from_file(oidc) if oidc else None)


def _beside(store: str | None, name: str) -> Path | None:
    """Return STORE/name for a directory store, else None."""
    url = store_url(store)
    return None if "://" in url else Path(url) / name


def _json_logs() -> None:
    """Send the service's log lines (JSON, no document text) to stderr."""
    import logging
    import sys

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter('{"ts": "%(asctime)s", "level": "%(levelname)s", '
                                           '"line": %(message)s}'))
    log = logging.getLogger("pincite.service")
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False


def serve(
    host: Annotated[str, typer.Option("--host", help="Interface to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8080,
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME[:PORT]", help="Another Host name served (repeatable); "
        "by default the bound address and localhost on this port.")] = None,
    keys: KeysOpt = None,
    oidc: OidcOpt = None,
    rate: Annotated[float, typer.Option("--rate", help="Requests per second per tenant.")] = 50.0,
    burst: Annotated[int, typer.Option("--burst", help="Requests a tenant may send at once "
                                       "above the rate.")] = 100,
    concurrency: Annotated[int, typer.Option(
        "--concurrency", help="Requests of one tenant in flight at most.")] = 16,
    timeout: Annotated[float, typer.Option(
        "--timeout", help="Seconds a request may run before it is answered 503 (uploads are "
        "bounded by size instead).")] = 120.0,
    threads: Annotated[int | None, typer.Option(
        "--threads", help="Library calls run at once; the rest wait their turn (default: "
        "the CPUs, 2 to 8; searches slow down with more threads than cores).")] = None,
    embedder: Annotated[str | None, typer.Option(
        "--embedder", help="Embedder of the generations ingest publishes (minilm or hash).")] = None,
    artifacts: Annotated[Path | None, typer.Option(
        "--artifacts", help="Folder the service keeps fill artifacts in (default: "
        "STORE/service-artifacts for a directory store, else a private temporary folder).")
    ] = None,
    tender_schema: Annotated[Path | None, typer.Option(
        "--tender-schema", help="The tender schema POST /rank reads calls with (default: "
        "examples/tender/schema.yaml of the source checkout).")] = None,
    releases: Annotated[Path | None, typer.Option(
        "--releases", help="Folder of release records whose canary routes search and ask "
        "(default: $PINCITE_RELEASES, else STORE/releases for a directory store).")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No request log lines.")] = False,
    store: StoreOpt = None,
) -> None:
    """Serve the HTTP API and the review page (/ui, sign in at /signin); every route but
    /healthz needs `Authorization: Bearer <key or JWT>`. OpenAPI at /openapi.json.

    Example: pincite serve --store ./lib --port 8080
    """
    from ..limits import check_number

    with errors():
        check_number("--port", port, 1, 65535, integer=True)
        try:
            import uvicorn
        except ImportError:
            from ..errors import MissingExtra

            raise MissingExtra("uvicorn", "review") from None
        from ..library import open_library
        from ..service.served import ServiceConfig
        from ..service.server import create_service, loopback_hosts
        from ..service.throttle import TenantLimits

        config = ServiceConfig(
            auth=_authenticator(keys, oidc, store),
            limits=TenantLimits(rate=rate, burst=burst, concurrency=concurrency),
            allowed_hosts=loopback_hosts(host, port, allow_host or ()), embedder=embedder,
            timeout=check_number("--timeout", timeout, 0.001, 86400),
            artifact_dir=artifacts or _beside(store, "service-artifacts"),
            tender_schema=tender_schema, releases=releases)
        if threads is not None:
            config.threads = int(check_number("--threads", threads, 1, 256, integer=True))
        app = create_service(open_library(store_url(store)), config)
    if not quiet:
        _json_logs()
    typer.echo(f"pincite service on http://{host}:{port}/ (review page: /ui/, sign in: "
               "/signin)", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")


def mcp(
    key: Annotated[str | None, typer.Option(
        "--key", envvar="PINCITE_KEY", help="The API key or JWT the server acts as "
        "(default: $PINCITE_KEY); checked again on every call.")] = None,
    http: Annotated[bool, typer.Option(
        "--http", help="Serve streamable HTTP at /mcp instead of stdio; every request must "
        "carry the same principal's bearer credential.")] = False,
    host: Annotated[str, typer.Option("--host", help="Interface to bind (with --http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port (with --http).")] = 8090,
    keys: KeysOpt = None,
    oidc: OidcOpt = None,
    store: StoreOpt = None,
) -> None:
    """Run the MCP server for agents: tools search, ask, cite, verify, show and extract,
    with the key's authorization; document text in results is marked untrusted.

    Example: pincite mcp --store ./lib --key "$PINCITE_KEY"
    """
    with errors():
        from ..errors import UsageError
        from ..library import open_library
        from ..service.mcp_tools import bearer_gate, build_mcp

        if not key:
            raise UsageError("give --key (or set $PINCITE_KEY): the MCP server acts as one key")
        auth = _authenticator(keys, oidc, store)
        lib = open_library(store_url(store))
        server = build_mcp(lib, auth, key)
    if not http:
        server.run("stdio")
        return
    import uvicorn

    app = bearer_gate(server.streamable_http_app(host=host), auth, auth.credential(key))
    typer.echo(f"pincite MCP on http://{host}:{port}/mcp", err=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
