"""Golden files for the parsers' output on examples/: text digest, elements, flags.

Each example document is sniffed (`inspect`) and parsed (`parse`) as ingest does, and a
compact JSON (text sha256 and length, every element's kind/char_start/char_end/locator/
page/flags, the layer's flags) is compared with tests/parse/golden/<path>.json. After an
intended parser change, rerun with `--regen-golden` (or PINCITE_REGEN_GOLDEN=1) and review
the diff; CI refuses to regenerate.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pincite.limits import Limits
from pincite.parse import parse
from pincite.sources.inspect import inspect
from tests.corpus import EXAMPLES, ROOT
from tests.golden import REGEN_ENV, check_golden, golden_text, regen_requested

GOLDEN = Path(__file__).parent / "golden"
# examples/tenders-dev/ and examples/calls/ are evaluation sets (`pincite eval tenders`,
# `pincite eval rank`), not the example corpus
DOCUMENTS = sorted(p.relative_to(EXAMPLES).as_posix() for p in EXAMPLES.rglob("*")
                   if p.suffix.lower() in (".pdf", ".docx", ".xlsx", ".html", ".md", ".csv", ".txt")
                   and not p.relative_to(EXAMPLES).as_posix().startswith(("tenders-dev/", "calls/")))


def layer_summary(relative: str) -> dict[str, Any]:
    """Return the golden record of one example document, parsed as ingest parses it."""
    data = (EXAMPLES / relative).read_bytes()
    kind = inspect(data, name=Path(relative).name, limits=Limits()).kind
    layer = parse(kind, data)
    return {
        "document": relative,
        "kind": kind,
        "parser": layer.layer_id,
        "text_sha256": hashlib.sha256(layer.text.encode("utf-8")).hexdigest(),
        "text_length": len(layer.text),
        "page_count": layer.page_count,
        "flags": list(layer.flags),
        "elements": [[e.kind, e.char_start, e.char_end, e.locator, e.page, list(e.flags)]
                     for e in layer.elements],
    }


def test_every_example_document_has_a_golden_file() -> None:
    assert DOCUMENTS == ["tender/anexo-tecnico.docx", "tender/anuncio.html",
                         "tender/corrigendum/pliego.pdf", "tender/pliego.pdf",
                         "workbook/annual-report.pdf", "workbook/key-figures.xlsx",
                         "workbook/marks.csv", "workbook/operating-model.xlsx"]
    stored = sorted(p.relative_to(GOLDEN).as_posix().removesuffix(".json")
                    for p in GOLDEN.rglob("*.json"))
    assert stored == DOCUMENTS


@pytest.mark.parametrize("relative", DOCUMENTS)
def test_parser_output_matches_its_golden_file(relative: str, regen_golden: bool) -> None:
    summary = layer_summary(relative)
    assert summary["elements"] and summary["text_length"] > 0
    check_golden(GOLDEN / f"{relative}.json", golden_text(summary, "elements"), regen_golden)


def test_regeneration_is_asked_by_the_option_or_the_env_var() -> None:
    assert regen_requested(False, {}) is False
    assert regen_requested(False, {REGEN_ENV: "0"}) is False
    assert regen_requested(False, {REGEN_ENV: "1"}) is True
    assert regen_requested(True, {}) is True


def test_regeneration_is_off_in_ci(regen_golden: bool) -> None:
    if os.environ.get("CI"):
        assert not regen_golden, "golden files are never rewritten in CI"
    env = {**os.environ, "CI": "true", REGEN_ENV: "1",
           "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")])}
    refused = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only",
         str(Path(__file__))], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert refused.returncode == 4, refused.stdout + refused.stderr  # pytest's usage error
    assert "refused when CI is set" in refused.stderr
