"""Calibration against hand-computed numbers: the seed's worked example to the digit, a
synthetic decision set with a known error per bin (curve, Wilson intervals, ECE, the
threshold table, the chosen thresholds), and `decide` switching to calibrated thresholds
once a field has enough labels."""

from __future__ import annotations

from fractions import Fraction

import pytest

from pincite.extract.deterministic import DeterministicExtractor
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.model import extractor_key
from pincite.review.calibration import (
    EDGES,
    MIN_LABELS,
    calibrated_thresholds,
    calibration_report,
    choose_thresholds,
    ece,
    format_table,
    reliability,
    seed_worked_example,
    threshold_table,
    wilson,
)
from pincite.review.diagram import reliability_diagram
from pincite.store import Store, open_store
from pincite.store.sqlite.review_store import LabelRow
from tests.commands import invoke
from tests.corpus import TENDER_DOCS, tender_library
from tests.review.queues import ANA, strict_schema

# bin → (labels, accepted, confidence of each label, field records in the volume)
SYNTHETIC = {
    "≥ 0.95": (40, 38, 0.97, 50),
    "0.85–0.95": (20, 16, 0.90, 20),
    "0.75–0.85": (10, 6, 0.80, 10),
    "0.60–0.75": (10, 5, 0.70, 10),
    "< 0.60": (20, 4, 0.30, 10),
}


def test_seed_worked_example_is_exact():
    rows = seed_worked_example()
    got = [(r.tau, r.shown_per_day, r.reviewed_per_day, r.reviewer_hours_per_day,
            r.errors_shown_per_day) for r in rows]
    F = Fraction
    assert got == [
        (0.95, 1980, 1620, F("40.5"), F("49.5")),
        (0.85, 2700, 900, F("22.5"), F("121.5")),
        (0.75, 3132, 468, F("11.7"), F("207.9")),
        (0.60, 3384, 216, F("5.4"), F("289.8")),
        (0.0, 3600, 0, 0, F("441.0")),
    ]
    text = format_table(rows)
    for line in ("0.95      1,980         1,620            40.5              49.5",
                 "0.85      2,700           900            22.5             121.5",
                 "0.75      3,132           468            11.7             207.9",
                 "0.60      3,384           216             5.4             289.8",
                 "0 (show all)      3,600             0               0             441.0"):
        assert line in text
    out = invoke("calibrate", "--seed-example")
    assert out.returncode == 0 and "1,980         1,620            40.5              49.5" in out.stdout


def test_wilson_interval_and_curve_on_known_points():
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) is None
    lo, hi = wilson(10, 10)
    assert hi == pytest.approx(1.0) and round(lo, 4) == 0.7225
    # a confidence exactly on an edge belongs to the upper bin; 1.0 to the top bin
    bins = reliability([(0.95, True), (1.0, False), (0.6, True), (0.5999, True)])
    assert [b.n for b in bins] == [1, 1, 0, 0, 2]


def _synthetic_labels() -> list[LabelRow]:
    out = []
    for n, k, conf, _vol in SYNTHETIC.values():
        out += [LabelRow(field="guarantee.definitive", extractor_version="1.0", confidence=conf,
                         accepted=i < k, decision="accept" if i < k else "correct",
                         decided_at="2026-03-01T10:00:00+00:00", reviewer="r")
                for i in range(n)]
    return out


def _store_volume(store: Store) -> None:
    """100 field records of the field over two days of runs: 50/20/10/10/10 per bin."""
    confs = [c for _n, _k, c, vol in SYNTHETIC.values() for _ in range(vol)]
    for i, conf in enumerate(confs):
        at = "2026-03-01T00:00:00+00:00" if i < 50 else "2026-03-03T00:00:00+00:00"
        run = {"run_id": f"run-{i}", "case_id": f"case-{i}", "schema_name": "s", "schema_digest": "0",
               "extractor": {"name": "x", "version": "1.0"}, "docs": []}
        rec = {"field": "guarantee.definitive", "status": "present", "outcome": "show",
               "reason": "above_tau_show", "confidence": conf, "provenance": [],
               "extractor": {"name": "x", "version": "1.0", "run_id": run["run_id"]}}
        store.save_extraction("t", run, [rec], [], at)


