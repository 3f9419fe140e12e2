"""Changing stored bytes behind the store's back, on either backend (tests of what a
store must notice: altered blobs)."""

from __future__ import annotations

from typing import Any


def stored_bytes(store: Any, tenant: str, sha256: str) -> bytes:
    """Return the bytes stored under `sha256` for `tenant`."""
    return store.blobs.get(tenant, sha256)


def rewrite_blob(store: Any, tenant: str, sha256: str, data: bytes) -> None:
    """Replace the bytes stored under `sha256` with `data` (its name is kept): the file on
    SQLite, the row on PostgreSQL (as the tables' owner, as an intruder would)."""
    if store.backend == "postgresql":
        import psycopg

        with psycopg.connect(store.url, autocommit=True) as c:
            c.execute("UPDATE blobs SET data = %s WHERE tenant = %s AND area = 'accepted' "
                      "AND sha256 = %s", (data, tenant, sha256))
        return
    path = store.blobs.path(tenant, sha256)
    path.chmod(0o644)
    path.write_bytes(data)
