"""An input's bytes, held whole or left in a file: what ingest, the durable ingest run and
`reparse` share, so that a large file is handled one way wherever it is read.

A body under `stream_from` bytes is held as `bytes` (`InMemory`); a larger one stays in an
open file (`OnDisk`): inspected through a `FileView`, parsed by the sandbox worker from
the descriptor it is lent, and copied into a blob store in chunks. `read_body` makes the
body of a file opened by `open_bounded`; `stored_body` the body of a blob already stored
(the blob store's own file, or a private temporary copy streamed out of the database);
`parse_body` parses either.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..limits import Limits
from ..model import TextLayer
from ..model.progress_report import Report
from ..parse.containers import ByteView
from ..store.blobs import BlobStore
from .acquire import SourceFile
from .sandbox import ParserSandbox, parse_untrusted


class InMemory:
    """An input held as bytes (a file under the streaming threshold, or bytes given)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.size = len(data)
        self.sha256 = hashlib.sha256(data).hexdigest()
        self.view: ByteView = data

    def bytes(self) -> bytes:
        """Return the input's bytes."""
        return self.data

    def check(self) -> None:
        """Bytes in memory cannot change: nothing to check."""

    def store(self, blobs: BlobStore, tenant: str) -> None:
        """Put the bytes into `blobs`."""
        blobs.put(tenant, self.data, self.sha256)


class OnDisk:
    """An input left on disk: the first `size` bytes of an open file, which hash to `sha256`."""

    def __init__(self, file: SourceFile, sha256: str, size: int) -> None:
        self.file = file
        self.size = size
        self.sha256 = sha256
        self.view: ByteView = file.view(size)

    def bytes(self) -> bytes:
        """Return the input's bytes, read whole (only for an in-process parse)."""
        return self.view[0:self.size]

    def check(self) -> None:
        """Raise InputChanged when the file was written to since it was opened."""
        self.file.check_unchanged(self.size)

    def store(self, blobs: BlobStore, tenant: str) -> None:
        """Copy the file into `blobs` in chunks (InputChanged if it no longer hashes)."""
        blobs.put_file(tenant, self.file.fd, self.size, self.sha256)


Body = InMemory | OnDisk


def read_body(opened: SourceFile, stream_from: int) -> Body:
    """Return the body of a file opened by `open_bounded`: read whole when it is under
    `stream_from` bytes, else hashed in chunks and left on disk (ParseFailure `over_limit`
    when it grows past the limit while read)."""
    if opened.size < stream_from:
        return InMemory(opened.read_all())
    return OnDisk(opened, *opened.digest())


@contextmanager
def stored_body(blobs: BlobStore, tenant: str, sha256: str, size: int, *, name: str,
                stream_from: int) -> Iterator[Body]:
    """Yield the body of the stored blob `sha256` of `size` bytes (FileNotFoundError when
    missing): its bytes when `size` is under `stream_from`, else the blob opened as a file
    (`BlobStore.open_fd`), closed when the block ends. `name` names it in errors."""
    if size < stream_from:
        yield InMemory(blobs.get(tenant, sha256))
        return
    fd = blobs.open_fd(tenant, sha256)
    st = os.fstat(fd)  # the blob as stored: its own size, whatever `size` was recorded
    with SourceFile(Path(name), fd, st, st.st_size) as file:
        yield OnDisk(file, sha256, st.st_size)


def parse_body(kind: str, body: Body, password: str | None, *, limits: Limits,
               sandbox: ParserSandbox | None, report: Report | None = None) -> TextLayer:
    """Return the text layer of `body` read as `kind` (ParseFailure otherwise): in the
    sandbox worker, lent the file's descriptor when the body is on disk; without a
    sandbox, in this process from the bytes (read whole). Pages go to `report`."""
    if sandbox is None:
        return parse_untrusted(kind, body.bytes(), password=password, limits=limits,
                               sandbox=False, report=report)
    if isinstance(body, OnDisk):
        return sandbox.parse_file(kind, body.file.fd, body.size, password=password,
                                  report=report)
    return sandbox.parse(kind, body.bytes(), password, report)
