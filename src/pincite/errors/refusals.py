"""The HTTP service's refusals: errors only the service raises, drawn in the tree of
`pincite.errors` and re-exported there (the one error envelope renders them like the
rest)."""

from __future__ import annotations

from typing import Any

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


class KeysRefreshing(Unauthenticated):
    """A token names a key not held while a fetch of the issuer's key set is under way:
    await the fetch (`service.jwks_cache.JwksCache.settled()`) and try once more (an
    `Unauthenticated` to anyone who does not); `cache` is the cache to await."""

    code = "keys_refreshing"

    def __init__(self, cache: Any) -> None:
        super().__init__("the issuer's keys are being refreshed; retry in a moment")
        self.cache = cache


class TooManyFailures(RateLimited):
    """A client address past its failed authentications; `retry_after` is in seconds."""

    code = "too_many_failures"

    def __init__(self, retry_after: float) -> None:
        self.retry_after = max(1, int(retry_after + 0.999))
        PinciteError.__init__(self, "too many failed authentications from this address; "
                              f"retry after {self.retry_after} s with a valid key or token")


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
    "KeysRefreshing",
    "RateLimited",
    "RequestTimeout",
    "TooManyFailures",
    "Unauthenticated",
]
