"""A generation's universe arrays on disk: `indexes/<gen>/rows.npz`.

Written at build time (temp → fsync → rename, digest in the manifest) so the first query
of a process does not read every chunk row from SQL; rewritten without purged rows by a
purge. Text is stored as UTF-8; a file that does not hash to its recorded digest is not
read (the caller falls back to SQL).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..blobs import fsync_dir, sha256_file
from ..private import open_private, private_dir
from .universe import GenerationArrays, assemble

ROWS_FILE = "rows.npz"


def _run_strings(ga: GenerationArrays) -> tuple[list[str], list[str], list[str]]:
    nruns = len(ga.run_start)
    run_tenant, run_source, run_rev = [""] * nruns, [""] * nruns, [""] * nruns
    for tenant, tr in ga.tenants.items():
        for j, si, rev in zip(tr.runs.tolist(), tr.run_src.tolist(), tr.run_rev, strict=True):
            run_tenant[j], run_source[j], run_rev[j] = tenant, str(tr.sources[si]), rev
    return run_tenant, run_source, run_rev


def _utf8(values: Sequence[str]) -> np.ndarray:
    return np.array([v.encode() for v in values], dtype=bytes) if len(values) else np.zeros(0, "S1")


def _text(values: np.ndarray) -> list[str]:
    return [v.decode() for v in values.tolist()]


def save_rows_file(path: Path, ga: GenerationArrays) -> str:
    """Write a generation's arrays durably (temp → fsync → rename); return the sha256.
    Built with the generation, so the first query of a process does not read every
    chunk row from SQL. Text is stored as UTF-8."""
    run_tenant, run_source, run_rev = _run_strings(ga)
    private_dir(path.parent)
    tmp = path.with_name(f".tmp-{path.name}.{os.getpid()}")
    with open_private(tmp) as fh:
        np.savez(fh, ords=ga.ords, ntok=ga.ntok, ids=ga.ids, kind=ga.kind, kinds=_utf8(ga.kinds),
                 lang=ga.lang, langs=_utf8(ga.langs), run_start=ga.run_start,
                 run_tenant=_utf8(run_tenant), run_source=_utf8(run_source), run_rev=_utf8(run_rev))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)
    return sha256_file(path)



def load_rows_file(path: Path, sha256: str) -> GenerationArrays | None:
    """The arrays saved by `save_rows_file`, or None when the file is missing or does not
    hash to `sha256` (the caller then reads SQL)."""
    try:
        if sha256_file(path) != sha256:
            return None
        with np.load(path, allow_pickle=False) as z:
            return assemble(z["ords"], z["ntok"], z["ids"], z["kind"], tuple(_text(z["kinds"])),
                            z["lang"], tuple(_text(z["langs"])), z["run_start"],
                            _text(z["run_tenant"]), _text(z["run_source"]), _text(z["run_rev"]))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # not ours: use SQL
        return None


def purge_rows_file(gen_dir: Path, manifest: dict[str, Any], ords: Sequence[int]) -> bool:
    """Rewrite a generation's rows file without rows `ords` and record its new digest in
    `manifest` (in place); a file that cannot be read is removed and its record dropped
    (readers then use SQL). Returns True when the manifest changed."""
    rec = manifest.get("universe")
    if not rec or not ords:
        return False
    path = gen_dir / ROWS_FILE
    if not path.is_file():
        return False
    ga = load_rows_file(path, rec.get("sha256", ""))
    if ga is None:
        path.unlink(missing_ok=True)
        manifest.pop("universe")
        return True
    keep = ~np.isin(ga.ords, np.asarray(list(ords), dtype=np.int64))
    run_of_row = np.repeat(np.arange(len(ga.run_start)), ga.run_len)[keep]
    first = np.flatnonzero(np.diff(run_of_row, prepend=-1) != 0)
    run_tenant, run_source, run_rev = _run_strings(ga)
    runs = run_of_row[first].tolist()
    kept = assemble(ga.ords[keep], ga.ntok[keep], ga.ids[keep], ga.kind[keep], ga.kinds,
                    ga.lang[keep], ga.langs, first.astype(np.int64),
                    [run_tenant[j] for j in runs], [run_source[j] for j in runs],
                    [run_rev[j] for j in runs])
    rec["sha256"] = save_rows_file(path, kept)
    return True
