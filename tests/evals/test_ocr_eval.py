"""The OCR eval's parts (edit distance, word alignment, the bar from the fit fold) and a run
on a small CUAD-shaped folder made here."""

from __future__ import annotations

import json
import random

import pytest

from pincite.errors import UsageError
from pincite.evals.ocr import _chosen_bar, _word_hits, levenshtein, run_ocr
from pincite.evals.scans import VARIANTS, degrade, scan_pdf


def _dp(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def test_levenshtein_is_the_edit_distance():
    rng = random.Random(7)
    for _ in range(300):
        a = "".join(rng.choice("abcñ é") for _ in range(rng.randrange(0, 90)))
        b = "".join(rng.choice("abcñ é") for _ in range(rng.randrange(0, 90)))
        assert levenshtein(a, b) == _dp(a, b), (a, b)
    assert levenshtein("450.000 euros", "450,000 euros") == 1
    assert levenshtein("x" * 200, "") == 200


def test_ocr_words_are_aligned_with_the_reference_words():
    hits = _word_hits("the price is 12,500 euros", [("the", 96.0), ("prlce", 41.0), ("is", 95.0),
                                                    ("12,500", 90.0), ("euros", 93.0)])
    assert hits == [(96.0, True), (41.0, False), (95.0, True), (90.0, True), (93.0, True)]
    # the fit fold picks the lowest bar whose words above it are at most 1 % wrong
    assert _chosen_bar([(96.0, True)] * 99 + [(41.0, False)]) == 0.0
    assert _chosen_bar([(96.0, True)] * 50 + [(41.0, False)] * 5) == 50.0


def test_scan_variants_are_deterministic_and_unknown_ones_refused():
    from tests.parse.test_ocr import P1, text_pdf

    born = text_pdf([P1])
    assert scan_pdf(born, variant="noise", seed=3) == scan_pdf(born, variant="noise", seed=3)
    assert set(VARIANTS) == {"clean", "skew", "lowres", "noise"}
    with pytest.raises(UsageError, match="unknown scan variant 'blur'"):
        scan_pdf(born, variant="blur")
    with pytest.raises(UsageError, match="unknown scan variant"):
        degrade(None, "blur", 0)


def _split(tmp_path):
    from tests.parse.test_ocr import P1, P2, text_pdf

    (tmp_path / "full_contract_pdf").mkdir()
    (tmp_path / "full_contract_pdf" / "a.pdf").write_bytes(text_pdf([P1, P2]))
    rec = {"pdf_file": "full_contract_pdf/a.pdf", "category": "Price", "has_clause": True,
           "clauses": [{"segments": [{"text": "The price is 12,500 euros per delivery"},
                                     {"text": "goods to the port of Valencia"}]}]}
    (tmp_path / "derived_spans.jsonl").write_text(json.dumps(rec) + "\n", encoding="utf-8")
    return tmp_path


def test_the_eval_refuses_what_it_cannot_run(tmp_path):
    with pytest.raises(UsageError, match="full_contract_pdf"):
        run_ocr(tmp_path)
    data = _split(tmp_path)
    with pytest.raises(UsageError, match="--pages must be an integer from 1 to 10000"):
        run_ocr(data, pages=0)
    with pytest.raises(UsageError, match="unknown scan variant 'blur'"):
        run_ocr(data, variants=("blur",))


@pytest.mark.tesseract
def test_the_eval_measures_cer_and_segments_on_a_folder_made_here(tmp_path):
    data = _split(tmp_path)
    out = run_ocr(data, pages=2, variants=("clean",))
    assert (out["cuad_documents"], out["cuad_pages"], out["segments_on_pages"]) == (1, 2, 2)
    clean = out["variants"]["clean"]
    assert clean["segments"] == 2 and clean["segment_share"] == 1.0
    assert clean["cer"]["cuad"] <= 0.02 and clean["cer"]["examples"] <= 0.02
    import pypdfium2 as pdfium

    from tests.corpus import EXAMPLES

    whole = sum(len(pdfium.PdfDocument(p.read_bytes())) for p in EXAMPLES.rglob("*.pdf"))
    assert out["pages"] == clean["pages"] == 2 + whole  # the examples/ PDFs, whole
    bars = clean["word_confidence"]
    assert {r["bar"] for r in bars["fit_fold"]} >= {0.0, 80.0}
