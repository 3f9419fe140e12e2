"""Ingestion as a publication protocol: revisions, ACLs, quarantine, all-or-nothing commits."""

from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

import pincite
from pincite.errors import NotFound, UsageError
from pincite.model import Principal
from tests.commands import run_cli
from tests.tamper import rewrite_blob

TEXT_V1 = b"1. TERM\n\n1.1 The term is ten (10) years.\n"
TEXT_V2 = b"1. TERM\n\n1.1 The term is five (5) years.\n"


def test_same_bytes_unchanged_changed_bytes_revised(lib):
    a = lib.ingest_bytes(TEXT_V1, source_id="t.txt", tenant="acme", acl=["*"], sandbox=False)
    b = lib.ingest_bytes(TEXT_V1, source_id="t.txt", tenant="acme", acl=["*"], sandbox=False)
    c = lib.ingest_bytes(TEXT_V2, source_id="t.txt", tenant="acme", acl=["*"], sandbox=False)
    assert (a.status, a.revision_id) == ("new", "r1")
    assert (b.status, b.revision_id) == ("unchanged", "r1")
    assert (c.status, c.revision_id) == ("revised", "r2")
    p = Principal.parse("acme:x")
    r1, r2 = lib.revisions(p, "t.txt")
    assert r1.valid_to == r2.acquired_at and r2.valid_to is None
    assert r1.sha256 != r2.sha256
    assert lib.store.blobs.get("acme", r1.sha256) == TEXT_V1


def test_missing_acl_is_refused_for_new_source_and_empty_acl_is_invisible(lib):
    with pytest.raises(UsageError):
        lib.ingest_bytes(TEXT_V1, source_id="a.txt", tenant="acme", acl=None, sandbox=False)
    lib.ingest_bytes(TEXT_V1, source_id="b.txt", tenant="acme", acl=[], sandbox=False)
    assert lib.sources(Principal.parse("acme:anyone:all")) == []
    with pytest.raises(NotFound):
        lib.document(Principal.parse("acme:anyone"), "b.txt")


def test_acl_replacement_takes_effect_on_next_read(lib):
    lib.ingest_bytes(TEXT_V1, source_id="c.txt", tenant="acme", acl=["user:ana"], sandbox=False,
                     owner="ana")
    ana, bob = Principal.parse("acme:ana"), Principal.parse("acme:bob:legal")
    assert lib.document(ana, "c.txt")[0].doc_id == "c.txt@r1"
    with pytest.raises(NotFound):
        lib.document(bob, "c.txt")
    src = lib.set_acl(ana, "c.txt", ["group:legal"])
    assert src.acl == ("group:legal",) and src.acl_epoch == 2
    assert lib.document(bob, "c.txt")[0].doc_id == "c.txt@r1"
    with pytest.raises(NotFound):
        lib.document(ana, "c.txt")
    with pytest.raises(NotFound):  # another tenant cannot even change it
        lib.set_acl(Principal.parse("evil:ana"), "c.txt", ["*"])


def test_tenants_are_separate_namespaces(lib):
    lib.ingest_bytes(TEXT_V1, source_id="same.txt", tenant="t1", acl=["*"], sandbox=False)
    lib.ingest_bytes(TEXT_V2, source_id="same.txt", tenant="t2", acl=["*"], sandbox=False)
    _, l1 = lib.document(Principal.parse("t1:u"), "same.txt")
    _, l2 = lib.document(Principal.parse("t2:u"), "same.txt")
    assert "ten (10)" in l1.text and "five (5)" in l2.text


def test_quarantine_records_reason_and_stores_no_revision(lib):
    r = lib.ingest_bytes(b"", source_id="empty.pdf", tenant="acme", acl=["*"], sandbox=False,
                         owner="x")
    assert r.status == "quarantined" and r.reason == "empty"
    q = lib.quarantined(Principal.parse("acme:x"))
    assert [(x.source_id, x.reason) for x in q] == [("empty.pdf", "empty")]
    assert lib.store.source("acme", "empty.pdf") is None
    assert lib.quarantined(Principal.parse("acme:y")) == []  # not y's ingest, not a source
    assert lib.quarantined(Principal.parse("other:x")) == []


