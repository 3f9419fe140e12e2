"""A store's files are its user's alone: every folder is made 0700 and every file 0600,
whatever the process umask, as `keys.json` beside them is.

The SQLite databases (`pincite.db`, `embeddings.sqlite`, the durable runs' `runs.sqlite`)
are made empty at 0600 before SQLite opens them, so their `-wal` and `-shm` files, which
SQLite makes with the database's mode, are 0600 too. Blobs, generation files (vectors,
rows, HNSW graphs) are written through `open_private`, or made private after a library
wrote them (`make_private`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import BinaryIO

FILE_MODE = 0o600
DIR_MODE = 0o700


def private_dir(path: Path) -> Path:
    """Make `path` and each missing folder above it with mode 0700; return `path`."""
    path = Path(path)
    missing = []
    p = path
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=DIR_MODE)
        except FileExistsError:
            continue
        os.chmod(d, DIR_MODE)  # mkdir's mode passes through the umask
    return path


def private_file(path: Path) -> Path:
    """Make `path` an empty file with mode 0600 when it does not exist; return it."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    except FileExistsError:
        pass
    return Path(path)


def open_private(path: Path) -> BinaryIO:
    """Return `path` opened for writing bytes, truncated, made with mode 0600."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
    os.fchmod(fd, FILE_MODE)  # an existing file keeps its mode through O_CREAT
    return os.fdopen(fd, "wb")


def make_private(path: Path) -> None:
    """Set mode 0600 on a file a library wrote (an HNSW graph)."""
    os.chmod(path, FILE_MODE)


def private_sqlite(url: str) -> None:
    """Make the database file of a `sqlite:///PATH` URL (the durable runs' `runs.sqlite`)
    0600, empty when new, before a library opens it; any other URL is left alone."""
    if url.startswith("sqlite:///"):
        path = Path(url[len("sqlite:///"):].split("?", 1)[0])
        private_dir(path.parent)
        private_file(path)
        os.chmod(path, FILE_MODE)
