"""`eval fill` builds its targets from its own words (evals/fill_labels/), never from the
product's synonym table, period reader or scale detector (issue 26, item 6)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from pincite.errors import UsageError
from pincite.evals import fill_relabel, fill_tatqa
from pincite.evals.fill_relabel import (
    TargetLabels,
    currency_of,
    default_labels,
    label_kind,
    load_labels,
    respell_label,
    respell_period,
    scale_of,
    scale_title,
    years_in,
)
from pincite.evals.fill_tatqa import run_fill_eval
from pincite.evals.tatqa import _contexts, _norm_space, oracle_header_rows
from tests.loud_skips import shared_files

WORDS = TargetLabels(labels={"Net sales": ("Revenue", "Turnover"), "Total": ()},
                     periods=("FY{y}", "FY{yy}"),
                     scales={"millions": ("{cur} m",), "billions": ("{sym}bn",)})


def _imports(module) -> set[str]:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            out.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_eval_target_never_uses_the_products_vocabulary():
    for module in (fill_tatqa, fill_relabel):
        used = _imports(module)
        assert not {m for m in used if m.endswith(("fill.labels", "tables.cues"))
                    or m.startswith(("..parse", "pincite.parse"))}, (module.__name__, used)
    assert not {m for m in _imports(fill_relabel) if "fill" in m}


def test_labels_periods_and_scales_come_from_the_label_file():
    assert respell_label("Net sales", "a", WORDS) in {"Revenue", "Turnover"}
    assert {respell_label("Net sales", str(i), WORDS) for i in range(20)} == {"Revenue", "Turnover"}
    assert respell_label("Total", "x", WORDS) in {"Total", "TOTAL", "total"}
    assert respell_label("Sales and marketing:", "s", WORDS).casefold() == "sales & marketing"
    assert [label_kind(x, WORDS) for x in ("Net sales", "Total", "Drivers")] == [
        "respelled", "case_only", "not_in_file"]
    assert respell_period("2019", "p", WORDS) in {"FY2019", "FY19"}
    assert respell_period("Year ended December 31, 2019", "p", WORDS) in {"FY2019", "FY19"}
    for kept in ("Three months ended March 31, 2019", "Q3 2019", "2019 vs 2018", "Change"):
        assert respell_period(kept, "p", WORDS) == kept
    assert scale_title("billions", ("GBP", "£"), "t", WORDS) == "£bn"
    assert scale_title("millions", None, "t", WORDS) == "USD m"


def test_the_eval_reads_years_scales_and_currencies_itself():
    assert years_in("December 31, 2019") == [2019]
    assert years_in("$ 2,019") == [] and years_in("12,019.5") == []
    assert years_in("2019 2018") == [2019, 2018]
    assert scale_of("(in millions)") == "millions" and scale_of("$'000") == "thousands"
    assert scale_of("€m") == "millions" and scale_of("US$ billion") == "billions"
    assert scale_of("(In thousands, except per share data) in millions") == "thousands"
    assert scale_of("55,000 shares") is None and scale_of("Amount 1,000") is None
    assert currency_of("£m") == ("GBP", "£") and currency_of("€ 12") == ("EUR", "€")
    assert currency_of("S$ million") == ("SGD", "S$") and currency_of("$ 1.2") == ("USD", "$")
    assert currency_of("Headcount") is None


def test_a_label_file_that_is_not_one_is_refused(tmp_path: Path):
    bad = tmp_path / "labels.json"
    bad.write_text(json.dumps({"labels": {}}))
    with pytest.raises(UsageError, match="pincite.eval.fill_labels"):
        load_labels(bad)
    bad.write_text(json.dumps({"schema_name": "pincite.eval.fill_labels", "version": 1,
                               "labels": {"Sales": "Revenue"}, "periods": ["FY{y}"],
                               "scales": {"millions": ["m"], "billions": ["bn"]}}))
    with pytest.raises(UsageError, match="list of respellings"):
        load_labels(bad)
    with pytest.raises(UsageError, match="cannot read"):
        load_labels(tmp_path / "absent.json")


def test_the_report_says_its_labels_are_independent(tmp_path: Path):
    ctx = {"table": {"uid": "staff", "table": [["", "2019", "2018"], ["Drivers", "42", "40"],
                                               ["Total", "49", "46"]]},
           "paragraphs": [], "questions": [{"answer": ["42"], "answer_from": "table",
                                            "derivation": "", "facts": []}]}
    (tmp_path / "dev.json").write_text(json.dumps([ctx]))
    out = run_fill_eval(tmp_path, store_url=str(tmp_path / "store"))
    assert out["labels"] == "independent"
    assert out["label_file"].endswith("tatqa_dev.json")
    assert out["row_labels"] == {"case_only": 1, "not_in_file": 1}
    assert (out["cells"], out["written_right"]) == (1, 1)


@pytest.mark.shared_data("tatqa/dev")
def test_the_label_file_covers_every_dev_row_label_and_tells_rows_apart():
    words = default_labels()
    tables = 0
    for f in shared_files("tatqa/dev", "*.json"):
        for _, ctx in _contexts(f):
            raw = [[_norm_space(c) for c in r] for r in ctx["table"]["table"]]
            labels = [r[0] for r in raw[oracle_header_rows(raw):] if r[0]]
            tables += 1
            for label in labels:
                assert label in words.labels, label
                assert label not in words.labels[label]
            spelled = [(lab, s.casefold()) for lab in set(labels) for s in words.labels[lab]]
            own = {lab.casefold() for lab in labels}
            for lab, s in spelled:
                assert s not in own - {lab.casefold()}, (lab, s)
                assert not [o for o, t in spelled if t == s and o.casefold() != lab.casefold()]
    assert tables >= 100
