"""`eval fill`: TAT-QA-shaped tables written here, relabelled as operating models (synonyms,
period spellings, another scale, percent formats), filled, scored with failure classes."""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

from openpyxl import load_workbook

from pincite.evals.fill_relabel import default_labels
from pincite.evals.fill_tatqa import build_case, respell_label, respell_period, run_fill_eval
from pincite.evals.folds import fold_of
from pincite.fill.labels import label_class, label_similarity, path_similarity, period_of
from tests.commands import invoke

SALES = [["", "Years Ended September 30,", ""], ["", "2019", "2018"],
         ["", "(in millions)", ""],
         ["Net sales", "$ 1,452.4", "$ 1,146.2"], ["Cost of sales", "(812.0)", "(700.5)"],
         ["Gross profit", "640.4", "445.7"], ["Gross margin", "44.1%", "38.9%"]]
RATES = [["", "Domestic", "", "International", ""], ["", "2019", "2018", "2019", "2018"],
         ["Discount rate", "4.00%", "3.75%", "1.90%", "2.80%"]]
STAFF = [["", "2019", "2018"], ["Drivers", "42", "40"], ["Mechanics", "7", "6"]]


def _q(order: int, answer, derivation: str = "", frm: str = "table") -> dict:
    return {"uid": f"q{order}", "order": order, "question": "?", "answer": answer,
            "derivation": derivation, "answer_type": "arithmetic" if derivation else "span",
            "answer_from": frm, "rel_paragraphs": [], "req_comparison": False, "scale": ""}


def _ctx(uid: str, table: list[list[str]], qs: list[dict]) -> dict:
    return {"table": {"uid": uid, "table": table},
            "paragraphs": [{"uid": "p1", "order": 1, "text": f"Notes to table {uid}."}],
            "questions": qs}


CONTEXTS = [
    _ctx("sales", SALES, [_q(1, ["$ 1,452.4"]), _q(2, 11.6, "(640.4-445.7)/445.7 ... 38.9"),
                          _q(3, ["ignored"], frm="text")]),
    _ctx("rates", RATES, [_q(1, 0.95, "3.75 - 2.80")]),
    _ctx("people", STAFF, [_q(1, ["42"]), _q(2, 1, "7 - 6")]),
]


def test_labels_periods_and_synonyms():
    assert label_class("Importe neto de la cifra de negocios") == "revenue" == label_class("Net sales")
    assert label_similarity("Sales", "Total sales") == 0.9
    assert label_similarity("EBITDA", "Adjusted EBITDA") == 0.0
    assert label_similarity("Free cash flow", "Free cash flow (pre-spectrum)") < 1.0
    assert label_similarity("Revenue (EUR m)", "revenue") == 1.0
    assert path_similarity(["RSUs", "Granted"], ["PSUs", "Granted"]) == 0.5
    for text, year, scen in [("FY2024", 2024, None), ("2024A", 2024, "actual"),
                             ("Ejercicio 2024", 2024, None), ("FY24", 2024, None),
                             ("31 Dec 2024", 2024, None), ("2024 Budget", 2024, "budget"),
                             ("2024 2023", None, "mixed")]:
        p = period_of([text])
        assert (p.year, p.scenario) == (year, scen), text


def test_the_target_is_relabelled_not_copied(tmp_path: Path):
    case = build_case(CONTEXTS[0])
    assert case is not None and case["scale_relabel"]
    (tmp_path / "t.xlsx").write_bytes(case["target"])
    ws = load_workbook(tmp_path / "t.xlsx").active
    words = default_labels()  # the eval's own vocabulary, not the product's synonym table
    assert ws["A1"].value in {f"Operating model ({w.format(cur='USD', sym='$')})"
                              for w in words.scales["billions"]}
    labels = [ws.cell(r, 1).value for r in range(4, 8)]
    assert labels[0] != "Net sales" and labels[0] in words.labels["Net sales"]
    assert {c["ref"]: c["expected"] for c in case["cells"]} == {
        "B4": Decimal("1.4524"), "B6": Decimal("0.6404"), "C6": Decimal("0.4457"),
        "C7": Decimal("0.389")}
    assert ws["C7"].number_format == "0.0%" and ws["B5"].value == "(812.0)"
    assert respell_period("2019", "x") in {p.format(y=2019, yy="19") for p in words.periods}
    assert respell_label("Total sales", "s") != "Total sales"


def test_eval_fill_counts_classes_and_folds(tmp_path: Path):
    data = tmp_path / "tatqa"
    data.mkdir()
    (data / "dev.json").write_text(json.dumps(CONTEXTS), encoding="utf-8")
    assert sorted({fold_of(u, 2) for u in ("sales", "rates", "people")}) == [0, 1]
    words = tmp_path / "labels.json"  # this test's own target words (the eval's file is DEV data)
    words.write_text(json.dumps({
        "schema_name": "pincite.eval.fill_labels", "version": 1,
        "labels": {"Net sales": ["Net revenue"], "Gross margin": ["Gross margin (%)"]},
        "periods": ["FY{y}", "{y}A", "FY{yy}"],
        "scales": {"millions": ["{cur} millions"], "billions": ["{cur} billions"]}}))
    out = run_fill_eval(data, store_url=str(tmp_path / "store"), folds=2, label_file=words)
    assert out["contexts"] == 3
    assert out["cells"] == 4 + 2 + 3
    assert out["written_right"] + out["written_wrong"] + out["unresolved"] == out["cells"]
    assert out["written_wrong"] == 0
    # the two "2018" discount rates under Domestic and International: the source's columns
    # do not carry the spanning header, so the write is refused, not guessed
    assert out["failure_classes"] == {"ambiguous": 2}
    assert out["written_right"] == 7
    assert out["tables"] == {"target_tables": 3, "route_top1": 3, "route_found": 3}
    rec = out["examples"]["ambiguous"][0]
    assert set(rec) >= {"case_id", "target_cell", "expected", "actual", "failure_class",
                        "winner", "expected_fact"}
    assert rec["expected_fact"]["row_path"] == ["Discount rate"]
    assert [f["fold"] for f in out["folds"]["folds"]] == [0, 1]
    assert out["folds"]["pooled"]["held_out"]["cells"] == out["cells"]


def test_cli_eval_fill(tmp_path: Path):
    data = tmp_path / "tatqa"
    data.mkdir()
    (data / "dev.json").write_text(json.dumps(CONTEXTS[2:]), encoding="utf-8")
    r = invoke("eval", "fill", "--data", str(data), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert (doc["cells"], doc["written_right"], doc["written_wrong"], doc["unresolved"]) == (3, 3, 0, 0)
    assert doc["failure_classes"] == {}
    r = invoke("eval", "fill", "--data", str(tmp_path / "nothing"))
    assert r.returncode == 2 and "TAT-QA" in r.stderr
    r = invoke("eval", "fill", "--data", str(data), "--folds", "2")
    assert r.returncode == 2 and "--folds" in r.stderr
