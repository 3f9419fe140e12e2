"""The review page: FastAPI + server-rendered Jinja2 templates + a little plain JS.

`create_app(store, principal)` returns an app that acts as one reviewer (`pincite review
serve --as PRINCIPAL`; real sign-in comes with the HTTP service). Routes:

    GET  /                                  the queue, with filters (state, reason, field, hard, mine)
    POST /next                              claim the next item → its page (or the queue when empty)
    GET  /items/{id}                        candidate, reason, deadline, evidence in reading order
    GET  /items/{id}/evidence/{k}/page/{p}.png   a cited PDF page rendered by pypdfium2
    POST /items/{id}/decide                 JSON or form: decision, value, quote, doc, not_stated
    POST /items/{id}/release                give the claim back
    GET  /metrics, /metrics.json            the watch list, calibration, incidents
    GET  /calibration.json                  `pincite calibrate --json`
    GET  /reliability.svg?field=F           the reliability diagram
    POST /incidents/{id}/clear              clear a rubber-stamp incident

Errors come out as one envelope (`{"error": {"code", "message"}}`) for JSON callers and
as the same message on a page for browsers, with the error's HTTP status.
"""


import json
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs, quote

from ..cite.resolve import resolve_doc
from ..errors import MissingExtra, NotFound, PinciteError, UsageError
from ..model import Principal
from ..review.queue import STATES, Clock, ReviewQueue
from ..store import Store

REASONS = ("low_confidence", "conflicting", "unverified_citation", "schema_violation",
           "sample_audit")


def _jinja() -> Any:
    import jinja2

    return jinja2.Environment(loader=jinja2.PackageLoader("pincite", "templates"),
                              autoescape=jinja2.select_autoescape(["html"]))


