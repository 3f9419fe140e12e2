"""`eval ask-cuad` / `eval ask-tatqa`: the counts, the matching rules, document folds with
thresholds chosen on fit folds only, and what the commands refuse. The TAT-QA run uses
tables written here (no dataset text) and the hash embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import UsageError
from pincite.evals.ask_cuad import QUESTIONS, right
from pincite.evals.ask_scoring import check_folds, count, fold_of, rates, refit, wilson
from pincite.evals.ask_tatqa import normalise, questions, run_ask_tatqa
from pincite.index.policy import RankingPolicy
from tests.commands import invoke
from tests.loud_skips import shared_path


def test_counts_split_wrong_answers_by_kind():
    c = count([(True, True, True), (True, True, False), (True, False, False),
               (False, False, False), (False, True, False)])
    assert dict(c) == {"answerable": 3, "answered_right": 1, "answered_wrong": 2,
                       "unanswerable": 2, "abstained_right": 1, "wrong_span": 1,
                       "answered_unanswerable": 1}
    r = rates(c)
    assert (r["right_rate"], r["wrong_rate"], r["abstain_rate"]) == (0.3333, 0.6667, 0.5)
    assert r["wrong_rate_ci"] == wilson(2, 3)


def test_wilson_interval():
    assert wilson(0, 0) is None
    assert wilson(8, 10) == [0.4902, 0.9433]
    assert wilson(0, 20)[0] == 0.0 and wilson(20, 20)[1] == 1.0


def test_folds_are_fixed_by_the_document_id_and_refused_when_empty():
    assert fold_of("contract-a.pdf", 5) == fold_of("contract-a.pdf", 5)
    docs = [f"d{i}" for i in range(6)]
    assert check_folds(2, docs) == 2
    for bad in (1, 0, 7, 2.5, "3", float("nan")):
        with pytest.raises(UsageError):
            check_folds(bad, docs)
    with pytest.raises(UsageError, match="at least 2 documents"):
        check_folds(2, ["only"])


def test_refit_chooses_thresholds_on_fit_folds_only():
    # two settings: (0.5, 0.3) answers everything, half wrong; (0.8, 0.3) answers the
    # right ones only. Each fold must choose (0.8, 0.3) from the other folds' counts.
    loose, strict = (0.5, 0.3), (0.8, 0.3)
    per_doc = {f"doc{i}": {loose: [(True, True, True), (False, True, False)],
                           strict: [(True, True, True), (False, False, False)]}
               for i in range(6)}
    out = refit(per_doc, 3, RankingPolicy(ask_min_coverage=0.5, ask_min_dense=0.3))
    assert [r["chosen"] for r in out["folds"]] == [
        {"ask_min_coverage": 0.8, "ask_min_dense": 0.3}] * 3
    held = out["pooled"]["held_out"]
    assert (held["answered_right"], held["answered_wrong"], held["abstained_right"]) == (6, 0, 6)
    assert out["folds"][0]["held_out_shipped"]["answered_wrong"] == sum(
        1 for d in per_doc if fold_of(d, 3) == 0)


def test_a_cited_span_is_right_when_it_overlaps_half_of_the_shorter():
    assert right((100, 200), [(150, 160)])          # a date inside the cited sentence
    assert right((100, 200), [(0, 1000)])           # a sentence inside the gold clause
    assert right((100, 200), [(140, 400)])          # 60 of the 100 cited characters
    assert not right((100, 200), [(160, 400)])      # 40 of 100
    assert not right((100, 200), [(200, 300)])      # adjacent, no overlap
    assert not right((100, 200), [])


@pytest.mark.shared_data("cuad")
def test_every_cuad_category_has_a_question():
    from pincite.evals.cuad import load_gold

    cats = {g.category for g in load_gold(shared_path("cuad/dev"))}
    assert len(cats) == 41 and cats == set(QUESTIONS)
    assert all(q.endswith("?") for q in QUESTIONS.values())


TABLE = [["Fleet costs (in thousands)", "", ""], ["", "2025", "2024"],
         ["Fuel", "1,200", "1,050"], ["Maintenance", "$ 800", "$750"],
         ["Insurance premiums", "300", "310"]]


def _q(n: int, text: str, answer: object, source: str, **kw: object) -> dict:
    return {"uid": f"q{n}", "order": n, "question": text, "answer": answer, "derivation": "",
            "answer_type": kw.pop("kind", "span"), "answer_from": source,
            "rel_paragraphs": [], "scale": "", **kw}


def _context(uid: str, table: list[list[str]], qs: list[dict] | None = None) -> dict:
    q = _q
    return {"table": {"uid": uid, "table": table}, "paragraphs": [], "questions": qs or [
        q(1, "What were the fuel costs in 2025?", ["1,200"], "table"),
        q(2, "What was the maintenance cost in 2024?", ["$750"], "table"),
        q(3, "In which year were insurance premiums higher?", ["2024"], "table",
          req_comparison=True),
        q(4, "What drove the change in fuel costs?", ["higher prices of diesel"], "text"),
        q(5, "What was the total?", ["2,300"], "table", kind="arithmetic"),
        q(6, "What were fuel costs in 2025 per the report?", ["1,200"], "text"),
    ]}


def test_questions_are_answerable_only_when_one_cell_states_them():
    qs = questions(_context("t1", TABLE))
    assert [(q["order"], ok) for q, ok in qs] == [(1, True), (2, True), (3, False), (4, False)]
    assert normalise("$ 1,200.5") == "1200.5" and normalise("12 million", "million") == "12"


def test_ask_tatqa_runs_on_tables_written_here(tmp_path: Path):
    data = tmp_path / "tatqa"
    data.mkdir()
    other = [["Staff (number)", "2025", "2024"], ["Drivers", "42", "40"],
             ["Mechanics", "7", "6"]]
    assert (fold_of("a", 2), fold_of("c", 2)) == (1, 0)  # one table in each fold
    staff = [_q(1, "How many drivers were on the staff in 2025?", ["42"], "table"),
             _q(2, "Why did the number of mechanics grow?", ["a second depot opened"], "text")]
    (data / "own.json").write_text(json.dumps([_context("a", TABLE), _context("c", other, staff)]),
                                   encoding="utf-8")
    out = run_ask_tatqa(data, store_url=str(tmp_path / "store"), embedder="hash", folds=2)
    assert out["tables"] == 2
    assert (out["answerable"], out["unanswerable"]) == (3, 3)
    assert out["answered_right"] == 3 and out["answered_wrong"] == 0
    assert out["abstained_right"] == 3
    assert [r["fold"] for r in out["folds"]["folds"]] == [0, 1]


def test_ask_eval_commands_refuse_bad_input(tmp_path: Path):
    (tmp_path / "empty").mkdir()
    r = invoke("eval", "ask-tatqa", "--data", str(tmp_path / "empty"), "--embedder", "hash")
    assert r.returncode != 0 and "TAT-QA" in r.stderr
    r = invoke("eval", "ask-cuad", "--data", str(tmp_path / "empty"), "--embedder", "hash")
    assert r.returncode != 0 and "derived_spans.jsonl" in r.stderr
    data = tmp_path / "one"
    data.mkdir()
    (data / "own.json").write_text(json.dumps([_context("t1", TABLE)]), encoding="utf-8")
    r = invoke("eval", "ask-tatqa", "--data", str(data), "--embedder", "hash", "--folds", "3",
               "--store", str(tmp_path / "s"))
    assert r.returncode != 0 and "--folds" in r.stderr


@pytest.mark.shared_data("cuad/dev")
def test_ask_cuad_asks_every_phrasing_of_a_questions_file(tmp_path: Path):
    from pincite.evals.ask_cuad import run_ask_cuad

    data = shared_path("cuad/dev")
    small = min((data / "full_contract_pdf").iterdir(), key=lambda p: p.stat().st_size).name
    qfile = tmp_path / "q.json"
    phrasings = {"Governing Law": ["formal|Which jurisdiction's law governs this contract?",
                                   "casual|what law applies here"],
                 "Parties": ["Who signed this deal?"]}
    qfile.write_text(json.dumps(phrasings), encoding="utf-8")
    out = run_ask_cuad(data, store_url=str(tmp_path / "store"), embedder="hash", only=[small],
                       questions=qfile)
    rows = out["by_phrasing"]
    assert [(r["category"], r["phrasing"], r["style"]) for r in rows] == [
        ("Governing Law", "Which jurisdiction's law governs this contract?", "formal"),
        ("Governing Law", "what law applies here", "casual"),
        ("Parties", "Who signed this deal?", "")]
    for k in ("answered_right", "answered_wrong", "abstained_right", "answerable"):
        assert sum(r[k] for r in rows) == out[k]  # the totals count every phrasing asked
    assert out["answerable"] + out["unanswerable"] == 3  # one contract, three phrasings
    assert set(out["by_style"]) == {"formal", "casual", ""}
    qfile.write_text(json.dumps({"No Such Category": ["What?"]}), encoding="utf-8")
    r = invoke("eval", "ask-cuad", "--data", str(data), "--embedder", "hash",
               "--questions", str(qfile), "--store", str(tmp_path / "s2"))
    assert r.returncode != 0 and "unknown category" in r.stderr


def test_ask_tatqa_fills_kind_templates_from_the_answering_cells(tmp_path: Path):
    data = tmp_path / "tatqa"
    data.mkdir()
    other = [["Staff (number)", "2025", "2024"], ["Drivers", "42", "40"]]
    staff = [_q(1, "How many drivers were on the staff in 2025?", ["42"], "table")]
    (data / "own.json").write_text(json.dumps([_context("a", TABLE), _context("c", other, staff)]),
                                   encoding="utf-8")
    qfile = tmp_path / "kinds.json"
    qfile.write_text(json.dumps({"value_of_item_in_year": [
        "formal|What was the amount reported for {item} in {year}?",
        "casual|{item} {year}?"], "change": ["How did {item} change from {year} to {year2}?"]}),
        encoding="utf-8")
    out = run_ask_tatqa(data, store_url=str(tmp_path / "store"), embedder="hash",
                        questions_file=qfile)
    rows = out["by_phrasing"]
    assert [r["style"] for r in rows] == ["formal", "casual", ""]
    assert rows[2]["answerable"] + rows[2]["unanswerable"] == 0  # {year2}: not asked
    # three answering cells (fuel 2025, maintenance 2024, drivers 2025), two phrasings each
    assert (out["answerable"], rows[0]["answerable"]) == (6, 3)
    assert out["unanswerable"] >= 2 and out["answered_wrong"] == 0
    assert out["answered_right"] >= 2
