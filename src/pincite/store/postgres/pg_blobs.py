"""Blobs in the database: original bytes by tenant and sha256, never overwritten.

The same interface as the file `BlobStore`, so the stages cannot tell them apart; one
table (`blobs`) with an `area` per kind (accepted files, refused files), so every worker
on every machine reads the bytes it needs from the database alone.
"""

from __future__ import annotations

import hashlib
import os
import struct
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import PurePosixPath
from typing import Any

from ... import faults
from ...errors import StoreError
from ..blobs import copy_checked

_COPY_HEAD = b"PGCOPY\n\xff\r\n\x00" + struct.pack("!ii", 0, 0)  # signature, flags, extension
_COPY_TAIL = struct.pack("!h", -1)
# open_fd reads 4 chunks of 256 KiB per round trip, in binary: the process grows by about
# 4 MiB for any blob (psycopg and libpq hold a few copies of each batch); text results
# (hex) or 1 MiB chunks took 4-6 times that
_OUT_CHUNK = 256 * 1024
_FETCH = 4

SQL_PUT = ("INSERT INTO blobs (tenant, area, sha256, data) VALUES (%s, %s, %s, %s) "
           "ON CONFLICT (tenant, area, sha256) DO NOTHING")
# put_file: the bytes arrive by COPY into a table of this transaction (COPY FROM does not
# run on a table with row-level security, which `blobs` has), then move in one statement.
SQL_TEMP = "CREATE TEMPORARY TABLE pincite_blob_in (data BYTEA NOT NULL) ON COMMIT DROP"
SQL_COPY = "COPY pincite_blob_in (data) FROM STDIN (FORMAT BINARY)"
SQL_PUT_COPIED = ("INSERT INTO blobs (tenant, area, sha256, data) SELECT %s, %s, %s, data "
                  "FROM pincite_blob_in ON CONFLICT (tenant, area, sha256) DO NOTHING")
SQL_DROP = "DROP TABLE pincite_blob_in"
SQL_GET = "SELECT data FROM blobs WHERE tenant=%s AND area=%s AND sha256=%s"
SQL_LENGTH = "SELECT length(data) FROM blobs WHERE tenant=%s AND area=%s AND sha256=%s"
# open_fd: the value is read out of TOAST once (`|| ''`, kept in the subquery by OFFSET 0),
# then cut into chunks in the server and fetched a few at a time through a server-side
# cursor; each row says where its chunk goes, so their order does not matter. (One
# `substring` query per chunk would decompress a compressed value from its start again
# for every chunk: 5.0 s instead of 0.2 s for a 48 MB blob that pglz compressed.)
SQL_CHUNKS = ("SELECT g.pos - 1, substring(b.data FROM g.pos FOR %(n)s) FROM "
              "(SELECT data || ''::bytea AS data FROM blobs "
              "WHERE tenant=%(t)s AND area=%(a)s AND sha256=%(s)s OFFSET 0) b "
              "CROSS JOIN LATERAL generate_series(1, length(b.data), %(n)s) AS g(pos)")
SQL_DIGEST = ("SELECT encode(sha256(data), 'hex') FROM blobs "
              "WHERE tenant=%s AND area=%s AND sha256=%s")
SQL_EXISTS = "SELECT 1 FROM blobs WHERE tenant=%s AND area=%s AND sha256=%s"
SQL_DELETE = "DELETE FROM blobs WHERE tenant=%s AND area=%s AND sha256=%s"
SQL_WALK = "SELECT tenant, sha256 FROM blobs WHERE area=%s ORDER BY tenant, sha256"


