"""LIMITS: a file over the size limit is refused `over_limit` without being read.

Sparse files (made with `truncate`, so they cost no disk) just over the limit, at twice it
and at 2 GiB are ingested through the facade under a 1 MiB limit, and a 2 GiB one through
the CLI under its default limit; `/proc/self/maps` (which `stat` says is empty but which
reads past any small limit) stands for a file that grows while read. Each ingest is
measured: the bytes the process read (`rchar` of /proc/self/io, on Linux) and the peak of
Python allocations (`tracemalloc`) must both stay under the limit. A file exactly at the
limit (binary, so it is refused quickly for its type) must pass the size check, and
reading it must show in the measure (not vacuous).
"""

from __future__ import annotations

import os
import tracemalloc
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ...limits import Limits
from .harness import Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "LIMITS"
F_READ = "over-limit files read past the limit (bytes read, peak allocation)"
F_REFUSED = "over-limit files not refused as over_limit"
F_AT = "files at the limit past the size check, read and measured (not vacuous)"
MIB = 1024 * 1024
IO = Path("/proc/self/io")


def _rchar() -> int | None:
    """Bytes this process has read so far (Linux), or None where that is not known."""
    try:
        with IO.open(encoding="ascii") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith("rchar:"))
    except (OSError, StopIteration, ValueError):
        return None


def measured(fn: Callable[[], Any]) -> tuple[Any, int | None, int]:
    """Run `fn`; return its result, the bytes read meanwhile and the allocation peak."""
    tracemalloc.start()
    before = _rchar()
    try:
        out = fn()
        after = _rchar()
        _now, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return out, (after - before if before is not None and after is not None else None), peak


def _sparse(path: Path, size: int) -> Path:
    path.touch()
    os.truncate(path, size)
    return path


def run_limits(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
               seed: int) -> None:
    """Run the LIMITS group into `board`."""
    f = {n: board.figure(GROUP, n) for n in (F_READ, F_REFUSED, F_AT)}
    folder = ws.folder("limits")
    store = ws.path("limits-store")
    limit = Limits(max_bytes=MIB)
    with drivers.open_library(store, create=True) as lib:
        at = folder / "at-limit.bin"
        at.write_bytes(bytes(range(256)) * (MIB // 256))
        (r,), read, _peak = measured(lambda: lib.ingest([at], tenant="acme", acl=["*"],
                                                        limits=limit, publish=False))
        f[F_AT].attempt(r.reason != "over_limit" and (read is None or read >= MIB),
                        f"at the limit: {r.status} {r.reason}, {read} bytes read")
        cases = [_sparse(folder / "over-by-one.txt", MIB + 1),
                 _sparse(folder / "twice.txt", 2 * MIB), _sparse(folder / "two-gib.txt", 2 << 30)]
        if Path("/proc/self/maps").is_file():
            cases.append(Path("/proc/self/maps"))
        for path in cases:
            lim = Limits(max_bytes=64) if path.name == "maps" else limit
            (r,), read, peak = measured(partial(lib.ingest, [path], tenant="acme", acl=["*"],
                                                limits=lim, publish=False))
            f[F_REFUSED].attempt(r.status == "quarantined" and r.reason == "over_limit",
                                 f"{path.name}: {r.status} {r.reason}")
            cap = MIB  # the bound of the measure: the store's own pages are read too
            f[F_READ].attempt((read is None or read < cap) and peak < cap,
                              f"{path.name}: {read} bytes read, peak {peak} bytes")
    big = _sparse(folder / "cli-two-gib.txt", 2 << 30)
    default = Limits().max_bytes
    run, read, peak = measured(lambda: run_cli(drivers, store, "ingest", str(big), "--tenant",
                                               "acme", "--acl", "*", "--no-publish", "--json"))
    got = (run.json_lines() or [{}])[0]
    f[F_REFUSED].attempt(got.get("reason") == "over_limit",
                         f"cli 2 GiB: {got.get('status')} {got.get('reason')} {run.stderr[:120]}")
    f[F_READ].attempt((read is None or read < default) and peak < default,
                      f"cli 2 GiB: {read} bytes read, peak {peak} bytes")
    if _rchar() is None:
        board.note(GROUP, "bytes read are not measurable here (no /proc/self/io): "
                   "only the allocation peak was checked")
    board.note(GROUP, "sparse files up to 2 GiB: no disk used")
