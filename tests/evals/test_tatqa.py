"""The TAT-QA table-cell evaluation: gold relations, oracle header rows, and the dev split
through the library and through `pincite eval tatqa-cells`."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands import invoke
from tests.loud_skips import shared_path


def test_tatqa_gold_relations_and_oracle_header_rows() -> None:
    from pincite.evals.tatqa import gold_relation, oracle_header_rows

    assert oracle_header_rows([["", "2019", "2018"], ["", "$'000", "$'000"], ["Current", "", ""],
                               ["Trade payables", "3,486", "4,184"]]) == 2
    assert gold_relation("$ 315,652", ["315,652"], "thousand") == "exact"
    assert gold_relation("Government grants1", ["Government grants"], "") == "partial_cell"
    assert gold_relation("2018", ["2019"], "") == "gold_mismatch"


def test_the_question_grounded_oracle_reads_the_question_not_the_header_rule() -> None:
    from types import SimpleNamespace

    from pincite.evals.tatqa import grounded_problems, question_terms

    table = [["", "2019", "2018"], ["Current", "", ""], ["Trade payables", "3,486", "4,184"],
             ["Non-current", "", ""], ["Provisions", "120", "95"]]
    q = "What were the trade payables in 2019?"
    assert question_terms(table, 2, 1, q) == (["Trade payables"], ["2019"])
    assert question_terms(table, 4, 0, "What are the components under Non-current?") == (
        ["Non-current"], [])  # "current" alone is not named: whole words only
    assert question_terms(table, 2, 1, "What is the figure?") == ([], [])

    def cell(rows: tuple[str, ...], cols: tuple[str, ...]) -> SimpleNamespace:
        return SimpleNamespace(row_path=rows, column_path=cols)

    assert grounded_problems(table, 2, 1, q, cell(("Current", "Trade payables"), ("2019",))) == []
    assert grounded_problems(table, 2, 1, q, cell(("Trade payables",), ("2018",))) == [
        "column_not_in_path"]
    assert grounded_problems(table, 2, 1, q, cell((), ())) == [
        "row_label_not_in_path", "column_not_in_path"]
    assert grounded_problems(table, 2, 1, "What is the figure?", cell((), ())) is None


@pytest.mark.shared_data("tatqa/dev")
def test_tatqa_cells_eval_on_the_dev_split(tmp_path: Path) -> None:
    from pincite.evals.tatqa import run_tatqa_cells

    r = run_tatqa_cells(shared_path("tatqa/dev"), store_url=str(tmp_path / "store"))
    assert r["dataset"] == "tatqa-cells"
    assert 0 < r["skipped"] < r["questions"]
    assert r["evaluated"] > 50 and r["accuracy"] >= 0.98
    assert set(r["by_format"]) == {"html", "xlsx"}
    assert all(f["accuracy"] >= 0.98 for f in r["by_format"].values())
    assert r["all_cells"]["html"]["accuracy"] >= 0.98
    # the figure that does not lean on the parser's own header rule
    assert r["question_grounded_cases"] > 40 and r["question_grounded_accuracy"] >= 0.95


@pytest.mark.shared_data("tatqa/dev")
def test_eval_tatqa_cells_command(tmp_path: Path) -> None:
    import json

    dev = shared_path("tatqa/dev")
    p = invoke("eval", "tatqa-cells", "--data", str(dev), "--json", store=tmp_path / "s")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["dataset"] == "tatqa-cells" and out["accuracy"] >= 0.98
    p = invoke("eval", "tatqa-cells", "--data", str(tmp_path / "nowhere"))
    assert p.returncode != 0 and p.stderr.startswith("error:")
