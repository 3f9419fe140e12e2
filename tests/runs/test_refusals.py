"""What the durable-run commands refuse: another principal's run, an enqueue the principal
may not make, a bad queue name or worker timing, secrets that a run would store."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("dbos")

from tests.commands import invoke  # noqa: E402


@pytest.fixture
def store(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "mine.txt").write_text("The guarantee is 500 euros.\n", "utf-8")
    path = tmp_path / "store"
    r = invoke("ingest", str(docs), "--tenant", "acme", "--acl", "user:ann", "--as", "acme:ann",
               store=path)
    assert r.returncode == 0, r.stderr
    return path


def _enqueue(store, *args):
    r = invoke("ingest", *args, "--tenant", "acme", "--as", "acme:ann", "--async", "--json",
               store=store)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["run_id"]


def test_a_run_is_not_found_by_another_tenant_or_user(store, tmp_path):
    run_id = _enqueue(store, str(tmp_path / "docs"))
    mine = invoke("runs", run_id, "--as", "acme:ann", "--json", store=store)
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout)["status"] == "ENQUEUED"
    assert json.loads(mine.stdout)["steps"] == []
    for who in ("other:ann", "acme:bob", "other:ann:acl.admin"):
        missing = invoke("runs", "run-0000000000000-000000000000", "--as", who, store=store)
        assert missing.returncode == 1
        r = invoke("runs", run_id, "--as", who, store=store)
        assert (r.returncode, r.stdout) == (1, "")
        # the same words as the same caller gets for an id that does not exist (with the
        # who-am-I line when the caller can read no source): nothing says it does
        assert r.stderr == missing.stderr.replace("run-0000000000000-000000000000", run_id)
        listed = invoke("runs", "--as", who, "--json", store=store)
        assert (listed.returncode, listed.stdout) == (0, "")
    listed = invoke("runs", "--as", "acme:ann", "--json", store=store)
    assert [json.loads(x)["run_id"] for x in listed.stdout.splitlines()] == [run_id]
    long = invoke("runs", "r" * 5000, "--as", "acme:ann", store=store)
    assert long.returncode == 1 and "not found" in long.stderr and len(long.stderr) < 400


def test_an_enqueue_the_principal_may_not_make_is_refused(store, tmp_path):
    r = invoke("ingest", str(tmp_path / "docs"), "--tenant", "acme", "--as", "other:bob",
               "--async", store=store)
    assert r.returncode == 2 and "tenant 'other'" in r.stderr
    # bob may not read mine.txt (ACL user:ann): its extraction is refused before queueing
    schema = tmp_path / "schema.yaml"
    schema.write_text("name: s\nfields:\n  - name: guarantee\n    type: money\n"
                      "    description: the guarantee\n", "utf-8")
    r = invoke("extract", "mine.txt", "--schema", str(schema), "--as", "acme:bob", "--async",
               store=store)
    assert r.returncode == 1 and "'mine.txt' not found" in r.stderr, r.stderr
    for who in ("acme:bob", "other:bob", "acme:ann"):
        listed = invoke("runs", "--as", who, "--json", store=store)
        assert (listed.returncode, listed.stdout) == (0, "")
    ok = invoke("extract", "mine.txt", "--schema", str(schema), "--as", "acme:ann", "--async",
                "--json", store=store)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["queue"] == "extract"


def test_what_a_run_would_store_or_cannot_do_is_refused(store, tmp_path):
    r = invoke("ingest", str(tmp_path / "docs"), "--tenant", "acme", "--as", "acme:ann",
               "--async", "--password", "s3cret", store=store)
    assert r.returncode == 2 and "--password is not stored in a run" in r.stderr
    r = invoke("extract", "mine.txt", "--schema", str(tmp_path / "none.yaml"), "--as",
               "acme:ann", "--async", "--out", str(tmp_path / "out"), store=store)
    assert r.returncode == 2 and "--out is not written by a worker" in r.stderr
    assert invoke("runs", "--as", "acme:ann", "--json", store=store).stdout == ""


@pytest.mark.parametrize(("args", "message"), [
    (["--queues", "ingest,bogus"], "unknown queue 'bogus': use one or more of ingest, extract"),
    (["--queues", ""], "unknown queue ''"),
    (["--queues", " , "], "unknown queue ''"),
    (["--beat", "nan"], "--beat must be a number of seconds between 0.01 and 3600"),
    (["--lease", "inf"], "--lease must be a number of seconds between 0.01 and 3600"),
    (["--poll", "0"], "--poll must be a number of seconds between 0.01 and 3600"),
    (["--beat", "5", "--lease", "5"], "--lease must be longer than --beat"),
])
def test_a_bad_worker_option_is_a_usage_error(store, args, message):
    r = invoke("worker", *args, "--drain", store=store)
    assert r.returncode == 2, r.stderr
    assert message in r.stderr and r.stderr.startswith("error: ")


def test_the_runs_database_must_be_postgresql_or_sqlite(store, tmp_path):
    r = invoke("runs", "--as", "acme:ann", store=store,
               env={"PINCITE_RUNS_DB": "mysql://u:pw@host/db"})
    assert r.returncode == 2 and "'host/db' is not postgresql://" in r.stderr
    assert "pw" not in r.stderr
