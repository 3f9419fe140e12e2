"""Lexical postings of index generations, one row per term: `post_<gen>(term, ords, tfs)`.

The body table `lex_<gen>` holds each row's analyzed body (tenant-keyed tokens). This
table holds its postings packed per term — `ords` and `tfs` are little-endian int32
arrays sorted by ord — so a query reads one row per query term. It is filled from the
bodies in the same transaction as the body table, dropped with it, rewritten without
the purged rows by a purge, and its digest (sha256 over term, ords, tfs in term order)
is in the manifest and checked by the generation integrity check. A generation without
it is not served lexically (its search degrades to the dense channel).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from array import array
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from .index_sql import POST_ALL, POST_DELETE, POST_OF_TERMS, POST_UPSERT

DTYPE = "<i4"


class PostingsBuilder:
    """Collects (ord, body) pairs and yields packed rows, term by term."""

    def __init__(self) -> None:
        self._vocab: dict[str, int] = {}
        self._term = array("i")
        self._ord = array("i")
        self._tf = array("i")

    def add(self, ord_: int, body: str) -> None:
        counts: dict[str, int] = {}
        for tok in body.split():
            counts[tok] = counts.get(tok, 0) + 1
        vocab = self._vocab
        for tok, tf in counts.items():
            tid = vocab.get(tok)
            if tid is None:
                tid = vocab[tok] = len(vocab)
            self._term.append(tid)
            self._ord.append(ord_)
            self._tf.append(tf)

    def rows(self) -> Iterator[tuple[str, bytes, bytes]]:
        """(term, ords, tfs) in term order."""
        if not self._vocab:
            return
        term = np.frombuffer(self._term, dtype=np.int32)
        ords = np.frombuffer(self._ord, dtype=np.int32)
        tfs = np.frombuffer(self._tf, dtype=np.int32)
        order = np.lexsort((ords, term))
        term, ords, tfs = term[order], ords[order], tfs[order]
        bounds = np.flatnonzero(np.diff(term)) + 1
        starts = np.concatenate(([0], bounds))
        ends = np.concatenate((bounds, [len(term)]))
        where = {int(term[s]): (int(s), int(e)) for s, e in zip(starts, ends, strict=True)}
        for name in sorted(self._vocab):
            s, e = where[self._vocab[name]]
            yield name, ords[s:e].astype(DTYPE).tobytes(), tfs[s:e].astype(DTYPE).tobytes()


def digest(rows: Iterable[tuple[str, bytes, bytes]]) -> str:
    """sha256 over (term, ords, tfs) rows in term order."""
    h = hashlib.sha256()
    for term, ords, tfs in rows:
        t = term.encode()
        h.update(len(t).to_bytes(4, "little") + t)
        h.update(len(ords).to_bytes(8, "little") + ords)
        h.update(tfs)
    return h.hexdigest()


def table_digest(conn: sqlite3.Connection, gen_id: str) -> str:
    return digest((r[0], r[1], r[2]) for r in conn.execute(POST_ALL(gen_id)))


class Postings:
    """Postings of some terms: per term, sorted ords and their term frequencies.
    Iterating yields plain (term, ord, tf) tuples."""

    def __init__(self, terms: Sequence[str] = (), ords: Sequence[np.ndarray] = (),
                 tfs: Sequence[np.ndarray] = ()) -> None:
        self.terms = list(terms)
        self.ords = list(ords)
        self.tfs = list(tfs)

    def __len__(self) -> int:
        return sum(len(o) for o in self.ords)

    def __iter__(self) -> Iterator[tuple[str, int, int]]:
        for term, ords, tfs in zip(self.terms, self.ords, self.tfs, strict=True):
            for o, tf in zip(ords.tolist(), tfs.tolist(), strict=True):
                yield term, o, tf

    def keep(self, masks: Sequence[np.ndarray]) -> Postings:
        out = Postings()
        for term, ords, tfs, m in zip(self.terms, self.ords, self.tfs, masks, strict=True):
            if m.any():
                out.terms.append(term)
                out.ords.append(ords[m])
                out.tfs.append(tfs[m])
        return out


def read(conn: sqlite3.Connection, gen_id: str, terms_json: str) -> Postings:
    """The postings of the terms (a JSON list) in a generation's postings table."""
    out = Postings()
    for term, ords, tfs in conn.execute(POST_OF_TERMS(gen_id), (terms_json,)):
        out.terms.append(term)
        out.ords.append(np.frombuffer(ords, dtype=DTYPE).astype(np.int64))
        out.tfs.append(np.frombuffer(tfs, dtype=DTYPE).astype(np.int64))
    return out


def purge(conn: sqlite3.Connection, gen_id: str, bodies: Iterable[tuple[int, str]]) -> None:
    """Remove the rows `ords` (with their bodies) from the postings of their terms; a term
    left without postings is deleted."""
    gone: dict[str, list[int]] = {}
    for ord_, body in bodies:
        for tok in set(body.split()):
            gone.setdefault(tok, []).append(int(ord_))
    if not gone:
        return
    current = {t: (o, f) for t, o, f in conn.execute(POST_OF_TERMS(gen_id), (json.dumps(sorted(gone)),))}
    for term, ords_gone in gone.items():
        if term not in current:
            continue
        ords = np.frombuffer(current[term][0], dtype=DTYPE)
        tfs = np.frombuffer(current[term][1], dtype=DTYPE)
        keep = ~np.isin(ords, np.array(ords_gone, dtype=np.int64))
        if keep.any():
            conn.execute(POST_UPSERT(gen_id), (term, ords[keep].astype(DTYPE).tobytes(),
                                               tfs[keep].astype(DTYPE).tobytes()))
        else:
            conn.execute(POST_DELETE(gen_id), (term,))
