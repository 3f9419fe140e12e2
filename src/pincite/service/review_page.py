"""The review page: FastAPI + server-rendered Jinja2 templates + a little plain JS.

`create_app(lib, principal)` returns an app that acts as one reviewer (`pincite review
serve --as PRINCIPAL`); `create_app(lib, resolve=…, base="/ui")` is the page the service
(`pincite serve`) mounts, acting as whoever signed in (`resolve(request)` returns the
session's principal or raises `Unauthenticated`, which sends a browser to sign in). Routes
(under `base`):

    GET  /                                  the queue, with filters (state, reason, field, hard, mine)
    POST /next                              claim the next item → its page (or the queue when empty)
    GET  /items/{id}                        candidate, reason, deadline, evidence in reading order
    GET  /items/{id}/evidence/{k}/page/{p}.png   a cited PDF page rendered by pypdfium2
    POST /items/{id}/decide                 JSON or form fields: decision, value, quote, doc, not_stated
    POST /items/{id}/release                give the claim back
    GET  /metrics, /metrics.json            the watch list, calibration, incidents
    GET  /calibration.json                  `pincite calibrate --json`
    GET  /reliability.svg?field=F           the reliability diagram
    POST /incidents/{id}/clear              clear a rubber-stamp incident

Every request's `Host` must be on the allow-list, and every POST must come from the page's
own origin and carry the session's CSRF token (`guard`). It calls only the facade
(`pincite.library.Library`). Errors come out as one envelope
(`{"error": {"code", "message"}}`) for JSON callers and as the same message on a page for
browsers, with the error's HTTP status.
"""

import json
from collections.abc import Awaitable, Callable, Iterable
from contextvars import ContextVar
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote as urlquote

from ..errors import MissingExtra, NotFound, PinciteError, UsageError
from ..model import Principal
from ..vocab import RecordFlag, ReviewDecision, ReviewReason, ReviewState
from .guard import SESSION_COOKIE, TOKEN_FIELD, TOKEN_HEADER, UNSAFE_METHODS, Guard

if TYPE_CHECKING:
    from ..library import Library

Clock = Callable[[], datetime]
Resolve = Callable[[Any], Principal]
_acting: ContextVar[Principal | None] = ContextVar("pincite_review_principal", default=None)


def _jinja() -> Any:
    import jinja2

    env = jinja2.Environment(loader=jinja2.PackageLoader("pincite", "templates"),
                             autoescape=jinja2.select_autoescape(["html"]))
    env.globals.update(ReviewDecision=ReviewDecision, ReviewState=ReviewState,
                       RecordFlag=RecordFlag)
    return env