class PgBlobStore:
    """Original bytes by tenant and sha256, in the `blobs` table's `area`."""

    def __init__(self, tx: Callable[[str], AbstractContextManager[Any]], area: str) -> None:
        self._tx = tx
        self.area = area

    def path(self, tenant: str, sha256: str) -> PurePosixPath:
        """Return the blob's name (`<area>/<tenant>/<sha256>`; no file exists there)."""
        return PurePosixPath(self.area, tenant, sha256)

    def put(self, tenant: str, data: bytes, sha256: str | None = None) -> str:
        """Store `data` and return its sha256 (a no-op if already stored)."""
        digest = sha256 or hashlib.sha256(data).hexdigest()
        faults.hit("blob.write")
        with self._tx(tenant) as c:
            c.execute(SQL_PUT, (tenant, self.area, digest, data))
            # The file store's later points, at the same stage here: before the bytes are
            # durable (the commit), so a crash at either leaves no blob.
            faults.hit("blob.fsync")
            faults.hit("blob.rename")
        return digest

    def put_file(self, tenant: str, fd: int, size: int, sha256: str) -> str:
        """Store the first `size` bytes of the open file `fd` and return `sha256` (a no-op if
        already stored); raise InputChanged, storing nothing, when the bytes copied do not
        hash to `sha256`. The bytes stream to the server 1 MiB at a time (binary COPY into
        a temporary table, then one INSERT … SELECT), so this process never holds the file
        whole; the server builds the one `bytea` value as it would for `put`."""
        if self.exists(tenant, sha256):
            return sha256
        faults.hit("blob.write")
        with self._tx(tenant) as c:
            c.execute(SQL_TEMP)
            with c.cursor() as cur, cur.copy(SQL_COPY) as copy:
                copy.write(_COPY_HEAD + struct.pack("!hi", 1, size))
                copy_checked(fd, size, sha256, copy.write)
                copy.write(_COPY_TAIL)
            c.execute(SQL_PUT_COPIED, (tenant, self.area, sha256))
            c.execute(SQL_DROP)  # now, not at commit: an enclosing transaction may put again
            faults.hit("blob.fsync")
            faults.hit("blob.rename")
        return sha256

    def get(self, tenant: str, sha256: str) -> bytes:
        """Return the bytes of a blob (FileNotFoundError when missing)."""
        with self._tx(tenant) as c:
            row = c.execute(SQL_GET, (tenant, self.area, sha256)).fetchone()
        if row is None:
            raise FileNotFoundError(str(self.path(tenant, sha256)))
        return bytes(row[0])

    def open_fd(self, tenant: str, sha256: str) -> int:
        """Return a descriptor open for reading on a private copy of the blob's bytes
        (FileNotFoundError when missing); the caller closes it. There is no file to open:
        the bytes come from the server a few chunks per round trip (binary, through a
        server-side cursor) into an unlinked temporary file (in `$TMPDIR`, mode 0600), so
        this process never holds the blob whole; the file takes the blob's size on disk
        until the descriptor is closed."""
        fd, name = tempfile.mkstemp(prefix="pincite-blob-")
        os.unlink(name)
        try:
            with self._tx(tenant) as c:
                row = c.execute(SQL_LENGTH, (tenant, self.area, sha256)).fetchone()
                if row is None:
                    raise FileNotFoundError(str(self.path(tenant, sha256)))
                size, got = int(row[0]), 0
                with c.cursor(name="pincite_blob_out", binary=True) as cur:
                    cur.execute(SQL_CHUNKS, {"n": _OUT_CHUNK, "t": tenant, "a": self.area,
                                             "s": sha256})
                    while rows := cur.fetchmany(_FETCH):
                        for pos, chunk in rows:
                            _pwrite_all(fd, chunk, int(pos))
                            got += len(chunk)
            if got != size:
                raise StoreError(f"the blob {sha256} of tenant {tenant!r} read back as {got} "
                                 f"of its {size} bytes; run `pincite fsck`")
        except BaseException:
            os.close(fd)
            raise
        return fd

    def digest(self, tenant: str, sha256: str) -> str:
        """Return the sha256 of a stored blob's bytes, computed by the server (no bytes
        sent here; FileNotFoundError when missing): whether it is still intact."""
        with self._tx(tenant) as c:
            row = c.execute(SQL_DIGEST, (tenant, self.area, sha256)).fetchone()
        if row is None:
            raise FileNotFoundError(str(self.path(tenant, sha256)))
        return str(row[0])

    def exists(self, tenant: str, sha256: str) -> bool:
        """Return True when the blob is stored."""
        with self._tx(tenant) as c:
            return c.execute(SQL_EXISTS, (tenant, self.area, sha256)).fetchone() is not None

    def delete(self, tenant: str, sha256: str) -> bool:
        """Remove a blob; return True when one was removed."""
        with self._tx(tenant) as c:
            return bool(c.execute(SQL_DELETE, (tenant, self.area, sha256)).rowcount)

    def walk(self) -> Iterator[tuple[str, str, PurePosixPath]]:
        """Yield (tenant, sha256, name) for every stored blob of this area."""
        with self._tx("*") as c:
            rows = c.execute(SQL_WALK, (self.area,)).fetchall()
        for tenant, sha in rows:
            yield tenant, sha, self.path(tenant, sha)


def _pwrite_all(fd: int, data: bytes, pos: int) -> None:
    """Write all of `data` at offset `pos` of `fd`."""
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, pos)
        view, pos = view[n:], pos + n
