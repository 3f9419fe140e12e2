"""Damage a built generation the way a disk or an operator could, on either backend:
files and per-generation tables on SQLite, rows of the generation's tables on
PostgreSQL (as the database's superuser, past the tenant wall)."""

from __future__ import annotations

import pytest

from pincite.store.vectors import vectors_path

KINDS = ["vector_byte", "vector_missing", "fts_row", "fts_table", "postings_row",
         "postings_table", "rows_byte", "rows_missing"]

_PG = {
    "vector_byte": ["UPDATE gen_vectors SET embedding = embedding * embedding "
                    "WHERE gen_id = %(g)s AND ord = 1"],
    "vector_missing": ["DELETE FROM gen_vectors WHERE gen_id = %(g)s"],
    "fts_row": ["DELETE FROM gen_lex WHERE gen_id = %(g)s AND ord = 1"],
    "fts_table": ["DELETE FROM gen_lex WHERE gen_id = %(g)s",
                  "DELETE FROM gen_tables WHERE gen_id = %(g)s"],
    "postings_row": ["UPDATE gen_postings SET tfs = decode(repeat('00', length(tfs)), 'hex') "
                     "WHERE gen_id = %(g)s AND term = (SELECT min(term COLLATE \"C\") "
                     "FROM gen_postings WHERE gen_id = %(g)s)"],
    "postings_table": ["DELETE FROM gen_postings WHERE gen_id = %(g)s"],
}


def damage(store, gen_id: str, kind: str) -> None:
    """Damage generation `gen_id` of `store` in the way `kind` names (see KINDS)."""
    if store.backend == "postgresql":
        if kind not in _PG:
            pytest.skip(f"{kind}: the PostgreSQL backend keeps no rows file (its universe "
                        "is read by SQL)")
        import psycopg

        with psycopg.connect(store.url, autocommit=True) as c:
            for sql in _PG[kind]:
                c.execute(sql, {"g": gen_id})
        return
    path = vectors_path(store.root, gen_id)
    if kind == "vector_byte":
        raw = bytearray(path.read_bytes())
        raw[5] ^= 0xFF
        path.write_bytes(bytes(raw))
    elif kind == "vector_missing":
        path.unlink()
    elif kind == "fts_row":
        store.conn.execute(f"DELETE FROM lex_{gen_id} WHERE ord = 1")
    elif kind == "postings_row":
        store.conn.execute(f"UPDATE post_{gen_id} SET tfs = zeroblob(length(tfs)) "
                           f"WHERE term = (SELECT min(term) FROM post_{gen_id})")
    elif kind == "postings_table":
        store.conn.execute(f"DROP TABLE post_{gen_id}")
    elif kind == "rows_byte":
        rows = path.with_name("rows.npz")
        raw = bytearray(rows.read_bytes())
        raw[len(raw) // 2] ^= 0xFF
        rows.write_bytes(bytes(raw))
    elif kind == "rows_missing":
        path.with_name("rows.npz").unlink()
    else:
        store.conn.execute(f"DROP TABLE lex_{gen_id}")