def create_app(lib: "Library", principal: Principal | None = None, *, clock: Clock | None = None,
               allowed_hosts: Iterable[str] | None = None, resolve: Resolve | None = None,
               base: str = "", guard: Guard | None = None, signin_url: str | None = None) -> Any:
    """Return the review app acting as `principal` (or as `resolve(request)` returns, per
    request) over the library `lib`.

    `allowed_hosts` are the `Host` values served (`name` for any port, `name:port` for one);
    by default 127.0.0.1, localhost and [::1]. `base` is the path the app is mounted at;
    `signin_url` is where a browser without a principal is sent.
    """
    try:
        from fastapi import Depends, FastAPI, Form, Request
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
        from starlette.exceptions import HTTPException as StarletteHTTPException
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtra("fastapi", "review") from exc

    if (principal is None) == (resolve is None):
        raise UsageError("give the review page a principal or a resolver, not both")
    env = _jinja()
    env.globals["base"] = base
    guard = guard or Guard(allowed_hosts)

    def who() -> Principal:
        acting = principal or _acting.get()
        assert acting is not None, "the review page runs only behind its guard"
        return acting

    async def same_origin_with_token(request: Request) -> None:
        """Refuse a state-changing request from another origin or without the token; find
        who acts."""
        if resolve is not None:
            _acting.set(resolve(request))
        if request.method.upper() not in UNSAFE_METHODS:
            return
        h = request.headers
        guard.check_origin(request.method, h.get("host"), h.get("origin"), h.get("referer"))
        sent = h.get(TOKEN_HEADER)
        if sent is None and h.get("content-type", "").startswith(
                ("application/x-www-form-urlencoded", "multipart/form-data")):
            field = (await request.form()).get(TOKEN_FIELD)
            sent = field if isinstance(field, str) else None
        guard.check_token(request.cookies.get(SESSION_COOKIE), sent)

    app = FastAPI(title="pincite review", docs_url=None, redoc_url=None, openapi_url=None,
                  dependencies=[Depends(same_origin_with_token)])

    def queue() -> Any:
        return lib.review_queue(who(), clock=clock)

    def page(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        acting = principal or _acting.get()
        html = env.get_template(name).render(principal=str(acting or ""),
                                             csrf_token=getattr(request.state, "csrf", ""), **ctx)
        return HTMLResponse(html, status_code=status)

    def wants_json(request: Request) -> bool:
        return ("application/json" in request.headers.get("accept", "")
                or request.url.path.endswith(".json"))

    def error_response(request: Request, exc: PinciteError) -> Response:
        """The one error helper: a JSON envelope, or the same message on a page."""
        if exc.status == 401 and signin_url and not wants_json(request):
            return RedirectResponse(signin_url, status_code=303)
        if wants_json(request):
            return JSONResponse(exc.to_dict(), status_code=exc.status)
        return page(request, "review_error.html", status=exc.status, code=exc.code, message=exc.message)

    @app.exception_handler(PinciteError)
    async def _error(request: Request, exc: PinciteError) -> Response:
        return error_response(request, exc)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Response:
        where = ", ".join(".".join(str(p) for p in e.get("loc", ())) for e in exc.errors())
        return error_response(request, UsageError(f"invalid request parameters: {where}"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return error_response(request, NotFound("page", request.url.path))
        err = PinciteError(str(exc.detail))
        err.status = exc.status_code
        err.code = "http_error"
        return error_response(request, err)

    @app.middleware("http")
    async def _no_store(request: Request, call_next: Callable[[Request], Awaitable[Response]]
                        ) -> Response:
        session = request.cookies.get(SESSION_COOKIE)
        fresh = None if session else guard.new_session()
        request.state.csrf = guard.token(session or fresh or "")
        try:
            guard.check_host(request.headers.get("host"))
        except PinciteError as exc:
            response = error_response(request, exc)
        else:
            response = await call_next(request)
        if fresh:
            response.set_cookie(SESSION_COOKIE, fresh, httponly=True, samesite="strict", path="/")
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    @app.get("/", response_class=HTMLResponse)
    def queue_page(request: Request, state: str = "open", reason: str = "", field: str = "", hard: str = "",
                   mine: str = "", message: str = "") -> HTMLResponse:
        q = queue()
        everything = q.items()
        items = q.items(state=state or None, reason=reason or None, field=field or None,
                        hard=None if hard == "" else hard == "1", mine=bool(mine))
        return page(request, "review_queue.html", items=items, states=list(ReviewState),
                    reasons=list(ReviewReason), fields=sorted({it["field"] for it in everything}),
                    message=message,
                    filters={"state": state, "reason": reason, "field": field, "hard": hard,
                             "mine": bool(mine)})

    @app.get("/items.json")
    def items_json(state: str = "", reason: str = "", field: str = "") -> JSONResponse:
        return JSONResponse(queue().items(state=state or None, reason=reason or None,
                                          field=field or None))

    @app.post("/next")
    def claim_next(request: Request, lease: float = 900.0) -> Response:
        it = queue().next(lease=lease)
        if wants_json(request):
            return JSONResponse(it)
        if it is None:
            return RedirectResponse(base + "/?message=" + urlquote("The queue holds nothing for you."),
                                    status_code=303)
        return RedirectResponse(f"{base}/items/{it['id']}", status_code=303)

    @app.get("/items/{item_id}.json")
    def item_json(item_id: int) -> JSONResponse:
        return JSONResponse(queue().item(item_id))

    @app.get("/items/{item_id}", response_class=HTMLResponse)
    def item_page(request: Request, item_id: int, message: str = "") -> HTMLResponse:
        q = queue()
        it = q.item(item_id)
        mine = bool(it["claim_live"]) and it["claimed_by"] == q.reviewer
        views = lib.review_evidence(who(), it)
        cand = json.dumps(it["candidate"].get("value"), ensure_ascii=False, indent=1)
        return page(request, "review_item.html", item=it, views=views, mine=mine, candidate_json=cand,
                    message=message, error=False)

    @app.get("/items/{item_id}/evidence/{k}/page/{page_no}.png")
    def page_image(item_id: int, k: int, page_no: int) -> Response:
        png = lib.review_page_image(who(), queue().item(item_id), k, page_no)
        return Response(png, media_type="image/png")

    @app.post("/items/{item_id}/decide")
    async def decide(item_id: int, request: Request,
                     decision: Annotated[str, Form()] = "",
                     value: Annotated[str | None, Form()] = None,
                     quote: Annotated[str | None, Form()] = None,
                     doc: Annotated[str | None, Form()] = None,
                     not_stated: Annotated[str | None, Form()] = None) -> Response:
        body: dict[str, Any] = {"decision": decision, "value": _json_value(value),
                                "quote": quote, "doc": doc, "not_stated": not_stated}
        if request.headers.get("content-type", "").startswith("application/json"):
            body = await _json_body(request)  # the page's script posts JSON
        unstated = body.get("not_stated") in (True, "1", "true", "on")
        chosen = str(body.get("decision", ""))
        correct = chosen == ReviewDecision.CORRECT
        res = queue().decide(item_id, chosen,
                             value=body.get("value") if correct and not unstated else None,
                             quote=(body.get("quote") or None) if correct else None,
                             doc=body.get("doc") or None, not_stated=unstated and correct)
        if wants_json(request):
            return JSONResponse({"ok": True, "item": res["item"], "label": res["label"],
                                 "incident": res["incident"]})
        return RedirectResponse(f"{base}/items/{item_id}?message=" + urlquote(f"Saved: {chosen}"),
                                status_code=303)

    @app.post("/items/{item_id}/release")
    def release(item_id: int, request: Request) -> Response:
        queue().release(item_id)
        if wants_json(request):
            return JSONResponse({"ok": True})
        return RedirectResponse(base + "/?message=" + urlquote(f"Released item {item_id}."), status_code=303)

    @app.get("/metrics", response_class=HTMLResponse)
    def metrics_page(request: Request) -> HTMLResponse:
        return page(request, "review_metrics.html",
                    m=lib.review_metrics(who(), now=clock() if clock else None))

    @app.get("/metrics.json")
    def metrics_json() -> JSONResponse:
        return JSONResponse(lib.review_metrics(who(), now=clock() if clock else None))

    @app.get("/calibration.json")
    def calibration_json(field: str = "") -> JSONResponse:
        return JSONResponse(lib.calibration(who(), field=field or None))

    @app.get("/reliability.svg")
    def reliability_svg(field: str = "") -> Response:
        svg = lib.reliability_diagram(who(), field=field or None, fmt="svg")
        return Response(svg, media_type="image/svg+xml")

    @app.post("/incidents/{incident_id}/clear")
    def clear_incident(incident_id: int, request: Request) -> Response:
        queue().clear_incident(incident_id)
        if wants_json(request):
            return JSONResponse({"ok": True})
        return RedirectResponse(base + "/metrics", status_code=303)

    return app


async def _json_body(request: Any) -> dict[str, Any]:
    """Return a JSON request body, which must be an object."""
    from ..library import load_json

    got = load_json(await request.body() or b"{}", "the request body")
    if not isinstance(got, dict):
        raise UsageError("the request body must be a JSON object")
    return got


def _json_value(text: str | None) -> Any:
    """Return the corrected value a form field holds as JSON (None when empty)."""
    if text is None or not text.strip():
        return None
    from ..library import load_json

    return load_json(text, "the corrected value")
