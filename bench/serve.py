"""Service benchmark: search over HTTP (`pincite serve`, 8 concurrent clients) beside the
in-process call (`Library.search`), on the same store, the same queries, in the same run.

The store holds the first N SciFact abstracts (../shared/data/scifact) as one tenant's
Markdown sources, indexed with the embedder given (hash by default: the benchmark measures
the service's overhead, not the embedder). The server runs as its own process with
uvicorn; each client is a thread with its own keep-alive httpx connection and key.

Printed: requests/s, p50 and p99 latency per path, and the ratios HTTP / in-process,
against one caller in a loop and against 8 threads in one process (the same concurrency
as the HTTP clients: the library's search slows under 8 threads on its own, so that ratio
is the one that isolates what HTTP, authentication and JSON cost).

Usage: python bench/serve.py [--docs 1000] [--queries 400] [--clients 8] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scifact"


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def corpus(n: int) -> tuple[list[tuple[str, str]], list[str]]:
    """Return (source id, Markdown) of the first `n` abstracts, and the dev claims."""
    docs = []
    with open(DATA / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            title, text = (d.get("title") or "").strip(), (d.get("text") or "").strip()
            docs.append((f"a{d['_id']}.md", f"# {title}\n\n{text}\n"))
            if len(docs) >= n:
                break
    queries = []
    for path in sorted(DATA.glob("claims_*.jsonl")) + sorted((DATA / "dev").glob("queries_*.jsonl")):
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    d = json.loads(line)
                    queries.append(d.get("claim") or d.get("text") or "")
    return docs, [q for q in queries if q]


def percentile(xs: list[float], p: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def in_process(lib, principal, queries: list[str], k: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for q in queries:
        t = time.perf_counter()
        lib.search(principal, q, k=k)
        out.append(time.perf_counter() - t)
    return out


def in_threads(lib, principal, queries: list[str], k: int, n: int  # type: ignore[no-untyped-def]
               ) -> tuple[list[float], float]:
    lat: list[float] = []
    lock = threading.Lock()

    def run(share: list[str]) -> None:
        for q in share:
            t = time.perf_counter()
            lib.search(principal, q, k=k)
            with lock:
                lat.append(time.perf_counter() - t)

    threads = [threading.Thread(target=run, args=(queries[i::n],)) for i in range(n)]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat, time.perf_counter() - start


def over_http(base: str, key: str, queries: list[str], k: int, clients: int
              ) -> tuple[list[float], float, int]:
    import httpx

    lat: list[float] = []
    errors = [0]
    lock = threading.Lock()
    shares = [queries[i::clients] for i in range(clients)]

    def client(share: list[str]) -> None:
        with httpx.Client(base_url=base, headers={"Authorization": f"Bearer {key}"},
                          timeout=60) as c:
            for q in share:
                t = time.perf_counter()
                r = c.get("/search", params={"q": q, "k": k})
                dt = time.perf_counter() - t
                with lock:
                    lat.append(dt)
                    errors[0] += r.status_code != 200

    threads = [threading.Thread(target=client, args=(s,)) for s in shares]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return lat, time.perf_counter() - start, errors[0]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--queries", type=int, default=400)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--threads", type=int, default=2, help="the server's --threads")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ.setdefault("PINCITE_EMBEDDER", args.embedder)
    sys.path.insert(0, str(ROOT / "src"))
    import httpx

    import pincite
    from pincite.model import Principal
    from pincite.service.keyring import KeyRing
    from pincite.service.scopes import Scope

    docs, queries = corpus(args.docs)
    queries = (queries * (args.queries // max(1, len(queries)) + 1))[: args.queries]
    principal = Principal.parse("acme:ana:staff")
    with tempfile.TemporaryDirectory(prefix="pincite-bench-serve-") as tmp:
        store = Path(tmp) / "store"
        log(f"ingesting {len(docs)} abstracts")
        with pincite.open(store, create=True) as lib:
            for sid, md in docs:
                lib.ingest_bytes(md.encode(), source_id=sid, tenant="acme",
                                 acl=["group:staff"], name=sid, sandbox=False)
            lib.update_index(args.embedder)
        key, _ = KeyRing(Path(tmp) / "keys.json").create(principal, (Scope.READ,))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
        proc = subprocess.Popen(
            [sys.executable, "-m", "pincite.cli", "serve", "--store", str(store), "--port",
             str(port), "--keys", str(Path(tmp) / "keys.json"), "--quiet", "--rate", "1e6",
             "--burst", "1000000", "--concurrency", "1000", "--threads", str(args.threads)],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(600):
                try:
                    if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.1)
            warm = queries[: min(100, len(queries))]
            over_http(base, key, warm, args.k, args.clients)  # warm the server's threads
            with pincite.open(store) as lib:
                in_process(lib, principal, warm, args.k)
                log(f"in-process: {len(queries)} searches")
                t0 = time.perf_counter()
                local = in_process(lib, principal, queries, args.k)
                local_s = time.perf_counter() - t0
                log(f"in-process: {len(queries)} searches, {args.clients} threads")
                threaded, threaded_s = in_threads(lib, principal, queries, args.k, args.clients)
            log(f"HTTP: {len(queries)} searches, {args.clients} clients")
            remote, remote_s, errors = over_http(base, key, queries, args.k, args.clients)
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    rows = {
        "in-process (1 caller)": (len(local) / local_s, statistics.median(local),
                                  percentile(local, 99)),
        f"in-process ({args.clients} threads)": (len(threaded) / threaded_s,
                                                statistics.median(threaded),
                                                percentile(threaded, 99)),
        f"HTTP ({args.clients} clients)": (len(remote) / remote_s, statistics.median(remote),
                                          percentile(remote, 99)),
    }
    (lr, lp50, lp99), (tr, tp50, tp99), (hr, hp50, hp99) = rows.values()
    result = {"docs": len(docs), "queries": len(queries), "clients": args.clients,
              "server_threads": args.threads,
              "embedder": args.embedder, "http_errors": errors, "cpus": os.cpu_count(),
              "python": platform.python_version(),
              "rows": {k: {"req_per_s": round(v[0], 1), "p50_ms": round(v[1] * 1e3, 2),
                           "p99_ms": round(v[2] * 1e3, 2)} for k, v in rows.items()},
              "ratio_http_over_in_process": {"req_per_s": round(hr / lr, 3),
                                             "p50": round(hp50 / lp50, 3),
                                             "p99": round(hp99 / lp99, 3)},
              "ratio_http_over_in_process_threads": {"req_per_s": round(hr / tr, 3),
                                                     "p50": round(hp50 / tp50, 3),
                                                     "p99": round(hp99 / tp99, 3)}}
    if args.json:
        print(json.dumps(result))
        return 0
    print(f"search, {len(docs)} SciFact abstracts, {len(queries)} queries, k={args.k}, "
          f"{args.embedder} embedder, {os.cpu_count()} CPUs, server --threads {args.threads}")
    print(f"{'path':24} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8}")
    for name, (rate, p50, p99) in rows.items():
        print(f"{name:24} {rate:8.1f} {p50 * 1e3:8.2f} {p99 * 1e3:8.2f}")
    for label, key_ in (("HTTP / in-process 1", "ratio_http_over_in_process"),
                        (f"HTTP / in-process {args.clients}", "ratio_http_over_in_process_threads")):
        r = result[key_]
        print(f"{'ratio ' + label:24} {r['req_per_s']:8.3f} {r['p50']:8.3f} {r['p99']:8.3f}")
    print(f"HTTP errors: {errors}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
