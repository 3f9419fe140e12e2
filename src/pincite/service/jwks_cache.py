"""The issuer's signing keys fetched from `jwks_url`, cached, and refreshed off the request path.

A bearer token never fetches anything itself. The keys are held with their age: past
`ttl` seconds a refresh starts in a background thread while requests go on with the keys
held. A token whose `kid` is not held may start a refresh too, but at most one fetch per
`min_interval` seconds (counted from the last fetch's end) whatever the tokens say (a
forged `kid` costs the issuer nothing), and never two at once. A caller on the event loop never waits on the network: it gets
`KeysRefreshing` and awaits `settled()` (other requests go on meanwhile); a caller in a
worker thread may block on the fetch for at most `timeout` seconds.

A failed fetch keeps the keys held (an issuer briefly down does not sign everyone out)
and is logged; the response is capped at `max_bytes` and redirects are not followed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import KeysRefreshing, MissingExtra, Unauthenticated

log = logging.getLogger("pincite.service")

MAX_JWKS_BYTES = 1024 * 1024
Fetch = Callable[[str, float, int], bytes]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def http_fetch(url: str, timeout: float, max_bytes: int) -> bytes:
    """Return the body of `url` (no redirects, at most `max_bytes`); raise OSError or
    ValueError when it cannot be had."""
    opener = urllib.request.build_opener(_NoRedirect())
    req = urllib.request.Request(url, headers={"Accept": "application/json",
                                               "User-Agent": "pincite-jwks"})
    with opener.open(req, timeout=timeout) as resp:  # noqa: S310 - the configured issuer
        body = resp.read(max_bytes + 1)
    if len(body) > max_bytes:
        raise ValueError(f"the key set is over {max_bytes} bytes")
    return bytes(body)


def _parse(body: bytes) -> dict[str | None, Any]:
    """Return the signing keys of a JWKS document by `kid`; raise ValueError if it has none."""
    try:
        import jwt
    except ImportError:  # pragma: no cover - depends on the install
        raise MissingExtra("pyjwt", "service") from None
    from ..limits import load_guarded  # size, depth, finite numbers

    doc = load_guarded(body, "the issuer's key set", refuse=ValueError,
                       max_bytes=MAX_JWKS_BYTES, max_depth=16, syntax="json")
    if not isinstance(doc, dict):
        raise ValueError("the key set is not a JSON object")
    try:
        keys = jwt.PyJWKSet.from_dict(doc).keys
    except jwt.PyJWTError as exc:
        raise ValueError(f"the key set holds no usable key ({exc})") from None
    return {k.key_id: k.key for k in keys}


def _on_event_loop() -> bool:
    """Return True when the calling thread runs an event loop (it must not block)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


@dataclass
class JwksCache:
    """The key set of one `jwks_url` (see the module docstring)."""

    url: str
    ttl: float = 300.0          # keys older than this are refreshed in the background
    min_interval: float = 30.0  # at most one fetch per this many seconds
    timeout: float = 5.0        # one fetch's limit, and the longest any caller waits
    max_bytes: int = MAX_JWKS_BYTES
    fetch: Fetch = http_fetch
    clock: Callable[[], float] = time.monotonic
    _keys: dict[str | None, Any] = field(default_factory=dict)
    _loaded_at: float | None = None
    _attempted_at: float | None = None
    _running: threading.Event | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def lookup(self, kid: str | None) -> Any | None:
        """Return the key of `kid` held now (the only key when `kid` is None), or None;
        start a background refresh when the keys are stale or `kid` is not held and the
        rate allows one. Never waits."""
        with self._lock:
            found = self._find(kid)
            now = self.clock()
            stale = self._loaded_at is None or now - self._loaded_at >= self.ttl
            if (stale or found is None) and self._running is None and (
                    self._attempted_at is None or now - self._attempted_at >= self.min_interval):
                self._start(now)
            return found

    def signing_key(self, kid: str | None) -> Any:
        """Return the key that verifies a token naming `kid`; raise KeysRefreshing when a
        fetch under way may bring it (on an event loop), Unauthenticated when none does.
        Off the event loop, wait for that fetch (at most `timeout` seconds)."""
        found = self.lookup(kid)
        if found is not None:
            return found
        running = self._running
        if running is not None:
            if _on_event_loop():
                raise KeysRefreshing(self)
            running.wait(self.timeout)
            with self._lock:
                found = self._find(kid)
        if found is None:
            raise Unauthenticated("no key of the issuer signs this token")
        return found

    def pending(self) -> bool:
        """Return True while a fetch is under way."""
        return self._running is not None

    async def settled(self, timeout: float | None = None) -> None:
        """Wait (without blocking the event loop) until no fetch is under way, at most
        `timeout` seconds (default: the fetch's own limit and a little more)."""
        import anyio

        deadline = time.monotonic() + (self.timeout + 0.5 if timeout is None else timeout)
        while self._running is not None and time.monotonic() < deadline:
            await anyio.sleep(0.01)

    def _find(self, kid: str | None) -> Any | None:
        if kid is None:
            return next(iter(self._keys.values())) if len(self._keys) == 1 else None
        return self._keys.get(kid)

    def _start(self, now: float) -> None:
        """Start one fetch in a background thread (the lock is held)."""
        self._attempted_at = now
        done = self._running = threading.Event()
        threading.Thread(target=self._refresh, args=(done,), name="pincite-jwks",
                         daemon=True).start()

    def _refresh(self, done: threading.Event) -> None:
        try:
            keys = _parse(self.fetch(self.url, self.timeout, self.max_bytes))
        except Exception as exc:  # noqa: BLE001 - any failure keeps the keys held
            log.warning(json.dumps({"event": "jwks_fetch_failed", "url": self.url,
                                    "error": type(exc).__name__}))
            keys = None
        with self._lock:
            now = self.clock()
            if keys is not None:
                self._keys, self._loaded_at = keys, now
            self._attempted_at = now  # the interval runs from the fetch's end
            self._running = None
        done.set()
