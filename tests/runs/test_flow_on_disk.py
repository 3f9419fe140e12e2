"""The durable ingest run's steps read a large file as `Ingestor.ingest_file` does, and end
as it does: every file of the on-disk corpus (good files and hostile ones), run through
the steps acquire → inspect → parse → store from disk (`stream_from` 0: hashed in chunks,
staged by `put_file`, inspected and parsed from the staged blob opened as a file), ends
with the status, reason, detail, flags, media type and sha256 of the in-process ingest
of its bytes; its text layer, stored blob and quarantined blob are the same. On both
backends (PostgreSQL streams the staged blob out into a private temporary file).

The steps run here in-process, one after the other (`ingest_one` with a plain runner);
`test_workers.py` runs them in workers, killed at each step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from pincite.limits import Limits  # noqa: E402
from pincite.runs import steps  # noqa: E402
from pincite.runs.ingest_flow import ingest_one  # noqa: E402
from pincite.sources.acquire import walk_inputs  # noqa: E402
from pincite.sources.ingest import Ingestor  # noqa: E402
from tests.sources.test_hostile_ingest import CASES  # noqa: E402
from tests.sources.test_ingest_on_disk import (  # noqa: E402
    ALWAYS,
    GOOD,
    NEVER,
    _write_all,
    same_layers_and_blobs,
)

KEYS = ("status", "doc_id", "doc_sha256", "media_type", "reason", "detail", "flags")


def _spec(tenant: str, root: Path, stream_from: int) -> dict[str, Any]:
    """Return the spec `RunBook.submit_ingest` would enqueue for the files under `root`."""
    items = [{"path": str(i.path), "source_id": i.source_id, "name": i.path.name,
              "read_from": None if i.read_from is None else str(i.read_from),
              "reason": i.reason, "detail": i.detail} for i in walk_inputs([root])]
    return {"tenant": tenant, "owner": "x", "inputs": items, "acl": None, "new_acl": ["*"],
            "limits": Limits(), "sandbox": True, "publish": False, "stream_from": stream_from}


def _flow(lib, spec: dict[str, Any], monkeypatch) -> dict[str, dict[str, Any]]:
    monkeypatch.setitem(steps._WORKER, "store", lib.store)
    return {item["source_id"]: ingest_one(spec, item, lambda _name, body: body())
            for item in spec["inputs"]}


def _seen(result: dict[str, Any]) -> tuple:
    return tuple(result.get(k) or None for k in KEYS)


def test_the_steps_end_from_disk_as_the_in_process_ingest_ends(lib, tmp_path, monkeypatch):
    made = _write_all(tmp_path / "in")
    with Ingestor(lib.store, tenant="mem", acl=["*"], owner="x", stream_from=NEVER) as ing:
        whole = {i.source_id: ing.ingest_file(i).to_dict() for i in walk_inputs([tmp_path / "in"])}
    flowed = _flow(lib, _spec("disk", tmp_path / "in", ALWAYS), monkeypatch)
    assert {n: _seen(r) for n, r in flowed.items()} == {n: _seen(r) for n, r in whole.items()}
    assert {n: r["status"] for n, r in flowed.items()} == {
        **{n: "new" for n in GOOD}, **{n: "quarantined" for n in CASES}}
    store = lib.store
    same_layers_and_blobs(store, made)
    refused = {q.source_id: q for q in store.quarantined("disk")}
    assert {(q.source_id, q.reason, q.detail, q.size) for q in refused.values()} == {
        (q.source_id, q.reason, q.detail, q.size) for q in store.quarantined("mem")}
    kept = [name for name, q in refused.items() if q.sha256 is not None]
    assert kept  # refused after hashing: their bytes are kept for review, as ingest keeps them
    for name in kept:
        assert store.quarantine_blobs.get("disk", refused[name].sha256) == made[name], name


def test_a_step_run_again_changes_nothing(lib, tmp_path, monkeypatch):
    """Every step body run twice (as after a crash before DBOS recorded it): one staged
    blob, one revision, one quarantine record; the second store is the first's result."""
    made = _write_all(tmp_path / "in")
    twice = {"fee.pdf", "polyglot.pdf", "xxe.docx"}
    assert twice <= set(made)
    spec = _spec("acme", tmp_path / "in", ALWAYS)
    spec["inputs"] = [i for i in spec["inputs"] if i["source_id"] in twice]
    monkeypatch.setitem(steps._WORKER, "store", lib.store)

    def again(_name, body):
        first = body()
        second = body()
        if isinstance(first, dict) and "at" not in first:
            assert second == first
        return second

    results = {i["source_id"]: ingest_one(spec, i, again) for i in spec["inputs"]}
    assert {n: r["status"] for n, r in results.items()} == {
        "fee.pdf": "new", "polyglot.pdf": "quarantined", "xxe.docx": "quarantined"}
    assert len(lib.store.revisions("acme", "fee.pdf")) == 1
    shas = {r["doc_sha256"] for r in results.values() if r["doc_sha256"]}
    assert {name for _, name, _ in lib.store.blobs.walk()} == shas
    refused = [q.source_id for q in lib.store.quarantined("acme")]
    assert sorted(refused) == sorted(n for n, r in results.items() if r["status"] == "quarantined")


def test_a_file_written_to_while_acquired_fails_alone(lib, tmp_path, monkeypatch):
    """`acquire` stages nothing of a file that no longer hashes to what it read first:
    that file fails (`input_changed`); nothing of it is stored or quarantined."""
    from pincite.sources import acquire

    (tmp_path / "in").mkdir()
    f = tmp_path / "in" / "notes.txt"
    f.write_bytes(b"1. TERM\n\nThe term is ten years.\n")
    real = acquire.SourceFile.digest

    def digest_then_write(self):
        out = real(self)
        with open(f, "ab") as w:  # written to after it was hashed, before it was staged
            w.write(b"2. MORE\n")
        return out

    monkeypatch.setattr(acquire.SourceFile, "digest", digest_then_write)
    (result,) = _flow(lib, _spec("acme", tmp_path / "in", ALWAYS), monkeypatch).values()
    assert (result["status"], result["reason"], result["doc_id"]) == (
        "failed", "input_changed", None)
    assert result["detail"] == ("notes.txt changed while it was being ingested (it was "
                                "written to while it was read); nothing was stored: ingest "
                                "it again once nothing is writing to it")
    assert list(lib.store.blobs.walk()) == [] and lib.store.quarantined("acme") == []
    assert lib.store.sources("acme") == []


def test_a_negative_stream_from_is_refused_before_anything_is_queued(tmp_path):
    from pincite.errors import UsageError
    from pincite.library import open_library
    from pincite.model import Principal

    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "a.txt").write_text("Ten years.\n", "utf-8")
    with open_library(tmp_path / "store", create=True) as lib:
        book = lib.runs(tmp_path / "store")
        try:
            with pytest.raises(UsageError, match="stream_from must be a number of bytes"):
                book.submit_ingest(Principal.parse("acme:ann"), [tmp_path / "in"],
                                   tenant="acme", acl=["*"], stream_from=-1)
            assert book._client is None  # the system database was not even opened
        finally:
            book.close()
    assert not (tmp_path / "store" / "runs.sqlite").exists()
