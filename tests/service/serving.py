"""The service under test: a real store with two tenants, real keys, uvicorn on a free port.

Tenant `demo` holds the example tender, extracted under strict thresholds so its review
queue has items; tenant `globex` holds one Markdown contract full of canary tokens that
must never reach a `demo` caller (and the other way round).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pincite.model import Principal
from pincite.service.auth import Authenticator
from pincite.service.keyring import KeyRing
from pincite.service.lockout import FailureLimit
from pincite.service.scopes import Scope
from pincite.service.served import ServiceConfig
from pincite.service.server import create_service
from pincite.service.throttle import TenantLimits
from tests.corpus import add, publish, tender_library
from tests.review.queues import extract_tender
from tests.service.clients import served_over_http

ANA = Principal.parse("demo:ana:analysts")
GUS = Principal.parse("globex:gus:staff")
CANARY = "GLOBEXCANARY7731"
GLOBEX_DOC = f"""# Globex supply agreement {CANARY}

1. PAYMENT {CANARY}

1.1 Invoices are payable within thirty (30) days of receipt. Ref {CANARY}.

2. GOVERNING LAW

2.1 This Agreement is governed by the laws of Spain and the {CANARY} annex.
"""
WORKING = (Scope.READ, Scope.INGEST, Scope.REVIEW)


@dataclass
class Service:
    """A running service: its base URL, library, store path and keys per tenant."""

    base: str
    lib: Any
    store: Path
    keys: dict[str, str]  # "demo", "globex", "demo-admin", "demo-read", "globex-admin",
    #                       "operator" (every tenant's numbers, no tenant's documents)
    ring: KeyRing

    def auth(self, who: str) -> dict[str, str]:
        """Return the Authorization header of a key."""
        return {"Authorization": f"Bearer {self.keys[who]}"}


def build_store(root: Path) -> Any:
    """Return a library with both tenants ingested, published and the tender extracted."""
    lib = tender_library(root / "store")
    extract_tender(lib, root)
    add(lib, "globex/supply.md", GLOBEX_DOC, tenant="globex", acl=("*",))
    publish(lib)
    return lib


def make_keys(ring: KeyRing) -> dict[str, str]:
    """Create the keys the tests use; return them by name."""
    keys = {}
    keys["demo"], _ = ring.create(ANA, WORKING)
    keys["globex"], _ = ring.create(GUS, WORKING)
    keys["demo-read"], _ = ring.create(ANA, (Scope.READ,))
    keys["demo-admin"], _ = ring.create(Principal("demo", "lea", ("analysts",)), (Scope.ADMIN,))
    keys["globex-admin"], _ = ring.create(Principal("globex", "gia", ("staff",)), (Scope.ADMIN,))
    keys["operator"], _ = ring.create(Principal("ops", "olga", ()), (Scope.OPERATOR,))
    return keys


def app_for(lib: Any, ring: KeyRing, oidc: Any = None, **config: Any) -> Any:
    """Return the service app over `lib` with the keys of `ring` (and the OIDC verifier
    `oidc`)."""
    return create_service(lib, ServiceConfig(auth=Authenticator(keys=ring, oidc=oidc),
                                             **config))


@contextmanager
def running(root: Path, *, lib: Any = None, limits: TenantLimits | None = None,
            **config: Any) -> Iterator[Service]:
    """Serve a fresh two-tenant store (or `lib`) with uvicorn; yield the running service."""
    own = lib is None
    lib = lib or build_store(root)
    ring = KeyRing(root / "keys.json")
    keys = make_keys(ring)
    config.setdefault("artifact_dir", root / "artifacts")
    # the tests of other things send bad credentials by the hundred from one address;
    # tests/service/test_token_dos.py checks the default lockout
    config.setdefault("auth_failures", FailureLimit(limit=100_000))
    app = app_for(lib, ring, limits=limits or TenantLimits(rate=1000, burst=1000),
                  allowed_hosts=None, **config)
    try:
        with served_over_http(app) as base:
            yield Service(base, lib, Path(lib.store.root), keys, ring)
    finally:
        if own:
            lib.close()


def small_store(root: Path) -> Any:
    """Return a library with one small document per tenant, published (the tests of the
    service's limits and sessions, which need no tender)."""
    import pincite
    from tests.corpus import TERMS_EN

    lib = pincite.open(root / "store", create=True)
    add(lib, "demo/terms.md", TERMS_EN, tenant="demo", acl=("group:analysts",))
    add(lib, "globex/supply.md", GLOBEX_DOC, tenant="globex", acl=("*",))
    publish(lib)
    return lib


def copy_store(lib: Any, dest: Path) -> Path:
    """Copy a store's directory (checkpointed first) to `dest`; return it."""
    lib.store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    shutil.copytree(lib.store.root, dest)
    return dest
