"""A store's files are its user's alone (issue 25): with the usual umask 022, every file
under a store directory (pincite.db with its -wal and -shm, embeddings.sqlite, blobs,
generation files, the durable runs' runs.sqlite) is made 0600 and every folder 0700, as
keys.json beside them is."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import pincite
from tests.commands import invoke


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    yield
    os.umask(old)


def _modes(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): stat.S_IMODE(p.lstat().st_mode)
            for p in [root, *root.rglob("*")]}


def test_every_store_file_is_0600_and_every_folder_0700(tmp_path, umask_022):
    store = tmp_path / "lib"
    lib = pincite.open(store, create=True)
    lib.ingest_bytes(b"# Terms\n\nInvoices are payable within 30 days.\n", source_id="a.md",
                     tenant="acme", acl=["*"], sandbox=False)
    lib.update_index()
    lib.close()
    doc = tmp_path / "b.md"
    doc.write_text("# B\n\nAnother document, queued for a worker.\n", "utf-8")
    queued = invoke("ingest", str(doc), "--tenant", "acme", "--acl", "*", "--async",
                    store=store)  # the runs database is made as the run is queued
    assert queued.returncode == 0, queued.stderr
    modes = _modes(store)
    for name in ("pincite.db", "embeddings.sqlite", "runs.sqlite", "blobs", "indexes"):
        assert name in modes, sorted(modes)
    assert any(n.startswith("blobs/") and os.path.isfile(store / n) for n in modes)
    assert any(n.startswith("indexes/") and os.path.isfile(store / n) for n in modes)
    loose = {n: oct(m) for n, m in modes.items()
             if m != (0o700 if (store / n).is_dir() else 0o600)}
    assert not loose, loose
