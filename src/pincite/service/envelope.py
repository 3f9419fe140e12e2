"""The one error envelope of the HTTP service: `{"error": {"code", "message", "hint"}}`.

Every error response of `pincite serve` is made here, from the error tree
(`pincite.errors`: the class gives the code and the status). `hint` says what a client
does next; a 5xx that is not a pincite error says nothing of its cause.
"""

from __future__ import annotations

from typing import Any

from ..errors import PinciteError

# what a client does next, per code; otherwise per status
_HINTS = {
    "unauthenticated": "send Authorization: Bearer <API key or JWT>",
    "forbidden": "use a credential with the scope or role the message names",
    "not_found": "check the identifier; things you may not see are not found either",
    "rate_limited": "wait the Retry-After seconds, then retry",
    "body_too_large": "send a smaller body",
    "cross_site_request": "send state changes from the page's own origin with its CSRF token",
    "unknown_host": "use a host name the service is configured to answer",
    "store_busy": "retry shortly",
    "request_timeout": "narrow the request or retry later",
    "review_conflict": "reload the item: its claim or state changed",
    "quote_not_found": "check the quote's wording against `show`",
}
_BY_STATUS = {400: "fix the request as the message says", 404: _HINTS["not_found"],
              409: "reload the state and retry", 422: "the input was refused: see the reason",
              500: "the service failed; report it with the request's time",
              503: "retry shortly"}


def error_body(exc: PinciteError) -> dict[str, Any]:
    """Return the envelope of a pincite error."""
    hint = _HINTS.get(exc.code) or _BY_STATUS.get(exc.status, "")
    return {"error": {"code": exc.code, "message": exc.message, "hint": hint}}


def internal_error() -> PinciteError:
    """Return the error an unexpected exception is answered with (no detail leaks)."""
    err = PinciteError("the service failed while answering; nothing about it is shown here")
    err.code, err.status = "internal", 500
    return err


def http_error(status: int, path: str) -> PinciteError:
    """Return the pincite error for a framework status (no route, wrong method)."""
    from ..errors import NotFound

    if status == 404:
        return NotFound("route", path[:200])
    err = PinciteError("method not allowed on this route" if status == 405 else
                       f"the request was refused (HTTP {status})")
    err.code, err.status = ("method_not_allowed" if status == 405 else "http_error"), status
    return err


ERROR_SCHEMA: dict[str, Any] = {
    "type": "object", "additionalProperties": False, "required": ["error"],
    "properties": {"error": {
        "type": "object", "additionalProperties": False,
        "required": ["code", "message", "hint"],
        "properties": {"code": {"type": "string"}, "message": {"type": "string"},
                       "hint": {"type": "string"}}}},
}
