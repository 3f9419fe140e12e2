"""Acquiring bytes from the file system: walking the inputs, refusing links, reading a file
within the size limit.

Links are refused unless the caller asks to follow them, and then only links whose target
stays inside the directory given (for a link named as an argument: the folder it is in).
A refused link is never opened; it becomes an `Input` with a reason, which ingest records
in quarantine. A file is opened without following a link in its last component, checked
from `fstat` before any byte is read, and read at most `max_bytes + 1` bytes, so a file over
the limit (or one that grows past it while read) is never wholly in memory.

`open_bounded` makes those checks and returns the open `SourceFile`: a small file is read
whole from it (`read_all`, what `read_bounded` returns); a large one is streamed
(`digest`, `view`), never held whole, and `check_unchanged` tells whether anything wrote
to it while it was read.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputChanged, ParseFailure, UsageError
from ..vocab import QuarantineReason
from .file_view import FileView

_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class Input:
    """One file found among the inputs: where it was found, its default source id, and
    either the file to open (`read_from`) or why it is refused (`reason`, `detail`)."""

    path: Path
    source_id: str
    read_from: Path | None
    reason: str | None = None
    detail: str | None = None

    def __post_init__(self) -> None:
        # file systems may hand names back decomposed (macOS): ids are NFC (`model.check_name`)
        object.__setattr__(self, "source_id", unicodedata.normalize("NFC", self.source_id))


def walk_inputs(paths: Sequence[str | Path], *, follow_links: bool = False) -> Iterator[Input]:
    """Yield one `Input` per file of `paths`; directories are walked in name order.

    The source id is the file's path relative to the directory given, or its name. Hidden
    files and the paths matched by the glob patterns of a `.pinciteignore` file in the
    directory given (one per line, `#` comments) are skipped. A symbolic link is refused
    (reason `symlink`) unless `follow_links`, and then still refused when its target lies
    outside the directory given. A directory given by name is walked even when the name
    is a link: the caller chose it.
    """
    for p in paths:
        path = Path(p)
        if path.is_symlink() and not path.is_dir():
            yield _link(path, path.name, Path(os.path.realpath(path.parent)), follow_links)
        elif path.is_dir():
            yield from _walk(path, follow_links)
        elif path.is_file():
            yield Input(path, path.name, path)
        else:
            raise UsageError(f"{path} does not exist")


def _walk(root: Path, follow_links: bool) -> Iterator[Input]:
    ignore = _ignore_patterns(root)
    real_root = Path(os.path.realpath(root))
    found: list[Input] = []
    seen = {real_root}
    pending = [root]
    while pending:
        d = pending.pop()
        for entry in os.scandir(d):
            path = Path(entry.path)
            rel = path.relative_to(root)
            if any(part.startswith(".") for part in rel.parts) or _ignored(rel, ignore):
                continue
            if entry.is_symlink():
                item = _link(path, rel.as_posix(), real_root, follow_links)
                if item.read_from is not None and item.read_from.is_dir():
                    if item.read_from not in seen:
                        seen.add(item.read_from)
                        pending.append(path)
                    continue
                found.append(item)
            elif entry.is_dir(follow_symlinks=False):
                pending.append(path)
            elif entry.is_file(follow_symlinks=False):
                found.append(Input(path, rel.as_posix(), path))
    yield from sorted(found, key=lambda i: i.path)


def _link(path: Path, source_id: str, root: Path, follow_links: bool) -> Input:
    """Return the `Input` of the link `path`: its checked target, or a refusal."""
    if not follow_links:
        return Input(path, source_id, None, QuarantineReason.SYMLINK.value,
                     f"{source_id} is a symbolic link and links are not followed; give the "
                     "file itself, or --follow-links to follow links that stay inside the folder given")
    target = Path(os.path.realpath(path))
    if not target.is_relative_to(root):
        return Input(path, source_id, None, QuarantineReason.SYMLINK.value,
                     f"{source_id} is a symbolic link to a path outside {root}; it is not followed")
    if not target.exists():
        return Input(path, source_id, None, QuarantineReason.SYMLINK.value,
                     f"{source_id} is a symbolic link to nothing")
    return Input(path, source_id, target)


def _ignored(rel: Path, patterns: list[str]) -> bool:
    return any(rel.match(pat) or rel.as_posix().startswith(pat.rstrip("/") + "/")
               for pat in patterns)


def _ignore_patterns(root: Path) -> list[str]:
    """Return the glob patterns of `root/.pinciteignore` (none when there is no file)."""
    try:
        lines = (root / ".pinciteignore").read_text("utf-8").splitlines()
    except OSError:
        return []
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


def read_bounded(path: Path, max_bytes: int) -> bytes:
    """Return the bytes of the regular file `path`; raise ParseFailure `symlink` when its
    last component is a link, `unsupported_type` when it is not a regular file, and
    `over_limit` when `fstat` says it is over `max_bytes` or more than `max_bytes` bytes
    can be read from it (a file that grows while read, or one whose size `stat` does not
    tell). At most `max_bytes + 1` bytes are read."""
    with open_bounded(path, max_bytes) as f:
        return f.read_all()


def open_bounded(path: Path, max_bytes: int, *, links_in_path: bool = True) -> SourceFile:
    """Return the regular file `path` opened for reading (no byte read yet); raise
    ParseFailure as `read_bounded` does before it reads: `symlink`, `unsupported_type`, or
    `over_limit` when `fstat` says it is over `max_bytes`.

    The last component is never followed if it is a link. With `links_in_path=False` no
    component is (the path must be absolute and resolved): each folder is opened from the
    one before it with O_NOFOLLOW, so a folder swapped for a link after the path was
    resolved (an async ingest's file, read later by a worker) is `symlink`, not followed."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags) if links_in_path else _open_without_links(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseFailure(QuarantineReason.SYMLINK, f"{path.name} (or a folder of its path) became a symbolic link "
                               "before it was read; it is not followed") from None
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ParseFailure(QuarantineReason.UNSUPPORTED_TYPE,
                               f"{path.name} is not a regular file")
        if st.st_size > max_bytes:
            raise ParseFailure(QuarantineReason.OVER_LIMIT, f"the file is {st.st_size} bytes, "
                               f"over the {max_bytes}-byte limit")
    except BaseException:
        os.close(fd)
        raise
    return SourceFile(path, fd, st, max_bytes)


