"""Cross-boundary records as pydantic models: unknown keys and bad values are refused with
the project's own errors, records read back as they were written, and the committed JSON
Schemas are the ones the models generate and describe the records pincite really writes."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from pydantic import ValidationError

from pincite.errors import InvalidSchema, UsageError
from pincite.extract.records import FieldRecord, records_json
from pincite.extract.schema import load_schema, schema_from_dict
from pincite.retrieve.bundle import EvidenceBundle, EvidenceItem
from pincite.retrieve.filters import Filters
from pincite.review.items import ReviewItem, review_item
from tests.extract.test_records_json import BARE, BUNDLE, EMPTY, FULL, ITEM

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = ROOT / "src" / "pincite" / "schemas"
ROW: dict[str, Any] = {
    "id": 7, "tenant": "acme", "case_id": "case-1", "source_id": "pliego.md", "revision_id": "r1",
    "doc_sha256": "ab" * 32, "field": "guarantee.definitive", "reason": "low_confidence",
    "candidate": FULL.to_dict(), "evidence": [FULL.to_dict()["provenance"][0]], "hard": True,
    "due_at": "2027-03-20", "run_id": "run-1", "extractor_version": "1.0", "confidence": 0.7,
    "created_at": "2026-01-01T00:00:00.000000+00:00", "state": "open", "claimed_by": None,
    "claimed_at": None, "lease_until": None, "decision": None, "corrected": None,
    "decided_by": None, "decided_at": None}


def committed(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text("utf-8"))  # type: ignore[no-any-return]


# ---- generated JSON Schemas ----------------------------------------------------------------


def test_committed_json_schemas_are_what_the_models_generate():
    gen = runpy.run_path(str(ROOT / "scripts" / "gen_schemas.py"))
    assert sorted(gen["generated"]()) == ["company-profile.json", "evidence-bundle.json",
                                          "extraction-schema.json", "field-record.json",
                                          "records.json", "retrieval-filters.json",
                                          "review-item.json"]
    assert gen["stale"]() == [], "run python scripts/gen_schemas.py and commit the result"


def test_the_schemas_describe_what_pincite_writes():
    for name, doc in [("field-record.json", FULL.to_dict()), ("field-record.json", BARE.to_dict()),
                      ("records.json", records_json([FULL, BARE], run={"run_id": "r"})),
                      ("evidence-bundle.json", BUNDLE.to_dict()),
                      ("evidence-bundle.json", EMPTY.to_dict()),
                      ("review-item.json", review_item(ROW, claim_live=False))]:
        jsonschema.Draft202012Validator(committed(name)).validate(doc)
    with pytest.raises(jsonschema.ValidationError, match="'colour' was unexpected"):
        jsonschema.validate({**BARE.to_dict(), "colour": 1}, committed("field-record.json"))


@pytest.mark.parametrize("path", ["examples/tender/schema.yaml", "examples/contracts/cuad.yaml"])
def test_the_example_schema_files_satisfy_the_generated_extraction_schema(path):
    data = yaml.safe_load((ROOT / path).read_text("utf-8"))
    jsonschema.Draft202012Validator(committed("extraction-schema.json")).validate(data)
    assert load_schema(ROOT / path).fields
    bad = {**data, "fields": [{**data["fields"][0], "tau_shw": 0.9}]}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, committed("extraction-schema.json"))
    with pytest.raises(InvalidSchema, match=r"^fields/0/tau_shw: is not a key of this section"):
        schema_from_dict(bad)


# ---- field records -------------------------------------------------------------------------


def test_a_field_record_reads_back_with_its_citations_unverified():
    back = FieldRecord.model_validate(FULL.to_dict())
    assert back.value_span == ("pliego.md@r1", 150, 153)
    (c,) = back.provenance
    assert (c.quote_verified, c.verify_reason, c.char_start, c.quote) == \
        (False, None, 120, "La garantía definitiva será del 5 %")
    assert back.with_(provenance=FULL.provenance, confidence=FULL.confidence, score=FULL.score,
                      parts=FULL.parts, margin=FULL.margin) == FULL


@pytest.mark.parametrize("change,where", [
    ({"colour": "red"}, "colour"), ({"status": "maybe"}, "status"),
    ({"outcome": "publish"}, "outcome"), ({"confidence": "high"}, "confidence"),
])
def test_a_field_record_refuses_unknown_keys_and_values_off_the_vocabulary(change, where):
    with pytest.raises(ValidationError) as e:
        FieldRecord.model_validate({**BARE.to_dict(), **change})
    assert {err["loc"][0] for err in e.value.errors()} == {where}


# ---- evidence ------------------------------------------------------------------------------


def test_an_evidence_bundle_reads_back_equal_and_checks_its_version():
    assert EvidenceBundle.model_validate(BUNDLE.to_dict()).to_dict() == BUNDLE.to_dict()
    assert EvidenceBundle.model_validate(BUNDLE.to_dict()).items[0].bbox == (1.23, 5.68, 9.0, 10.55)
    with pytest.raises(ValidationError, match="pincite reads pincite.evidence_bundle version 1"):
        EvidenceBundle.model_validate({**EMPTY.to_dict(), "version": 2})


def test_an_evidence_items_doc_id_is_its_source_at_its_revision():
    assert ITEM.doc_id == "pliego.md@r1"
    with pytest.raises(ValidationError, match=r"doc_id 'other@r9' is not source_id@revision_id"):
        EvidenceItem.model_validate({**ITEM.to_dict(), "doc_id": "other@r9"})


# ---- filters -------------------------------------------------------------------------------


@pytest.mark.parametrize("value,message", [
    ({"colour": ["x"], "size": 1},
     "unknown filter(s) colour, size: use source_ids, source_prefix, kinds, langs, media_types"),
    ({"kinds": "table_row"}, "filter kinds takes a list of strings"),
    ({"langs": ["es", 3]}, "filter langs takes a list of strings"),
    ({"source_prefix": ["a"]}, "filter source_prefix takes a string"),
    (["kinds"], "filters are a mapping of filter names to values"),
])
def test_bad_filters_are_usage_errors_that_say_what_to_write(value, message):
    with pytest.raises(UsageError) as e:
        Filters.parse(value)
    assert str(e.value) == message


def test_filters_parse_lists_and_keep_none_as_no_filter():
    f = Filters.parse({"source_ids": ["a", "b"], "langs": None})
    assert (f.source_ids, f.langs, f.kinds) == (("a", "b"), None, None)
    assert Filters.parse(None) == Filters() and Filters.parse(f) is f


# ---- review items --------------------------------------------------------------------------


def test_a_review_item_is_the_store_row_byte_for_byte():
    assert json.dumps(review_item(ROW, claim_live=True), ensure_ascii=False) == \
        json.dumps({**ROW, "claim_live": True}, ensure_ascii=False)
    assert "claim_live" not in review_item(ROW)


def test_a_review_item_refuses_a_column_the_contract_does_not_know():
    with pytest.raises(ValidationError, match="priority"):
        ReviewItem.model_validate({**ROW, "priority": 1})