def test_type_mismatch_is_quarantined(lib):
    r = lib.ingest_bytes(TEXT_V1, source_id="x.pdf", tenant="acme", acl=["*"], name="x.pdf",
                         sandbox=False)
    assert (r.status, r.reason) == ("quarantined", "type_mismatch")


# ---- fault points and kill -9 ------------------------------------------------------------

FAULTS = ["blob.write", "blob.fsync", "blob.rename", "ingest.after_blob",
          "ingest.before_commit"]


def _blob_names(store) -> list[str]:
    """Return the names of every stored accepted blob, whatever the backend keeps them in."""
    return sorted(name for _tenant, name, _where in store.blobs.walk())


@pytest.mark.parametrize("point", FAULTS)
def test_kill_at_each_fault_point_leaves_no_trace_and_resume_succeeds(tmp_path, store_url, point):
    store = store_url
    doc = tmp_path / "in" / "t.txt"
    doc.parent.mkdir()
    doc.write_bytes(TEXT_V1)
    ok = run_cli("ingest", str(doc), "--json", store=store)
    assert ok.returncode == 0, ok.stderr
    doc.write_bytes(TEXT_V2)
    killed = run_cli("ingest", str(doc), "--json", store=store,
                     env={"PINCITE_FAULTS": f"{point}=kill"})
    assert killed.returncode == -signal.SIGKILL, (killed.returncode, killed.stderr)
    assert killed.stdout == ""  # nothing acknowledged
    with pincite.open(store) as lib:
        revs = lib.revisions(Principal.parse("default:local"), "t.txt")
        assert [r.revision_id for r in revs] == ["r1"]  # the old state, intact
        assert revs[0].valid_to is None
        report = lib.fsck(grace_seconds=0)
        assert report.ok, report.damage
        assert _blob_names(lib.store) == [revs[0].sha256]
    again = run_cli("ingest", str(doc), "--json", store=store)
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["status"] == "revised"


def test_kill_after_commit_is_durable(tmp_path, store_url):
    store = store_url
    doc = tmp_path / "t.txt"
    doc.write_bytes(TEXT_V1)
    killed = run_cli("ingest", str(doc), "--json", store=store,
                     env={"PINCITE_FAULTS": "ingest.after_commit=kill"})
    assert killed.returncode == -signal.SIGKILL
    with pincite.open(store) as lib:
        [rev] = lib.revisions(Principal.parse("default:local"), "t.txt")
        assert lib.store.blobs.get("default", rev.sha256) == TEXT_V1
        assert lib.fsck(grace_seconds=0).ok


def test_raise_before_commit_rolls_back_in_process(lib, monkeypatch):
    from pincite.errors import FaultInjected

    monkeypatch.setenv("PINCITE_FAULTS", "ingest.before_commit=raise")
    with pytest.raises(FaultInjected):
        lib.ingest_bytes(TEXT_V1, source_id="t.txt", tenant="acme", acl=["*"], sandbox=False)
    monkeypatch.delenv("PINCITE_FAULTS")
    assert lib.store.source("acme", "t.txt") is None
    assert lib.ingest_bytes(TEXT_V1, source_id="t.txt", tenant="acme", acl=["*"],
                            sandbox=False).status == "new"


def test_fsck_reports_a_corrupted_blob(lib):
    r = lib.ingest_bytes(TEXT_V1, source_id="t.txt", tenant="acme", acl=["*"], sandbox=False)
    rewrite_blob(lib.store, "acme", r.doc_sha256, b"tampered")
    report = lib.fsck(grace_seconds=0)
    assert not report.ok
    assert report.damage == [f"blob of acme/t.txt@r1 no longer hashes to {r.doc_sha256}"]


def test_source_id_is_relative_path_inside_directory(lib, tmp_path: Path):
    d = tmp_path / "corpus"
    (d / "sub").mkdir(parents=True)
    (d / "a.txt").write_bytes(TEXT_V1)
    (d / "sub" / "b.txt").write_bytes(TEXT_V2)
    (d / ".hidden").write_bytes(b"skip")
    res = lib.ingest([d], tenant="acme", acl=["*"], sandbox=False)
    assert sorted(r.source_id for r in res) == ["a.txt", "sub/b.txt"]
    assert lib.ingest([d / "a.txt"], tenant="acme", acl=["*"], source_id="custom",
                      sandbox=False)[0].doc_id == "custom@r1"
