"""The PostgreSQL backend: the same `Store` protocol on a shared PostgreSQL (+ pgvector).

`open_store("postgresql://…")` chooses it. Everything it keeps lives in the database
(metadata, text layers, blobs, index tables, vectors), so every worker on every machine
that reaches the database sees one store. Files derived from the database and kept for
speed (vector maps, ANN graphs) live in a local cache directory per machine.
Row-level security is a second wall behind the application's tenant filter: see
`pg_security_sql`.
"""

from __future__ import annotations

from .pg_backend import PostgresStore

__all__ = ["PostgresStore"]
