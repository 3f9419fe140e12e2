"""A scanned tender: fields resting on OCR words say so everywhere, and a value read with low
confidence is never shown. The integration test reads a scanned copy of the example pliego
(two pages of OCR, about 10 s on two cores)."""

from __future__ import annotations

import io
import runpy
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from pincite.embed import HashEmbedder
from pincite.extract import decide as decide_mod
from pincite.extract.decide import OCR_MIN_CONFIDENCE, decide, record_flags
from pincite.extract.records import FieldRecord
from pincite.extract.report import render_report
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema, schema_from_dict
from pincite.model import Citation, Principal
from pincite.vocab import Outcome, RecordFlag
from tests.corpus import EXAMPLES, ROOT

ANA = Principal.parse("demo:ana:analysts")
SCHEMA = EXAMPLES / "tender" / "schema.yaml"
CLAUSE_7_1_A = "igual o superior a 450.000 euros"
CLAUSE_5_1 = ("El plazo de presentación de ofertas finalizará el 15 de enero de 2027 a las "
              "14:00 horas")


def _cite(confidence: float | None, flags: tuple[str, ...] = ("ocr",)) -> Citation:
    return Citation("d@r1", "0" * 64, "pdf+ocr@4.1", "clause 1", 1, None, 0, 3, "abc",
                    quote_verified=True, verify_reason="ok", flags=flags,
                    ocr_confidence=confidence)


def _rec(*cites: Citation, confidence: float = 0.99) -> FieldRecord:
    return FieldRecord(field="f", type="number", value=1, status="present", confidence=confidence,
                       provenance=cites, extractor={"name": "x", "version": "1"})


@pytest.mark.parametrize("cites,outcome,reason", [
    ((_cite(OCR_MIN_CONFIDENCE - 0.01),), Outcome.REVIEW, "low_ocr_confidence"),
    ((_cite(96.0), _cite(OCR_MIN_CONFIDENCE - 0.01)), Outcome.REVIEW, "low_ocr_confidence"),
    ((_cite(OCR_MIN_CONFIDENCE),), Outcome.SHOW, "above_tau_show"),
    ((_cite(96.0, ("hidden_text", "ocr")),), Outcome.FLAG, "hidden_text"),
    ((_cite(None, ()),), Outcome.SHOW, "above_tau_show"),
])
def test_a_value_resting_on_ocr_words_below_the_bar_is_reviewed(cites, outcome, reason):
    r = _rec(*cites)
    d = decide(r, 0.85, 0.6)
    assert (d.outcome, d.reason) == (outcome, reason)
    assert (RecordFlag.OCR in record_flags(r)) == any(c.ocr_confidence is not None for c in cites)


def test_low_confidence_ocr_goes_to_review_even_when_the_record_is_unsure():
    # the order of the rule: low OCR confidence is decided before the record's confidence
    d = decide(_rec(_cite(40.0), confidence=0.3), 0.85, 0.6)
    assert (d.outcome, d.reason) == (Outcome.REVIEW, "low_ocr_confidence")


@pytest.mark.tesseract
def test_an_ocr_value_below_the_bar_is_queued_and_marked_on_the_review_page(lib, monkeypatch):
    pytest.importorskip("fastapi")
    from pincite.service.review_page import create_app
    from tests.parse.test_ocr import P1, P2, merged, scan_pdf, text_pdf
    from tests.service.clients import page_client

    born = text_pdf([P1, P2])
    data = merged((born, [0]), (scan_pdf(born, pages=[2]), [0]))
    lib.ingest_bytes(data, source_id="m.pdf", tenant="demo", acl=["group:analysts"], name="m.pdf")
    schema = schema_from_dict({"name": "price", "fields": [
        {"name": "price", "type": "money", "synonyms": {"en": ["the price is"]},
         "tau_show": 0.5, "tau_flag": 0.3}]})
    [shown] = run_extraction(lib.store, ANA, schema, ["m.pdf"]).records
    assert (shown.outcome, shown.value) == ("show", {"amount": 12500, "currency": "EUR"})
    assert shown.flags == ("ocr",) and shown.provenance[0].ocr_confidence >= OCR_MIN_CONFIDENCE
    monkeypatch.setattr(decide_mod, "OCR_MIN_CONFIDENCE", 100.0)  # a bar no OCR word reaches
    [low] = run_extraction(lib.store, ANA, schema, ["m.pdf"]).records
    assert (low.outcome, low.reason, low.value) == ("review", "low_ocr_confidence", shown.value)
    [item] = lib.store.review_items("demo")
    assert item["reason"] == "low_ocr_confidence"
    assert item["evidence"][0]["flags"] == ["ocr"] and item["evidence"][0]["ocr_confidence"] > 0
    html = page_client(create_app(lib, ANA)).get(f"/items/{item['id']}").text
    assert 'class="badge warn ocr"' in html


