"""What every HTTP request passes before a route sees it (pure ASGI, so bodies stream):

- the `Host` header must be on the allow-list (421), and a state change (POST, PUT,
  PATCH, DELETE) that names an `Origin` (or `Referer`) must name the request's own
  host (403 `cross_site_request`): another web site cannot drive the API or the page;
- every request but the public ones (`/healthz`; the sign-in form and the review page,
  which sign in by session) must authenticate with `Authorization: Bearer` (401) before
  anything else is read, and the caller's tenant must be within its rate and its
  in-flight cap (429 with `Retry-After`); the caller is left in `request.state.caller`.
  Authentication never waits on the network on the event loop (`auth.bearer_async`), and
  a client address past its failed authentications is answered 429 before its
  credential is looked at (`lockout`);
- a review-page request whose session cookie names a live session has that session's
  credential checked again (`session`) and counts against its tenant's limits like a
  bearer request; the checked caller is left in `request.state.session_caller` (a
  session that no longer holds passes on without one, and the page asks to sign in);
- a tenant holds at most its share of the worker threads (`Throttle.worker`): its
  requests past the share wait for one of its own, never for another tenant's;
- a request body is capped: `max_body` bytes for JSON routes, `max_upload` for the upload
  route, a route's own cap where `caps` names one (the workbook of `POST /fill`), by
  `Content-Length` and by counting what arrives (413 `body_too_large`);
- each request is timed into the metrics and logged as one JSON line (method, route,
  status, milliseconds, tenant, credential id: never a body, a query or document text).
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..errors import BodyTooLarge, PinciteError, RateLimited, RequestTimeout, Unauthenticated
from .envelope import error_body
from .guard import Guard
from .lockout import Lockout

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

log = logging.getLogger("pincite.service")


async def send_error(send: Send, exc: PinciteError, headers: dict[str, str] | None = None
                     ) -> None:
    """Answer with the error envelope of `exc`."""
    body = json.dumps(error_body(exc)).encode()
    hdrs = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-store")]
    hdrs += [(k.encode(), v.encode()) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": exc.status, "headers": hdrs})
    await send({"type": "http.response.body", "body": body})


class FrontDoor:
    """The ASGI middleware in front of the service app (see the module docstring)."""

    def __init__(self, app: Any, *, guard: Guard, max_body: int, max_upload: int,
                 upload_paths: frozenset[str],
                 authenticate: Callable[[str | None], Awaitable[Any]],
                 throttle: Any, public: Callable[[str], bool], metrics: Any = None,
                 threads: int | None = None, timeout: float | None = None,
                 caps: dict[str, int] | None = None, lockout: Lockout | None = None,
                 session: Callable[[dict[str, str]], Awaitable[Any]] | None = None,
                 session_path: Callable[[str], bool] = lambda path: False) -> None:
        self.app, self.guard = app, guard
        self.lockout = lockout  # failed authentications per client address
        self.session, self.session_path = session, session_path  # the review page's
        self.threads = threads  # library calls at once (the worker thread pool's size)
        self.timeout = timeout
        self.authenticate, self.throttle, self.public = authenticate, throttle, public
        self.max_body, self.max_upload, self.upload_paths = max_body, max_upload, upload_paths
        self.metrics = metrics
        self.caps = caps or {}  # paths with a body cap of their own (counted, and timed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.threads:
            import anyio.to_thread

            anyio.to_thread.current_default_thread_limiter().total_tokens = self.threads
            self.threads = None
        started = time.perf_counter()
        status = {"code": 500}

        async def send_counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = int(message["status"])
                status["started"] = 1
            await send(message)

        try:
            await self._timed(scope, receive, send_counted, status)
        finally:
            self._record(scope, status["code"], time.perf_counter() - started)

    async def _timed(self, scope: Scope, receive: Receive, send: Send,
                     status: dict[str, int]) -> None:
        """Serve within the time limit: past it the request is cancelled where it waits and
        answered 503 (a library call already running in a worker thread finishes there,
        its answer dropped). The upload route is bounded by its size, not by time, and
        `/healthz` by nothing."""
        import anyio

        if not self.timeout or scope["path"] in self.upload_paths or scope["path"] == "/healthz":
            await self._serve(scope, receive, send)
            return
        with anyio.move_on_after(self.timeout) as scope_:
            await self._serve(scope, receive, send)
        if scope_.cancelled_caught and status.get("started") is None:
            await send_error(send, RequestTimeout(self.timeout))

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers") or ()}
        try:
            self.guard.check_host(headers.get("host"))
            self.guard.check_origin(scope["method"], headers.get("host"), headers.get("origin"),
                                    headers.get("referer"))
        except PinciteError as exc:
            await send_error(send, exc)
            return
        if self.public(scope["path"]):
            session = None
            if self.session is not None and self.session_path(scope["path"]):
                session = await self.session(headers)
            if session is None:
                await self._capped(scope, receive, send, headers)
                return
            state = scope.setdefault("state", {})
            state["caller"] = state["session_caller"] = session
            try:
                await self._limited(session, scope, receive, send, headers)
            except RateLimited as exc:
                await send_error(send, exc, {"Retry-After": str(exc.retry_after)})
            return
        try:
            caller = await self._authenticated(scope, headers.get("authorization"))
            scope.setdefault("state", {})["caller"] = caller
            await self._limited(caller, scope, receive, send, headers)
        except PinciteError as exc:
            if isinstance(exc, RateLimited):
                await send_error(send, exc, {"Retry-After": str(exc.retry_after)})
            elif exc.status in (401, 403):
                await send_error(send, exc)
            else:
                raise

    async def _authenticated(self, scope: Scope, authorization: str | None) -> Any:
        """Return the caller of a request's credential; raise Unauthenticated, or
        TooManyFailures for an address past its failed authentications (each presented
        credential refused counts one)."""
        client = (scope.get("client") or (None,))[0]
        if self.lockout is not None:
            self.lockout.check(client)
        try:
            return await self.authenticate(authorization)
        except Unauthenticated:
            if self.lockout is not None and authorization:
                self.lockout.failed(client)
            raise

    async def _limited(self, caller: Any, scope: Scope, receive: Receive, send: Send,
                       headers: dict[str, str]) -> None:
        """Serve within the caller's tenant's rate, in-flight cap and thread share."""
        tenant = caller.principal.tenant
        self.throttle.take(tenant)
        with self.throttle.slot(tenant):
            async with self.throttle.worker(tenant):
                await self._capped(scope, receive, send, headers)

    async def _capped(self, scope: Scope, receive: Receive, send: Send,
                      headers: dict[str, str]) -> None:
        upload = scope["path"] in self.upload_paths
        cap = self.caps.get(scope["path"]) or (self.max_upload if upload else self.max_body)
        declared = headers.get("content-length")
        if not upload and declared is not None:
            try:
                too_big = int(declared) > cap
            except ValueError:
                too_big = True
            if too_big:
                await send_error(send, BodyTooLarge(cap))
                return
        seen = {"n": 0}

        async def receive_capped() -> Message:
            message = await receive()
            if message["type"] == "http.request" and not upload:
                seen["n"] += len(message.get("body", b""))
                if seen["n"] > cap:
                    raise BodyTooLarge(cap)
            return message

        await self.app(scope, receive_capped, send)

    def _record(self, scope: Scope, status: int, seconds: float) -> None:
        route = scope.get("route")
        template = getattr(route, "path_format", None) or getattr(route, "path", None)
        name = template or ("(unmatched)" if status == 404 else "(refused)")
        if self.metrics is not None:
            self.metrics.observe(scope["method"], name, status, seconds)
        state = scope.get("state") or {}
        caller = state.get("caller") if isinstance(state, dict) else None
        log.info(json.dumps({
            "event": "request", "method": scope["method"], "route": name, "status": status,
            "ms": round(seconds * 1000, 2),
            "tenant": getattr(getattr(caller, "principal", None), "tenant", None),
            "credential": getattr(caller, "via", None)}))
