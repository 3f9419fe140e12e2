"""Packed postings of a generation on PostgreSQL: `gen_postings(gen_id, tenant, term,
ords, tfs)`, one row per term, in the SQLite backend's packing (`store.sqlite.postings`:
little-endian int32 arrays sorted by ord) and with the same digest."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..sqlite.postings import DTYPE, Postings, digest
from .pg_index_sql import (
    SQL_POST_ALL,
    SQL_POST_DELETE,
    SQL_POST_OF_TERMS,
    SQL_POST_OF_TERMS_ANY,
    SQL_POST_UPDATE,
)


def table_digest(conn: Any, gen_id: str) -> str:
    """sha256 over a generation's (term, ords, tfs) rows in term order."""
    return digest((r[0], bytes(r[1]), bytes(r[2]))
                  for r in conn.execute(SQL_POST_ALL, (gen_id,)).fetchall())


def read_postings(conn: Any, gen_id: str, tenant: str, terms: list[str]) -> Postings:
    """The postings of `terms` among the tenant's rows of a generation."""
    out = Postings()
    for term, ords, tfs in conn.execute(SQL_POST_OF_TERMS, (gen_id, tenant, terms)).fetchall():
        out.terms.append(term)
        out.ords.append(np.frombuffer(bytes(ords), dtype=DTYPE).astype(np.int64))
        out.tfs.append(np.frombuffer(bytes(tfs), dtype=DTYPE).astype(np.int64))
    return out


def purge_postings(conn: Any, gen_id: str, bodies: Iterable[tuple[int, str]]) -> bool:
    """Remove rows (ord, body) from the postings of their terms; a term left without
    postings is deleted. Returns True when any posting was removed."""
    gone: dict[str, list[int]] = {}
    for ord_, body in bodies:
        for tok in set(body.split()):
            gone.setdefault(tok, []).append(int(ord_))
    if not gone:
        return False
    rows = conn.execute(SQL_POST_OF_TERMS_ANY, (gen_id, sorted(gone))).fetchall()
    for term, ords_b, tfs_b in rows:
        ords = np.frombuffer(bytes(ords_b), dtype=DTYPE)
        tfs = np.frombuffer(bytes(tfs_b), dtype=DTYPE)
        keep = ~np.isin(ords, np.array(gone[term], dtype=np.int64))
        if keep.any():
            conn.execute(SQL_POST_UPDATE, (ords[keep].astype(DTYPE).tobytes(),
                                           tfs[keep].astype(DTYPE).tobytes(), gen_id, term))
        else:
            conn.execute(SQL_POST_DELETE, (gen_id, term))
    return True
