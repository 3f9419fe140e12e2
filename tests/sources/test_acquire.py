"""Acquiring input files (issue 14): links are refused unless asked, and then only inside the
folder given; the size limit holds before and while a file is read; `--id` names one file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from pincite.errors import ParseFailure, UsageError
from pincite.limits import Limits
from pincite.model import Principal
from pincite.sources.acquire import read_bounded
from tests.commands import invoke

TEXT = b"1. TERM\n\n1.1 The term is ten (10) years.\n"
CANARY = b"CANARY-outside-the-root-7f3a"
READER = Principal.parse("acme:x")


def _store_bytes(root: Path) -> bytes:
    """Every byte under the store directory (database, WAL, blobs)."""
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A folder with one file, a link to a secret outside it, a link to /etc/passwd and a
    link to a file inside it; the secret lies beside the folder."""
    secret = tmp_path / "secret.txt"
    secret.write_bytes(b"1. SECRET\n\n" + CANARY + b"\n")
    d = tmp_path / "docs"
    (d / "sub").mkdir(parents=True)
    (d / "a.txt").write_bytes(TEXT)
    (d / "out.txt").symlink_to(secret)
    (d / "passwd.txt").symlink_to("/etc/passwd")
    (d / "sub" / "in.txt").symlink_to(d / "a.txt")
    (d / "outdir").symlink_to(tmp_path)
    return d


def test_directory_ingest_quarantines_every_link_unread(lib, linked: Path):
    # the reader ingests, so the refused files are theirs to list (docs/concepts.md, access)
    res = {r.source_id: r for r in lib.ingest([linked], tenant="acme", acl=["*"], sandbox=False,
                                               publish=False, owner=READER.subject)}
    assert set(res) == {"a.txt", "out.txt", "passwd.txt", "sub/in.txt", "outdir"}
    assert res["a.txt"].status == "new"
    for sid in ("out.txt", "passwd.txt", "sub/in.txt", "outdir"):
        assert (res[sid].status, res[sid].reason) == ("quarantined", "symlink"), sid
        assert res[sid].doc_sha256 is None
    assert [s.source_id for s in lib.sources(READER)] == ["a.txt"]
    assert {q.reason for q in lib.quarantined(READER)} == {"symlink"}
    stored = _store_bytes(lib.store.root)
    assert CANARY not in stored and b"root:x:0:0" not in stored


def test_a_file_argument_that_is_a_link_is_refused(lib, linked: Path):
    (r,) = lib.ingest([linked / "passwd.txt"], tenant="acme", acl=["*"], sandbox=False,
                      publish=False)
    assert (r.status, r.reason) == ("quarantined", "symlink")
    assert b"root:x:0:0" not in _store_bytes(lib.store.root)


def test_follow_links_follows_only_links_inside_the_root(lib, linked: Path):
    res = {r.source_id: r for r in lib.ingest([linked], tenant="acme", acl=["*"], sandbox=False,
                                               publish=False, follow_links=True)}
    assert res["sub/in.txt"].status == "new"
    assert res["sub/in.txt"].doc_sha256 == res["a.txt"].doc_sha256
    for sid in ("out.txt", "passwd.txt", "outdir"):
        assert (res[sid].status, res[sid].reason) == ("quarantined", "symlink"), sid
    assert CANARY not in _store_bytes(lib.store.root)


def test_follow_links_survives_a_link_loop(lib, tmp_path: Path):
    d = tmp_path / "loop"
    d.mkdir()
    (d / "a.txt").write_bytes(TEXT)
    (d / "self").symlink_to(d)
    res = lib.ingest([d], tenant="acme", acl=["*"], sandbox=False, publish=False,
                     follow_links=True)
    assert [r.source_id for r in res] == ["a.txt"]


def test_cli_ingest_refuses_links_and_has_follow_links(tmp_path: Path, linked: Path):
    store = tmp_path / "store"
    r = invoke("ingest", str(linked), "--tenant", "acme", "--json", "--no-publish", store=store)
    assert r.returncode == 0, r.stderr
    lines = {o["source_id"]: o for o in map(json.loads, r.stdout.splitlines())}
    assert lines["passwd.txt"]["status"] == "quarantined"
    assert lines["passwd.txt"]["reason"] == "symlink"
    r = invoke("ingest", str(linked), "--tenant", "acme", "--json", "--no-publish",
               "--follow-links", store=store)
    lines = {o["source_id"]: o for o in map(json.loads, r.stdout.splitlines())}
    assert lines["sub/in.txt"]["status"] == "new"
    assert lines["out.txt"]["reason"] == "symlink"
    assert CANARY not in _store_bytes(store)


