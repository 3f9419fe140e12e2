"""The service's apps as the acceptance suite drives them (`evals.acceptance.loopback.
ServiceDriver`): the app of `pincite serve` and the streamable-HTTP app of
`pincite mcp --http`, built exactly as those commands build them, over a library and a
keys file the suite made."""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..evals.acceptance.loopback import ServiceDriver
    from ..library import Library


def service_app(lib: Library, keys: Path, oidc: Path | None = None, *, rate: float = 1000.0,
                burst: int = 1000, concurrency: int = 64, queue_seconds: float = 10.0,
                threads: int | None = None, tenant_threads: int | None = None,
                failures: int | None = None, session_seconds: float | None = None) -> Any:
    """Return the service app over `lib` with the keys file `keys` (and the issuer of the
    OIDC configuration `oidc`), under the limits given."""
    from .auth import Authenticator
    from .keyring import KeyRing
    from .lockout import FailureLimit
    from .oidc import OidcVerifier
    from .served import ServiceConfig
    from .server import create_service
    from .throttle import TenantLimits

    auth = Authenticator(keys=KeyRing(keys),
                         oidc=OidcVerifier.from_file(oidc) if oidc is not None else None)
    config = ServiceConfig(auth=auth, limits=TenantLimits(
        rate=rate, burst=burst, concurrency=concurrency, queue_seconds=queue_seconds),
        allowed_hosts=None, artifact_dir=keys.parent / "service-artifacts",
        tenant_threads=tenant_threads)
    if threads is not None:
        config.threads = threads
    if failures is not None:
        config.auth_failures = FailureLimit(limit=failures)
    if session_seconds is not None:
        config.session_seconds = session_seconds
    return create_service(lib, config)


def mcp_app(lib: Library, keys: Path, key: str) -> Any:
    """Return the streamable-HTTP MCP app acting for `key` (serve it with its lifespan)."""
    from .auth import Authenticator
    from .keyring import KeyRing
    from .mcp_tools import bearer_gate, build_mcp

    auth = Authenticator(keys=KeyRing(keys))
    server = build_mcp(lib, auth, key)
    return bearer_gate(server.streamable_http_app(host="127.0.0.1"), auth, auth.credential(key))


def service_driver() -> ServiceDriver:
    """Return the driver of the service's apps (MCP's only with the `mcp` extra)."""
    from ..evals.acceptance.loopback import ServiceDriver

    return ServiceDriver(app=service_app, mcp=mcp_app if find_spec("mcp") else None)
