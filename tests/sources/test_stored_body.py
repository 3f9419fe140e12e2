"""A stored blob read as a file (`BlobStore.open_fd`, `bodies.stored_body`), on both
backends: the SQLite store opens the blob's own file; PostgreSQL streams the bytes into
a private, already unlinked temporary file. What it refuses: a blob that is not there,
and another tenant's. `reparse_revision` parses a stored blob from such a file and gets
the layer it gets from the bytes."""

from __future__ import annotations

import hashlib
import os
import random
import tempfile
from dataclasses import replace

import pytest

from pincite.model import timestamp
from pincite.parse import parse, parser_id
from pincite.sources.bodies import InMemory, OnDisk, stored_body
from pincite.sources.ingest import Ingestor, reparse_revision
from tests.sources.test_ingest_on_disk import ACTIVE_PDF_TEXT, ALWAYS, NEVER, _pdf


def _read(fd: int) -> bytes:
    parts = []
    pos = 0
    while chunk := os.pread(fd, 1 << 20, pos):
        parts.append(chunk)
        pos += len(chunk)
    return b"".join(parts)


# ~2.6 MiB: chunk boundaries inside it, a tail shorter than a chunk; compressible (zeros,
# which PostgreSQL compresses) and not (random) parts
_RANDOM = random.Random(7)
BLOBS = {
    "mixed": b"%PDF-1.4\n" + bytes(1 << 20) + _RANDOM.randbytes((3 << 19) + 7) + b"%%EOF\n",
    "empty": b"",
    "small": b"1. TERM\n\nTen years.\n",
}


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """Point `tempfile` at an empty folder of the test's own; return it."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


def test_a_stored_blob_opens_as_a_file_with_its_bytes(lib, private_tmp):
    for blobs in (lib.store.blobs, lib.store.quarantine_blobs):
        for name, data in BLOBS.items():
            sha = blobs.put("acme", data)
            fd = blobs.open_fd("acme", sha)
            try:
                assert list(private_tmp.iterdir()) == []  # no temporary file has a name
                assert os.fstat(fd).st_size == len(data), name
                assert _read(fd) == data, name
            finally:
                os.close(fd)
    assert list(private_tmp.iterdir()) == []


def test_a_missing_or_another_tenants_blob_does_not_open(lib, private_tmp):
    sha = lib.store.blobs.put("acme", BLOBS["mixed"])
    for tenant, digest in (("acme", "0" * 64), ("other", sha)):
        with pytest.raises(FileNotFoundError):
            lib.store.blobs.open_fd(tenant, digest)
        with pytest.raises(FileNotFoundError), stored_body(
                lib.store.blobs, tenant, digest, 10, name="x", stream_from=ALWAYS):
            pass
    with pytest.raises(FileNotFoundError):  # accepted bytes are not in the quarantine area
        lib.store.quarantine_blobs.open_fd("acme", sha)
    assert list(private_tmp.iterdir()) == []  # nor is a temporary file left behind


def test_a_stored_body_is_bytes_under_the_threshold_and_a_file_from_it(lib):
    data = BLOBS["mixed"]
    sha = lib.store.blobs.put("acme", data)
    with stored_body(lib.store.blobs, "acme", sha, len(data), name="m.pdf",
                     stream_from=len(data) + 1) as body:
        assert isinstance(body, InMemory) and body.bytes() == data
    with stored_body(lib.store.blobs, "acme", sha, len(data), name="m.pdf",
                     stream_from=len(data)) as body:
        assert isinstance(body, OnDisk)
        assert (body.size, body.sha256) == (len(data), hashlib.sha256(data).hexdigest())
        assert body.view.find(b"%%EOF") == len(data) - 6 and body.view[0:8] == b"%PDF-1.4"
        body.check()  # a blob is never written to
        fd = body.file.fd
    with pytest.raises(OSError):  # closed when the block ended
        os.fstat(fd)


@pytest.mark.parametrize("stream_from", [ALWAYS, NEVER], ids=["from-a-file", "from-bytes"])
def test_reparse_reads_a_stored_blob_as_it_reads_bytes(lib, stream_from):
    data = _pdf(ACTIVE_PDF_TEXT)
    sha = lib.store.blobs.put("acme", data)
    old = replace(parse("pdf", data), version="0")  # a layer by an older parser version
    rev, _ = lib.store.commit_revision(
        tenant="acme", source_id="fee.pdf", sha256=sha, media_type="application/pdf",
        size=len(data), at=timestamp(), acl=("*",), flags=(), layer=old)
    with Ingestor(lib.store, tenant="acme", acl=None, stream_from=stream_from) as ing:
        assert reparse_revision(ing, rev) == parser_id("pdf")
        assert reparse_revision(ing, rev) is None  # done once
    assert lib.store.text_layer(rev, parser_id("pdf")) == parse("pdf", data)