def _open_without_links(path: Path, flags: int) -> int:
    """Return a descriptor of `path` opened with `flags`, no component of it followed if it
    is a symbolic link (ELOOP / ENOTDIR otherwise, as `os.open` raises them)."""
    if not path.is_absolute():
        raise UsageError(f"cannot read {path}: a resolved absolute path is needed")
    walk = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    parent = os.open("/", walk)
    try:
        for part in path.parts[1:-1]:
            try:
                nxt = os.open(part, walk, dir_fd=parent)
            except OSError as exc:  # a link where a folder was: ELOOP or ENOTDIR
                if exc.errno == errno.ENOTDIR and stat.S_ISLNK(
                        os.stat(part, dir_fd=parent, follow_symlinks=False).st_mode):
                    raise OSError(errno.ELOOP, "a folder of the path is a symbolic link") from None
                raise
            os.close(parent)
            parent = nxt
        return os.open(path.name, flags, dir_fd=parent)
    finally:
        os.close(parent)


class SourceFile:
    """A regular file opened by `open_bounded`: its descriptor, and the `fstat` taken when it
    was opened (its `size` was checked against the limit before any byte was read).

    Either read it whole (`read_all`, the small-file path) or stream it: `digest` hashes it
    in chunks, `view` reads it on demand for inspection, and `check_unchanged` says whether
    it was written to since it was opened. Every read is a `pread`, so the descriptor can be
    lent to the parser worker. Close it, or use it as a context manager.
    """

    def __init__(self, path: Path, fd: int, st: os.stat_result, max_bytes: int) -> None:
        self.path = path
        self.fd = fd
        self.size = st.st_size
        self.max_bytes = max_bytes
        self._stamp = _stamp(st)

    def __enter__(self) -> SourceFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the descriptor (again: nothing)."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def read_all(self) -> bytes:
        """Return every byte of the file, at most `max_bytes + 1` read; raise ParseFailure
        `over_limit` when more than `max_bytes` can be read (it grew while read)."""
        with open(self.fd, "rb", closefd=False) as f:
            parts = [f.read(self.size + 1)]
            total = len(parts[0])
            while total <= self.max_bytes:
                chunk = f.read(min(_CHUNK, self.max_bytes + 1 - total))
                if not chunk:
                    break
                parts.append(chunk)
                total += len(chunk)
        if total > self.max_bytes:
            raise _grew(self.max_bytes)
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def digest(self) -> tuple[str, int]:
        """Return the sha256 of the file and its length, read in chunks to its end (at most
        `max_bytes + 1` bytes); raise ParseFailure `over_limit` as `read_all` does."""
        h = hashlib.sha256()
        n = 0
        while True:
            chunk = os.pread(self.fd, min(_CHUNK, self.max_bytes + 1 - n), n)
            if not chunk:
                return h.hexdigest(), n
            h.update(chunk)
            n += len(chunk)
            if n > self.max_bytes:
                raise _grew(self.max_bytes)

    def view(self, size: int) -> FileView:
        """Return the first `size` bytes of the file as a `FileView` (read on demand)."""
        return FileView(self.fd, size, name=self.path.name)

    def check_unchanged(self, size: int) -> None:
        """Raise InputChanged unless the file still is as `fstat` saw it when it was opened,
        `size` bytes long (nothing has written to, truncated or grown it)."""
        st = os.fstat(self.fd)
        if _stamp(st) != self._stamp or st.st_size != size:
            raise InputChanged(self.path.name, "it was written to while it was read")


def _stamp(st: os.stat_result) -> tuple[int, int, int]:
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _grew(max_bytes: int) -> ParseFailure:
    return ParseFailure(QuarantineReason.OVER_LIMIT, f"more than {max_bytes} bytes were read "
                        "from the file (it grew while read); it is over the limit")
