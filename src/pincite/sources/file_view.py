"""A file read on demand as if it were bytes: what inspection needs of a large input
without holding it whole.

`FileView(fd, size)` is the first `size` bytes of an open file. It offers what
`parse.containers.ByteView` names — `len`, slices (step 1), `find`, `rfind`, `startswith`
and `in` — each reading with `pread` (the file offset is never moved, so the descriptor
can be shared with the parser worker) at most one chunk at a time, plus the needle's
length as overlap. One block is cached, so small reads near each other (a ZIP directory,
record by record) cost one system call per block. A read that comes back short (the file
shrank under it) raises `InputChanged`.
"""

from __future__ import annotations

import os

from ..errors import InputChanged

_BLOCK = 64 * 1024
_CHUNK = 1 << 20


class FileView:
    """The first `size` bytes of the open file `fd`, read as they are asked for."""

    def __init__(self, fd: int, size: int, *, name: str = "the file",
                 chunk: int = _CHUNK) -> None:
        self.fd = fd
        self.size = size
        self.name = name
        self.chunk = chunk
        self._at = 0
        self._block = b""

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, key: slice) -> bytes:
        if not isinstance(key, slice):
            raise TypeError("a FileView is read by slices, not by index")
        start, stop, step = key.indices(self.size)
        if step != 1:
            raise ValueError("a FileView slice has no step")
        if stop <= start:
            return b""
        n = stop - start
        if n > _BLOCK:
            return self._pread(start, n)
        if not (self._at <= start and stop <= self._at + len(self._block)):
            self._at = start
            self._block = self._pread(start, min(max(n, _BLOCK), self.size - start))
        return self._block[start - self._at:stop - self._at]

    def _pread(self, pos: int, n: int) -> bytes:
        """Return `n` bytes at `pos`; raise InputChanged when the file ends before them."""
        data = os.pread(self.fd, n, pos)
        if len(data) < n:
            parts = [data]
            got = len(data)
            while got < n:
                more = os.pread(self.fd, n - got, pos + got)
                if not more:
                    raise InputChanged(self.name, "it became shorter while it was read")
                parts.append(more)
                got += len(more)
            data = b"".join(parts)
        return data

    def _bounds(self, start: int, end: int | None) -> tuple[int, int]:
        lo, hi, _ = slice(start, end).indices(self.size)
        return lo, hi

    def find(self, sub: bytes, start: int = 0, end: int | None = None, /) -> int:
        """Return the lowest offset of `sub` in `[start, end)`, or -1 (as `bytes.find`)."""
        lo, hi = self._bounds(start, end)
        _needle(sub)
        pos = lo
        while pos < hi:
            window = self[pos:min(hi, pos + self.chunk + len(sub) - 1)]
            i = window.find(sub)
            if i >= 0:
                return pos + i
            pos += self.chunk
        return -1

    def rfind(self, sub: bytes, start: int = 0, end: int | None = None, /) -> int:
        """Return the highest offset of `sub` in `[start, end)`, or -1 (as `bytes.rfind`)."""
        lo, hi = self._bounds(start, end)
        _needle(sub)
        while hi - lo >= len(sub):
            at = max(lo, hi - self.chunk - len(sub) + 1)
            i = self[at:hi].rfind(sub)
            if i >= 0:
                return at + i
            if at == lo:
                break
            hi = at + len(sub) - 1
        return -1

    def startswith(self, prefix: bytes, /) -> bool:
        """Return True when the file begins with `prefix`."""
        return self[:len(prefix)] == prefix

    def __contains__(self, sub: bytes, /) -> bool:
        return self.find(sub) >= 0


def _needle(sub: bytes) -> None:
    if not sub:
        raise ValueError("a FileView search needs a non-empty needle")
