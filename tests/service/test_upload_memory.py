"""A large upload streams: `pincite serve` runs as its own process, a client streams a
large body to `POST /ingest`, and the server's peak resident memory (VmHWM) grows by
less than 100 MB.

- 210 MB, over the CLI's 200 MiB ingest limit: the body went to a spool file as it
  arrived; the file is quarantined `over_limit` without its bytes, as the CLI does.
- 200 MB, under the limit (a one-page PDF with a large unreferenced stream): it is
  ingested from the spool file — hashed in chunks, inspected through a `FileView`,
  parsed by the sandbox worker from a lent descriptor, copied into the blob store in
  chunks — and its page is searchable and citable afterwards; the stored blob hashes to
  the upload's sha256; uploading it again is `unchanged`. The parser worker's own peak
  (it reads the file itself, under its own memory limit) is sampled and printed."""

from __future__ import annotations

import contextlib
import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from pincite.model import Principal
from pincite.service.keyring import KeyRing
from pincite.service.scopes import Scope
from tests.corpus import TERMS_EN, add, publish

UPLOAD = 210_000_000
UNDER = 200_000_000  # under the 200 MiB (209,715,200-byte) ingest limit
CHUNK = 1 << 20
FEE = b"The licence fee of 4,200 euros is due on 12 May 2025."


