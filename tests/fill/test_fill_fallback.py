"""The gated model fallback, against a local scripted chat server: only unresolved cells with
candidates are asked, the candidates travel as data, and every answer passes
`validate_write` — a supported pick becomes a write, an unsupported value, an unknown fact
or a non-finite number is rejected and the cell stays unresolved."""

from __future__ import annotations

import json

import pytest

import pincite
from pincite.errors import ModelUnavailable
from pincite.fill.fallback import ModelFallback
from pincite.library import fill_workbook
from pincite.testing import Reply, ScriptedChatServer
from tests.fill.test_fill import ANA, DOCS, TARGET, _ingest


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    root = tmp_path_factory.mktemp("fallback")
    library = pincite.open(root / "store", create=True)
    _ingest(library)
    yield library
    library.close()


def _answers(pick: dict) -> object:
    def script(req):
        data = req.data
        cell = data["cell"]["cell_id"]
        assert "never an instruction" not in json.dumps(data)  # data, not the system text
        return pick(cell, data["candidates"])
    return script


def test_a_supported_pick_is_written_and_cited(lib, tmp_path):
    def pick(cell, cands):
        assert cell == "Operating Model!C9"  # the only gated cell: no_candidate ones are not sent
        report = next(c for c in cands if c["doc_id"].endswith("annual-report.pdf@r1"))
        return {"fact_ids": [report["fact_id"]], "value": report["value"], "formula": None,
                "reasoning": "the audited report"}

    with ScriptedChatServer(_answers(pick)) as server:
        res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", model_endpoint=server.url,
                       model="stub")
        assert len(server.requests) == 1
        assert server.requests[0].system.startswith("You choose which candidate facts")
    w = next(w for w in res.audit["writes"] if w["cell_id"] == "Operating Model!C9")
    assert (w["value"], w["origin"], w["model"]) == ("96", "model", "stub")
    assert w["citations"][0]["quote"] == "96.0" and w["citations"][0]["quote_verified"]
    assert res.audit["summary"]["written"] == 20


@pytest.mark.parametrize("answer,error", [
    (lambda c: {"fact_ids": [c[0]["fact_id"]], "value": "97", "formula": None, "reasoning": ""},
     "value_not_supported_by_citation"),
    (lambda c: {"fact_ids": ["fact_0000000000000000"], "value": "96", "formula": None,
                "reasoning": ""}, "unknown_source_fact"),
    (lambda c: {"fact_ids": [c[0]["fact_id"]], "value": "NaN", "formula": None, "reasoning": ""},
     "non_finite_value"),
    (lambda c: {"fact_ids": [c[0]["fact_id"], c[1]["fact_id"]], "value": "191.48",
                "formula": "sum", "reasoning": ""}, None),  # supported, but cites both: a sum
])
def test_what_the_model_proposes_passes_validate_write(lib, tmp_path, answer, error):
    with ScriptedChatServer(_answers(lambda cell, cands: answer(cands))) as server:
        res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", model_endpoint=server.url,
                       model="stub")
    unresolved = {u["cell_id"]: u for u in res.audit["unresolved"]}
    if error is None:
        w = next(w for w in res.audit["writes"] if w["cell_id"] == "Operating Model!C9")
        assert w["formula"] == "sum" and len(w["citations"]) == 2
        return
    assert unresolved["Operating Model!C9"]["reason"] == "ambiguous"
    assert unresolved["Operating Model!C9"]["rejected"]["error"] == error
    assert res.audit["rejected"][0]["validation"]["error"] == error


def test_no_answer_and_a_down_endpoint(lib, tmp_path):
    with ScriptedChatServer(lambda req: "not json at all") as server:
        res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o1", model_endpoint=server.url,
                       model="stub")
    assert res.audit["summary"]["written"] == 19 and res.audit["rejected"] == []
    with ScriptedChatServer(lambda req: Reply(status=503)) as server:
        fb = ModelFallback(server.url, "stub", sleep=lambda s: None)
        with pytest.raises(ModelUnavailable):
            fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o2", fallback=fb)
        assert len(server.requests) == 4  # one try and three retries, then a loud failure
