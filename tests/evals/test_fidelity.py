"""Text-layer fidelity on real contract PDFs, through ingest → cite → verify (the user path)."""

from __future__ import annotations

import pytest

from pincite.evals.fidelity import run_cuad_textlayer
from tests.loud_skips import shared_path


@pytest.mark.shared_data("cuad/dev")
def test_cuad_gold_segments_cite_and_verify_against_the_pdf():
    result = run_cuad_textlayer(shared_path("cuad/dev"))
    print(f"\nCUAD text-layer fidelity: {result['verified']}/{result['segments']} "
          f"= {result['rate']:.4f}")
    assert result["quarantined"] == []
    assert result["segments"] == 534
    assert result["rate"] >= 0.995, result["misses"]
