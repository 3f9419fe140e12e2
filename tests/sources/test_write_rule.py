"""The one write rule (issue 25, critical): every path that changes a source — ingest or
revise by id, an ACL, delete, purge, an async ingest when enqueued and when a worker
stores it, the HTTP upload — asks `sources.authority.authorize_write`. An existing source
the caller cannot read is "not found" for writes too, with the reply a missing source
gets; an ACL change needs the owner or `acl:admin`, whatever the path.

The take-over these tests replay: a user who cannot read `memo.txt` ingested other bytes
under `--id memo.txt --acl user:mallory`, replacing the ACL (the intruder then read every
earlier revision, the owner was locked out) or, without `--acl`, the content the owner's
`ask` cited. Each test fails on 2a71066, where the ingest path never asked.
"""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from pincite.errors import Forbidden, NotFound
from pincite.limits import Limits
from pincite.model import Principal
from tests.commands import invoke

MEMO = b"# Memo\n\nThe board approved a budget of 450,000 euros.\n"
EVIL = b"# Memo\n\nThe board approved a budget of 1 euro. Send it to mallory.\n"
ALICE = Principal.parse("acme:alice:board")
MALLORY = Principal.parse("acme:mallory")
READER = Principal.parse("acme:rita:board")


def _state(lib, source_id: str = "memo.txt") -> tuple:
    """Return what an intruder must not change: the source row, its revisions, quarantine."""
    src = lib.store.source("acme", source_id)
    revs = [(r.revision_id, r.sha256) for r in lib.store.revisions("acme", source_id)]
    return src, revs, lib.store.quarantined("acme")


def test_an_intruder_cannot_take_over_or_replace_a_source_by_ingest(lib, tmp_path):
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["user:alice"],
                     sandbox=False, principal=ALICE)
    before = _state(lib)
    for acl in (["user:mallory"], None, ["user:alice"], ["*"]):
        with pytest.raises(NotFound) as got:  # the reply a missing source gets
            lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=acl, new_acl=["*"],
                             sandbox=False, principal=MALLORY)
        assert str(got.value) == str(NotFound("source", "memo.txt"))
        # bytes past the size limit are quarantined under the id: refused before that too
        with pytest.raises(NotFound):
            lib.ingest_bytes(EVIL * 10, source_id="memo.txt", tenant="acme", acl=acl,
                             sandbox=False, principal=MALLORY,
                             limits=Limits(max_bytes=64))
    assert _state(lib) == before
    assert lib.revisions(ALICE, "memo.txt")[-1].sha256 == before[1][-1][1]
    with pytest.raises(NotFound):
        lib.revisions(MALLORY, "memo.txt")
    # a directory holding a file of that name: refused before any file of it is stored
    folder = tmp_path / "drop"
    folder.mkdir()
    (folder / "a-new-one.txt").write_bytes(b"An innocent new file.\n")
    (folder / "memo.txt").write_bytes(EVIL)
    with pytest.raises(NotFound):
        lib.ingest([folder], tenant="acme", acl=None, new_acl=["*"], sandbox=False,
                   publish=False, principal=MALLORY)
    assert lib.store.source("acme", "a-new-one.txt") is None
    assert _state(lib) == before
    # `owner=` alone stands for that user with no groups: the same rule
    with pytest.raises(NotFound):
        lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=None, sandbox=False,
                         owner="mallory")
    assert _state(lib) == before


def test_a_reader_may_revise_but_only_the_owner_or_an_admin_changes_the_acl(lib):
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["group:board"],
                     sandbox=False, principal=ALICE)
    with pytest.raises(Forbidden, match="acl:admin"):
        lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=["user:rita"],
                         sandbox=False, principal=READER)
    with pytest.raises(Forbidden):  # the same bytes again with another ACL: still a change
        lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["*"],
                         sandbox=False, principal=READER)
    assert lib.store.source("acme", "memo.txt").acl == ("group:board",)
    assert len(lib.store.revisions("acme", "memo.txt")) == 1
    r = lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=None, new_acl=["*"],
                         sandbox=False, principal=READER)
    assert r.status == "revised"
    src = lib.store.source("acme", "memo.txt")
    assert (src.acl, src.owner) == (("group:board",), "alice")  # new_acl is for new ids only
    r = lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=["group:board"],
                         sandbox=False, principal=READER)  # naming the ACL it has is no change
    assert r.status == "unchanged"
    admin = Principal.parse("acme:adam:board,acl.admin")
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["group:board", "user:zed"],
                     sandbox=False, principal=admin)
    assert lib.store.source("acme", "memo.txt").acl == ("group:board", "user:zed")
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["user:alice"],
                     sandbox=False, principal=ALICE)  # the owner
    assert lib.store.source("acme", "memo.txt").acl == ("user:alice",)
    with pytest.raises(NotFound):  # now rita cannot read it: not found, not forbidden
        lib.ingest_bytes(EVIL, source_id="memo.txt", tenant="acme", acl=None, sandbox=False,
                         principal=READER)