def test_synthetic_decisions_give_the_hand_computed_curve_and_table(tmp_path, store_url):
    store = open_store(store_url)
    store.add_review_labels("t", _synthetic_labels())
    _store_volume(store)
    rep = calibration_report(store, "t")
    (f,) = rep["fields"]
    assert rep["days"] == 2.0 and f["records"] == 100 and f["fields_per_day"] == 50.0
    by_bin = {b["bin"]: b for b in f["bins"]}
    for name, (n, k, conf, vol) in SYNTHETIC.items():
        b = by_bin[name]
        assert (b["n"], b["accepted"], b["records"]) == (n, k, vol)
        assert b["fraction_accepted"] == round(k / n, 4)
        assert b["error"] == round(1 - k / n, 4) and b["error_source"] == "measured"
        assert b["mean_confidence"] == pytest.approx(conf)
        lo, hi = wilson(k, n)
        assert (b["wilson_low"], b["wilson_high"]) == (round(lo, 4), round(hi, 4))
    # ECE by hand: .4·|.95−.97| + .2·|.8−.9| + .1·|.6−.8| + .1·|.5−.7| + .2·|.2−.3| = 0.088
    assert f["ece"] == pytest.approx(0.088, abs=1e-9)
    # the table by hand, 50 fields/day: 25/10/5/5/5 per bin, errors .05/.2/.4/.5/.8
    assert f["table"] == [
        {"tau": 0.95, "shown_per_day": 25.0, "reviewed_per_day": 25.0,
         "reviewer_hours_per_day": 0.625, "errors_shown_per_day": 1.25},
        {"tau": 0.85, "shown_per_day": 35.0, "reviewed_per_day": 15.0,
         "reviewer_hours_per_day": 0.375, "errors_shown_per_day": 3.25},
        {"tau": 0.75, "shown_per_day": 40.0, "reviewed_per_day": 10.0,
         "reviewer_hours_per_day": 0.25, "errors_shown_per_day": 5.25},
        {"tau": 0.6, "shown_per_day": 45.0, "reviewed_per_day": 5.0,
         "reviewer_hours_per_day": 0.125, "errors_shown_per_day": 7.75},
        {"tau": 0.0, "shown_per_day": 50.0, "reviewed_per_day": 0.0,
         "reviewer_hours_per_day": 0.0, "errors_shown_per_day": 11.75},
    ]
    # thresholds: ≥0.95 errs 5 % (show limit 5 %); 0.85–0.95 errs 20 % (flag limit 20 %)
    assert f["calibrated"] and f["thresholds"] == {"tau_show": 0.95, "tau_flag": 0.85,
                                                   "source": "calibrated"}
    assert choose_thresholds(reliability([(0.97, True)] * 40 + [(0.97, False)] * 2),
                             hard=True) == (1.01, 0.95)  # 4.8 % errs too much for a hard field
    # a table from explicit shares and errors (same arithmetic)
    rows = threshold_table(50, [0.2, 0.2, 0.2, 0.2, 0.2], [1, 1, 1, 1, 0], taus=[0.95])
    assert rows[0].errors_shown_per_day == 0 and rows[0].reviewed_per_day == 40
    store.close()


def test_calibrated_thresholds_switch_on_at_the_minimum_label_count(tmp_path, store_url):
    lib = tender_library(store_url)
    store = lib.store
    schema = load_schema(strict_schema(tmp_path, 0.99))
    spec = schema.field("guarantee.definitive")
    before = run_extraction(store, ANA, schema, TENDER_DOCS, route=False, persist=False)
    conf = next(r for r in before.records if r.field == spec.name).confidence
    assert conf < 0.95
    first = next(r for r in before.records if r.field == spec.name)
    assert first.outcome == "review" and first.thresholds["source"] == "schema"
    key = extractor_key(DeterministicExtractor().identity("run"))  # "1.0/rules-1"
    few = [LabelRow(field=spec.name, extractor_version=key, confidence=conf, accepted=True,
                    decided_at="2026-03-01T10:00:00+00:00")] * (MIN_LABELS - 1)
    store.add_review_labels("demo", few)
    th = calibrated_thresholds(store, "demo", schema)
    assert th(spec, key) == (0.99, 0.99, "schema")
    store.add_review_labels("demo", few[:1])
    th = calibrated_thresholds(store, "demo", schema)
    # 30 labels, all accepted, all in the bin of `conf`: shown from that bin's lower edge
    edge = max(e for e in EDGES[:-1] if e <= conf)
    assert th(spec, key) == (edge, edge, "calibrated")
    assert th(spec, "2.0/rules-1")[2] == "schema"  # per extractor version
    assert th(spec, "1.0/rules-2")[2] == "schema"  # … and rule set
    res = run_extraction(store, ANA, schema, TENDER_DOCS, route=False, thresholds=th, persist=False)
    rec = next(r for r in res.records if r.field == spec.name)
    assert rec.thresholds["source"] == "calibrated" and rec.confidence_state == "calibrated"
    assert rec.outcome == "show"  # where the schema's thresholds said review
    lib.close()


def test_calibration_is_keyed_by_model_and_prompt_of_a_model_backed_extractor():
    from pincite.extract.model_adapter import ModelExtractor
    a = ModelExtractor("http://127.0.0.1:9/v1", "model-a")
    b = ModelExtractor("http://127.0.0.1:9/v1", "model-b")
    ka, kb = extractor_key(a.identity("r")), extractor_key(b.identity("r"))
    assert ka == f"{a.version}/model-a/{a.prompt_version}" and ka != kb
    b.prompt_version = "ext-model-99"
    assert extractor_key(b.identity("r")) == f"{b.version}/model-b/ext-model-99"
    assert extractor_key({"version": "1.0"}) == "1.0"


def test_reliability_diagram_png_and_svg_and_cli(tmp_path, store_url):
    store = open_store(store_url)
    store.add_review_labels("t", _synthetic_labels())
    store.close()
    bins = [b.to_dict() for b in reliability([(0.97, True), (0.9, False), (0.3, True)], EDGES)]
    png = reliability_diagram(bins, fmt="png")
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000
    svg = reliability_diagram(bins, fmt="svg").decode()
    assert "<svg" in svg and "n=1" in svg
    assert ece(reliability([(0.5, True)] * 2)) == pytest.approx(0.5)
    out = invoke("calibrate", "--as", "t:ana", "--diagram", str(tmp_path / "r.png"),
                  store=store_url)
    assert out.returncode == 0, out.stderr
    assert "guarantee.definitive (extractor 1.0): 100 labels" in out.stdout
    assert (tmp_path / "r.png").read_bytes()[:4] == b"\x89PNG"
