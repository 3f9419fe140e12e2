"""Review queue throughput on SQLite: claims/s and decisions/s with 1 and 8 workers.

Each worker is a process with its own connection, acting as its own reviewer; it claims
the next item (BEGIN IMMEDIATE + conditional UPDATE) and decides it (accept or reject,
updating the field record and writing the label) until the time is up. The store is a
WAL file with synchronous=FULL, as pincite runs it.

There is no peer library for review queues to run beside it (annotation tools such as
Label Studio or Prodigy keep their queues inside a server, not as a library to call); the
table puts the raw-SQL claim loop beside pincite's instead (the same pick and conditional
UPDATE, then the decision UPDATE, as bare statements: the floor under pincite's checks).

The queue is sized so it never drains inside the window (an earlier version queued 5,000
items, which 8 workers emptied in 10 s, so it printed 500 claims/s whatever the speed);
`left` is what stayed open, and a run that drained anyway is marked.

bench/scale.py runs the same loops on PostgreSQL beside SQLite.

Usage: python bench/review.py [--items 100000] [--seconds 10] [--workers 1 8]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def setup(root: Path, n: int) -> None:
    """Queue `n` items on one small real document (tenant t, group rev)."""
    import pincite
    from pincite.store.sqlite.records_store import QueueEntry

    lib = pincite.open(root)
    lib.ingest_bytes(b"# Doc\n\n1. Terms\n\n1.1 Payment within 30 days.\n", source_id="doc.md",
                     tenant="t", acl=["group:rev"], sandbox=False)
    rev = lib.store.latest_revision("t", "doc.md")
    assert rev is not None
    run = {"run_id": "run-bench", "case_id": "case-bench", "schema_name": "bench",
           "schema_digest": "0", "extractor": {"name": "bench", "version": "1.0"},
           "docs": [{"doc_id": rev.doc_id, "doc_sha256": rev.sha256}]}
    entries = []
    for i in range(n):
        cand = {"field": f"f{i:06d}", "type": "number", "value": i, "status": "present",
                "confidence": 0.5, "provenance": [], "outcome": "review", "reason": "low_confidence",
                "extractor": {"name": "bench", "version": "1.0", "run_id": "run-bench"}}
        entries.append(QueueEntry(case_id="case-bench", source_id="doc.md", revision_id=rev.revision_id,
                                  doc_sha256=rev.sha256, field=cand["field"], reason="low_confidence",
                                  candidate=cand, evidence=[], hard=i % 7 == 0,
                                  due_at=None if i % 3 else f"2026-0{1 + i % 9}-15",
                                  run_id="run-bench", extractor_version="1.0", confidence=0.5))
    lib.store.save_extraction("t", run, [], entries, "2026-03-01T00:00:00+00:00")
    lib.close()


def worker(root: str, name: str, start: float, until: float, out: mp.Queue) -> None:
    from pincite.model import Principal
    from pincite.review.queue import ReviewQueue
    from pincite.store import SQLiteStore

    store = SQLiteStore(Path(root))
    q = ReviewQueue(store, Principal.parse(f"t:{name}:rev"))
    while time.time() < start:
        time.sleep(0.001)
    claims = decisions = 0
    claim_s = decide_s = 0.0
    k = 0
    drained = False
    while time.time() < until:
        t0 = time.perf_counter()
        it = q.next(lease=60)
        t1 = time.perf_counter()
        if it is None:
            drained = True
            break
        claims += 1
        claim_s += t1 - t0
        q.decide(it["id"], "accept" if k % 4 else "reject")
        decide_s += time.perf_counter() - t1
        decisions += 1
        k += 1
    out.put((claims, decisions, claim_s, decide_s, drained))
    store.close()


def raw_worker(root: str, name: str, start: float, until: float, out: mp.Queue) -> None:
    from scale import _raw_loop  # bench/scale.py: the bare statements, same process model

    ids, claim_s, decide_s, drained = _raw_loop(root, name, start, until)
    out.put((len(ids), len(ids), claim_s, decide_s, drained))


def open_left(root: Path) -> int:
    from pincite.store import SQLiteStore

    store = SQLiteStore(root)
    try:
        return sum(1 for it in store.review_items("t") if it["state"] == "open")
    finally:
        store.close()


def measure(loop: str, workers: int, items: int, seconds: float) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as d:
        root = Path(d) / "store"
        setup(root, items)
        ctx = mp.get_context("spawn")
        out: mp.Queue = ctx.Queue()
        start = time.time() + 3.0 + 0.5 * workers  # let every process import first
        target = worker if loop == "pincite" else raw_worker
        procs = [ctx.Process(target=target, args=(str(root), f"w{i}", start, start + seconds, out))
                 for i in range(workers)]
        for p in procs:
            p.start()
        res = [out.get(timeout=seconds + 120) for _ in procs]
        for p in procs:
            p.join()
        claims = sum(r[0] for r in res)
        decisions = sum(r[1] for r in res)
        return {"loop": loop, "workers": workers, "claims": claims, "decisions": decisions,
                "drained": any(r[4] for r in res), "left": open_left(root),
                "claims_per_s": claims / seconds, "decisions_per_s": decisions / seconds,
                "ms_per_claim": 1000 * sum(r[2] for r in res) / max(claims, 1),
                "ms_per_decision": 1000 * sum(r[3] for r in res) / max(decisions, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=100_000)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 8])
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    print(f"review queue on SQLite (WAL, synchronous=FULL): {args.items} open items, "
          f"{args.seconds:g} s per run; claim = BEGIN IMMEDIATE + conditional UPDATE, "
          "decision = item + field record + label in one transaction")
    print("peer: none — there is no library for review queues; beside it, the raw-SQL loop")
    print(f"{'loop':<8} {'workers':>7} {'claims':>7} {'decisions':>9} {'claims/s':>9} {'decisions/s':>11} "
          f"{'ms/claim':>9} {'ms/decision':>11} {'left':>7}")
    for loop in ("pincite", "raw SQL"):
        for w in args.workers:
            r = measure(loop, w, args.items, args.seconds)
            flag = "  DRAINED: not a rate" if r["drained"] else ""
            print(f"{loop:<8} {r['workers']:>7} {r['claims']:>7} {r['decisions']:>9} "
                  f"{r['claims_per_s']:>9.1f} {r['decisions_per_s']:>11.1f} {r['ms_per_claim']:>9.2f} "
                  f"{r['ms_per_decision']:>11.2f} {r['left']:>7}{flag}")


if __name__ == "__main__":
    main()
