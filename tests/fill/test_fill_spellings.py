"""A label spelled with a statement's usual abbreviations, UK spelling or a hyphenated
compound meets the same label written out (`pincite.fill.spellings`), and abbreviations
with two meanings are left alone."""

from __future__ import annotations

import json
from pathlib import Path

from pincite.evals.fill_tatqa import run_fill_eval
from pincite.fill.labels import label_class, label_similarity, label_tokens
from pincite.fill.spellings import expand, us_spelling


def test_abbreviations_meet_the_words_they_stand_for():
    for short, long in [("PP&E, net", "Property, plant and equipment, net"),
                        ("SG&A", "Selling, general and administrative"),
                        ("R&D", "Research and development"),
                        ("A/R, net", "Accounts receivable, net"),
                        ("Unvested RSUs", "Unvested restricted stock units"),
                        ("DTAs", "Deferred tax assets"),
                        ("Diluted EPS", "Diluted earnings per share"),
                        ("Accum. D&A", "Accumulated depreciation and amortization"),
                        ("U.S. government obligations", "United States government obligations"),
                        ("UK", "United Kingdom"), ("EMEA", "Europe, Middle East and Africa")]:
        assert label_similarity(short, long) == 1.0, short
    assert label_class("COGS") == "cost_of_sales" and label_class("Opex") == "operating_expenses"


def test_uk_spellings_and_hyphenated_compounds_meet_their_other_forms():
    for a, b in [("Capitalised interest", "Capitalized interest"),
                 ("Amortisation of intangibles", "Amortization of intangibles"),
                 ("Licence fees", "License fees"), ("Data centre revenue", "Data center revenue"),
                 ("Operating loss carry-forwards", "Operating loss carryforward"),
                 ("Non-current assets", "Noncurrent assets")]:
        assert label_similarity(a, b) == 1.0, a
    assert us_spelling("recognised") == "recognized" and us_spelling("labour") == "labor"
    assert us_spelling("our") == "our" and us_spelling("four") == "four"


def test_abbreviations_with_two_meanings_and_plain_words_are_left_alone():
    assert label_tokens("NI") == {"ni"} and label_tokens("VA") == {"va"}
    assert label_similarity("NI contributions", "Net income contributions") < 0.5
    assert label_similarity("GP", "Gross profit") == 0.0
    assert expand("campus costs") == "campus costs"  # "us" only as a word of its own
    assert expand("patents") == "patents" and expand("pat") == "profit after tax"
    assert label_similarity("Current assets", "Non-current assets") < 1.0
    assert label_similarity("R&D credits", "Research and development") < 1.0


def _ctx(uid: str, table: list[list[str]], answers: list[str]) -> dict:
    return {"table": {"uid": uid, "table": table},
            "paragraphs": [{"uid": "p1", "order": 1, "text": f"Notes to {uid}."}],
            "questions": [{"uid": f"q{i}", "order": i, "question": "?", "answer": [a],
                           "derivation": "", "answer_type": "span", "answer_from": "table",
                           "facts": [], "scale": ""} for i, a in enumerate(answers)]}


def test_a_target_in_abbreviations_is_filled_from_the_written_out_source(tmp_path: Path):
    """Through ingest, routing, alignment and ranking on SQLite: every row of the target is
    an abbreviation or a UK spelling of a source row; before `spellings` none aligned."""
    costs = [["", "2019", "2018"], ["Selling, general and administrative", "412.5", "398.1"],
             ["Research and development", "220.4", "201.9"],
             ["Depreciation and amortization", "88.0", "80.2"],
             ["Capitalized interest", "(12.1)", "(9.9)"]]
    assets = [["", "2019", "2018"], ["Property, plant and equipment, net", "1,204.0", "1,150.3"],
              ["Accounts receivable, net", "310.2", "295.0"],
              ["Operating loss carryforward", "55.1", "61.0"]]
    contexts = [_ctx("costs", costs, ["412.5", "220.4", "88.0", "(9.9)"]),
                _ctx("assets", assets, ["1,204.0", "295.0", "55.1"])]
    data = tmp_path / "tatqa"
    data.mkdir()
    (data / "dev.json").write_text(json.dumps(contexts), encoding="utf-8")
    words = tmp_path / "labels.json"
    words.write_text(json.dumps({
        "schema_name": "pincite.eval.fill_labels", "version": 1,
        "labels": {"Selling, general and administrative": ["SG&A"],
                   "Research and development": ["R&D"],
                   "Depreciation and amortization": ["D&A"],
                   "Capitalized interest": ["Capitalised interest"],
                   "Property, plant and equipment, net": ["PP&E, net"],
                   "Accounts receivable, net": ["A/R, net"],
                   "Operating loss carryforward": ["Operating loss carry-forwards"]},
        "periods": ["FY{y}"], "scales": {"millions": ["{cur} millions"],
                                         "billions": ["{cur} billions"]}}))
    out = run_fill_eval(data, store_url=str(tmp_path / "store"), label_file=words)
    assert out["row_labels"] == {"respelled": 7}
    assert (out["cells"], out["written_wrong"]) == (7, 0)
    assert out["written_right"] == 7, out["failure_classes"]
