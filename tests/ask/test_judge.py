"""The judge (issue 26 item 4): one calibrated probability that an answer answers, fitted on
answers marked right or wrong, its bar chosen on cross-fitted confidences so wrong answers
stay at most 3 % of those given, measured held out by document fold; an answer under the
bar is given back as related, never shown as an answer."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from pincite.ask.answer import AskResult, judged
from pincite.ask.judge import NAMES, Judge, bar, calibrated, isotonic
from pincite.evals.judge_fit import apply, fit_judge, held_out
from pincite.retrieve.bundle import EvidenceItem
from pincite.vocab import ItemRole


def _rows(n_docs: int = 40, seed: int = 0) -> list[dict]:
    """Answers whose rightness follows coverage and cosine (with noise), over many documents."""
    rng = np.random.default_rng(seed)
    rows = []
    for d in range(n_docs):
        for q in range(20):
            cov, cos = rng.uniform(0.3, 1.0), rng.uniform(0.0, 0.8)
            p = 1 / (1 + np.exp(-(12 * (cov - 0.8) + 8 * (cos - 0.45))))
            answerable = True
            right = bool(rng.random() < p)
            rows.append({"doc": f"doc{d}", "group": f"g{q % 4}", "style": "s", "answerable": answerable,
                         "answered": True, "right": right,
                         "features": {"coverage": cov, "cosine": cos, "kind_passage": 1.0}})
        rows.append({"doc": f"doc{d}", "group": "g0", "style": "s", "answerable": False,
                     "answered": False, "right": False})
    return rows


def test_isotonic_is_monotone_and_calibrated_on_its_data():
    xs, ys = isotonic([0.1, 0.2, 0.3, 0.4, 0.5, 0.6], [False, True, False, False, True, True])
    assert all(a <= b for a, b in zip(ys, ys[1:], strict=False))
    assert calibrated(0.05, xs, ys) == 0.0 and calibrated(0.9, xs, ys) == 1.0


def test_the_bar_keeps_wrong_answers_at_most_the_share():
    conf = [0.99, 0.95, 0.9, 0.8, 0.7, 0.6]
    right = [True, True, True, False, True, True]
    assert bar(conf, right, 0.0) == 0.9
    assert bar(conf, right, 0.2) == 0.6   # 1 wrong of 6
    assert bar([0.5], [False], 0.03) == 1.0


def test_a_judge_fitted_on_fit_folds_cuts_wrong_answers_held_out():
    rows = _rows()
    out = held_out(rows, 4)
    readers, judged_ = out["pooled"]["held_out_readers"], out["pooled"]["held_out"]
    assert readers["wrong_rate"] > 0.3                       # the readers answer everything
    assert judged_["wrong_rate"] < readers["wrong_rate"] / 2  # the judge holds most wrong back
    assert judged_["answered_right"] > 0.3 * readers["answered_right"]
    assert len(out["folds"]) == 4 and out["by_style"]["s"]["answerable"] > 0
    points = {p["min_confidence"]: p for p in out["operating_points"]}
    assert points[0.0]["answered_wrong"] == readers["answered_wrong"]   # 0 keeps every answer
    assert points[0.9]["answered_wrong"] <= points[0.5]["answered_wrong"] <= points[0.0]["answered_wrong"]


def test_the_judge_round_trips_and_an_answer_under_its_bar_becomes_related():
    j = fit_judge(_rows(seed=1))
    back = Judge.from_dict(j.to_dict())
    assert abs(back.confidence({"coverage": 0.95, "cosine": 0.7}) -
               j.confidence({"coverage": 0.95, "cosine": 0.7})) < 1e-3
    assert j.confidence({"coverage": 1.0, "cosine": 0.8}) > j.confidence({"coverage": 0.3, "cosine": 0.0})
    assert apply(j, {"answerable": True, "answered": True, "right": True,
                     "features": {"coverage": 0.3, "cosine": 0.0}}) == (True, False, False)
    item = EvidenceItem.model_construct(
        evidence_id="ev_1", source_id="a", revision_id="r", doc_id="a@r", doc_sha256="0" * 64,
        text_layer="t", chunk_id="ch_1", kind="paragraph", char_start=0, char_end=4, quote="text",
        locator="¶1", page=None, bbox=None, heading_path=(), lang="en", ranks={}, flags=(),
        scores={"evidence_coverage": 0.3, "evidence_dense": 0.0}, role=ItemRole.ANSWER,
        answer_kind="passage", confidence=0.5, citation={"quote": "text"})
    res = AskResult("q?", "answered", (item,), (), None, "g1")
    # a judge that does not gate only gives the answer its calibrated confidence
    kept = judged(res, j)
    assert kept.status == "answered" and kept.items[0].confidence != 0.5
    assert kept.items[0].confidence < j.threshold
    out = judged(res, replace(j, gate=True))
    assert out.status == "not_found" and not out.items
    assert out.related[0].role == ItemRole.RELATED and "judged_not_an_answer" in out.flags
    assert judged(res, None) is res
    assert len(NAMES) == len(j.weights)
