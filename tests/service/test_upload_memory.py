"""A large upload streams: `pincite serve` runs as its own process, a client streams
210 MB (over the CLI's 200 MiB ingest limit) to `POST /ingest`, and the server's peak
resident memory (VmHWM) grows by less than 100 MB. The body went to a spool file as it
arrived; the file is quarantined `over_limit` without its bytes, as the CLI does."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from pincite.model import Principal
from pincite.service.keyring import KeyRing
from pincite.service.scopes import Scope
from tests.corpus import TERMS_EN, add, publish

UPLOAD = 210_000_000
CHUNK = 1 << 20


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


def test_a_210_mb_upload_streams_in_bounded_memory(tmp_path):
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
    h = {"Authorization": f"Bearer {key}"}
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
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()
