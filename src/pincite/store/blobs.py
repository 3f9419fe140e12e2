"""Content-addressed blob files: `blobs/<tenant>/sha256/<aa>/<sha256>`, never overwritten.

A tenant name outside ASCII is written `_x<hex of its UTF-8>` (a valid name never starts
with `_`), so the tree stays ASCII: file systems that normalize names (HFS+ stores them
decomposed) would otherwise hand back a directory name that matches no tenant.

A blob is written to a temporary file in the same directory, fsynced, renamed into
place and the directory fsynced, so a crash leaves either no blob or a whole one (a
stray temporary file, which `fsck` reclaims).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from .. import faults
from ..errors import InputChanged
from .private import open_private, private_dir

TMP_MARK = ".tmp-"
_CHUNK = 1 << 20


class BlobStore:
    """Original bytes by tenant and sha256."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, tenant: str, sha256: str) -> Path:
        """Return where the blob of `sha256` in `tenant` lives."""
        return self.root / tenant_dir(tenant) / "sha256" / sha256[:2] / sha256

    def put(self, tenant: str, data: bytes, sha256: str | None = None) -> str:
        """Store `data` durably and return its sha256 (a no-op if already stored)."""
        digest = sha256 or hashlib.sha256(data).hexdigest()
        final = self.path(tenant, digest)
        if final.exists() and final.stat().st_size == len(data):
            return digest
        _write_durably(final, digest, lambda fh: fh.write(data))
        return digest

    def put_file(self, tenant: str, fd: int, size: int, sha256: str) -> str:
        """Store the first `size` bytes of the open file `fd` durably, copied in chunks (never
        held whole), and return `sha256` (a no-op if already stored); raise InputChanged,
        storing nothing, when the bytes copied do not hash to `sha256`."""
        final = self.path(tenant, sha256)
        if final.exists() and final.stat().st_size == size:
            return sha256
        _write_durably(final, sha256, lambda fh: copy_checked(fd, size, sha256, fh.write))
        return sha256

    def get(self, tenant: str, sha256: str) -> bytes:
        """Return the bytes of a blob (FileNotFoundError when missing)."""
        return self.path(tenant, sha256).read_bytes()

    def open_fd(self, tenant: str, sha256: str) -> int:
        """Return a descriptor open for reading on the blob's file (FileNotFoundError when
        missing); the caller closes it. A blob is never rewritten in place, so what the
        descriptor reads stays the bytes named `sha256`."""
        flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
        return os.open(self.path(tenant, sha256), flags)

    def digest(self, tenant: str, sha256: str) -> str:
        """Return the sha256 of a stored blob's bytes, read in chunks (FileNotFoundError
        when missing): whether it is still intact, without holding it whole."""
        return sha256_file(self.path(tenant, sha256))

    def exists(self, tenant: str, sha256: str) -> bool:
        """Return True when the blob file exists."""
        return self.path(tenant, sha256).is_file()

    def delete(self, tenant: str, sha256: str) -> bool:
        """Remove a blob file; return True when one was removed."""
        p = self.path(tenant, sha256)
        try:
            p.unlink()
        except FileNotFoundError:
            return False
        fsync_dir(p.parent)
        return True

    def walk(self) -> Iterator[tuple[str, str, Path]]:
        """Yield (tenant, name, path) for every file under the blob root, temp files included."""
        if not self.root.exists():
            return
        for tdir in sorted(self.root.iterdir()):
            base = tdir / "sha256"
            if not base.is_dir():
                continue
            for sub in sorted(base.iterdir()):
                if sub.is_dir():
                    for f in sorted(sub.iterdir()):
                        yield dir_tenant(tdir.name), f.name, f


def open_blob(blobs: BlobStore | Any, tenant: str, sha256: str) -> BinaryIO:
    """Return a binary file open for reading on a stored blob (either backend's blob store:
    PostgreSQL streams it into a private temporary file first), for readers that seek
    instead of holding the bytes whole; the caller closes it."""
    return os.fdopen(blobs.open_fd(tenant, sha256), "rb")


def tenant_dir(tenant: str) -> str:
    """Return the directory name of a tenant's blobs."""
    return tenant if tenant.isascii() else "_x" + tenant.encode("utf-8").hex()


def dir_tenant(name: str) -> str:
    """Return the tenant whose blobs a directory holds (the name itself when not encoded)."""
    if name.startswith("_x"):
        try:
            return bytes.fromhex(name[2:]).decode("utf-8")
        except ValueError:
            return name
    return name


def sha256_file(path: Path) -> str:
    """Return the sha256 of a file's bytes, read in chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def copy_checked(fd: int, size: int, sha256: str, write: Callable[[bytes], object]) -> None:
    """Pass the first `size` bytes of the open file `fd` to `write`, 1 MiB at a time (read
    with `pread`); raise InputChanged when the file ends first or the bytes do not hash to
    `sha256` (it changed since it was hashed)."""
    h = hashlib.sha256()
    pos = 0
    while pos < size:
        chunk = os.pread(fd, min(_CHUNK, size - pos), pos)
        if not chunk:
            raise InputChanged("the file", "it became shorter while it was stored")
        h.update(chunk)
        write(chunk)
        pos += len(chunk)
    if h.hexdigest() != sha256:
        raise InputChanged("the file", "its bytes no longer hash to the sha256 taken first")


def fsync_dir(path: Path) -> None:
    """Flush a directory's entries to disk (after a rename into it)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durably(final: Path, digest: str, write: Callable[[BinaryIO], object]) -> None:
    """Write a blob's bytes with `write` to a temporary file beside `final`, fsync it, rename
    it into place and fsync the directory; an `InputChanged` from `write` leaves no file."""
    private_dir(final.parent)
    tmp = final.parent / f"{TMP_MARK}{digest}.{os.getpid()}"
    faults.hit("blob.write")
    with open_private(tmp) as fh:
        try:
            write(fh)
        except InputChanged:
            fh.close()
            tmp.unlink(missing_ok=True)
            raise
        fh.flush()
        faults.hit("blob.fsync")
        os.fsync(fh.fileno())
    faults.hit("blob.rename")
    os.replace(tmp, final)
    fsync_dir(final.parent)
