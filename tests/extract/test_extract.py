"""Schema extraction: the tender dictamen, the abstention rule, validation, the queue."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pincite.errors import InvalidSchema
from pincite.extract import records_json
from pincite.extract.decide import Outcome, decide
from pincite.extract.records import FieldRecord
from pincite.extract.report import render_report, write_outputs
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema, schema_from_dict
from pincite.model import Citation, Principal
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS, ingest_tender

SCHEMA = EXAMPLES / "tender" / "schema.yaml"
ANA = Principal.parse("demo:ana:analysts")

# The dictamen of the example tender (revision r1 of the pliego): the contract of the
# 18 field names, with the canonical value of each type.
EXPECTED = {
    "object": "el servicio de mantenimiento integral de las instalaciones de alumbrado público "
              "del término municipal de Villanueva del Río, incluyendo la conservación preventiva, "
              "correctiva y la renovación de luminarias",
    "contracting_authority": "la Junta de Gobierno Local del Ayuntamiento de Villanueva del Río",
    "procedure": "open",
    "budget.base_excl_vat": {"amount": 1200000, "currency": "EUR", "vat": "excluded"},
    "budget.estimated_value": {"amount": 2400000, "currency": "EUR", "vat": "excluded"},
    "duration": {"value": 24, "unit": "months"},
    "lots.count": 1,
    "deadline.submission": {"date": "2027-01-15", "time": "14:00"},
    "economic_solvency.min_annual_turnover": {"amount": 450000, "currency": "EUR",
                                              "basis": "best_of_last_3_years"},
    "technical_solvency.min_similar_contracts": 3,
    "classification": "el grupo P, subgrupo 1, categoría 3",
    "guarantee.provisional": {"required": False},
    "guarantee.definitive": {"percent": 5},
    "award_criteria.price_weight": {"percent": 60},
    "award_criteria.quality_weight": {"percent": 40},
    "subcontracting.max_percent": {"percent": 40},
    "penalties.delay_per_day": {"amount": 300, "currency": "EUR"},
    "payment.term_days": 30,
}


@pytest.fixture
def tender(lib):
    ingest_tender(lib)
    lib.update_index()
    return lib


def test_schema_names_the_contract_fields():
    schema = load_schema(SCHEMA)
    assert [f.name for f in schema.fields] == list(EXPECTED)
    assert schema.field("deadline.submission").hard
    assert schema.field("procedure").values == ("open", "restricted", "negotiated",
                                                "competitive_dialogue", "simplified_open", "other")


def test_tender_dictamen_values_and_verified_citations(tender):
    schema = load_schema(SCHEMA)
    res = run_extraction(tender.store, ANA, schema, TENDER_DOCS)
    got = {r.field: r.value for r in res.records}
    assert got == EXPECTED
    for r in res.records:
        assert r.status == "present"
        assert r.provenance and all(c.quote_verified and c.verify_reason == "ok" for c in r.provenance)
        assert r.outcome in ("show", "flag"), (r.field, r.outcome, r.reason)
        assert r.extractor["name"] == "pincite.deterministic" and r.extractor["run_id"] == res.run["run_id"]
        assert r.confidence_state == "uncalibrated"
        assert r.parts and r.score is not None
    turnover = next(r for r in res.records if r.field == "economic_solvency.min_annual_turnover")
    assert [c.locator for c in turnover.provenance] == [
        "clause 7.1.a", "table 1 / Volumen anual de negocios / Umbral mínimo"]
    assert res.run["due_at"] == "2027-01-15T14:00"
    # every citation re-verifies independently through the public verifier
    entries = [c for r in res.records for c in r.provenance]
    assert all(c.quote_verified for c in tender.verify(ANA, entries))


def test_corrigendum_moves_the_citation_to_the_new_revision(tender):
    schema = load_schema(SCHEMA)
    old = run_extraction(tender.store, ANA, schema, TENDER_DOCS)
    old_turnover = next(r for r in old.records if r.field == "economic_solvency.min_annual_turnover")
    assert old_turnover.provenance[0].doc_id == "tender/pliego.pdf@r1"
    out = tender.ingest([EXAMPLES / "tender" / "corrigendum" / "pliego.pdf"], tenant="demo",
                        acl=None, source_id="tender/pliego.pdf")
    assert out[0].status == "revised"
    tender.update_index()
    new = run_extraction(tender.store, ANA, schema, TENDER_DOCS)
    assert new.run["case_id"] == old.run["case_id"]
    turnover = next(r for r in new.records if r.field == "economic_solvency.min_annual_turnover")
    assert turnover.value == {"amount": 400000, "currency": "EUR", "basis": "best_of_last_3_years"}
    assert {c.doc_id for c in turnover.provenance} == {"tender/pliego.pdf@r2"}
    assert all(c.quote_verified for c in turnover.provenance)
    # the old record still verifies, as superseded: it points at bytes that were read
    again = tender.verify(ANA, old_turnover.provenance)
    assert [c.verify_reason for c in again] == ["superseded", "superseded"]
    assert all(c.quote_verified for c in again)
    # the other fields did not move
    changed = {r.field for r, o in zip(new.records, old.records, strict=True) if r.value != o.value}
    assert changed == {"economic_solvency.min_annual_turnover"}
    stored = tender.store.field_record("demo", new.run["case_id"], "economic_solvency.min_annual_turnover")
    assert stored["value"]["amount"] == 400000


# ---- the abstention rule: every branch, in order ------------------------------------------


def _cite(verified: bool) -> Citation:
    return Citation("d@r1", "0" * 64, "pdf@2", "clause 1", 1, None, 0, 3, "abc",
                    quote_verified=verified, verify_reason="ok" if verified else "offsets_mismatch")


def _rec(**kw) -> FieldRecord:
    base = dict(field="f", type="number", value=1, status="present", confidence=0.9,
                provenance=(_cite(True),), extractor={"name": "x", "version": "1"})
    base.update(kw)
    return FieldRecord(**base)  # type: ignore[arg-type]


@pytest.mark.parametrize("record,outcome,reason", [
    (_rec(value=None, status="absent", provenance=()), Outcome.ABSTAIN, "not_stated"),
    (_rec(status="conflicting", confidence=0.99), Outcome.REVIEW, "conflicting"),
    (_rec(status="conflicting", provenance=(_cite(False),)), Outcome.REVIEW, "conflicting"),
    (_rec(provenance=(_cite(True), _cite(False)), confidence=0.99), Outcome.REVIEW, "unverified_citation"),
    (_rec(provenance=(), confidence=0.99), Outcome.REVIEW, "unverified_citation"),
    (_rec(validation_errors=("max:10",), confidence=0.99), Outcome.REVIEW, "schema_violation"),
    (_rec(confidence=0.85), Outcome.SHOW, "above_tau_show"),
    (_rec(confidence=0.849), Outcome.FLAG, "above_tau_flag"),
    (_rec(confidence=0.6), Outcome.FLAG, "above_tau_flag"),
    (_rec(confidence=0.599), Outcome.REVIEW, "low_confidence"),
    # an absent record that cites something cites the blank where the value goes
    (_rec(value=None, status="absent", provenance=(_cite(True),), confidence=0.0),
     Outcome.ABSTAIN, "blank_in_document"),
    (_rec(value=None, status="absent", provenance=(_cite(False),), confidence=0.0),
     Outcome.REVIEW, "unverified_citation"),
])
def test_decision_table(record, outcome, reason):
    d = decide(record, tau_show=0.85, tau_flag=0.6)
    assert (d.outcome, d.reason) == (outcome, reason)


# ---- validation ---------------------------------------------------------------------------


def _mini_schema(extra_fields=(), posts=()):
    return schema_from_dict({
        "name": "mini", "postconditions": list(posts),
        "fields": [
            {"name": "guarantee.definitive", "type": "percent", "max": 10,
             "synonyms": {"en": ["performance guarantee"]}},
            {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]}},
            {"name": "signing", "type": "date", "synonyms": {"en": ["signed on"]}},
            {"name": "start", "type": "date", "synonyms": {"en": ["starts on"]}},
            *extra_fields,
        ]})


def _ingest_text(lib, sid: str, text: str) -> None:
    lib.ingest_bytes(text.encode(), source_id=sid, tenant="acme", acl=["group:legal"], name=sid)


def test_postconditions_and_ranges_send_the_field_to_review(lib, ana):
    _ingest_text(lib, "c.md", "# Terms\n\n1.1 The supplier provides a performance guarantee of 12 percent "
                 "of the price.\n\n1.2 The contract was signed on 3 March 2027 and starts on "
                 "1 February 2027.\n")
    schema = _mini_schema(posts=[{"check": "signing <= start", "message": "signed before it starts"}])
    res = run_extraction(lib.store, ana, schema, ["c.md"], persist=False)
    by = {r.field: r for r in res.records}
    g = by["guarantee.definitive"]
    assert g.value == {"percent": 12} and g.validation_errors == ("max:10",)
    assert (g.outcome, g.reason) == ("review", "schema_violation")
    assert by["signing"].value == "2027-03-03" and by["start"].value == "2027-02-01"
    assert by["signing"].validation_errors == ("postcondition:signing <= start",)
    assert by["start"].outcome == "review" and by["start"].reason == "schema_violation"
    fee = by["fee"]
    assert (fee.status, fee.value, fee.provenance, fee.outcome, fee.reason) == (
        "absent", None, (), "abstain", "not_stated")


def test_two_documents_that_disagree_are_conflicting_with_both_passages(lib, ana):
    _ingest_text(lib, "a.md", "# Fees\n\n2.1 The annual fee is 450,000 EUR.\n")
    _ingest_text(lib, "b.md", "# Fees\n\n2.1 The annual fee is 500,000 EUR.\n")
    res = run_extraction(lib.store, ana, _mini_schema(), ["a.md", "b.md"])
    fee = next(r for r in res.records if r.field == "fee")
    assert fee.status == "conflicting"
    assert (fee.outcome, fee.reason) == ("review", "conflicting")
    assert sorted(c.doc_id for c in fee.provenance) == ["a.md@r1", "b.md@r1"]
    assert fee.alternatives[0]["value"] == {"amount": 500000, "currency": "EUR"}
    items = lib.store.review_items("acme")
    assert [(i["field"], i["reason"], i["source_id"]) for i in items] == [("fee", "conflicting", "a.md")]
    assert items[0]["candidate"]["value"] == fee.value
    assert [e["doc_id"] for e in items[0]["evidence"]] == ["a.md@r1", "b.md@r1"]


def test_queue_is_unique_per_document_version_and_field(tender):
    schema = load_schema(SCHEMA)
    strict = replace(schema, fields=tuple(replace(f, tau_show=1.0, tau_flag=1.0) for f in schema.fields))
    first = run_extraction(tender.store, ANA, strict, TENDER_DOCS)
    n = len(tender.store.review_items("demo"))
    # every field under confidence 1.0 is queued (duration, definitive guarantee, price weight)
    assert first.queued == n and n >= 3
    again = run_extraction(tender.store, ANA, strict, TENDER_DOCS)
    assert again.queued == 0
    assert len(tender.store.review_items("demo")) == n
    items = tender.store.review_items("demo")
    assert len({(i["source_id"], i["doc_sha256"], i["field"]) for i in items}) == n
    hard = {i["field"] for i in items if i["hard"]}
    assert hard <= {f.name for f in schema.fields if f.hard}
    assert all(i["due_at"] == "2027-01-15T14:00" for i in items)


def test_other_tenants_and_users_cannot_extract(tender):
    from pincite.errors import NotFound

    with pytest.raises(NotFound):
        run_extraction(tender.store, Principal.parse("other:eve"), load_schema(SCHEMA), TENDER_DOCS)
    with pytest.raises(NotFound):
        run_extraction(tender.store, Principal.parse("demo:bob:sales"), load_schema(SCHEMA), TENDER_DOCS)


def test_english_tender_fills_the_same_schema(lib):
    text = ("# Contract notice\n\n1.1 The subject matter of the contract is the maintenance of "
            "street lighting in the city of Riverton.\n\n1.2 The contracting authority is the City "
            "Council of Riverton.\n\n1.3 The contract will be awarded by open procedure.\n\n"
            "1.4 The contract is not divided into lots.\n\n2.1 The base budget is EUR 800,000, "
            "excluding VAT.\n\n2.2 The deadline for submission of tenders is 20 March 2027 at "
            "12:00.\n\n2.3 A performance guarantee of 5 percent of the contract price is required."
            "\n\n2.4 Payment will be made within 30 days of the approval of each invoice.\n")
    lib.ingest_bytes(text.encode(), source_id="notice.md", tenant="demo", acl=["group:analysts"],
                     name="notice.md")
    res = run_extraction(lib.store, ANA, load_schema(SCHEMA), ["notice.md"], persist=False)
    by = {r.field: r for r in res.records}
    assert by["object"].value == "the maintenance of street lighting in the city of Riverton"
    assert by["contracting_authority"].value == "the City Council of Riverton"
    assert by["procedure"].value == "open"
    assert by["lots.count"].value == 1
    assert by["budget.base_excl_vat"].value == {"amount": 800000, "currency": "EUR", "vat": "excluded"}
    assert by["deadline.submission"].value == {"date": "2027-03-20", "time": "12:00"}
    assert by["guarantee.definitive"].value == {"percent": 5}
    assert by["payment.term_days"].value == 30
    assert by["classification"].outcome == "abstain"
    assert by["budget.estimated_value"].outcome == "abstain"
    for r in res.records:
        if r.value is not None:
            assert r.provenance and all(c.quote_verified for c in r.provenance)


@pytest.mark.parametrize("doc,needle", [
    ({"fields": []}, "name"),
    ({"name": "x", "fields": [{"name": "a", "type": "colour"}]}, "fields/0/type"),
    ({"name": "x", "fields": [{"name": "a", "type": "enum"}]}, "needs `values`"),
    ({"name": "x", "fields": [{"name": "a", "type": "text", "patterns": ["(unclosed"]}]}, "does not compile"),
    ({"name": "x", "fields": [{"name": "a", "type": "number"}], "postconditions": [{"check": "a <= b"}]},
     "unknown field(s) b"),
    ({"name": "x", "fields": [{"name": "a", "type": "number"}], "postconditions": [{"check": "a"}]},
     "no comparison"),
    ({"name": "x", "fields": [{"name": "a", "type": "number"}, {"name": "a", "type": "text"}]}, "defined twice"),
    ({"name": "x", "fields": [{"name": "a", "type": "number", "tau_show": 0.5, "tau_flag": 0.7}]}, "above tau_show"),
])
def test_bad_schema_files_are_refused_with_the_place_named(doc, needle):
    with pytest.raises(InvalidSchema) as e:
        schema_from_dict(doc)
    assert needle in str(e.value)


def test_schema_file_errors_name_the_file(tmp_path: Path):
    p = tmp_path / "s.yaml"
    p.write_text("name: [unclosed\n")
    with pytest.raises(InvalidSchema, match="s.yaml: not valid YAML"):
        load_schema(p)


def test_records_json_and_report(tender, tmp_path: Path):
    schema = load_schema(SCHEMA)
    res = run_extraction(tender.store, ANA, schema, TENDER_DOCS)
    doc = records_json(res.records, run=res.run)
    write_outputs(tmp_path, doc, res.case, schema)
    data = json.loads((tmp_path / "records.json").read_text())
    assert data["schema_name"] == "pincite.records" and data["version"] == 1
    rec = data["records"][0]
    for key in ("field", "value", "status", "confidence", "provenance", "extractor", "outcome", "reason"):
        assert key in rec
    assert set(rec["extractor"]) >= {"name", "version", "rules_version", "run_id"}
    html = (tmp_path / "report.html").read_text()
    assert html.count('<tr id="f-') == 18
    assert 'class="box"' in html and "data:image/png;base64," in html
    assert "clause 7.1.a" in html
    # a field the documents do not state renders as such
    none = res.records[0].with_(value=None, status="absent", provenance=(), outcome="abstain",
                   reason="not_stated")
    html2 = render_report(records_json([none], run=res.run), res.case, schema)
    assert "not stated in the document" in html2


def test_cli_extract_json_and_outputs(tmp_path: Path):
    store = tmp_path / "s"
    r = invoke("ingest", str(EXAMPLES), "--tenant", "demo", "--acl", "group:analysts", store=store)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    r = invoke("extract", "--schema", str(SCHEMA), *TENDER_DOCS, "--as", "demo:ana:analysts",
                "--out", str(out), "--json", store=store)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert {x["field"]: x["value"] for x in doc["records"]} == json.loads(json.dumps(EXPECTED))
    assert (out / "records.json").exists() and (out / "report.html").exists()
    r = invoke("extract", "--schema", str(tmp_path / "missing.yaml"), *TENDER_DOCS,
                "--as", "demo:ana:analysts", store=store)
    assert r.returncode != 0 and "cannot read schema file" in r.stderr


def test_purge_removes_the_records_and_review_items_that_quote_a_source(lib, ana):
    _ingest_text(lib, "a.md", "# Fees\n\n2.1 The annual fee is 450,000 EUR.\n")
    _ingest_text(lib, "b.md", "# Fees\n\n2.1 The annual fee is 500,000 EUR.\n")
    res = run_extraction(lib.store, ana, _mini_schema(), ["a.md", "b.md"])
    assert len(lib.store.review_items("acme")) == 1
    assert lib.store.field_record("acme", res.run["case_id"], "fee") is not None
    out = lib.delete(ana, "a.md", purge=True)
    assert out.removed["field_records"] == 5  # four field records of the case + one review item
    assert lib.store.review_items("acme") == []
    assert lib.store.field_records("acme", res.run["case_id"]) == []
