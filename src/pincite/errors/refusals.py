"""The HTTP service's refusals: errors only the service raises, drawn in the tree of
`pincite.errors` and re-exported there (the one error envelope renders them like the
rest)."""

from __future__ import annotations

from .tree import PinciteError


class Unauthenticated(PinciteError):
    """A service request without credentials, or with a key or token that does not verify
    (unknown, revoked, expired, wrong issuer or audience). Never says which."""

    code = "unauthenticated"
    status = 401

    def __init__(self, why: str = "") -> None:
        super().__init__("the request carries no valid credentials" + (f" ({why})" if why else "")
                         + "; send `Authorization: Bearer <key or JWT>` with a key from "
                         "`pincite keys create` or a token of the configured issuer")


class RateLimited(PinciteError):
    """A tenant over its request rate or its concurrency cap; `retry_after` is in seconds."""

    code = "rate_limited"
    status = 429

    def __init__(self, tenant: str, retry_after: float, what: str = "request rate") -> None:
        self.retry_after = max(1, int(retry_after + 0.999))
        super().__init__(f"tenant {tenant!r} is over its {what}; retry after "
                         f"{self.retry_after} s")


class BodyTooLarge(PinciteError):
    """A request body over the service's cap for that route; nothing of it was kept."""

    code = "body_too_large"
    status = 413

    def __init__(self, limit: int, what: str = "request body") -> None:
        super().__init__(f"the {what} is over the {limit}-byte limit; send a smaller one")
        self.limit = limit


class RequestTimeout(PinciteError):
    """A service request that ran past the server's time limit; the answer was dropped."""

    code = "request_timeout"
    status = 503

    def __init__(self, seconds: float) -> None:
        super().__init__(f"the request ran past the {seconds:g}-second limit; narrow it (fewer "
                         "documents, a smaller k) or retry later")

__all__ = [
    "BodyTooLarge",
    "RateLimited",
    "RequestTimeout",
    "Unauthenticated",
]
