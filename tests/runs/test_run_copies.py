"""Purge reaches the durable-runs database: after `delete --purge`, no stored value of any
DBOS table, decoded every way it can be (base64, pickle, zlib, JSON, recursively), holds
the source's text, id or digest — on SQLite (`<store>/runs.sqlite`) and PostgreSQL (the
`dbos` schema of the store's database).

Real parts: the store on each backend, `ingest --async` and `extract --async` through the
CLI, `pincite worker --drain` processes, the purge through the CLI. Runs recorded before
steps staged their copies (a text layer, records with quotes in the step outputs) are
planted as pincite-runs-1 wrote them, and are scrubbed too.
"""

from __future__ import annotations

import base64
import json
import os
import pickle
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("dbos")

from pincite.evals.acceptance.run_copies import decoded  # noqa: E402
from pincite.extract.records import FieldRecord  # noqa: E402
from pincite.library import open_library  # noqa: E402
from pincite.model import Principal  # noqa: E402
from tests.commands import invoke  # noqa: E402
from tests.pg_server import app_login_url  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
ANN = Principal.parse("acme:ann")
FAST = ["--beat", "0.1", "--lease", "0.6", "--poll", "0.1"]
TEXT_CANARY = "qzrunstext4417"     # only in the document's text
ID_CANARY = "qzrunsid9920"         # in its file name, so in its source id
KEEP_CANARY = "qzrunskeep3306"     # the id of a document that stays
GONE = f"side-{ID_CANARY}.txt"
KEEP = f"keep-{KEEP_CANARY}.txt"
SCHEMA = """name: sides
fields:
  - name: subject
    type: text
    synonyms: {en: [subject matter of the contract]}
    patterns: ['subject matter of the contract is (?P<value>[^.]{10,200})']
  - name: fee
    type: money
    synonyms: {en: [annual fee]}
"""


def _doc(canary: str, fee: str) -> str:
    return (f"Side letter.\n\n1. The subject matter of the contract is the supply of {canary} "
            f"turbines.\n\n2. The annual fee is {fee} EUR.\n")


# ---- decoding every stored value -------------------------------------------------------


