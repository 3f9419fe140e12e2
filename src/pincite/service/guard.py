"""What keeps other web sites out of the review page: a Host allow-list, a same-origin check
on every state-changing request, and a per-session CSRF token.

- **Host**: every request's `Host` header must name an allowed host (DNS rebinding points a
  foreign name at 127.0.0.1; the browser then sends that name). An allowed entry with a
  port (`127.0.0.1:8765`) matches that port only; one without matches any port.
- **Origin**: a POST, PUT, PATCH or DELETE that carries `Origin` (or, without it, `Referer`)
  must come from the page's own origin; `Origin: null` is refused.
- **Token**: the page sets a random session cookie (`HttpOnly`, `SameSite=Strict`); the
  token is an HMAC of that session under a secret made when the app starts, and every form
  and the page's script send it back (`csrf_token` field, `X-CSRF-Token` header). It is
  compared in constant time, so a non-browser client without the page's token is refused too.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from urllib.parse import urlsplit

from ..errors import CrossSiteRequest, UnknownHost

SESSION_COOKIE = "pincite_session"
TOKEN_FIELD = "csrf_token"
TOKEN_HEADER = "x-csrf-token"
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def _split_host(value: str) -> tuple[str, str | None]:
    """Return (host, port or None) of a `Host` header value or allow-list entry, lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return value, None
        host, rest = value[: end + 1], value[end + 1:]
        return host, (rest[1:] if rest.startswith(":") else None)
    if value.count(":") == 1:
        host, port = value.split(":")
        return host, port
    return value, None


class Guard:
    """The allow-list and the token secret of one review app."""

    def __init__(self, allowed_hosts: Iterable[str] | None = None) -> None:
        entries = list(allowed_hosts) if allowed_hosts is not None else list(LOOPBACK_HOSTS)
        self.allowed = [_split_host(h) for h in entries if h.strip()]
        self._secret = secrets.token_bytes(32)

    def check_host(self, host_header: str | None) -> None:
        """Raise UnknownHost unless the request's `Host` is on the allow-list."""
        host, port = _split_host(host_header or "")
        if host and any(host == h and (p is None or p == port) for h, p in self.allowed):
            return
        raise UnknownHost(host_header or "")

    def check_origin(self, method: str, host_header: str | None, origin: str | None,
                     referer: str | None) -> None:
        """Raise CrossSiteRequest when an unsafe request names another origin."""
        if method.upper() not in UNSAFE_METHODS:
            return
        claimed = origin if origin is not None else referer
        if claimed is None:
            return  # not a browser, or one that says nothing: the token decides
        netloc = urlsplit(claimed.strip()).netloc.lower() if claimed.strip() != "null" else ""
        own = (host_header or "").strip().lower()
        if not netloc or not hmac.compare_digest(netloc, own):
            raise CrossSiteRequest(f"the request comes from another origin ({claimed[:80]!r})")

    def new_session(self) -> str:
        """Return a fresh random session id for the cookie."""
        return secrets.token_urlsafe(32)

    def token(self, session: str) -> str:
        """Return the CSRF token of `session`."""
        return hmac.new(self._secret, session.encode(), hashlib.sha256).hexdigest()

    def check_token(self, session: str | None, sent: str | None) -> None:
        """Raise CrossSiteRequest unless `sent` is the token of the cookie's session."""
        if not session or not sent:
            raise CrossSiteRequest("the request carries no CSRF token")
        if not hmac.compare_digest(self.token(session).encode(), sent.encode()):
            raise CrossSiteRequest("the request's CSRF token does not match its session")
