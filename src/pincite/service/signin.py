"""Sign-in for the review page: a browser posts an API key or a JWT once (`/signin`), gets
a fresh session cookie (HttpOnly, SameSite=Strict; the old session id is dropped, so a
planted cookie is worth nothing), and the page under `/ui` acts as that principal until
the session expires or `/signout`. Every form carries the session's CSRF token and every
state change must come from the page's own origin (`guard`); the credential needs the
`review` scope.
"""

import threading
import time
from dataclasses import dataclass, field
from html import escape
from typing import TYPE_CHECKING, Any

from ..errors import Unauthenticated
from ..model import Principal
from .guard import SESSION_COOKIE, TOKEN_FIELD
from .scopes import Caller, Scope

if TYPE_CHECKING:
    from .served import Served

UI_BASE = "/ui"
SIGNIN = "/signin"

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
    """Signed-in review sessions: session id → (caller, expiry)."""

    seconds: float
    _book: dict[str, tuple[Caller, float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def open(self, session: str, caller: Caller) -> None:
        """Remember `caller` under a new session id."""
        with self._lock:
            now = time.monotonic()
            self._book = {k: v for k, v in self._book.items() if v[1] > now}
            self._book[session] = (caller, now + self.seconds)

    def close(self, session: str | None) -> None:
        """Forget a session."""
        with self._lock:
            self._book.pop(session or "", None)

    def principal(self, session: str | None) -> Principal:
        """Return the principal of a live session; raise Unauthenticated otherwise."""
        with self._lock:
            found = self._book.get(session or "")
        if found is None or found[1] <= time.monotonic():
            raise Unauthenticated("sign in to the review page")
        return found[0].require(Scope.REVIEW)


def mount(app: Any, served: "Served") -> None:
    """Add `/signin`, `/signout` and the review page under `/ui` to `app`."""
    from fastapi import Form, Request
    from fastapi.responses import HTMLResponse, RedirectResponse, Response

    from .review_page import create_app

    guard = served.guard
    sessions = Sessions(served.config.session_seconds)

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
        try:
            caller = served.config.auth.credential(credential.strip())
            caller.require(Scope.REVIEW)
        except Exception:  # noqa: BLE001 - a failed sign-in says nothing of why
            return form(request, "That key or token does not sign in here.", status=401)
        sessions.close(request.cookies.get(SESSION_COOKIE))
        session = guard.new_session()
        sessions.open(session, caller)
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
        return sessions.principal(request.cookies.get(SESSION_COOKIE))

    page = create_app(served.lib, resolve=resolve, base=UI_BASE, guard=guard,
                      signin_url=SIGNIN)
    app.mount(UI_BASE, page)