def runs_db_values(store: str) -> Iterator[tuple[str, str, Any]]:
    """Yield (table, column, value) for every column of every row of every table of the
    store's runs database (`runs.sqlite`, or the `dbos` schema)."""
    if "://" in store:
        import psycopg

        with psycopg.connect(store, autocommit=True) as c:
            tables = [r[0] for r in c.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = 'dbos'")]
            assert "operation_outputs" in tables
            for t in tables:
                cur = c.execute(f'SELECT * FROM dbos."{t}"')
                cols = [d.name for d in cur.description or ()]
                for row in cur:
                    yield from ((t, col, v) for col, v in zip(cols, row, strict=True))
        return
    with sqlite3.connect(Path(store) / "runs.sqlite") as c:
        tables = [r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        assert "operation_outputs" in tables
        for t in tables:
            cur = c.execute(f'SELECT * FROM "{t}"')
            cols = [d[0] for d in cur.description]
            for row in cur:
                yield from ((t, col, v) for col, v in zip(cols, row, strict=True))


def found(store: str, needles: dict[str, str]) -> dict[str, set[str]]:
    """Which needles some decoded value of the runs database holds, and where."""
    out: dict[str, set[str]] = {}
    for table, col, value in runs_db_values(store):
        texts = list(decoded(value))
        for name, needle in needles.items():
            if any(needle in t for t in texts):
                out.setdefault(name, set()).add(f"{table}.{col}")
    return out


# ---- driving the runs --------------------------------------------------------------------


def _worker(store: str) -> None:
    if "://" in store:  # a worker logs in as the app login, never the owner (issue 25)
        store = app_login_url(store)
    env = {k: v for k, v in os.environ.items() if k not in ("PINCITE_FAULTS", "PINCITE_RUNS_DB")}
    env.update(PYTHONPATH=str(ROOT / "src"), PINCITE_EMBEDDER="hash")
    w = subprocess.run([sys.executable, "-m", "pincite.cli", "--store", store, "worker",
                        "--drain", "--json", *FAST], capture_output=True, text=True, env=env,
                       timeout=180)
    assert w.returncode == 0, w.stderr


def _run(store: str, run_id: str) -> dict[str, Any]:
    with open_library(store) as lib:
        book = lib.runs(store)
        try:
            return book.run(ANN, run_id)
        finally:
            book.close()


def _ingested_and_extracted(store: str, docs: Path, schema: Path) -> tuple[str, str]:
    """Ingest `docs` and extract from both documents, each as a durable run a worker
    carries out; return the two run ids."""
    r = invoke("ingest", str(docs), "--tenant", "acme", "--as", str(ANN), "--acl", "*",
               "--async", "--json", store=store, env={"PINCITE_EMBEDDER": "hash"})
    assert r.returncode == 0, r.stderr
    ingest_id = json.loads(r.stdout)["run_id"]
    _worker(store)
    assert _run(store, ingest_id)["status"] == "SUCCESS"
    r = invoke("extract", GONE, KEEP, "--schema", str(schema), "--as", str(ANN), "--async",
               "--json", store=store)
    assert r.returncode == 0, r.stderr
    extract_id = json.loads(r.stdout)["run_id"]
    _worker(store)
    assert _run(store, extract_id)["status"] == "SUCCESS"
    return ingest_id, extract_id


def _plant_old_outputs(store: str, ingest_id: str, extract_id: str) -> None:
    """Record in the runs database what pincite-runs-1 recorded there: the purged
    document's text layer as `parse`'s output, its records (quotes, values) as
    `extract`'s."""
    with open_library(store) as lib:
        _rev, layer = lib.document(ANN, GONE)
        records = [FieldRecord.model_validate(r)
                   for r in lib.store.field_records("acme", _case_id(store, extract_id))
                   if GONE in json.dumps(r)]
    assert TEXT_CANARY in layer.text and records
    rows = [(base64.b64encode(pickle.dumps(layer)).decode(), ingest_id, "parse"),
            (base64.b64encode(pickle.dumps({"records": records})).decode(), extract_id,
             "extract")]
    if "://" in store:
        import psycopg

        with psycopg.connect(store, autocommit=True) as c:
            for value, run_id, name in rows:
                n = c.execute("UPDATE dbos.operation_outputs SET output = %s WHERE "
                              "workflow_uuid = %s AND function_name = %s "
                              "AND function_id = (SELECT min(function_id) FROM "
                              "dbos.operation_outputs WHERE workflow_uuid = %s AND "
                              "function_name = %s)", (value, run_id, name, run_id, name)
                              ).rowcount
                assert n == 1
        return
    with sqlite3.connect(Path(store) / "runs.sqlite") as c:
        for value, run_id, name in rows:
            n = c.execute("UPDATE operation_outputs SET output = ? WHERE workflow_uuid = ? AND "
                          "function_id = (SELECT min(function_id) FROM operation_outputs "
                          "WHERE workflow_uuid = ? AND function_name = ?)",
                          (value, run_id, run_id, name)).rowcount
            assert n == 1


def _case_id(store: str, extract_id: str) -> str:
    with open_library(store) as lib:
        run = lib.store.extraction_run("acme", extract_id)
    assert run is not None
    return str(run["case_id"])


# ---- the tests ---------------------------------------------------------------------------


def test_a_purge_leaves_nothing_of_the_source_in_the_runs_database(store_url, tmp_path):
    store, docs = store_url, tmp_path / "docs"
    docs.mkdir()
    (docs / GONE).write_text(_doc(TEXT_CANARY, "731,913"), "utf-8")
    (docs / KEEP).write_text(_doc("plainwords", "450,000"), "utf-8")
    schema = tmp_path / "schema.yaml"
    schema.write_text(SCHEMA, "utf-8")
    ingest_id, extract_id = _ingested_and_extracted(store, docs, schema)
    with open_library(store) as lib:
        sha = lib.store.latest_revision("acme", GONE).sha256
        assert {r["field"] for r in lib.store.field_records("acme", _case_id(store, extract_id))
                if TEXT_CANARY in json.dumps(r)} == {"subject"}  # a value and quote hold it
        # staged copies are gone once the runs ended: only the documents' blobs are left
        assert {n for _t, n, _p in lib.store.blobs.walk()} == {
            lib.store.latest_revision("acme", s).sha256 for s in (GONE, KEEP)}
    needles = {"text": TEXT_CANARY, "id": ID_CANARY, "sha256": sha}
    # the runs hold references to the document (ids, digests), never its text
    before = found(store, {**needles, "kept id": KEEP_CANARY})
    assert "text" not in before, before
    assert {"id", "sha256", "kept id"} <= set(before), before
    _plant_old_outputs(store, ingest_id, extract_id)
    assert "text" in found(store, needles)  # the decoder reads what pincite-runs-1 recorded

    r = invoke("delete", GONE, "--as", str(ANN), "--purge", "--json", store=store)
    assert r.returncode == 0, r.stderr
    removed = json.loads(r.stdout)["removed"]
    assert (removed["runs_scrubbed"], removed["runs_in_flight"]) == (2, 0)

    after = found(store, {**needles, "kept id": KEEP_CANARY})
    assert set(after) == {"kept id"}, after  # the other document's references stay
    if "://" not in store:
        raw = (Path(store) / "runs.sqlite").read_bytes()
        assert ID_CANARY.encode() not in raw and TEXT_CANARY.encode() not in raw
    # the runs still read back; the purged file's result is a tombstone, the other's stays
    ingest = _run(store, ingest_id)
    assert ingest["status"] == "SUCCESS"
    results = ingest["result"]["results"]
    assert {"purged": True} in results
    assert [x["source_id"] for x in results if "source_id" in x] == [KEEP]
    extract = _run(store, extract_id)
    assert extract["status"] == "SUCCESS" and extract["result"]["run_id"] == extract_id


def test_a_run_still_queued_is_left_as_it_is_and_runs(tmp_path):
    """A run that has not ended may replay its recorded outputs: the purge leaves it as
    it is and counts it; it then runs (here, ingesting the file again) as it would have."""
    store, docs = str(tmp_path / "store"), tmp_path / "docs"
    docs.mkdir()
    (docs / GONE).write_text(_doc(TEXT_CANARY, "731,913"), "utf-8")
    args = ("ingest", str(docs), "--tenant", "acme", "--as", str(ANN), "--acl", "*", "--async",
            "--json")
    first = json.loads(invoke(*args, store=store).stdout)["run_id"]
    _worker(store)
    queued = json.loads(invoke(*args, store=store).stdout)["run_id"]
    before = {(t, c, v) for t, c, v in runs_db_values(store) if t == "workflow_input"}
    r = invoke("delete", GONE, "--as", str(ANN), "--purge", "--json", store=store)
    assert r.returncode == 0, r.stderr
    removed = json.loads(r.stdout)["removed"]
    assert (removed["runs_scrubbed"], removed["runs_in_flight"]) == (1, 1)
    after = {(t, c, v) for t, c, v in runs_db_values(store) if t == "workflow_input"}
    assert len(before - after) == 1  # the ended run's input was scrubbed, the queued one's not
    assert _run(store, first)["result"]["results"] == [{"purged": True}]
    _worker(store)
    again = _run(store, queued)
    assert again["status"] == "SUCCESS"
    assert [(x["source_id"], x["status"]) for x in again["result"]["results"]] == [(GONE, "new")]
