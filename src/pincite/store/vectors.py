"""Vector files of index generations: `<store>/indexes/<gen_id>/vectors.f32`.

A file is `n x dimension` little-endian float32, row `ord` = the generation's chunk
`ord`. It is written to a temporary file, fsynced, renamed into place and the directory
fsynced, so a crash leaves no file or a whole one. Readers map it read-only; a purge
writes a new file with the purged rows zeroed (temp → fsync → rename again), so a
reader holding the old mapping keeps a consistent view until it reopens.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from .. import faults
from ..errors import VectorsUnavailable
from .blobs import fsync_dir
from .lru import FileCache
from .private import open_private, private_dir

VECTORS_FILE = "vectors.f32"
DTYPE = "<f4"


def generation_dir(root: Path, gen_id: str) -> Path:
    return root / "indexes" / gen_id


def vectors_path(root: Path, gen_id: str) -> Path:
    return generation_dir(root, gen_id) / VECTORS_FILE



def write_vectors(path: Path, vectors: np.ndarray) -> str:
    """Write `vectors` durably to `path`; return the sha256 of the file's bytes."""
    data = np.ascontiguousarray(vectors, dtype=DTYPE).tobytes()
    private_dir(path.parent)
    tmp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    faults.hit("gen.vectors_write")
    with open_private(tmp) as fh:
        fh.write(data)
        fh.flush()
        faults.hit("gen.vectors_fsync")
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
    _CACHE.forget(path)
    return hashlib.sha256(data).hexdigest()



def load_vectors(path: Path, n: int, dimension: int) -> np.ndarray:
    """Return the `(n, dimension)` float32 rows of a vector file, mapped read-only."""
    try:
        st = path.stat()
    except OSError:
        raise VectorsUnavailable(f"vector file {path.name} of {path.parent.name} is missing; "
                                 "rebuild the generation (pincite index build)") from None
    if st.st_size != n * dimension * 4:
        raise VectorsUnavailable(
            f"vector file of {path.parent.name} holds {st.st_size} bytes, expected "
            f"{n} x {dimension} float32; rebuild the generation (pincite index build)")
    return _CACHE.get(path, (st.st_mtime_ns, st.st_size, n, dimension),
                      lambda: _open_map(path, n, dimension))


def zero_rows(path: Path, ords: Sequence[int], n: int, dimension: int) -> str:
    """Rewrite a vector file with rows `ords` zeroed; return the new sha256."""
    arr = np.fromfile(path, dtype=DTYPE).reshape(n, dimension).copy()
    arr[list(ords)] = 0.0
    return write_vectors(path, arr)


def remove_generation_dir(root: Path, gen_id: str) -> None:
    from .ann import forget_generation

    d = generation_dir(root, gen_id)
    _CACHE.forget(d / VECTORS_FILE)
    forget_generation(d)
    shutil.rmtree(d, ignore_errors=True)


def _open_map(path: Path, n: int, d: int) -> np.ndarray:
    """Return an `n x d` read-only mapping of a vector file (an empty array for n = 0)."""
    if n == 0:
        return np.zeros((0, d), dtype=np.float32)
    return np.memmap(path, dtype=DTYPE, mode="r", shape=(n, d))


_CACHE = FileCache(4)  # a few open read-only mappings
