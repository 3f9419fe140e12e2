"""Ingest from disk (issue 17): a file at or over `Ingestor.stream_from` bytes is hashed in
chunks, inspected through a `FileView`, parsed by the sandbox worker from a lent
descriptor and copied into the blob store in chunks — and ends exactly as the same bytes
ingested whole do: status, reason, detail, flags, media type, sha256, text layer and the
stored (or quarantined) blob. The refusals hold on this path too: links, files that are
not regular, files over the limit (from `fstat`, unread), files that grow while read, and
files written to while ingested (InputChanged, nothing stored). Runs on both backends."""

from __future__ import annotations

import hashlib
import io
import os
from pathlib import Path
from typing import Any

import pytest

from pincite.errors import InputChanged, ParseFailure, UsageError
from pincite.limits import Limits
from pincite.sources.acquire import Input, open_bounded, walk_inputs
from pincite.sources.ingest import Ingestor
from pincite.sources.sandbox import ParserSandbox
from tests.corpus import TERMS_EN
from tests.sources.test_hostile_ingest import CASES

ALWAYS, NEVER = 0, 10**12  # stream_from: every file from disk / every file read whole
ACTIVE_PDF_TEXT = b"Clause 1. The fee is due on 12 May 2025."


def _pdf(text: bytes, *, extra: bytes = b"") -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf)
    c.drawString(72, 720, text.decode())
    c.save()
    data = buf.getvalue()
    return data.replace(b"%%EOF", extra + b"%%EOF") if extra else data


def _docx() -> bytes:
    import docx

    buf = io.BytesIO()
    d = docx.Document()
    d.add_paragraph("Clause 1. The deadline is 12 May 2025.")
    d.save(buf)
    return buf.getvalue()


def _xlsx() -> bytes:
    import openpyxl

    buf = io.BytesIO()
    wb = openpyxl.Workbook()
    wb.active["A1"], wb.active["B1"] = "Revenue", 1200
    wb.save(buf)
    return buf.getvalue()


GOOD = {
    "terms.md": lambda: TERMS_EN.encode(),
    "notes.txt": lambda: b"1. TERM\n\n1.1 The term is ten (10) years.\n",
    "mixed.txt": lambda: b"Precio: 450.000 \xe2\x82\xac y caf\xe9 \xff\xfe\n",
    "rates.csv": lambda: b"item,amount\nbolts,12\nnuts,30\n",
    "page.html": lambda: b"<html><body><h1>Terms</h1><p>The fee is ten euros.</p></body></html>",
    "fee.pdf": lambda: _pdf(ACTIVE_PDF_TEXT),
    "active.pdf": lambda: _pdf(ACTIVE_PDF_TEXT,
                               extra=b"9 0 obj\n<< /S /JavaScript /JS (x) >>\nendobj\n"),
    "tender.docx": _docx,
    "report.xlsx": _xlsx,
}


def _write_all(root: Path) -> dict[str, bytes]:
    made = {name: make() for name, make in GOOD.items()}
    made.update({name: make() for name, (make, _) in CASES.items()})
    root.mkdir()
    for name, data in made.items():
        (root / name).write_bytes(data)
    return made


def same_layers_and_blobs(store: Any, made: dict[str, bytes]) -> None:
    """Assert every good file has the same text layer in tenants `mem` and `disk`, and its
    blob in `disk` holds the file's bytes."""
    for name in GOOD:
        mem, disk = (store.latest_revision(t, name) for t in ("mem", "disk"))
        assert mem is not None and disk is not None
        assert store.text_layer(disk) == store.text_layer(mem), name
        assert store.blobs.get("disk", disk.sha256) == made[name], name


def _ingest_all(lib, root: Path, tenant: str, stream_from: int) -> dict[str, dict]:
    with Ingestor(lib.store, tenant=tenant, acl=["*"], owner="x", stream_from=stream_from) as ing:
        return {i.source_id: ing.ingest_file(i).to_dict() for i in walk_inputs([root])}


