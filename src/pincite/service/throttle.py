"""Per-tenant limits: a token bucket for the request rate, a cap on requests in flight, and
a share of the worker threads.

One tenant over its limits gets `RateLimited` (429 with `Retry-After`); the others are
served as before, since each tenant has its own bucket and its own counter. The library
calls of every tenant run on one pool of worker threads; a tenant may hold at most
`workers` of them at once (the pool less one, by default), so one tenant's load always
leaves a thread to the others. A request past its tenant's share waits for one (without
holding a thread) for at most `queue_seconds`, then gets 429.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field

from ..errors import RateLimited, UsageError


@dataclass
class TenantLimits:
    """The limits every tenant gets: `rate` requests per second refilling a bucket of
    `burst`, at most `concurrency` requests in flight, and a wait of at most
    `queue_seconds` for one of the tenant's worker threads."""

    rate: float = 50.0
    burst: int = 100
    concurrency: int = 16
    queue_seconds: float = 10.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.rate) and self.rate > 0):
            raise UsageError(f"the rate limit must be a positive number, not {self.rate!r}")
        if not (math.isfinite(self.queue_seconds) and self.queue_seconds >= 0):
            raise UsageError("the queue wait must be a number of seconds, not "
                             f"{self.queue_seconds!r}")
        if self.burst < 1 or self.concurrency < 1:
            raise UsageError("the burst and the concurrency cap must be at least 1")


@dataclass
class Throttle:
    """The buckets, in-flight counters and worker shares of every tenant seen (`workers`:
    the worker threads one tenant may hold; None: no share)."""

    limits: TenantLimits = field(default_factory=TenantLimits)
    clock: Callable[[], float] = time.monotonic
    workers: int | None = None
    _tokens: dict[str, tuple[float, float]] = field(default_factory=dict)
    _inflight: dict[str, int] = field(default_factory=dict)
    _working: dict[str, int] = field(default_factory=dict)
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

    @asynccontextmanager
    async def worker(self, tenant: str) -> AsyncIterator[None]:
        """Hold one of `tenant`'s worker-thread shares for the block, waiting (without
        blocking the event loop) up to `queue_seconds` for one; raise RateLimited then."""
        import anyio

        if self.workers is None:
            yield
            return
        deadline = time.monotonic() + self.limits.queue_seconds
        while not self._try_work(tenant):
            if time.monotonic() >= deadline:
                raise RateLimited(tenant, 1.0, "share of the worker threads")
            await anyio.sleep(0.01)
        try:
            yield
        finally:
            with self._lock:
                self._working[tenant] -= 1

    def _try_work(self, tenant: str) -> bool:
        """Take one of `tenant`'s worker shares if one is free; return whether it was."""
        with self._lock:
            n = self._working.get(tenant, 0)
            if self.workers is not None and n >= self.workers:
                return False
            self._working[tenant] = n + 1
            return True

    def in_flight(self) -> dict[str, int]:
        """Return the requests in flight per tenant."""
        with self._lock:
            return {t: n for t, n in self._inflight.items() if n}
