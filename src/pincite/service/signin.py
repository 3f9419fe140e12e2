"""Sign-in for the review page: a browser posts an API key or a JWT once (`/signin`), gets
a fresh session cookie (HttpOnly, SameSite=Strict; the old session id is dropped, so a
planted cookie is worth nothing), and the page under `/ui` acts as that principal until
the session expires or `/signout`. Every form carries the session's CSRF token and every
state change must come from the page's own origin (`guard`); the credential needs the
`review` scope.

A session is only as good as its credential: the credential is checked again on every
request (`Sessions.caller`), so a revoked key, an expired token or a credential that lost
the `review` scope signs the session out at once (the browser is sent to sign in). The
front door makes that check and counts the request against the session's tenant's limits
(`throttle`), as for a bearer request. Failed sign-ins count against the client address
(`lockout`).
"""

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from html import escape
from http.cookies import CookieError, SimpleCookie
from typing import TYPE_CHECKING, Any

from ..errors import KeysRefreshing, PinciteError, Unauthenticated
from ..model import Principal
from .guard import SESSION_COOKIE, TOKEN_FIELD
from .scopes import Caller, Scope

if TYPE_CHECKING:
    from .auth import Authenticator
    from .served import Served

UI_BASE = "/ui"
SIGNIN = "/signin"
SESSION_CALLER = "session_caller"  # where the front door leaves a session's checked caller

_FORM = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>pincite · sign in</title><meta name="csrf-token" content="{token}"></head>
<body style="font-family:system-ui;max-width:32rem;margin:4rem auto">
<h1>pincite review · sign in</h1>{message}
<form method="post" action="/signin">
<input type="hidden" name="csrf_token" value="{token}">
<label>API key or token<br><input type="password" name="credential" id="credential"
 autocomplete="off" style="width:100%" required></label>
<p><button type="submit" id="signin">Sign in</button></p></form></body></html>"""


@dataclass
class Sessions:
    """Signed-in review sessions: session id → (the credential signed in with, expiry).
    The credential is kept in memory only, to be checked again on every request."""

    seconds: float
    auth: "Authenticator"
    _book: dict[str, tuple[str, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def open(self, session: str, credential: str) -> None:
        """Remember `credential` under a new session id."""
        with self._lock:
            now = time.monotonic()
            self._book = {k: v for k, v in self._book.items() if v[1] > now}
            self._book[session] = (credential, now + self.seconds)

    def close(self, session: str | None) -> None:
        """Forget a session."""
        with self._lock:
            self._book.pop(session or "", None)

    def _credential(self, session: str | None) -> str:
        """Return the credential of a session not past its expiry; raise Unauthenticated."""
        with self._lock:
            found = self._book.get(session or "")
        if found is None or found[1] <= time.monotonic():
            self.close(session)
            raise Unauthenticated("sign in to the review page")
        return found[0]

    def _checked(self, session: str | None, credential: str, check: Any) -> Caller:
        """Return the caller `check(credential)` finds, holding the review scope; sign the
        session out (and raise Unauthenticated) when it does not."""
        try:
            caller: Caller = check(credential)
            caller.require(Scope.REVIEW)
        except KeysRefreshing:
            raise
        except PinciteError:
            self.close(session)
            raise Unauthenticated("the session's key or token is no longer valid; sign in "
                                  "again") from None
        return caller

    def caller(self, session: str | None) -> Caller:
        """Return the caller of a live session, its credential checked again now (a
        revoked key or an expired token signs the session out); raise Unauthenticated."""
        return self._checked(session, self._credential(session), self.auth.credential)

    async def caller_async(self, session: str | None) -> Caller:
        """`caller`, awaiting (never blocking on) a refresh of the issuer's keys."""
        credential = self._credential(session)
        try:
            return self._checked(session, credential, self.auth.credential)
        except KeysRefreshing as exc:
            await exc.cache.settled()
        return self._checked(session, credential, self.auth.credential)

    def principal(self, session: str | None) -> Principal:
        """Return the principal of a live session whose credential still holds; raise
        Unauthenticated otherwise."""
        return self.caller(session).principal

    async def from_headers(self, headers: Mapping[str, str]) -> Caller | None:
        """Return the caller of the session a request's cookie names, checked now; None
        when it names none or the session is over (the page then asks to sign in)."""
        session = session_of(headers.get("cookie"))
        if session is None:
            return None
        try:
            return await self.caller_async(session)
        except Unauthenticated:
            return None


def session_of(cookie_header: str | None) -> str | None:
    """Return the session id a `Cookie` header carries (None when it carries none)."""
    if not cookie_header:
        return None
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(cookie_header)
    except CookieError:
        return None
    morsel = jar.get(SESSION_COOKIE)
    return morsel.value if morsel is not None and morsel.value else None


def mount(app: Any, served: "Served") -> None:
    """Add `/signin`, `/signout` and the review page under `/ui` to `app`."""
    from fastapi import Form, Request
    from fastapi.responses import HTMLResponse, RedirectResponse, Response

    from .review_page import create_app

    guard = served.guard
    sessions = served.sessions

    def form(request: Request, message: str = "", status: int = 200) -> Response:
        session = request.cookies.get(SESSION_COOKIE)
        fresh = None if session else guard.new_session()
        note = f'<p role="alert" id="message">{escape(message)}</p>' if message else ""
        resp = HTMLResponse(_FORM.format(token=guard.token(session or fresh or ""),
                                         message=note), status_code=status)
        if fresh:
            resp.set_cookie(SESSION_COOKIE, fresh, httponly=True, samesite="strict", path="/")
        resp.headers["Cache-Control"] = "no-store"
        return resp

    @app.get(SIGNIN, include_in_schema=False)
    def signin_form(request: Request) -> Response:
        return form(request)

    @app.post(SIGNIN, include_in_schema=False)
    def signin(request: Request, credential: str = Form(""), csrf_token: str = Form(
            "", alias=TOKEN_FIELD)) -> Response:
        guard.check_token(request.cookies.get(SESSION_COOKIE), csrf_token)
        client = request.client.host if request.client else None
        served.lockout.check(client)
        try:
            caller = served.config.auth.credential(credential.strip())
            caller.require(Scope.REVIEW)
        except Exception:  # noqa: BLE001 - a failed sign-in says nothing of why
            served.lockout.failed(client)
            return form(request, "That key or token does not sign in here.", status=401)
        sessions.close(request.cookies.get(SESSION_COOKIE))
        session = guard.new_session()
        sessions.open(session, credential.strip())
        resp = RedirectResponse(UI_BASE + "/", status_code=303)
        resp.set_cookie(SESSION_COOKIE, session, httponly=True, samesite="strict", path="/",
                        max_age=int(served.config.session_seconds))
        return resp

    @app.post("/signout", include_in_schema=False)
    def signout(request: Request, csrf_token: str = Form("", alias=TOKEN_FIELD)) -> Response:
        guard.check_token(request.cookies.get(SESSION_COOKIE), csrf_token)
        sessions.close(request.cookies.get(SESSION_COOKIE))
        resp = RedirectResponse(SIGNIN, status_code=303)
        resp.delete_cookie(SESSION_COOKIE, path="/")
        return resp

    def resolve(request: Any) -> Principal:
        checked = getattr(request.state, SESSION_CALLER, None)  # by the front door, now
        if isinstance(checked, Caller):
            return checked.require(Scope.REVIEW)
        return sessions.principal(request.cookies.get(SESSION_COOKIE))

    page = create_app(served.lib, resolve=resolve, base=UI_BASE, guard=guard,
                      signin_url=SIGNIN)
    app.mount(UI_BASE, page)
