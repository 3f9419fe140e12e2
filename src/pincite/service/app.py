"""The one FastAPI application of `pincite serve`: the JSON API, the review page under
`/ui`, sign-in, health, metrics and the OpenAPI document.

Every route but `GET /healthz` needs a caller: `Authorization: Bearer <key or JWT>`
(`auth`), or for the review page a session made by signing in with one (`signin`). The
principal comes only from that credential. Each tenant has its own rate bucket and
in-flight cap (`throttle`). Errors are one envelope (`envelope`). The routes call only
the facade, through `contracts` (the CLI's `--json` bodies).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import MissingExtra, PinciteError, RateLimited, Unauthenticated, UsageError
from ..limits import Limits
from ..model import Principal
from .auth import Authenticator
from .envelope import error_body, http_error, internal_error
from .guard import LOOPBACK_HOSTS, Guard
from .scopes import Caller, Scope
from .throttle import TenantLimits, Throttle

if TYPE_CHECKING:
    from ..library import Library

MAX_JSON_BODY = 1024 * 1024
UPLOAD_PATH = "/ingest"


@dataclass
class ServiceConfig:
    """How one service app authenticates, limits and caps requests."""

    auth: Authenticator
    limits: TenantLimits = field(default_factory=TenantLimits)
    allowed_hosts: list[str] | None = None  # None: loopback names on any port
    max_body: int = MAX_JSON_BODY
    max_upload: int = field(default_factory=lambda: Limits().max_bytes)
    upload_dir: Path | None = None
    session_seconds: float = 8 * 3600.0
    embedder: str | None = None  # of the generations ingest publishes
    # library calls run at once: searches lose throughput with more threads than cores
    # (bench/serve.py: 8 threads on 2 cores give a third of one thread's rate)
    threads: int = field(default_factory=lambda: default_threads())


@dataclass
class Served:
    """What the routes share: the library, the config, the limits, the metrics."""

    lib: "Library"
    config: ServiceConfig
    throttle: Throttle
    metrics: Any
    guard: Guard

    def caller_dependency(self) -> Callable[..., Caller]:
        """Return the dependency giving the caller the front door authenticated (the
        bearer scheme it declares is what the OpenAPI document shows)."""
        from fastapi import Depends, Request
        from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

        bearer = HTTPBearer(auto_error=False, description="An API key (`pincite keys "
                            "create`) or a JWT of the configured issuer.")

        async def caller(request: Request,
                         _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
                         ) -> Caller:
            found = getattr(request.state, "caller", None)
            if not isinstance(found, Caller):  # a route the front door let through unsigned
                raise Unauthenticated()
            return found

        return caller


def create_service(lib: "Library", config: ServiceConfig) -> Any:
    """Return the service app over `lib` (wrapped in its front door: host, origin, body
    caps, metrics, logs)."""
    try:
        from fastapi import Depends, FastAPI, Request
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import JSONResponse, Response
        from starlette.exceptions import HTTPException as StarletteHTTPException
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtra("fastapi", "review") from exc
    from . import routes_documents, routes_query, routes_review, signin
    from .frontdoor import FrontDoor
    from .openapi_doc import attach_openapi
    from .telemetry import Metrics

    guard = Guard(config.allowed_hosts if config.allowed_hosts is not None
                  else list(LOOPBACK_HOSTS))
    served = Served(lib, config, Throttle(config.limits), Metrics(), guard)
    app = FastAPI(title="pincite", version="1", docs_url=None, redoc_url=None,
                  openapi_url=None,
                  description="Retrieval and extraction where every answer is a verified "
                  "citation. Authenticate with `Authorization: Bearer <key or JWT>`.")

    def envelope(exc: PinciteError) -> Response:
        headers = {"Retry-After": str(exc.retry_after)} if isinstance(exc, RateLimited) else None
        return JSONResponse(error_body(exc), status_code=exc.status, headers=headers)

    @app.exception_handler(PinciteError)
    async def _error(request: Request, exc: PinciteError) -> Response:
        return envelope(exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        where = ", ".join(".".join(str(p) for p in e.get("loc", ())) for e in exc.errors())
        return envelope(UsageError(f"invalid request parameters: {where}"[:500]))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if isinstance(exc.__cause__, PinciteError):  # raised while the body was read
            return envelope(exc.__cause__)
        return envelope(http_error(exc.status_code, request.url.path))

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> Response:
        damaged = lib.damage(exc)
        return envelope(damaged if damaged is not None else internal_error())

    caller = served.caller_dependency()

    @app.get("/healthz", tags=["operations"], summary="Liveness (no credentials)",
             responses={200: {"content": {"application/json": {"schema": {
                 "type": "object", "properties": {"ok": {"type": "boolean"}}}}}}})
    def healthz() -> dict[str, bool]:
        return {"ok": True}

    @app.get("/readyz", tags=["operations"], summary="Store reachable, generation published")
    def readyz(c: Annotated[Caller, Depends(caller)]) -> Response:
        cur, _, _ = lib.pointer()
        ready = cur is not None
        return JSONResponse({"ready": ready, "generation": cur}, status_code=200 if ready else 503)

    @app.get("/openapi.json", tags=["operations"], summary="This OpenAPI document")
    def openapi_json(c: Annotated[Caller, Depends(caller)]) -> Any:
        return app.openapi()

    @app.get("/metrics", tags=["operations"], summary="Prometheus metrics (scope admin)")
    def metrics(c: Annotated[Caller, Depends(caller)]) -> Response:
        c.require(Scope.ADMIN)
        return Response(served.metrics.render(), media_type="text/plain; version=0.0.4")

    routes_documents.register(app, served, caller)
    routes_query.register(app, served, caller)
    routes_review.register(app, served, caller)
    signin.mount(app, served)
    attach_openapi(app)
    return FrontDoor(app, guard=guard, max_body=config.max_body, max_upload=config.max_upload,
                     upload_paths=frozenset({UPLOAD_PATH}), authenticate=config.auth.bearer,
                     throttle=served.throttle, public=is_public, metrics=served.metrics,
                     threads=config.threads)


def is_public(path: str) -> bool:
    """Return True for the paths that take no bearer credential: `/healthz`, the sign-in
    form, and the review page (whose session `signin` checks on every request)."""
    from .signin import SIGNIN, UI_BASE

    return path in ("/healthz", SIGNIN, "/signout") or path == UI_BASE or \
        path.startswith(UI_BASE + "/")


def default_threads() -> int:
    """Return how many library calls run at once by default: the CPUs, from 2 to 8."""
    import os

    return max(2, min(8, os.cpu_count() or 2))


def need(caller: Callable[..., Any], scope: Scope) -> Callable[..., Any]:
    """Return a dependency giving the principal of a caller holding `scope` (403 else)."""
    from fastapi import Depends

    async def principal(c: Annotated[Caller, Depends(caller)]) -> Principal:
        return c.require(scope)

    return principal


def loopback_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """Return the Host values a server bound to `host:port` answers (`--allow-host` adds)."""
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {bound, *LOOPBACK_HOSTS} if bound not in ("0.0.0.0", "[::]") else set(LOOPBACK_HOSTS)
    return sorted(f"{h}:{port}" for h in names) + list(extra)
