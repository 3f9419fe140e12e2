"""A page image of a large stored PDF is drawn without holding the file (the review page,
the dictamen report and `fill`'s report all draw through `render_page_png`).

A one-page PDF padded to 48 MB with an unreferenced stream is stored on each backend
(PostgreSQL streams the blob out into a private temporary file); a process of its own
draws a small PDF's page first (imports, PDFium), then the large one's: its peak resident
memory (VmHWM) grows by well under the file's size. Before, the stored bytes were read
whole and each draw grew the process by the file's size.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pincite.library import open_library
from pincite.model import timestamp
from pincite.parse import parse
from pincite.parse.pdf.render import render_page_png
from pincite.review.evidence import RENDER_SCALE
from tests.service.test_upload_memory import write_padded_pdf

pytestmark = pytest.mark.skipif(not Path("/proc/self/status").exists(),
                                reason="needs Linux /proc")

ROOT = Path(__file__).resolve().parents[2]
SIZE = 48_000_000
BOUND = SIZE // 4

_DRAW = """
import json, sys
import pincite
from pincite.review.evidence import render_page_png

def peak():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

with pincite.open(sys.argv[1]) as lib:
    warm = render_page_png(lib.store, lib.store.latest_revision("acme", "warm.pdf"), 1)
    before = peak()
    big = render_page_png(lib.store, lib.store.latest_revision("acme", "fee.pdf"), 1)
    after = peak()
print(json.dumps({"warm": warm.hex(), "big": big[:8].hex(), "before": before, "after": after}))
"""


def _store_file(lib, path: Path, layer) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
        digest = lib.store.blobs.put_file("acme", fd, path.stat().st_size, h.hexdigest())
    finally:
        os.close(fd)
    lib.store.commit_revision(tenant="acme", source_id=path.name, sha256=digest,
                              media_type="application/pdf", size=path.stat().st_size,
                              at=timestamp(), acl=("*",), flags=(), layer=layer)


def test_a_page_of_a_48_mb_pdf_is_drawn_in_bounded_memory(store_url, tmp_path):
    warm, big = tmp_path / "warm.pdf", tmp_path / "fee.pdf"
    write_padded_pdf(warm, b"A small warm-up page.", 4096)
    write_padded_pdf(big, b"The licence fee of 4,200 euros is due on 12 May 2025.", SIZE)
    layer = parse("pdf", warm.read_bytes())  # the big file's page says otherwise: not read here
    with open_library(store_url, create=True) as lib:
        for path in (warm, big):
            _store_file(lib, path, layer)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", _DRAW, store_url], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout)
    # the page drawn from the stored file is the page drawn from its bytes
    assert bytes.fromhex(got["warm"]) == render_page_png(warm.read_bytes(), 1,
                                                          scale=RENDER_SCALE)[0]
    assert bytes.fromhex(got["big"]) == b"\x89PNG\r\n\x1a\n"
    grew = got["after"] - got["before"]
    print(f"\npage image of a {SIZE / 1e6:.0f} MB PDF: peak RSS grew {grew / 2**20:.1f} MiB")
    assert grew < BOUND, grew
