"""The loud-skip plugin on a small inline suite, run by pytest in a subprocess.

With the shared data absent (PINCITE_SHARED_DATA=/nonexistent) its tests skip and the
summary counts them; with it present, a folder that holds nothing to check fails.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.corpus import ROOT
from tests.loud_skips import INSTALL_CHROMIUM, INSTALL_TESSERACT, tesseract_problem

INLINE = '''
import pytest
from tests.loud_skips import shared_files, shared_path

@pytest.mark.shared_data("cuad/dev")
def test_reads_cuad():
    assert [p.name for p in shared_files("cuad/dev", "*.txt")] == ["a.txt"]

@pytest.mark.shared_data("scifact")
def test_reads_scifact():
    assert shared_path("scifact/corpus.jsonl").read_text() == "{}"

@pytest.mark.shared_data("tatqa/dev")
def test_empty_split():
    shared_files("tatqa/dev", "*.json")

def test_needs_nothing():
    pass

@pytest.mark.chromium
def test_browser():
    pass

@pytest.mark.tesseract
def test_ocr():
    pass
'''


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makeconftest('pytest_plugins = ["tests.loud_skips"]\n')
    pytester.makepyfile(test_inline=INLINE)
    path = os.pathsep.join([str(ROOT), str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])
    monkeypatch.setenv("PYTHONPATH", path)
    return pytester


# `make test` runs the suite in worker processes (pytest-xdist): the skips happen there and
# the summary is printed by the controller, which must still count them.
@pytest.mark.parametrize("workers", [(), ("-p", "xdist.plugin", "-n", "2")],
                         ids=["one process", "xdist workers"])
def test_absent_data_skips_and_the_summary_counts_the_skips(suite, monkeypatch, workers):
    if workers:  # three interpreters: none loads the plugins the inline suite does not use
        monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    monkeypatch.setenv("PINCITE_SHARED_DATA", "/nonexistent")
    monkeypatch.setenv("PINCITE_CHROMIUM", str(suite.path / "no-chromium"))
    monkeypatch.setenv("TESSDATA_PREFIX", str(suite.path / "no-tessdata"))
    result = suite.runpytest_subprocess("-rs", *workers)
    out = result.stdout.str()
    chromium_present = Path("/usr/bin/chromium").exists() or shutil.which("chromium") is not None
    result.assert_outcomes(passed=1 + chromium_present, skipped=5 - chromium_present)
    assert ("1 OCR test skipped: Tesseract language packs missing: eng, spa; install with "
            f"`{INSTALL_TESSERACT}`") in out
    assert "3 tests skipped: ../shared/data not present (cuad, scifact, tatqa) under /nonexistent" \
        in out
    assert "../shared/data not present: /nonexistent/cuad/dev" in out
    if not chromium_present:
        assert f"1 browser test skipped: Chromium not found; install it with `{INSTALL_CHROMIUM}`" \
            in out


def test_present_data_runs_and_a_folder_with_nothing_to_check_fails(suite, monkeypatch, tmp_path):
    data = tmp_path / "data"
    (data / "cuad" / "dev").mkdir(parents=True)
    (data / "cuad" / "dev" / "a.txt").write_text("a")
    (data / "scifact").mkdir()
    (data / "scifact" / "corpus.jsonl").write_text("{}")
    (data / "tatqa" / "dev").mkdir(parents=True)
    fake = tmp_path / "chromium"
    fake.write_text("")
    monkeypatch.setenv("PINCITE_SHARED_DATA", str(data))
    monkeypatch.setenv("PINCITE_CHROMIUM", str(fake))
    result = suite.runpytest_subprocess()
    ocr = tesseract_problem() is None
    result.assert_outcomes(passed=4 + ocr, failed=1, skipped=1 - ocr)
    out = result.stdout.str()
    assert "tatqa/dev is present but holds no *.json: the test would check nothing" in out
    assert "skipped: ../shared/data" not in out and "Chromium not found" not in out
