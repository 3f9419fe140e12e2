"""A fill killed (SIGKILL) between stages resumes: the re-run skips the finished stages and
writes the same artifacts, byte for byte, as a run that was never killed."""

from __future__ import annotations

import json
import signal

import pytest

import pincite
from tests.commands import run_cli
from tests.fill.test_fill import DOCS, TARGET, WB, _ingest

JSON_ARTIFACTS = ("target.json", "facts.json", "table_retrieval.json", "table_alignment.json",
                  "candidates.json", "fill_program.json", "coverage.json", "marks.csv",
                  "audit.json", "report.html")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("durable")
    lib = pincite.open(root / "store", create=True)
    _ingest(lib)
    lib.close()
    return root / "store"


def _fill(store, out, env=None):
    return run_cli("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
                   "--out", str(out), "--marks", str(WB / "marks.csv"), "--json",
                   store=store, env=env)


@pytest.mark.parametrize("stage,done", [
    ("facts", ["compile", "facts"]),
    ("rank", ["compile", "facts", "route", "rank"]),
])
def test_a_fill_killed_between_stages_resumes_and_skips_them(store, tmp_path, stage, done):
    clean = _fill(store, tmp_path / "clean")
    assert clean.returncode == 0, clean.stderr
    killed = _fill(store, tmp_path / "killed", env={"PINCITE_FAULTS": f"fill.after_{stage}=kill"})
    assert killed.returncode == -signal.SIGKILL
    assert not (tmp_path / "killed" / "audit.json").exists()
    cp = json.loads((tmp_path / "killed" / "checkpoints.json").read_text())
    assert sorted(cp["done"]) == sorted(done)
    again = _fill(store, tmp_path / "killed")
    assert again.returncode == 0, again.stderr
    doc = json.loads(again.stdout)
    assert doc["skipped"] == done
    assert doc["ran"] == [s for s in ("compile", "facts", "route", "rank", "program",
                                      "coverage", "outputs") if s not in done]
    for name in JSON_ARTIFACTS:
        assert (tmp_path / "killed" / name).read_bytes() == (tmp_path / "clean" / name).read_bytes(), name


def test_changed_inputs_rerun_every_stage(store, tmp_path):
    first = _fill(store, tmp_path / "o")
    assert first.returncode == 0, first.stderr
    marks = tmp_path / "marks.csv"
    marks.write_text("obligation_id,status,target_table,reason\n")  # other marks: other inputs
    r = run_cli("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
                "--out", str(tmp_path / "o"), "--marks", str(marks), "--json", store=store)
    doc = json.loads(r.stdout)
    assert doc["skipped"] == [] and len(doc["ran"]) == 7
    assert doc["summary"]["unresolved_source_coverage"] == 2
