"""SQL of the embedding cache: spaces and vectors by (scope, space, input digest).

The SQLite backend keeps these rows in a file of their own; here they are two tables of
the shared database, so every worker reuses the vectors any worker computed. `scope` is
the tenant (the embedding stage passes it): `pg_security_sql` walls the table by it, as
it walls every `tenant` column (`WALL_COLUMNS`). `embedding_spaces` holds what each space
is (model, dimension), no tenant's data, and is not walled.
"""

from __future__ import annotations

MIGRATION_EMBEDDINGS = """
CREATE TABLE embedding_spaces (
    space_id    TEXT PRIMARY KEY,
    record      TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE TABLE embeddings (
    scope        TEXT NOT NULL,
    space_id     TEXT NOT NULL REFERENCES embedding_spaces (space_id),
    input_sha256 TEXT NOT NULL,
    windows      INTEGER NOT NULL,
    dtype        TEXT NOT NULL,
    vector       BYTEA NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (scope, space_id, input_sha256)
);
CREATE INDEX embeddings_input ON embeddings (input_sha256);
"""

SQL_SPACE_GET = "SELECT record FROM embedding_spaces WHERE space_id = %s"
SQL_SPACE_PUT = ("INSERT INTO embedding_spaces (space_id, record, created_at) VALUES (%s, %s, %s) "
                 "ON CONFLICT (space_id) DO NOTHING")
SQL_VECTORS = ("SELECT input_sha256, windows, vector FROM embeddings "
               "WHERE scope = %s AND space_id = %s AND input_sha256 = ANY(%s)")
SQL_PUT_VECTOR = (
    "INSERT INTO embeddings (scope, space_id, input_sha256, windows, dtype, vector, created_at) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (scope, space_id, input_sha256) DO NOTHING"
)
SQL_FORGET = "DELETE FROM embeddings WHERE input_sha256 = ANY(%s)"
SQL_FORGET_SCOPE = "DELETE FROM embeddings WHERE scope = %s"
SQL_COUNT = "SELECT count(*) FROM embeddings WHERE space_id = %s"
