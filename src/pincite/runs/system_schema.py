"""`pincite db upgrade` on PostgreSQL: the store's schema, then the durable runs' `dbos`
schema, both as the owner, then the wall's grants again, so they reach the new schema.

The app login the service and workers connect as (`--app-login`) owns nothing and may
create no schema, so the runs' schema must exist before its first worker starts; on a
machine without the `workers` extra it is left for later.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import MissingExtra
from ..store.schema_upgrade import upgrade_store
from .engine import migrate, system_db_url


def upgrade_with_runs(url: str | Path, *, app_login: str | None = None) -> dict[str, Any]:
    """Upgrade the store at `url` (and, for PostgreSQL, its runs' schema); return
    {store, backend, before, after, changed} (the store's schema versions)."""
    done = upgrade_store(url, app_login=app_login)
    if done.backend == "postgresql":
        try:
            migrate(system_db_url(url))
        except MissingExtra:
            return done.to_dict()  # no workers here: the runs' schema comes with the first
        upgrade_store(url, app_login=app_login)
    return done.to_dict()