def _peak_rss(pid: int) -> int:
    """Return a process's peak resident set (VmHWM) in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def _serving(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], str, dict[str, str]]]:
    """Run `pincite serve` over a store holding one published note; yield the process, its
    base URL and the headers of a key that may read and ingest."""
    import pincite

    store = tmp_path / "store"
    with pincite.open(store, create=True) as lib:
        add(lib, "terms.md", TERMS_EN, tenant="acme", acl=("*",))
        publish(lib)
    key, _ = KeyRing(tmp_path / "keys.json").create(Principal("acme", "ana"),
                                                    (Scope.READ, Scope.INGEST))
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "TMPDIR": str(tmp_path)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "pincite.cli", "serve", "--store", str(store), "--port",
         str(port), "--keys", str(tmp_path / "keys.json"), "--quiet"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None and time.time() < deadline, proc.stderr.read() \
                if proc.stderr and proc.poll() is not None else "no server"
            time.sleep(0.1)
        yield proc, base, {"Authorization": f"Bearer {key}"}
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()


def test_a_210_mb_upload_streams_in_bounded_memory(tmp_path):
    with _serving(tmp_path) as (proc, base, h):
        # warm up every path the upload takes (a small upload, a search)
        small = httpx.post(base + "/ingest", params={"source_id": "warm.md", "publish": "false"},
                           content=b"# Warm\n\nA small note.\n", headers=h, timeout=60)
        assert small.status_code == 200, small.text
        assert httpx.get(base + "/search", params={"q": "law"}, headers=h).status_code == 200
        before = _peak_rss(proc.pid)

        def body():
            head = b"\x89PNG\r\n\x1a\n"
            yield head + b"\0" * (CHUNK - len(head))
            sent = CHUNK
            block = b"\0" * CHUNK
            while sent < UPLOAD:
                n = min(CHUNK, UPLOAD - sent)
                yield block[:n]
                sent += n

        started = time.perf_counter()
        r = httpx.post(base + "/ingest", params={"source_id": "big.png", "publish": "false"},
                       content=body(), headers={**h, "Content-Type": "application/octet-stream"},
                       timeout=300)
        seconds = time.perf_counter() - started
        assert r.status_code == 413, r.text
        assert r.json()["error"]["code"] == "body_too_large"
        grew = _peak_rss(proc.pid) - before
        print(f"\nupload {UPLOAD / 1e6:.0f} MB in {seconds:.1f} s; server peak RSS "
              f"{before / 2**20:.0f} MiB before, grew {grew / 2**20:.1f} MiB")
        assert grew < 100 * 10**6, grew
        q = httpx.get(base + "/sources", params={"quarantined": "true"}, headers=h).json()
        assert [(x["source_id"], x["reason"], x["path"]) for x in q] == [
            ("big.png", "over_limit", "big.png")]
        assert not list(tmp_path.glob("pincite-upload-*"))  # the spool is gone


def write_padded_pdf(path: Path, text: bytes, size: int) -> str:
    """Write a one-page PDF of `text` that is `size` bytes long — the rest an unreferenced
    stream of zeros — to `path`, 1 MiB at a time; return its sha256."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
        b"<< /Length %d >>\nstream\nBT /F1 11 Tf 72 720 Td (%s) Tj ET\nendstream"
        % (len(text) + 31, text),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    head = b"%PDF-1.4\n"
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(len(head))
        head += b"%d 0 obj\n%s\nendobj\n" % (n, body)
    offsets.append(len(head))
    opening = b"6 0 obj\n<< /Length 0000000000 >>\nstream\n"
    closing = b"\nendstream\nendobj\n"

    def tail(pad: int) -> bytes:
        xref = len(head) + len(opening) + pad + len(closing)
        table = b"".join(b"%010d 00000 n \n" % o for o in offsets)
        return (b"xref\n0 7\n0000000000 65535 f \n" + table
                + b"trailer\n<< /Size 7 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref)

    pad = size - len(head) - len(opening) - len(closing) - len(tail(0))
    pad -= len(tail(pad)) - len(tail(0))  # the xref offset may take more digits
    opening = opening.replace(b"0000000000", b"%010d" % pad)
    h = hashlib.sha256()
    block = b"\0" * CHUNK
    with open(path, "wb") as f:
        for part in (head, opening):
            f.write(part)
            h.update(part)
        left = pad
        while left:
            n = min(left, CHUNK)
            f.write(block[:n])
            h.update(block[:n])
            left -= n
        for part in (closing, tail(pad)):
            f.write(part)
            h.update(part)
    assert path.stat().st_size == size
    return h.hexdigest()


def _children(pid: int) -> set[int]:
    """Return the process ids of `pid`'s children (every thread's)."""
    out: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            out.update(int(c) for c in (task / "children").read_text().split())
    return out


class _WorkerPeaks(threading.Thread):
    """Samples the peak resident memory of the server's child processes (the parser
    worker) every 20 ms until stopped; `peak` is the highest seen."""

    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid, self.peak, self.stopped = pid, 0, threading.Event()

    def run(self) -> None:
        while not self.stopped.wait(0.02):
            for child in _children(self.pid):
                with contextlib.suppress(OSError, AssertionError):
                    self.peak = max(self.peak, _peak_rss(child))


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_200_mb_upload_under_the_limit_is_ingested_in_bounded_memory(tmp_path):
    big = tmp_path / "fee.pdf"
    sha = write_padded_pdf(big, FEE, UNDER)
    small = tmp_path / "small.pdf"
    write_padded_pdf(small, b"A small warm-up page.", 4096)
    with _serving(tmp_path) as (proc, base, h):
        up = {**h, "Content-Type": "application/octet-stream"}

        def upload(path: Path, source_id: str) -> httpx.Response:
            def body() -> Iterator[bytes]:
                with open(path, "rb") as f:
                    while chunk := f.read(CHUNK):
                        yield chunk
            return httpx.post(base + "/ingest", params={"source_id": source_id},
                              content=body(), headers=up, timeout=300)

        # warm up every path the upload takes: a PDF upload, parse, publish, search, cite
        warm = upload(small, "small.pdf")
        assert warm.status_code == 200 and warm.json()[0]["status"] == "new", warm.text
        assert httpx.get(base + "/search", params={"q": "warm"}, headers=h).status_code == 200
        before = _peak_rss(proc.pid)
        workers = _WorkerPeaks(proc.pid)
        workers.start()
        started = time.perf_counter()
        r = upload(big, "fee.pdf")
        seconds = time.perf_counter() - started
        workers.stopped.set()
        workers.join()
        assert r.status_code == 200, r.text
        (result,) = r.json()
        assert (result["status"], result["doc_sha256"], result["media_type"], result["flags"]) \
            == ("new", sha, "application/pdf", [])
        grew = _peak_rss(proc.pid) - before
        print(f"\nupload {UNDER / 1e6:.0f} MB PDF ingested in {seconds:.1f} s; server peak RSS "
              f"{before / 2**20:.0f} MiB before, grew {grew / 2**20:.1f} MiB; parser worker "
              f"peak (sampled) {workers.peak / 2**20:.0f} MiB")
        assert grew < 100 * 10**6, grew

        hits = httpx.get(base + "/search", params={"q": "licence fee due"}, headers=h).json()
        assert [(i["doc_id"], i["page"]) for i in hits["items"] if "licence fee" in i["quote"]] \
            == [("fee.pdf@r1", 1)], hits
        cited = httpx.post(base + "/cite", headers=h, json={
            "doc": "fee.pdf@r1", "quotes": ["licence fee of 4,200 euros"]}).json()
        assert cited[0]["quote_verified"] is True, cited
        blob = tmp_path / "store" / "blobs" / "acme" / "sha256" / sha[:2] / sha
        stored = hashlib.sha256()
        with open(blob, "rb") as f:
            while chunk := f.read(CHUNK):
                stored.update(chunk)
        assert stored.hexdigest() == sha and blob.stat().st_size == UNDER

        again = upload(big, "fee.pdf")
        assert again.status_code == 200, again.text
        assert (again.json()[0]["status"], again.json()[0]["revision_id"]) == ("unchanged", "r1")
        grew = _peak_rss(proc.pid) - before  # after the search, the cite and the second upload
        print(f"after search, cite and the unchanged re-upload: grew {grew / 2**20:.1f} MiB")
        assert grew < 100 * 10**6, grew
        assert not list(tmp_path.glob("pincite-upload-*"))  # the spools are gone
