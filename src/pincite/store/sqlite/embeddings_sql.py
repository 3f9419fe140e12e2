"""Named statements of the embedding cache (`embeddings.sqlite` beside the store's database).

Vectors are float32 blobs keyed by (scope, space id, sha256 of the exact model input).
"""

from __future__ import annotations

EMBEDDINGS_MIGRATIONS: tuple[str, ...] = (
    """
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
        vector       BLOB NOT NULL,
        created_at   TEXT NOT NULL,
        PRIMARY KEY (scope, space_id, input_sha256)
    ) WITHOUT ROWID;
    CREATE INDEX embeddings_input ON embeddings (input_sha256);
    """,
)

SQL_SPACE_GET = "SELECT record FROM embedding_spaces WHERE space_id = ?"
SQL_SPACE_PUT = ("INSERT OR IGNORE INTO embedding_spaces (space_id, record, created_at) "
                 "VALUES (?, ?, ?)")
SQL_VECTORS = (
    "SELECT input_sha256, windows, vector FROM embeddings "
    "WHERE scope = ? AND space_id = ? AND input_sha256 IN (SELECT value FROM json_each(?))"
)
SQL_PUT_VECTOR = (
    "INSERT OR IGNORE INTO embeddings "
    "(scope, space_id, input_sha256, windows, dtype, vector, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)"
)
SQL_FORGET = "DELETE FROM embeddings WHERE input_sha256 IN (SELECT value FROM json_each(?))"
SQL_FORGET_SCOPE = "DELETE FROM embeddings WHERE scope = ?"
SQL_COUNT = "SELECT count(*) FROM embeddings WHERE space_id = ?"
