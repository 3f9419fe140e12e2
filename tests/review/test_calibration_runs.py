"""Calibration counts only the extraction runs over documents the caller may read: a run
over a document it cannot see is neither counted nor dated (issue 25: the count of runs
told a reviewer that cases it could not read existed)."""

from __future__ import annotations

from pathlib import Path

import pincite
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.model import Principal
from tests.commands import invoke

ANA = Principal.parse("demo:ana:analysts")
OLA = Principal.parse("demo:ola:board")
EVE = Principal.parse("demo:eve:outsiders")
SCHEMA = """name: fees
version: 1
fields:
  - name: fee
    type: money
    synonyms: {en: [fee]}
"""


def _store(tmp_path: Path, store_url: str):
    lib = pincite.open(store_url, create=True)
    for sid, acl in (("open.md", "group:analysts"), ("board.md", "group:board")):
        lib.ingest_bytes(f"# {sid}\n\n1. Fee\n\nThe fee is EUR 1,200.\n".encode(), source_id=sid,
                         tenant="demo", acl=[acl], sandbox=False)
    path = tmp_path / "fees.yaml"
    path.write_text(SCHEMA, encoding="utf-8")
    schema = load_schema(path)
    run_extraction(lib.store, ANA, schema, ["open.md"], route=False)
    for _ in range(2):  # two runs over the board's document, which ana cannot read
        run_extraction(lib.store, OLA, schema, ["board.md"], route=False)
    return lib


def test_calibration_counts_only_the_runs_over_readable_documents(tmp_path, store_url):
    lib = _store(tmp_path, store_url)
    assert lib.calibration(ANA)["runs"] == 1
    assert lib.calibration(OLA)["runs"] == 2
    assert lib.calibration(EVE)["runs"] == 0
    assert lib.store.extraction_span("demo")[2] == 3  # the store itself still holds all three
    lib.close()
    run = invoke("calibrate", "--json", "--as", str(ANA), store=store_url)
    assert run.returncode == 0, run.stderr
    assert '"runs": 1' in run.stdout
