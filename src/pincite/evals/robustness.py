"""Robustness sweep: ingest every file under some folders and count what happened.

Every file must end `new`/`unchanged`/`revised` (text recovered) or `quarantined` with a
reason from the closed set. An exception escaping ingest is a crash; a file taking longer
than the hang threshold is a hang. Both must be zero.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..limits import Limits
from ..vocab import IngestStatus


def run_robustness(dirs: list[Path], *, store_url: str | None = None,
                   hang_seconds: float = 15.0) -> dict[str, Any]:
    """Ingest every file under `dirs` (sandboxed) and return counts by status and reason."""
    from ..sources.ingest import Ingestor
    from ..store import open_store

    files = sorted({p for d in dirs for p in ([d] if d.is_file() else d.rglob("*")) if p.is_file()})
    limits = replace(Limits(), parse_seconds=hang_seconds)
    by_status: Counter[str] = Counter()
    by_reason: Counter[str] = Counter()
    by_flag: Counter[str] = Counter()
    crashes: list[dict[str, str]] = []
    slow: list[dict[str, Any]] = []
    quarantined: list[dict[str, str]] = []
    worst = 0.0
    with tempfile.TemporaryDirectory(prefix="pincite-sweep-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="sweep", acl=["*"], limits=limits) as ing:
                for i, path in enumerate(files):
                    t0 = time.perf_counter()
                    try:
                        r = ing.ingest(path.read_bytes(), source_id=f"{i:05d}/{path.name}",
                                       path=str(path), name=path.name)
                    except Exception as exc:  # noqa: BLE001 - a crash is what we count
                        crashes.append({"path": str(path), "error": f"{type(exc).__name__}: {exc}"})
                        continue
                    finally:
                        took = time.perf_counter() - t0
                        worst = max(worst, took)
                        if took > hang_seconds:
                            slow.append({"path": str(path), "seconds": round(took, 2)})
                    by_status[r.status] += 1
                    by_flag.update(r.flags)
                    if r.status == IngestStatus.QUARANTINED:
                        by_reason[r.reason or "?"] += 1
                        quarantined.append({"path": str(path), "reason": r.reason or "",
                                            "detail": (r.detail or "")[:160]})
        finally:
            store.close()
    return {
        "dataset": "robustness", "files": len(files), "by_status": dict(sorted(by_status.items())),
        "by_reason": dict(sorted(by_reason.items())), "by_flag": dict(sorted(by_flag.items())),
        "crashes": crashes, "hangs": slow, "max_seconds": round(worst, 2),
        "quarantined": quarantined,
    }
