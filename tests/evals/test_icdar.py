"""The ICDAR 2013 table evaluation: adjacency relations over spanning cells, and its JSON
on two real documents of the dev split and their turned copies."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.evals.icdar import Cell, relations, run_icdar2013
from tests.loud_skips import shared_path

ICDAR = "icdar2013_tables/dev"


def test_adjacency_relations_follow_spans() -> None:
    cells = [Cell(0, 1, 0, 2, "Grade"), Cell(1, 0, 1, 0, "Year"), Cell(1, 1, 1, 1, "1"),
             Cell(1, 2, 1, 2, "2"), Cell(2, 0, 2, 0, "1996"), Cell(2, 2, 2, 2, "7")]
    rel = relations(cells)
    assert rel[("grade", "1", "below")] == 1 and rel[("grade", "2", "below")] == 1
    assert rel[("year", "1", "right")] == 1
    assert rel[("1996", "7", "right")] == 1  # the empty cell is skipped
    assert rel[("2", "7", "below")] == 1 and ("1", "7", "below") not in rel


@pytest.mark.shared_data(ICDAR)
def test_icdar_eval_json_shape(tmp_path: Path) -> None:
    pytest.importorskip("pdfplumber")
    split = tmp_path / "split"
    split.mkdir()
    for stem in ("eu-002", "us-040"):
        for suffix in (".pdf", "-str.xml", "-reg.xml"):
            (split / f"{stem}{suffix}").write_bytes(shared_path(f"{ICDAR}/{stem}{suffix}").read_bytes())
    result = json.loads(json.dumps(run_icdar2013(split)))
    assert result["dataset"] == "icdar2013"
    for name in ("pincite", "pdfplumber"):
        sys_ = result["systems"][name]
        for key in ("detection_precision", "detection_recall", "precision", "recall", "f1"):
            assert 0.0 <= sys_[key] <= 1.0
    assert result["systems"]["pincite"]["detection_recall"] == 1.0
    assert result["systems"]["pincite"]["f1"] >= 0.9
    for row in ("rotate90", "rotate90_turned"):  # the same pages turned: the same tables
        assert result["rows"][row]["pincite"]["detection_recall"] == 1.0
        assert result["rows"][row]["pincite"]["f1"] == result["systems"]["pincite"]["f1"]
        assert 0.0 <= result["rows"][row]["pdfplumber"]["f1"] <= 1.0