def test_every_file_ends_alike_from_disk_and_from_memory(lib, tmp_path: Path):
    made = _write_all(tmp_path / "in")
    whole = _ingest_all(lib, tmp_path / "in", "mem", NEVER)
    streamed = _ingest_all(lib, tmp_path / "in", "disk", ALWAYS)
    assert streamed == whole
    assert {n: r["status"] for n, r in streamed.items()} == {
        **{n: "new" for n in GOOD}, **{n: "quarantined" for n in CASES}}
    assert {n: r["reason"] for n, r in streamed.items() if r["reason"]} == {
        n: reason for n, (_, reason) in CASES.items()}
    assert streamed["active.pdf"]["flags"] == ["active_content"]
    assert streamed["mixed.txt"]["flags"] == ["invalid_utf8"]
    store = lib.store
    same_layers_and_blobs(store, made)
    assert "12 May 2025" in store.text_layer(store.latest_revision("disk", "fee.pdf")).text
    refused = {q.source_id: q for q in store.quarantined("disk")}
    assert set(refused) == set(CASES)
    for name, q in refused.items():
        if q.sha256 is not None:  # refused after hashing: the bytes are kept for review
            assert store.quarantine_blobs.get("disk", q.sha256) == made[name], name
    assert {(q.source_id, q.reason, q.detail, q.size) for q in store.quarantined("mem")} == {
        (q.source_id, q.reason, q.detail, q.size) for q in refused.values()}


def test_the_same_file_again_is_unchanged(lib, tmp_path: Path):
    f = tmp_path / "fee.pdf"
    f.write_bytes(_pdf(ACTIVE_PDF_TEXT))
    with Ingestor(lib.store, tenant="acme", acl=["*"], stream_from=ALWAYS) as ing:
        first = ing.ingest_file(Input(f, "fee.pdf", f))
        again = ing.ingest_file(Input(f, "fee.pdf", f))
    assert (first.status, first.revision_id) == ("new", "r1")
    assert (again.status, again.revision_id, again.doc_sha256) == (
        "unchanged", "r1", first.doc_sha256)
    assert [name for _, name, _ in lib.store.blobs.walk()] == [first.doc_sha256]


def test_a_new_source_without_an_acl_is_refused_before_anything_is_stored(lib, tmp_path: Path):
    f = tmp_path / "a.txt"
    f.write_bytes(b"1. TERM\n\nTen years.\n")
    with Ingestor(lib.store, tenant="acme", acl=None, stream_from=ALWAYS) as ing, \
            pytest.raises(UsageError, match="give it an ACL"):
        ing.ingest_file(Input(f, "a.txt", f))
    assert list(lib.store.blobs.walk()) == [] and lib.store.sources("acme") == []


def _refused(lib, item: Input, limits: Limits | None = None) -> tuple[str, str, str | None]:
    with Ingestor(lib.store, tenant="acme", acl=["*"], limits=limits, sandbox=False,
                  stream_from=ALWAYS) as ing:
        r = ing.ingest_file(item)
    assert list(lib.store.blobs.walk()) == [] and list(lib.store.quarantine_blobs.walk()) == []
    return r.status, r.reason or "", r.doc_sha256


def test_a_link_swapped_in_before_the_open_is_refused_unread(lib, tmp_path: Path):
    (tmp_path / "secret.txt").write_bytes(b"1. SECRET\n")
    link = tmp_path / "a.txt"
    link.symlink_to(tmp_path / "secret.txt")  # walk_inputs saw a file; it is a link now
    assert _refused(lib, Input(link, "a.txt", link)) == ("quarantined", "symlink", None)


def test_a_fifo_is_refused_as_not_a_regular_file(lib, tmp_path: Path):
    os.mkfifo(tmp_path / "pipe.txt")
    item = Input(tmp_path / "pipe.txt", "pipe.txt", tmp_path / "pipe.txt")
    assert _refused(lib, item) == ("quarantined", "unsupported_type", None)


