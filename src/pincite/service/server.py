"""The one FastAPI application of `pincite serve`: the JSON API, the review page under
`/ui`, sign-in, health, metrics and the OpenAPI document.

Every route but `GET /healthz` needs a caller: `Authorization: Bearer <key or JWT>`
(`auth`), or for the review page a session made by signing in with one (`signin`). The
principal comes only from that credential. Each tenant has its own rate bucket and
in-flight cap, and a share of the worker threads below the pool's size (`throttle`), the
review page's sessions included; failed authentications are counted per client address
(`lockout`). Errors are one envelope (`envelope`). The routes call only the facade,
through `contracts` (the CLI's `--json` bodies). What spans every tenant (metrics, index
generations) needs the `operator` scope.
"""

from collections.abc import Iterable
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import MissingExtra, PinciteError, RateLimited, UsageError
from .envelope import error_body, http_error, internal_error
from .guard import LOOPBACK_HOSTS, Guard
from .lockout import Lockout
from .scopes import Caller, Scope
from .served import Served, ServiceConfig, tenant_share
from .signin import Sessions
from .throttle import Throttle

if TYPE_CHECKING:
    from ..library import Library

UPLOAD_PATH = "/ingest"


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
    from . import routes_documents, routes_query, routes_review, routes_work, signin
    from .artifacts import Artifacts
    from .frontdoor import FrontDoor
    from .openapi_doc import attach_openapi
    from .telemetry import Metrics

    guard = Guard(config.allowed_hosts if config.allowed_hosts is not None
                  else list(LOOPBACK_HOSTS))
    served = Served(lib, config, Throttle(config.limits, workers=tenant_share(config)),
                    Metrics(), guard, Artifacts(config.artifact_dir),
                    lockout=Lockout(config.auth_failures),
                    sessions=Sessions(config.session_seconds, config.auth))
    served.metrics.watch(lib.review_depth, lambda: served.runs().depth())
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

    @app.get("/metrics", tags=["operations"], summary="Prometheus metrics of every tenant "
             "(scope operator)")
    def metrics(c: Annotated[Caller, Depends(caller)]) -> Response:
        c.require(Scope.OPERATOR)
        return Response(served.metrics.render(), media_type="text/plain; version=0.0.4")

    routes_documents.register(app, served, caller)
    routes_query.register(app, served, caller)
    routes_review.register(app, served, caller)
    routes_work.register(app, served, caller)
    signin.mount(app, served)
    attach_openapi(app)
    return FrontDoor(app, guard=guard, max_body=config.max_body, max_upload=config.max_upload,
                     upload_paths=frozenset({UPLOAD_PATH}),
                     authenticate=config.auth.bearer_async, throttle=served.throttle,
                     public=is_public, metrics=served.metrics, threads=config.threads,
                     timeout=config.timeout,
                     caps={routes_work.FILL_PATH: routes_work.fill_cap(served)},
                     lockout=served.lockout, session=served.sessions.from_headers,
                     session_path=is_review_page)


def is_public(path: str) -> bool:
    """Return True for the paths that take no bearer credential: `/healthz`, the sign-in
    form, and the review page (whose session `signin` checks on every request)."""
    from .signin import SIGNIN, UI_BASE

    return path in ("/healthz", SIGNIN, "/signout") or path == UI_BASE or \
        path.startswith(UI_BASE + "/")


def is_review_page(path: str) -> bool:
    """Return True for the review page's paths (`/ui` and below), which act by session."""
    from .signin import UI_BASE

    return path == UI_BASE or path.startswith(UI_BASE + "/")


def loopback_hosts(host: str, port: int, extra: Iterable[str] = ()) -> list[str]:
    """Return the Host values a server bound to `host:port` answers (`--allow-host` adds)."""
    bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
    names = {bound, *LOOPBACK_HOSTS} if bound not in ("0.0.0.0", "[::]") else set(LOOPBACK_HOSTS)
    return sorted(f"{h}:{port}" for h in names) + list(extra)