def test_delete_purge_and_acl_of_an_unreadable_source_answer_like_a_missing_one(lib):
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["user:alice"],
                     sandbox=False, principal=ALICE)
    before = _state(lib)
    for act in (lambda sid: lib.delete(MALLORY, sid), lambda sid: lib.delete(MALLORY, sid, purge=True),
                lambda sid: lib.set_acl(MALLORY, sid, ["*"])):
        with pytest.raises(NotFound) as hidden:
            act("memo.txt")
        with pytest.raises(NotFound) as missing:
            act("nothing.txt")
        assert str(hidden.value).replace("memo", "nothing") == str(missing.value)
    assert _state(lib) == before


def _cli_store(tmp_path: Path) -> tuple[Path, Path]:
    store, memo = tmp_path / "store", tmp_path / "memo.txt"
    memo.write_bytes(MEMO)
    r = invoke("ingest", str(memo), "--tenant", "acme", "--acl", "user:alice", "--as",
               "acme:alice", "--no-publish", store=store)
    assert r.returncode == 0, r.stderr
    evil = tmp_path / "other.txt"
    evil.write_bytes(EVIL)
    return store, evil


def test_the_cli_ingest_refuses_the_take_over_with_the_words_of_a_missing_source(tmp_path):
    store, evil = _cli_store(tmp_path)
    for extra in (["--acl", "user:mallory"], []):
        took = invoke("ingest", str(evil), "--id", "memo.txt", *extra, "--tenant", "acme",
                      "--as", "acme:mallory", "--json", store=store)
        gone = invoke("delete", "nothing.txt", "--as", "acme:mallory", store=store)
        assert took.returncode == gone.returncode == 1, took.stderr
        assert took.stdout == "" and "Traceback" not in took.stderr
        assert took.stderr.replace("memo.txt", "nothing.txt") == gone.stderr
    shown = invoke("show", "memo.txt", "--as", "acme:alice", store=store)
    assert shown.returncode == 0 and "450,000" in shown.stdout
    assert invoke("show", "memo.txt", "--as", "acme:mallory", store=store).returncode == 1
    listed = invoke("sources", "--as", "acme:alice", "--json", store=store)
    assert json.loads(listed.stdout)["acl"] == ["user:alice"]


def test_the_async_ingest_is_refused_when_enqueued_and_again_when_stored(tmp_path, monkeypatch):
    pytest.importorskip("dbos")
    from pincite import open as open_library
    from pincite.runs import steps
    from pincite.runs.ingest_flow import ingest_one

    store, evil = _cli_store(tmp_path)
    r = invoke("ingest", str(evil), "--id", "memo.txt", "--tenant", "acme", "--as",
               "acme:mallory", "--async", "--acl", "user:mallory", store=store)
    assert r.returncode == 1 and "not found" in r.stderr, r.stderr
    # a run enqueued while mallory could read it, stored after alice narrowed the ACL
    spec = {"tenant": "acme", "owner": "mallory", "groups": [], "acl": None, "new_acl": ["*"],
            "limits": Limits(), "sandbox": False, "publish": False,
            "inputs": [{"path": str(evil), "source_id": "memo.txt", "name": "other.txt",
                        "read_from": str(evil), "reason": None, "detail": None}]}
    with open_library(store) as lib:
        before = _state(lib)
        monkeypatch.setitem(steps._WORKER, "store", lib.store)
        out = ingest_one(spec, spec["inputs"][0], lambda _name, body: body())
        assert (out["status"], out["reason"]) == ("failed", "not_found")
        assert _state(lib) == before


def test_the_http_upload_refuses_the_take_over_as_not_found(tmp_path):
    pytest.importorskip("fastapi")
    from pincite import open as open_library
    from tests.service.serving import WORKING, running

    lib = open_library(tmp_path / "store", create=True)
    lib.ingest_bytes(MEMO, source_id="memo.txt", tenant="acme", acl=["user:alice"],
                     sandbox=False, principal=Principal.parse("acme:alice"))
    with running(tmp_path, lib=lib) as svc:
        key, _ = svc.ring.create(MALLORY, WORKING)
        auth = {"Authorization": f"Bearer {key}"}
        before = _state(lib)
        with httpx.Client(base_url=svc.base) as c:
            for acl in ({"acl": "user:mallory"}, {}):
                took = c.post("/ingest", params={"source_id": "memo.txt", **acl}, content=EVIL,
                              headers=auth)
                gone = c.delete("/sources", params={"source_id": "nothing.txt"}, headers=auth)
                assert took.status_code == gone.status_code == 404
                assert took.json()["error"]["message"].replace("memo", "nothing") == \
                    gone.json()["error"]["message"]
            ok = c.post("/ingest", params={"source_id": "mine.txt", "publish": "false"},
                        content=EVIL, headers=auth)
            assert ok.status_code == 200 and ok.json()[0]["status"] == "new"
        assert _state(lib) == before
    lib.close()
