"""Per-tenant limits: a token bucket for the request rate and a cap on requests in flight.

One tenant over its limits gets `RateLimited` (429 with `Retry-After`); the others are
served as before, since each tenant has its own bucket and its own counter.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from ..errors import RateLimited, UsageError


@dataclass
class TenantLimits:
    """The limits every tenant gets: `rate` requests per second refilling a bucket of
    `burst`, and at most `concurrency` requests in flight."""

    rate: float = 50.0
    burst: int = 100
    concurrency: int = 16

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rate) and self.rate > 0):
            raise UsageError(f"the rate limit must be a positive number, not {self.rate!r}")
        if self.burst < 1 or self.concurrency < 1:
            raise UsageError("the burst and the concurrency cap must be at least 1")


@dataclass
class Throttle:
    """The buckets and in-flight counters of every tenant seen."""

    limits: TenantLimits = field(default_factory=TenantLimits)
    clock: Callable[[], float] = time.monotonic
    _tokens: dict[str, tuple[float, float]] = field(default_factory=dict)
    _inflight: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, tenant: str) -> None:
        """Spend one token of `tenant`'s bucket; raise RateLimited when it is empty."""
        now = self.clock()
        with self._lock:
            tokens, at = self._tokens.get(tenant, (float(self.limits.burst), now))
            tokens = min(float(self.limits.burst), tokens + (now - at) * self.limits.rate)
            if tokens < 1.0:
                self._tokens[tenant] = (tokens, now)
                raise RateLimited(tenant, (1.0 - tokens) / self.limits.rate)
            self._tokens[tenant] = (tokens - 1.0, now)

    @contextmanager
    def slot(self, tenant: str) -> Iterator[None]:
        """Hold one of `tenant`'s in-flight slots for the block; raise RateLimited when
        all are taken."""
        with self._lock:
            n = self._inflight.get(tenant, 0)
            if n >= self.limits.concurrency:
                raise RateLimited(tenant, 1.0, "concurrency cap")
            self._inflight[tenant] = n + 1
        try:
            yield
        finally:
            with self._lock:
                self._inflight[tenant] -= 1

    def in_flight(self) -> dict[str, int]:
        """Return the requests in flight per tenant."""
        with self._lock:
            return {t: n for t, n in self._inflight.items() if n}