def create_app(store: Store, principal: Principal, *, clock: Clock | None = None) -> Any:
    """Return the review app acting as `principal` over `store`."""
    try:
        from fastapi import FastAPI, Request
        from fastapi.exceptions import RequestValidationError
        from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
        from starlette.exceptions import HTTPException as StarletteHTTPException
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise MissingExtra("fastapi", "review") from exc

    env = _jinja()
    app = FastAPI(title="pincite review", docs_url=None, redoc_url=None, openapi_url=None)

    def queue() -> ReviewQueue:
        return ReviewQueue(store, principal, clock=clock)

    def page(name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
        html = env.get_template(name).render(principal=str(principal), **ctx)
        return HTMLResponse(html, status_code=status)

    def wants_json(request: Request) -> bool:
        return ("application/json" in request.headers.get("accept", "")
                or request.url.path.endswith(".json"))

    def error_response(request: Request, exc: PinciteError) -> Response:
        """The one error helper: a JSON envelope, or the same message on a page."""
        if wants_json(request):
            return JSONResponse(exc.to_dict(), status_code=exc.status)
        return page("review_error.html", status=exc.status, code=exc.code, message=exc.message)

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
        response = await call_next(request)
        response.headers.setdefault("Cache-Control", "no-store")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        return response

    @app.get("/", response_class=HTMLResponse)
    def queue_page(state: str = "open", reason: str = "", field: str = "", hard: str = "",
                   mine: str = "", message: str = "") -> HTMLResponse:
        q = queue()
        everything = q.items()
        items = q.items(state=state or None, reason=reason or None, field=field or None,
                        hard=None if hard == "" else hard == "1", mine=bool(mine))
        return page("review_queue.html", items=items, states=STATES, reasons=REASONS,
                    fields=sorted({it["field"] for it in everything}), message=message,
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
            return RedirectResponse("/?message=" + quote("The queue holds nothing for you."),
                                    status_code=303)
        return RedirectResponse(f"/items/{it['id']}", status_code=303)

    @app.get("/items/{item_id}.json")
    def item_json(item_id: int) -> JSONResponse:
        return JSONResponse(queue().item(item_id))

    @app.get("/items/{item_id}", response_class=HTMLResponse)
    def item_page(item_id: int, message: str = "") -> HTMLResponse:
        from ..review.evidence import evidence_views

        q = queue()
        it = q.item(item_id)
        mine = bool(it["claim_live"]) and it["claimed_by"] == q.reviewer
        views = evidence_views(store, principal, it)
        cand = json.dumps(it["candidate"].get("value"), ensure_ascii=False, indent=1)
        return page("review_item.html", item=it, views=views, mine=mine, candidate_json=cand,
                    message=message, error=False)

    @app.get("/items/{item_id}/evidence/{k}/page/{page_no}.png")
    def page_image(item_id: int, k: int, page_no: int) -> Response:
        from ..review.evidence import render_page_png

        it = queue().item(item_id)
        ev = list(it.get("evidence") or ())
        if not 0 <= k < len(ev):
            raise NotFound("evidence", f"{item_id}/{k}")
        rev = resolve_doc(store, principal, str(ev[k]["doc_id"]))
        if rev.media_type != "application/pdf":
            raise NotFound("page image", f"{rev.doc_id} p.{page_no}")
        png = render_page_png(store, rev, page_no)
        return Response(png, media_type="image/png")

    @app.post("/items/{item_id}/decide")
    async def decide(item_id: int, request: Request) -> Response:
        body = await _body(request)
        value = body.get("value")
        if isinstance(value, str) and request.headers.get("content-type", "").startswith(
                "application/x-www-form-urlencoded"):
            value = _json_value(value) if value.strip() else None
        not_stated = body.get("not_stated") in (True, "1", "true", "on")
        decision = str(body.get("decision", ""))
        res = queue().decide(item_id, decision,
                             value=value if decision == "correct" and not not_stated else None,
                             quote=(body.get("quote") or None) if decision == "correct" else None,
                             doc=body.get("doc") or None,
                             not_stated=not_stated if decision == "correct" else False)
        if wants_json(request):
            return JSONResponse({"ok": True, "item": res["item"], "label": res["label"],
                                 "incident": res["incident"]})
        return RedirectResponse(f"/items/{item_id}?message=" + quote(f"Saved: {decision}"),
                                status_code=303)

    @app.post("/items/{item_id}/release")
    def release(item_id: int, request: Request) -> Response:
        queue().release(item_id)
        if wants_json(request):
            return JSONResponse({"ok": True})
        return RedirectResponse("/?message=" + quote(f"Released item {item_id}."), status_code=303)

    @app.get("/metrics", response_class=HTMLResponse)
    def metrics_page() -> HTMLResponse:
        from ..review.metrics import review_metrics

        return page("review_metrics.html", m=review_metrics(store, principal,
                                                            now=clock() if clock else None))

    @app.get("/metrics.json")
    def metrics_json() -> JSONResponse:
        from ..review.metrics import review_metrics

        return JSONResponse(review_metrics(store, principal, now=clock() if clock else None))

    @app.get("/calibration.json")
    def calibration_json(field: str = "") -> JSONResponse:
        from ..review.calibration import calibration_report

        return JSONResponse(calibration_report(store, principal.tenant, field=field or None))

    @app.get("/reliability.svg")
    def reliability_svg(field: str = "") -> Response:
        from ..review.calibration import calibration_report
        from ..review.diagram import reliability_diagram

        rep = calibration_report(store, principal.tenant, field=field or None)
        title = f"Reliability · {field}" if field else "Reliability · all fields"
        svg = reliability_diagram(rep["all"]["bins"], title=title, fmt="svg")
        return Response(svg, media_type="image/svg+xml")

    @app.post("/incidents/{incident_id}/clear")
    def clear_incident(incident_id: int, request: Request) -> Response:
        queue().clear_incident(incident_id)
        if wants_json(request):
            return JSONResponse({"ok": True})
        return RedirectResponse("/metrics", status_code=303)

    return app


async def _body(request: Any) -> dict[str, Any]:
    """Return a JSON or urlencoded request body as a dict."""
    raw = await request.body()
    ctype = request.headers.get("content-type", "")
    if ctype.startswith("application/json"):
        try:
            got = json.loads(raw or b"{}")
        except json.JSONDecodeError as exc:
            raise UsageError(f"the request body is not JSON: {exc.msg}") from None
        if not isinstance(got, dict):
            raise UsageError("the request body must be a JSON object")
        return got
    return {k: v[-1] for k, v in parse_qs(raw.decode("utf-8", "replace")).items()}


def _json_value(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"the corrected value is not JSON: {exc.msg}") from None