@pytest.mark.slow
@pytest.mark.tesseract
def test_the_scanned_pliego_is_cited_and_decided_like_the_born_digital_one(tmp_path):
    import pincite
    make_scan = runpy.run_path(str(ROOT / "scripts" / "make_scan.py"))["main"]
    scan = tmp_path / "pliego-scan.pdf"
    with redirect_stdout(io.StringIO()):
        assert make_scan([str(EXAMPLES / "tender" / "pliego.pdf"), str(scan)]) == 0
    runs = {}
    for name, path in (("born", EXAMPLES / "tender" / "pliego.pdf"), ("scan", scan)):
        lib = pincite.open(tmp_path / name, create=True)
        r = lib.ingest_bytes(Path(path).read_bytes(), source_id="tender/pliego.pdf", tenant="demo",
                             acl=["group:analysts"], name="pliego.pdf")
        assert r.flags == (("ocr",) if name == "scan" else ())
        runs[name] = (lib, run_extraction(lib.store, ANA, load_schema(SCHEMA), ["tender/pliego.pdf"]))
    lib, scanned = runs["scan"]
    try:
        # the citations of `make run`, on the scan: OCR named, flagged, with a confidence
        for quote, locator, page in ((CLAUSE_7_1_A, "clause 7.1.a", 2), (CLAUSE_5_1, "clause 5.1", 1)):
            c = lib.cite(ANA, "tender/pliego.pdf", quote)
            assert (c.quote_verified, c.text_layer, c.locator, c.page) == (True, "pdf+ocr@4.1", locator, page)
            assert c.flags == ("ocr",) and OCR_MIN_CONFIDENCE <= c.ocr_confidence <= 100
        # the dictamen shows no value the born-digital one does not; what it cannot read
        # reliably is REVIEW (never shown, never claimed absent)
        born = {r.field: r for r in runs["born"][1].records}
        shown = 0
        for r in scanned.records:
            b = born[r.field]
            if r.outcome in (Outcome.SHOW, Outcome.FLAG):
                assert b.outcome in (Outcome.SHOW, Outcome.FLAG) and r.value == b.value, r.field
                shown += 1
            elif b.value is not None:
                assert r.outcome == Outcome.REVIEW, (r.field, r.outcome, r.reason)
            if r.provenance:
                assert r.flags == ("ocr",) and all(c.ocr_confidence for c in r.provenance)
        assert shown >= 15  # not a vacuous pass: most of the 18 fields are shown
        html = render_report({"run": scanned.run, "records": [r.to_dict() for r in scanned.records]},
                             scanned.case, load_schema(SCHEMA))
        assert html.count('class="ocr-text"') >= 2 * shown
        # evidence items of a search say which passages were read by OCR
        lib.update_index(HashEmbedder())
        bundle = lib.search(ANA, "plazo de presentación de ofertas", k=3, embedder=HashEmbedder())
        assert bundle.items and all("ocr" in it.flags for it in bundle.items)
    finally:
        for lib_, _ in runs.values():
            lib_.close()


def test_the_scan_script_refuses_to_overwrite_its_source(tmp_path, capsys):
    make_scan = runpy.run_path(str(ROOT / "scripts" / "make_scan.py"))["main"]
    src = tmp_path / "a.pdf"
    src.write_bytes((ROOT / "examples" / "tender" / "pliego.pdf").read_bytes())
    with pytest.raises(SystemExit):
        make_scan([str(src), str(src)])
    assert "OUT must not be SRC" in capsys.readouterr().err
