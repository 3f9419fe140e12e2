"""A large file through the durable ingest run and through `reparse`, in bounded memory.

A one-page PDF padded to 48 MB with an unreferenced stream (over `STREAM_FROM`, 16 MiB):

- `pincite ingest --async`, then a live `pincite worker` (a process of its own, warmed up
  by a small run first), on each backend (on PostgreSQL the runs are recorded in the same
  database): the run ends `new`, the stored blob hashes to the file's sha256,
  the page is searchable, and the worker's peak resident memory (VmHWM) grows by well
  under the file's size while it runs acquire → inspect → parse → store.
- `reparse` of a stored 48 MB revision whose layer is by an older parser version, in a
  process of its own (warmed up by reparsing a small one), on each backend (PostgreSQL
  streams the blob out into a private temporary file): the new layer holds the page's
  text and the process's VmHWM grows by well under the file's size.

Each prints its figures (run `pytest -s` to see them); the parser worker reads the file
itself, under its own memory limit, and is not counted (its peak is printed).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("dbos")

from pincite.library import open_library  # noqa: E402
from pincite.model import timestamp  # noqa: E402
from pincite.parse import parse, parser_id  # noqa: E402
from tests.runs.test_workers import ANN, FAST, ROOT, _cli, _enqueue_ingest, _show, _worker  # noqa: E402
from tests.service.test_upload_memory import (  # noqa: E402
    FEE,
    _peak_rss,
    _WorkerPeaks,
    write_padded_pdf,
)

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="needs Linux /proc")

SIZE = 48_000_000
BOUND = SIZE // 4  # read whole (before the run streamed), each process grew by ~48 MB


def _wait(store: Path, run_id: str, worker: subprocess.Popen[str], seconds: float) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = _show(store, run_id)
        if run["status"] not in ("ENQUEUED", "PENDING"):
            return run
        assert worker.poll() is None, worker.communicate()[1]
        time.sleep(0.2)
    raise AssertionError(f"run {run_id} did not finish in {seconds} s")


def _sha_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def test_a_48_mb_pdf_ingested_by_a_worker_stays_in_bounded_memory(store_url, tmp_path):
    store = store_url  # a directory, or a postgresql:// database (runs recorded there too)
    (tmp_path / "warm").mkdir()
    write_padded_pdf(tmp_path / "warm" / "warm.pdf", b"A small warm-up page.", 4096)
    (tmp_path / "big").mkdir()
    big = tmp_path / "big" / "fee.pdf"
    sha = write_padded_pdf(big, FEE, SIZE)
    warm_id = _enqueue_ingest(store, tmp_path / "warm")
    worker = _worker(store, "--json", *FAST)  # live, no --drain: its memory is read while it runs
    try:
        assert _wait(store, warm_id, worker, 120)["status"] == "SUCCESS"
        before = _peak_rss(worker.pid)
        r = _cli(store, "ingest", str(tmp_path / "big"), "--tenant", "acme", "--as", "acme:ann",
                 "--async", "--json")
        assert r.returncode == 0, r.stderr
        run_id = json.loads(r.stdout)["run_id"]
        parser = _WorkerPeaks(worker.pid)
        parser.start()
        started = time.perf_counter()
        run = _wait(store, run_id, worker, 300)
        seconds = time.perf_counter() - started
        parser.stopped.set()
        parser.join()
        grew = _peak_rss(worker.pid) - before
        worker.send_signal(signal.SIGTERM)
        worker.communicate(timeout=60)
    finally:
        worker.kill()
    assert run["status"] == "SUCCESS", run
    (result,) = run["result"]["results"]
    assert (result["status"], result["doc_id"], result["doc_sha256"], result["media_type"],
            result["flags"]) == ("new", "fee.pdf@r1", sha, "application/pdf", [])
    assert [s["step"] for s in run["steps"]] == [
        "acquire", "inspect", "parse", "store", "segment_embed", "publish"]
    with open_library(store) as lib:
        # the staged blob holds the file's bytes (hashed in chunks, or in the server)
        assert lib.store.blobs.digest("acme", sha) == sha
        assert lib.store.latest_revision("acme", "fee.pdf").size == SIZE
        hits = lib.search(ANN, "licence fee due", embedder="hash").items
        assert [(h.doc_id, h.page) for h in hits if "licence fee" in h.quote] == [("fee.pdf@r1", 1)]
        assert lib.quarantined(ANN) == []
    print(f"\nworker ({lib.store.backend}): {SIZE / 1e6:.0f} MB PDF ingested by a run in {seconds:.1f} s; worker peak "
          f"RSS {before / 2**20:.0f} MiB before, grew {grew / 2**20:.1f} MiB; parser worker "
          f"peak (sampled) {parser.peak / 2**20:.0f} MiB")
    assert grew < BOUND, grew


_REPARSE = """
import json, sys
import pincite
from pincite.model import Principal

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

who = Principal.parse("acme:ann")
with pincite.open(sys.argv[1]) as lib:
    warm = lib.reparse(who, ["warm.pdf"])
    before = peak()
    big = lib.reparse(who, ["fee.pdf"])
    after = peak()
print(json.dumps({"warm": warm, "big": big, "before": before, "after": after}))
"""


def test_reparse_of_a_48_mb_revision_stays_in_bounded_memory(store_url, tmp_path):
    store = store_url
    warm, big = tmp_path / "warm.pdf", tmp_path / "fee.pdf"
    write_padded_pdf(warm, b"A small warm-up page.", 4096)
    sha = write_padded_pdf(big, FEE, SIZE)
    # a layer by an older version of the PDF parser: reparse parses each file again
    old = replace(parse("pdf", warm.read_bytes()), version="0")
    with open_library(store, create=True) as lib:
        for path in (warm, big):
            fd = os.open(path, os.O_RDONLY)
            try:
                digest = lib.store.blobs.put_file("acme", fd, path.stat().st_size,
                                                  _sha_of(path))
            finally:
                os.close(fd)
            lib.store.commit_revision(
                tenant="acme", source_id=path.name, sha256=digest,
                media_type="application/pdf", size=path.stat().st_size, at=timestamp(),
                acl=("*",), flags=(), layer=old)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    started = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _REPARSE, store], capture_output=True,
                         text=True, env=env, timeout=300)
    seconds = time.perf_counter() - started
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    current = parser_id("pdf")
    assert got["warm"] == [["warm.pdf@r1", current]] and got["big"] == [["fee.pdf@r1", current]]
    grew = got["after"] - got["before"]
    with open_library(store) as lib:
        rev = lib.store.latest_revision("acme", "fee.pdf")
        assert rev is not None and rev.sha256 == sha
        layer = lib.store.text_layer(rev, current)
        assert layer is not None and "licence fee of 4,200 euros" in layer.text
        assert lib.store.layer_ids(rev) == ["pdf@0", current]
    print(f"\nreparse ({lib.store.backend}): {SIZE / 1e6:.0f} MB PDF parsed again in {seconds:.1f} s (process "
          f"included); peak RSS {got['before'] / 2**20:.0f} MiB before, grew "
          f"{grew / 2**20:.1f} MiB")
    assert grew < BOUND, grew
