"""The CUAD extraction eval: its metrics on hand-made cases with known numbers, the whole
path (PDF → ingest → extract → score) on a contract written here, and the JSON contract
and invariants on two real dev contracts."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest
from reportlab.lib.pagesizes import letter
from reportlab.pdfgen import canvas

from pincite.evals.cuad import (
    THRESHOLDS,
    PairResult,
    Question,
    aupr,
    cuad_counts,
    cuad_curve,
    cuad_jaccard,
    field_name,
    monotone,
    precision_at_recall,
    run_cuad,
    score,
    span_right,
)
from pincite.extract.schema import load_schema
from tests.commands import invoke
from tests.corpus import EXAMPLES
from tests.loud_skips import shared_files, shared_path

CUAD_DEV = "cuad/dev"
OVERALL_KEYS = {"show_precision", "flag_precision", "abstain_precision", "abstain_recall",
                "review_rate", "shown_or_flagged", "aupr", "p_at_80r", "p_at_90r",
                "unlocated_gold"}
FAILURES = {"missing_route", "wrong_span", "false_show", "false_abstain", "unverified",
            "conflicting"}

# ---- the metrics on known numbers ----------------------------------------------------------

TEXT = "Alpha beta gamma delta. Governing law is Texas. Other words here."
ALPHA = (TEXT.index("Alpha"), TEXT.index("Governing") - 1)
GOV = (TEXT.index("Governing"), TEXT.index("Other") - 1)
OTHER = (TEXT.index("Other"), len(TEXT))


def _t(span: tuple[int, int]) -> str:
    return TEXT[span[0]:span[1]]


def _pairs() -> list[PairResult]:
    def pair(cat: str, gold: list[tuple[int, int]], outcome: str, cited: list[tuple[int, int]],
             cands: list[tuple[tuple[int, int], float]]) -> PairResult:
        return PairResult("k.pdf", cat, bool(gold), TEXT, [[[g]] for g in gold],
                          [_t(g) for g in gold], outcome, 0.5, "present" if cited else "absent",
                          bool(cited), True, cited, [(_t(s), p, s[0], s[1]) for s, p in cands])

    return [
        pair("Governing Law", [GOV], "show", [GOV], [(GOV, 0.9)]),        # right
        pair("Governing Law", [], "show", [OTHER], [(OTHER, 0.8)]),       # false_show
        pair("Insurance", [ALPHA], "flag", [OTHER], [(OTHER, 0.6), (ALPHA, 0.3)]),  # wrong_span
        pair("Insurance", [], "abstain", [], []),                         # right abstain
        pair("Insurance", [ALPHA], "abstain", [], []),                    # false_abstain
        pair("Insurance", [ALPHA], "review", [OTHER], [(OTHER, 0.2)]),    # missing_route
    ]


def test_cuad_jaccard_and_counts_follow_the_official_rule():
    assert cuad_jaccard("The cat sat.", "the cat") == pytest.approx(2 / 3)
    assert cuad_jaccard("a/b; c", "A B C") == 1.0
    # a gold found by some prediction is a tp, a prediction matching no gold a fp
    assert cuad_counts(["x y z", "p q"], ["x y z w", "nothing at all"]) == (1, 1, 1)
    assert cuad_counts([], ["a", "b"]) == (0, 2, 0)
    # Parties also accepts containment
    assert cuad_counts(["Acme"], ["Acme Corp, a Delaware corporation (the Seller)"], True) == (1, 0, 0)
    assert field_name("Rofr/Rofo/Rofn") == "rofr_rofo_rofn"
    assert field_name("Unlimited/All-You-Can-Eat-License") == "unlimited_all_you_can_eat_license"


def test_span_rule_covers_half_the_tokens_and_bounds_the_length():
    assert span_right(TEXT, GOV, GOV)
    assert span_right(TEXT, GOV, (GOV[0], GOV[0] + 13))        # "Governing law" 2 of 4 tokens
    assert not span_right(TEXT, GOV, (GOV[0], GOV[0] + 9))     # 1 of 4
    long = "x " * 200 + "Governing law is Texas." + " y" * 200
    g = (long.index("Governing"), long.index("Texas.") + 6)
    assert span_right(long, g, (g[0] - 300, g[1]))             # 23 + 300 ≤ 2 × 23 + 300
    assert not span_right(long, g, (g[0] - 330, g[1]))


def test_curve_aupr_and_precision_at_recall_on_known_numbers():
    qs = [Question([_t(p.gold[0][0][0])] if p.gold else [], {t: pr for t, pr, _, _ in p.candidates})
          for p in _pairs()]
    precisions, recalls = cuad_curve(qs)
    assert len(precisions) == len(THRESHOLDS) + 1 == 102
    # > 0.9: nothing; > 0.8: the right one; then a fp, a fp, the second gold, a fp
    assert math.isnan(precisions[1]) and recalls[1] == 0.0
    assert (precisions[11], recalls[11]) == (1.0, 0.25)
    assert precisions[21] == 0.5 and precisions[41] == pytest.approx(1 / 3)
    assert (precisions[71], recalls[71]) == (0.5, 0.5)
    assert (precisions[-1], recalls[-1]) == (0.4, 0.5)
    assert monotone([1.0, math.nan, 0.2, 0.5, 0.4]) == [1.0, 0.5, 0.5, 0.5, 0.4]
    assert aupr(precisions, recalls) == pytest.approx(0.25 + 0.125)
    assert precision_at_recall(precisions, recalls, 0.25) == 1.0
    assert precision_at_recall(precisions, recalls, 0.5) == 0.5
    assert precision_at_recall(precisions, recalls, 0.8) == 0.0
    # the cached curve is the plain one: cuad_counts over the predictions above each threshold
    for i, conf in enumerate(THRESHOLDS, 1):
        tp = fp = fn = 0
        for q in qs:
            a, b, c = cuad_counts(q.golds, [t for t, p in q.preds.items() if p > conf])
            tp, fp, fn = tp + a, fp + b, fn + c
        assert recalls[i] == tp / (tp + fn)
        assert (math.isnan(precisions[i]) and tp + fp == 0) or precisions[i] == tp / (tp + fp)


def test_score_on_known_pairs():
    r = score(_pairs())
    o = r["overall"]
    assert set(o) == OVERALL_KEYS
    assert o["show_precision"] == 0.5
    assert o["flag_precision"] == 0.0
    assert o["abstain_precision"] == 0.5
    assert o["abstain_recall"] == 0.5
    assert o["review_rate"] == round(1 / 6, 4)
    assert o["shown_or_flagged"] == 0.25
    assert o["aupr"] == 0.375 and o["p_at_80r"] == 0.0 and o["p_at_90r"] == 0.0
    assert o["unlocated_gold"] == 0
    assert {k: v["count"] for k, v in r["failure_classes"].items()} == {
        "missing_route": 1, "wrong_span": 1, "false_show": 1, "false_abstain": 1,
        "unverified": 0, "conflicting": 0}
    assert r["failure_classes"]["wrong_span"]["examples"][0]["quote"] == "Other words here."
    gov = r["categories"]["Governing Law"]
    assert (gov["show_precision"], gov["aupr"], gov["p_at_80r"]) == (0.5, 1.0, 1.0)
    assert r["counts"]["pairs"] == 6 and r["counts"]["gold_clauses"] == 4


# ---- the whole path on a contract written here ----------------------------------------------

CLAUSES = [
    ("1. Governing Law.", "This Agreement shall be governed by the laws of the State of Texas."),
    ("2. Payment.", "The Buyer shall pay each invoice within thirty days of receipt."),
    ("3. Assignment.", "Neither party may assign this Agreement without the prior written "
                       "consent of the other party."),
]
SCHEMA = """
name: cuad-mini
fields:
  - name: governing_law
    type: clause
    synonyms: {en: [governing law, governed by]}
    patterns: ['\\bgoverned\\s+by\\s+the\\s+laws?\\s+of\\b']
    tau_show: 0.5
    tau_flag: 0.3
  - name: anti_assignment
    type: clause
    synonyms: {en: [assign, assignment]}
    patterns: ['\\bassign\\b[^.]{0,80}\\bconsent\\b']
    tau_show: 1.0
    tau_flag: 0.3
  - name: insurance
    type: clause
    synonyms: {en: [insurance]}
  - name: audit_rights
    type: clause
    synonyms: {en: [audit]}