def test_a_file_over_the_limit_is_refused_from_fstat(lib, tmp_path: Path):
    big = tmp_path / "big.txt"
    big.touch()
    os.truncate(big, 2 * 1024**3)  # sparse: reading it would take seconds and 2 GB
    assert _refused(lib, Input(big, "big.txt", big), Limits(max_bytes=1 << 20)) == (
        "quarantined", "over_limit", None)


def test_a_file_that_reads_past_its_stat_size_is_refused_at_the_limit(lib):
    maps = Path("/proc/self/maps")  # stats as 0 bytes, like a file that grows while read
    if not maps.exists():
        pytest.skip("needs Linux /proc")
    assert _refused(lib, Input(maps, "maps", maps), Limits(max_bytes=64)) == (
        "quarantined", "over_limit", None)


def test_a_file_that_grows_after_it_was_opened(tmp_path: Path):
    f = tmp_path / "f.txt"
    f.write_bytes(b"x" * 100)
    with open_bounded(f, 150) as opened:
        with open(f, "ab") as w:
            w.write(b"y" * 100)  # 200 bytes now: past the limit
        with pytest.raises(ParseFailure, match="grew while read") as err:
            opened.digest()
        assert err.value.reason == "over_limit"
    f.write_bytes(b"x" * 100)
    with open_bounded(f, 1000) as opened:
        sha, size = opened.digest()
        with open(f, "ab") as w:
            w.write(b"y")  # within the limit, but no longer the bytes hashed
        with pytest.raises(InputChanged, match="f.txt changed while it was being ingested"):
            opened.check_unchanged(size)


def test_a_blob_copy_that_no_longer_hashes_stores_nothing(lib, tmp_path: Path):
    f = tmp_path / "f.bin"
    f.write_bytes(b"the bytes that were hashed")
    fd = os.open(f, os.O_RDONLY)
    try:
        for blobs in (lib.store.blobs, lib.store.quarantine_blobs):
            with pytest.raises(InputChanged, match="no longer hash"):
                blobs.put_file("acme", fd, f.stat().st_size, "0" * 64)
            with pytest.raises(InputChanged, match="became shorter"):
                blobs.put_file("acme", fd, f.stat().st_size + 1, "0" * 64)
            assert list(blobs.walk()) == []
        if lib.store.backend == "sqlite":  # no temporary file is left behind either
            assert not [p for p in (lib.store.root / "blobs").rglob("*") if p.is_file()]
        sha = lib.store.blobs.put_file("acme", fd, f.stat().st_size,
                                       hashlib.sha256(f.read_bytes()).hexdigest())
        assert lib.store.blobs.get("acme", sha) == f.read_bytes()
        assert lib.store.blobs.digest("acme", sha) == sha  # hashed in chunks, or in the server
        with pytest.raises(FileNotFoundError):
            lib.store.blobs.digest("acme", "1" * 64)
    finally:
        os.close(fd)


def test_the_worker_parses_a_lent_descriptor_as_it_parses_bytes(tmp_path: Path):
    data = _pdf(ACTIVE_PDF_TEXT)
    f = tmp_path / "fee.pdf"
    f.write_bytes(data + b"bytes past the size given are not read")
    fd = os.open(f, os.O_RDONLY)
    try:
        with ParserSandbox(Limits()) as sb:
            assert sb.parse_file("pdf", fd, len(data)) == sb.parse("pdf", data)
            with pytest.raises(ParseFailure) as err:
                sb.parse_file("docx", fd, len(data))
            assert err.value.reason == "malformed"
            with pytest.raises(UsageError):
                sb.parse_file("pdf", fd, Limits().max_bytes + 1)
        assert os.lseek(fd, 0, os.SEEK_CUR) == 0  # the worker read with pread
    finally:
        os.close(fd)