# ---- the size limit ------------------------------------------------------------------------


def _bytes_read() -> int:
    with open("/proc/self/io", encoding="ascii") as f:
        return next(int(ln.split()[1]) for ln in f if ln.startswith("rchar:"))


@pytest.mark.skipif(not Path("/proc/self/io").exists(), reason="needs Linux /proc/self/io")
def test_an_over_limit_file_is_refused_from_stat_without_reading_it(lib, tmp_path: Path):
    big = tmp_path / "big.txt"
    big.touch()
    os.truncate(big, 2 * 1024**3)  # sparse: 2 GB that costs no disk
    before = _bytes_read()
    (r,) = lib.ingest([big], tenant="acme", acl=["*"], sandbox=False, publish=False,
                      limits=Limits(max_bytes=1024 * 1024))
    read = _bytes_read() - before
    assert (r.status, r.reason) == ("quarantined", "over_limit")
    assert "2147483648 bytes" in (r.detail or "")
    assert read < 1024 * 1024, f"{read} bytes were read from a file over the limit"


def test_a_file_that_reads_past_its_stat_size_is_refused_at_the_limit(tmp_path: Path):
    # /proc files stat as 0 bytes, like a file that grows while read: the read itself stops.
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("needs Linux /proc")
    assert maps.stat().st_size == 0
    with pytest.raises(ParseFailure) as err:
        read_bounded(maps, 64)
    assert err.value.reason == "over_limit"
    assert read_bounded(maps, 10**7).startswith(b"")


def test_read_bounded_reads_a_file_at_the_limit(tmp_path: Path):
    f = tmp_path / "f.txt"
    f.write_bytes(b"x" * 100)
    assert read_bounded(f, 100) == b"x" * 100
    with pytest.raises(ParseFailure) as err:
        read_bounded(f, 99)
    assert err.value.reason == "over_limit"


def test_read_bounded_refuses_a_link_and_a_fifo(tmp_path: Path):
    (tmp_path / "f.txt").write_bytes(TEXT)
    (tmp_path / "l.txt").symlink_to(tmp_path / "f.txt")
    with pytest.raises(ParseFailure) as err:
        read_bounded(tmp_path / "l.txt", 1000)
    assert err.value.reason == "symlink"
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(ParseFailure) as err:
        read_bounded(tmp_path / "pipe", 1000)
    assert err.value.reason == "unsupported_type"


# ---- --id names one file -------------------------------------------------------------------


def _two_files(tmp_path: Path) -> Path:
    d = tmp_path / "two"
    d.mkdir()
    (d / "a.txt").write_bytes(TEXT)
    (d / "b.txt").write_bytes(TEXT.replace(b"ten (10)", b"five (5)"))
    return d


def test_library_ingest_refuses_id_with_more_than_one_file(lib, tmp_path: Path):
    d = _two_files(tmp_path)
    for paths in ([d], [d / "a.txt", d / "b.txt"], [d / "a.txt", d / "a.txt"]):
        with pytest.raises(UsageError, match="exactly one file"):
            lib.ingest(paths, tenant="acme", acl=["*"], source_id="foo", sandbox=False)
    assert lib.sources(READER) == []


def test_cli_ingest_dir_with_id_is_a_usage_error_that_stores_nothing(tmp_path: Path):
    d = _two_files(tmp_path)
    store = tmp_path / "store"
    for args in ([str(d)], [str(d / "a.txt"), str(d / "b.txt")]):
        r = invoke("ingest", *args, "--id", "foo", "--tenant", "acme", "--no-publish", store=store)
        assert r.returncode == 2, r.stderr
        assert "exactly one file" in r.stderr and "Traceback" not in r.stderr
    r = invoke("ingest", str(d / "a.txt"), "--id", "foo", "--tenant", "acme", "--no-publish",
               "--json", store=store)
    assert json.loads(r.stdout)["doc_id"] == "foo@r1"
    r = invoke("sources", "--as", "acme:x", "--json", store=store)
    assert [json.loads(ln)["source_id"] for ln in r.stdout.splitlines()] == ["foo"]
