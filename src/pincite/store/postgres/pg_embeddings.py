"""`PgEmbeddings`: the embedding cache's rows in the shared PostgreSQL database.

It keeps a connection of its own (as the app role), so writing vectors never joins or
disturbs a transaction the store's connection has open; `close()` ends it.

The rows are behind the tenant wall like every tenant table: a vector's `scope` is its
tenant (the index build passes it), and each read or write of a scope runs in a
transaction acting for that scope, so the policy lets it see that scope's rows only.
Vectors are not shared between tenants, even for the same input digest: a shared row
would tell one tenant, by a cache hit, that another tenant's documents hold a given
passage. Forgetting inputs (a purge, which must reach every copy) and counting a space
span scopes: they run as the maintenance role.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...errors import UsageError
from .pg_connection import ALL_TENANTS, connect, redact, transaction
from .pg_embeddings_sql import (
    SQL_COUNT,
    SQL_FORGET,
    SQL_FORGET_SCOPE,
    SQL_PUT_VECTOR,
    SQL_SPACE_GET,
    SQL_SPACE_PUT,
    SQL_VECTORS,
)


def _scope(scope: str) -> str:
    """Return the tenant a scope's transaction acts for: the scope itself, never every
    tenant (a scope spelled like `ALL_TENANTS` is refused)."""
    if scope == ALL_TENANTS:
        raise UsageError(f"{scope!r} is not a scope of the embedding cache: give a tenant")
    return scope


class PgEmbeddings:
    """Embedding spaces and vectors in two tables of the database; call `close()` when done."""

    def __init__(self, url: str) -> None:
        self.where = f"{redact(url)} (table embeddings)"
        self._db: Any = connect(url)

    def space_record(self, space_id: str) -> str | None:
        """Return the JSON record of a space, or None when it is not recorded."""
        row = self._db.execute(SQL_SPACE_GET, (space_id,)).fetchone()
        return None if row is None else str(row[0])

    def add_space(self, space_id: str, record: str, at: str) -> None:
        """Record a space (a space id already recorded is kept as it is)."""
        self._db.execute(SQL_SPACE_PUT, (space_id, record, at))

    def vectors(self, scope: str, space_id: str, digests: Sequence[str]
                ) -> list[tuple[str, int, bytes]]:
        """Return (digest, windows, float32 blob) of the digests held in this scope and space."""
        with transaction(self._db, _scope(scope), read_only=True) as c:
            rows = c.execute(SQL_VECTORS, (scope, space_id, list(digests))).fetchall()
        return [(d, int(w), bytes(b)) for d, w, b in rows]

    def put_vectors(self, rows: Sequence[tuple[str, str, str, int, str, bytes, str]]) -> None:
        """Store (scope, space, digest, windows, dtype, blob, at) rows, one transaction per
        scope; rows already present are kept as they are."""
        by_scope: dict[str, list[tuple[str, str, str, int, str, bytes, str]]] = {}
        for row in rows:
            by_scope.setdefault(row[0], []).append(row)
        for scope, mine in by_scope.items():
            with transaction(self._db, _scope(scope)) as c, c.cursor() as cur:
                cur.executemany(SQL_PUT_VECTOR, mine)

    def forget(self, digests: Sequence[str]) -> int:
        """Delete the vectors of these inputs in every scope and space; return rows removed."""
        with transaction(self._db, ALL_TENANTS) as c:
            return int(c.execute(SQL_FORGET, (list(digests),)).rowcount)

    def forget_scope(self, scope: str) -> int:
        """Delete every vector of one scope; return rows removed."""
        with transaction(self._db, _scope(scope)) as c:
            return int(c.execute(SQL_FORGET_SCOPE, (scope,)).rowcount)

    def count(self, space_id: str) -> int:
        """Return how many vectors a space holds (every scope)."""
        with transaction(self._db, ALL_TENANTS, read_only=True) as c:
            return int(c.execute(SQL_COUNT, (space_id,)).fetchone()[0])

    def close(self) -> None:
        """Close the connection."""
        self._db.close()
