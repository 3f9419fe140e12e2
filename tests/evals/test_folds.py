"""Document folds of a dev split: the deterministic split, fit beside held out, the refit of
a tuned constant on fit folds only, what `--folds` refuses, and the parser's tuned
constants set and put back."""

from __future__ import annotations

import math

import pytest

from pincite.errors import UsageError
from pincite.evals.folds import check_folds, fold_of, refit, split
from pincite.parse.pdf import page_words, tuning
from tests.commands import invoke


def rate(c):  # type: ignore[no-untyped-def]
    return c["ok"] / c["n"] if c.get("n") else 0.0


def test_fold_is_the_sha256_of_the_id_modulo_k() -> None:
    # sha256("eu-001") = 0x5c0e…; as an integer it is 2 modulo 4
    assert [fold_of(d, 4) for d in ("eu-001", "eu-002", "us-040", "a", "b")] == [2, 0, 3, 3, 1]
    assert fold_of("eu-001", 4) == fold_of("eu-001", 4)


def test_split_reports_fit_and_held_out_per_fold_and_pooled() -> None:
    # folds of 4: a→3, b→1, d→0, e→2 (see above); a copy goes with its original
    per_doc = {"a": {"ok": 9, "n": 10}, "a~r": {"ok": 10, "n": 10}, "b": {"ok": 5, "n": 5},
               "d": {"ok": 1, "n": 4}, "e": {"ok": 2, "n": 2}}
    assert [fold_of(d, 4) for d in "abde"] == [3, 1, 0, 2]
    out = split(per_doc, 4, rate, group=lambda d: d.split("~")[0])
    assert out["k"] == 4
    assert out["folds"][3] == {"fold": 3, "documents": 1, "fit": round(8 / 11, 4),
                               "held_out": round(19 / 20, 4)}
    assert out["folds"][0] == {"fold": 0, "documents": 1, "fit": round(26 / 27, 4),
                               "held_out": 0.25}
    assert out["pooled"] == {"fit": round(27 / 31, 4), "held_out": round(27 / 31, 4)}


def test_refit_chooses_on_fit_folds_only_and_measures_the_held_out_fold() -> None:
    # value 2 is better on b, d and e, worse on a: fold 3 (a held out) chooses 2 on its fit
    # folds and a's held-out figure shows the cost; folds fitted on a keep 1
    good = {"a": {"ok": 10, "n": 10}, "b": {"ok": 4, "n": 5}, "d": {"ok": 3, "n": 4},
            "e": {"ok": 1, "n": 2}}
    better = {"a": {"ok": 5, "n": 10}, "b": {"ok": 5, "n": 5}, "d": {"ok": 4, "n": 4},
              "e": {"ok": 2, "n": 2}}
    out = refit(4, {"K": {1.0: good, 2.0: better}}, {"K": 1.0}, rate)["K"]
    by_fold = {f["fold"]: f for f in out["folds"]}
    assert by_fold[3] == {"fold": 3, "chosen": 2.0, "fit": 1.0, "held_out": 0.5,
                          "held_out_shipped": 1.0}
    assert by_fold[1]["chosen"] == 1.0  # without b's fit: 2 scores 11/16 < 1's 14/16
    assert out["by_value"] == {"1": round(18 / 21, 4), "2": round(16 / 21, 4)}
    assert out["pooled"]["shipped"] == round(18 / 21, 4)


def test_refit_keeps_the_shipped_value_on_a_tie() -> None:
    same = {d: {"ok": 1, "n": 1} for d in "abde"}
    out = refit(2, {"K": {0.5: same, 1.0: same, 3.0: same}}, {"K": 1.0}, rate)["K"]
    assert [f["chosen"] for f in out["folds"]] == [1.0, 1.0]


@pytest.mark.parametrize("k", [1, 0, -3, 5, 2.5, math.nan, math.inf, True, 10**30])
def test_check_folds_refuses(k: object) -> None:
    with pytest.raises(UsageError, match="--folds"):
        check_folds(k, ["a", "b", "d", "e"])


def test_check_folds_refuses_an_empty_fold_and_a_split_of_one() -> None:
    assert [fold_of(d, 3) for d in "abcd"] == [1, 2, 1, 1]
    with pytest.raises(UsageError, match=r"fold\(s\) 0 would hold no document"):
        check_folds(3, "abcd")
    with pytest.raises(UsageError, match="at least 2 documents"):
        check_folds(2, ["a"])
    assert check_folds(2, "abcd") == 2


def test_cli_refuses_refit_without_folds_and_a_bad_fold_count(tmp_path) -> None:
    split_dir = tmp_path / "icdar"
    split_dir.mkdir()
    for stem in ("x1", "x2"):
        for suffix in (".pdf", "-str.xml", "-reg.xml"):
            (split_dir / f"{stem}{suffix}").write_bytes(b"")
    out = invoke("eval", "icdar2013", "--data", str(split_dir), "--refit")
    assert out.returncode != 0 and "give --folds K as well" in out.stderr
    out = invoke("eval", "icdar2013", "--data", str(split_dir), "--folds", "3")
    assert out.returncode != 0 and "--folds must be an integer from 2 to 2, not 3" in out.stderr
    cuad = tmp_path / "cuad"
    (cuad / "full_contract_pdf").mkdir(parents=True)
    (cuad / "derived_spans.jsonl").write_text("", encoding="utf-8")
    out = invoke("eval", "cuad-textlayer", "--data", str(cuad), "--folds", "2")
    assert out.returncode != 0 and "at least 2 documents" in out.stderr


def test_tuned_sets_constants_in_every_module_that_reads_them_and_puts_them_back() -> None:
    from pincite.parse.pdf import blocks, table_detect

    assert tuning.shipped("ROW_OVERLAP") == 0.4
    with tuning.tuned({"ROW_OVERLAP": 0.25, "MIN_BLOCK_ROWS": 4.0}):
        assert page_words.ROW_OVERLAP == blocks.ROW_OVERLAP == table_detect.ROW_OVERLAP == 0.25
        assert blocks.MIN_BLOCK_ROWS == table_detect.MIN_BLOCK_ROWS == 4
        assert isinstance(blocks.MIN_BLOCK_ROWS, int)  # the shipped type
    assert page_words.ROW_OVERLAP == blocks.ROW_OVERLAP == table_detect.ROW_OVERLAP == 0.4
    assert blocks.MIN_BLOCK_ROWS == 3
    with pytest.raises(UsageError, match="not a tuned constant"), tuning.tuned({"NO_SUCH": 1}):
        pass
    for bad in (math.nan, math.inf, -1.0):
        with pytest.raises(UsageError, match="CHUNK_GAP must be a finite number"), \
                tuning.tuned({"CHUNK_GAP": bad}):
            pass
    assert page_words.CHUNK_GAP == 0.75
    for t in tuning.TUNED:  # every grid holds values around the shipped one, never it alone
        assert len(t.grid) >= 3 and min(t.grid) < tuning.shipped(t.name) < max(t.grid)
