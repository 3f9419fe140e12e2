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
