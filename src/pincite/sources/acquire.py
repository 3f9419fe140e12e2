"""Acquiring bytes from the file system: walking the inputs, refusing links, reading a file
within the size limit.

Links are refused unless the caller asks to follow them, and then only links whose target
stays inside the directory given (for a link named as an argument: the folder it is in).
A refused link is never opened; it becomes an `Input` with a reason, which ingest records
in quarantine. A file is opened without following a link in its last component, checked
from `fstat` before any byte is read, and read at most `max_bytes + 1` bytes, so a file over
the limit (or one that grows past it while read) is never wholly in memory.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import ParseFailure, UsageError
from ..vocab import QuarantineReason

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
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise ParseFailure(QuarantineReason.SYMLINK, f"{path.name} became a symbolic link "
                               "before it was read; it is not followed") from None
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    with open(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ParseFailure(QuarantineReason.UNSUPPORTED_TYPE,
                               f"{path.name} is not a regular file")
        if st.st_size > max_bytes:
            raise ParseFailure(QuarantineReason.OVER_LIMIT, f"the file is {st.st_size} bytes, "
                               f"over the {max_bytes}-byte limit")
        parts = [f.read(st.st_size + 1)]
        total = len(parts[0])
        while total <= max_bytes:
            chunk = f.read(min(_CHUNK, max_bytes + 1 - total))
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
    if total > max_bytes:
        raise ParseFailure(QuarantineReason.OVER_LIMIT, f"more than {max_bytes} bytes were "
                           "read from the file (it grew while read); it is over the limit")
    return parts[0] if len(parts) == 1 else b"".join(parts)