"""


def _split(tmp: Path) -> Path:
    split = tmp / "split"
    (split / "full_contract_pdf").mkdir(parents=True)
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=letter)
    y = 720
    c.setFont("Helvetica-Bold", 12)
    c.drawString(72, y, "SUPPLY AGREEMENT")
    for title, body in CLAUSES:
        y -= 36
        c.setFont("Helvetica", 9)
        c.drawString(72, y, f"{title} {body}")
    c.save()
    (split / "full_contract_pdf" / "MINI.pdf").write_bytes(buf.getvalue())
    gold = {"Governing Law": CLAUSES[0][1], "Anti-Assignment": CLAUSES[2][1], "Insurance": None,
            "Audit Rights": CLAUSES[1][1]}
    with (split / "derived_spans.jsonl").open("w", encoding="utf-8") as f:
        for cat, text in gold.items():
            clauses = [{"clause_text": text, "segments": [{"text": text}]}] if text else []
            f.write(json.dumps({"filename": "MINI.pdf", "pdf_file": "full_contract_pdf/MINI.pdf",
                                "category": cat, "has_clause": bool(text), "clauses": clauses}) + "\n")
    (tmp / "schema.yaml").write_text(SCHEMA, encoding="utf-8")
    return split


def test_eval_on_a_contract_written_here(tmp_path: Path):
    split = _split(tmp_path)
    r = run_cuad(split, schema_path=tmp_path / "schema.yaml")
    o = r["overall"]
    assert r["documents"] == 1 and r["quarantined"] == []
    assert o["show_precision"] == 1.0          # governing law, shown and right
    assert o["flag_precision"] == 1.0          # anti-assignment, flagged and right
    assert o["abstain_precision"] == 0.5       # insurance right, audit rights (a clause) wrong
    assert o["abstain_recall"] == 1.0
    assert o["review_rate"] == 0.0
    assert o["shown_or_flagged"] == round(2 / 3, 4)
    assert o["aupr"] == round(2 / 3, 4) and o["p_at_80r"] == 0.0
    assert r["failure_classes"]["false_abstain"]["count"] == 1
    assert sum(v["count"] for v in r["failure_classes"].values()) == 1
    assert r["invariants"] == {"records": 4, "value_without_verified_provenance": 0,
                               "show_flag_citations": 2, "show_flag_citations_unverified": 0}


def test_cli_eval_cuad_json(tmp_path: Path):
    split = _split(tmp_path)
    p = invoke("eval", "cuad", "--data", str(split), "--schema", str(tmp_path / "schema.yaml"),
                "--json")
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["dataset"] == "cuad" and r["overall"]["show_precision"] == 1.0
    bad = invoke("eval", "cuad", "--data", str(tmp_path))
    assert bad.returncode == 2 and "derived_spans.jsonl" in bad.stderr


def test_cuad_schema_has_every_category():
    schema = load_schema(EXAMPLES / "contracts" / "cuad.yaml")
    assert len(schema.fields) == 41
    assert all(f.type == "clause" and f.description for f in schema.fields)


# ---- real contracts ------------------------------------------------------------------------

@pytest.mark.shared_data(CUAD_DEV)
def test_eval_on_two_dev_contracts_keeps_the_contract_and_the_invariants():
    names = [p.name for p in shared_files(f"{CUAD_DEV}/full_contract_pdf")][:2]
    r = run_cuad(shared_path(CUAD_DEV), only=names)
    assert set(r) >= {"dataset", "overall", "categories", "failure_classes", "invariants"}
    assert r["dataset"] == "cuad" and r["documents"] == 2
    assert set(r["overall"]) == OVERALL_KEYS
    assert set(r["failure_classes"]) == FAILURES
    assert len(r["categories"]) == 41 and r["counts"]["pairs"] == 82
    inv = r["invariants"]
    assert inv["records"] == 82
    assert inv["value_without_verified_provenance"] == 0
    assert inv["show_flag_citations_unverified"] == 0
    for kind in r["failure_classes"].values():
        assert len(kind["examples"]) <= 3
