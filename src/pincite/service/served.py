"""What the service's routes share: its configuration, the library, the limits, the
metrics, and the dependency that gives a route the principal of a caller with a scope."""

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from ..errors import Unauthenticated
from ..limits import Limits
from ..model import Principal
from .auth import Authenticator
from .guard import Guard
from .lockout import FailureLimit, Lockout
from .scopes import Caller, Scope
from .throttle import TenantLimits, Throttle

if TYPE_CHECKING:
    from ..library import Library

MAX_JSON_BODY = 1024 * 1024


@dataclass
class ServiceConfig:
    """How one service app authenticates, limits and caps requests."""

    auth: Authenticator
    limits: TenantLimits = field(default_factory=TenantLimits)
    allowed_hosts: list[str] | None = None  # None: loopback names on any port
    max_body: int = MAX_JSON_BODY
    max_upload: int = field(default_factory=lambda: Limits().max_bytes)
    upload_dir: Path | None = None
    session_seconds: float = 8 * 3600.0
    embedder: str | None = None  # of the generations ingest publishes
    # library calls run at once: searches lose throughput with more threads than cores
    # (bench/serve.py: 8 threads on 2 cores give a third of one thread's rate)
    threads: int = field(default_factory=lambda: default_threads())
    # worker threads one tenant may hold at once (None: all of them but one)
    tenant_threads: int | None = None
    auth_failures: FailureLimit = field(default_factory=FailureLimit)  # per client address
    timeout: float | None = 120.0  # seconds a request may run (not uploads)
    # fill artifacts: a folder the service owns (None: a fresh private temporary folder)
    artifact_dir: Path | None = None
    tender_schema: Path | None = None  # what rank reads calls with (None: the checkout's)
    releases: Path | None = None  # release records (None: $PINCITE_RELEASES, beside the store)
    runs_db: str | None = None  # the runs' system database (None: the store's own)


@dataclass
class Served:
    """What the routes share: the library, the config, the limits, the metrics."""

    lib: "Library"
    config: ServiceConfig
    throttle: Throttle
    metrics: Any
    guard: Guard
    artifacts: Any = None  # `artifacts.Artifacts`
    lockout: Lockout = field(default_factory=Lockout)
    sessions: Any = None  # `signin.Sessions`, the review page's
    _book: Any = None
    _booking: threading.Lock = field(default_factory=threading.Lock)

    def runs(self) -> Any:
        """Return the runs book of the served store (one per app, opened on first use)."""
        with self._booking:
            if self._book is None:
                self._book = self.lib.runs(self.lib.url, self.config.runs_db)
        return self._book

    def caller_dependency(self) -> Callable[..., Any]:
        """Return the dependency giving the caller the front door authenticated (the
        bearer scheme it declares is what the OpenAPI document shows)."""
        from fastapi import Depends, Request
        from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

        bearer = HTTPBearer(auto_error=False, description="An API key (`pincite keys "
                            "create`) or a JWT of the configured issuer.")

        async def caller(request: Request,
                         _: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
                         ) -> Caller:
            found = getattr(request.state, "caller", None)
            if not isinstance(found, Caller):  # a route the front door let through unsigned
                raise Unauthenticated()
            return found

        return caller


def tenant_share(config: ServiceConfig) -> int:
    """Return how many worker threads one tenant may hold: `tenant_threads`, else the
    pool less one (at least one), so another tenant always finds a thread."""
    if config.tenant_threads is not None:
        return max(1, config.tenant_threads)
    return max(1, config.threads - 1)


def default_threads() -> int:
    """Return how many library calls run at once by default: the CPUs, from 2 to 8."""
    import os

    return max(2, min(8, os.cpu_count() or 2))


def need(caller: Callable[..., Any], scope: Scope) -> Callable[..., Any]:
    """Return a dependency giving the principal of a caller holding `scope` (403 else)."""
    from fastapi import Depends

    async def principal(c: Annotated[Caller, Depends(caller)]) -> Principal:
        return c.require(scope)

    return principal
