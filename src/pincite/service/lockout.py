"""Failed authentications per client address: past `limit` failures within `window`
seconds, an address is answered 429 (with `Retry-After`) before any credential it sends
is checked, until its oldest failure leaves the window. Other addresses are served as
before. A failure is a credential presented and refused (an unknown or revoked key, a
token that does not verify, a sign-in that fails); a request that sends none is not one.

The address is the connection's peer: behind a reverse proxy every client shares the
proxy's, so set `limit` for the proxy's traffic there. At most `max_clients` addresses
are remembered (the oldest forgotten first), so a flood of addresses cannot grow memory.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..errors import TooManyFailures, UsageError


@dataclass(frozen=True)
class FailureLimit:
    """How many failed authentications an address may make per `window` seconds."""

    limit: int = 20
    window: float = 60.0
    max_clients: int = 10_000

    def __post_init__(self) -> None:
        if self.limit < 1 or self.max_clients < 1:
            raise UsageError("the failed-authentication limit must be at least 1")
        if not (math.isfinite(self.window) and self.window > 0):
            raise UsageError(f"the failure window must be a positive number, not {self.window!r}")


@dataclass
class Lockout:
    """The recent failures of every client address seen."""

    limits: FailureLimit = field(default_factory=FailureLimit)
    clock: Callable[[], float] = time.monotonic
    _failures: dict[str, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def check(self, client: str | None) -> None:
        """Raise TooManyFailures when `client` is past its failures in the window."""
        if client is None:
            return
        now = self.clock()
        with self._lock:
            seen = self._recent(client, now)
            if seen is not None and len(seen) >= self.limits.limit:
                raise TooManyFailures(seen[0] + self.limits.window - now)

    def failed(self, client: str | None) -> None:
        """Count one failed authentication of `client`."""
        if client is None:
            return
        now = self.clock()
        with self._lock:
            seen = self._recent(client, now)
            if seen is None:
                if len(self._failures) >= self.limits.max_clients:
                    self._forget(now)
                seen = self._failures[client] = deque()
            seen.append(now)
            while len(seen) > self.limits.limit:
                seen.popleft()

    def _recent(self, client: str, now: float) -> deque[float] | None:
        """Return `client`'s failures within the window (None when it has none); the lock
        is held."""
        seen = self._failures.get(client)
        if seen is None:
            return None
        while seen and seen[0] <= now - self.limits.window:
            seen.popleft()
        if not seen:
            del self._failures[client]
            return None
        return seen

    def _forget(self, now: float) -> None:
        """Drop the addresses whose failures left the window, then the oldest ones until
        there is room for one more (the lock is held)."""
        for client in [c for c, s in self._failures.items() if s[-1] <= now - self.limits.window]:
            del self._failures[client]
        while len(self._failures) >= self.limits.max_clients:
            del self._failures[next(iter(self._failures))]
