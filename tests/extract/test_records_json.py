"""The persisted and printed JSON of cross-boundary records is a contract: `records.json`,
evidence bundles and `--json` output. These pins were written from the output of the
dataclass records before they became pydantic models; the bytes must not change."""

from __future__ import annotations

import json

from pincite.extract.records import FieldRecord, records_json
from pincite.model import Citation
from pincite.retrieve.bundle import EvidenceBundle, EvidenceItem
from pincite.retrieve.search import Filters

CIT = Citation(doc_id="pliego.md@r1", doc_sha256="ab" * 32, text_layer="tl-1", locator="p.2 ¶3",
               page=2, bbox=(10.123, 20.456, 300.0, 40.999), char_start=120, char_end=161,
               quote="La garantía definitiva será del 5 %", quote_verified=True,
               verify_reason="exact", boxes=((2, (10.123, 20.456, 300.0, 40.999)),
                                              (3, (1.0, 2.0, 3.0, 4.005))))
FULL = FieldRecord(field="guarantee.definitive", type="percent", value={"percent": 5},
                   status="present", confidence=0.912345, provenance=(CIT,),
                   extractor={"name": "pincite.deterministic", "version": "1.0", "run_id": "r-1"},
                   score=1.234567, parts={"term": 0.333333, "near": 0.66666666},
                   margin=0.0500001, runner_up={"value": {"percent": 4}, "score": 0.9},
                   alternatives=({"value": {"percent": 4}, "score": 0.9},),
                   value_span=("pliego.md@r1", 150, 153), hard=True,
                   confidence_state="calibrated", validation_errors=("range:max",),
                   outcome="review", reason="validation_failed",
                   thresholds={"tau_show": 0.85, "tau_flag": 0.6}, notes=("n1", "n2"))
BARE = FieldRecord(field="procedure", type="enum", value=None, status="absent", confidence=0.0,
                   provenance=(), extractor={"name": "x"})
ITEM = EvidenceItem(evidence_id="e1", source_id="pliego.md", revision_id="r1",
                    doc_sha256="cd" * 32, text_layer="tl-1", chunk_id="c7", kind="paragraph",
                    char_start=100, char_end=180, quote="3.1 La garantía definitiva",
                    locator="p.2", page=2, bbox=(1.234, 5.678, 9.0, 10.555),
                    heading_path=("3. GARANTÍAS",), lang="es",
                    ranks={"bm25": 1, "dense": None, "fused": 1},
                    scores={"bm25": 3.25, "dense": None, "fused": 0.0327868852},
                    flags=("hidden_text",), citation=CIT.to_dict())
PLAIN = EvidenceItem(evidence_id="e2", source_id="terms.md", revision_id="r2", doc_sha256="",
                     text_layer="tl-2", chunk_id="c1", kind="table_row", char_start=0,
                     char_end=5, quote="Total", locator="sheet1!A1", page=None, bbox=None,
                     heading_path=(), lang=None, ranks={}, scores={})
BUNDLE = EvidenceBundle(query="garantía definitiva", k=2, items=(ITEM, PLAIN),
                        flags=("stale", "underfilled"), generation="g3", as_of=None,
                        ranking_policy="rrf-1", embedding_space="hash-64",
                        channels={"bm25": {"n": 2}, "dense": {"ann": "exact"}})
EMPTY = EvidenceBundle(query="x", k=10, items=(), flags=("no_generation",))


# ---- the pinned bytes (json.dumps(..., ensure_ascii=False), as the CLI prints them) --------

FULL_JSON = '{"field": "guarantee.definitive", "type": "percent", "value": {"percent": 5}, "status": "present", "confidence": 0.9123, "confidence_state": "calibrated", "provenance": [{"doc_id": "pliego.md@r1", "doc_sha256": "abababababababababababababababababababababababababababababababab", "text_layer": "tl-1", "locator": "p.2 ¶3", "page": 2, "bbox": [10.12, 20.46, 300.0, 41.0], "char_start": 120, "char_end": 161, "quote": "La garantía definitiva será del 5 %", "quote_verified": true, "verify_reason": "exact", "boxes": [{"page": 2, "bbox": [10.12, 20.46, 300.0, 41.0]}, {"page": 3, "bbox": [1.0, 2.0, 3.0, 4.0]}], "comparison": "cmp-2"}], "extractor": {"name": "pincite.deterministic", "version": "1.0", "run_id": "r-1"}, "score": 1.2346, "parts": {"term": 0.3333, "near": 0.6667}, "margin": 0.05, "runner_up": {"value": {"percent": 4}, "score": 0.9}, "alternatives": [{"value": {"percent": 4}, "score": 0.9}], "value_span": {"doc_id": "pliego.md@r1", "char_start": 150, "char_end": 153}, "hard": true, "validation_errors": ["range:max"], "outcome": "review", "reason": "validation_failed", "thresholds": {"tau_show": 0.85, "tau_flag": 0.6}, "notes": ["n1", "n2"]}'
BARE_JSON = '{"field": "procedure", "type": "enum", "value": null, "status": "absent", "confidence": 0.0, "confidence_state": "uncalibrated", "provenance": [], "extractor": {"name": "x"}, "score": null, "parts": {}, "margin": null, "runner_up": null, "alternatives": [], "value_span": null, "hard": false, "validation_errors": [], "outcome": null, "reason": null, "thresholds": {}}'
BUNDLE_JSON = '{"schema_name": "pincite.evidence_bundle", "version": 1, "query": "garantía definitiva", "k": 2, "generation": "g3", "as_of": null, "ranking_policy": "rrf-1", "embedding_space": "hash-64", "items": [{"evidence_id": "e1", "source_id": "pliego.md", "revision_id": "r1", "doc_id": "pliego.md@r1", "doc_sha256": "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd", "text_layer": "tl-1", "chunk_id": "c7", "kind": "paragraph", "char_start": 100, "char_end": 180, "quote": "3.1 La garantía definitiva", "locator": "p.2", "page": 2, "bbox": [1.23, 5.68, 9.0, 10.55], "heading_path": ["3. GARANTÍAS"], "lang": "es", "ranks": {"bm25": 1, "dense": null, "fused": 1}, "scores": {"bm25": 3.25, "dense": null, "fused": 0.0327868852}, "flags": ["hidden_text"], "citation": {"doc_id": "pliego.md@r1", "doc_sha256": "abababababababababababababababababababababababababababababababab", "text_layer": "tl-1", "locator": "p.2 ¶3", "page": 2, "bbox": [10.12, 20.46, 300.0, 41.0], "char_start": 120, "char_end": 161, "quote": "La garantía definitiva será del 5 %", "quote_verified": true, "verify_reason": "exact", "boxes": [{"page": 2, "bbox": [10.12, 20.46, 300.0, 41.0]}, {"page": 3, "bbox": [1.0, 2.0, 3.0, 4.0]}], "comparison": "cmp-2"}}, {"evidence_id": "e2", "source_id": "terms.md", "revision_id": "r2", "doc_id": "terms.md@r2", "doc_sha256": "", "text_layer": "tl-2", "chunk_id": "c1", "kind": "table_row", "char_start": 0, "char_end": 5, "quote": "Total", "locator": "sheet1!A1", "page": null, "bbox": null, "heading_path": [], "lang": null, "ranks": {}, "scores": {}, "flags": []}], "flags": ["stale", "underfilled"], "channels": {"bm25": {"n": 2}, "dense": {"ann": "exact"}}}'
EMPTY_JSON = '{"schema_name": "pincite.evidence_bundle", "version": 1, "query": "x", "k": 10, "generation": null, "as_of": null, "ranking_policy": null, "embedding_space": null, "items": [], "flags": ["no_generation"], "channels": {}}'
RECORDS_JSON = '{"schema_name": "pincite.records", "version": 1, "run": {"run_id": "r-1"}, "records": [{"field": "guarantee.definitive", "type": "percent", "value": {"percent": 5}, "status": "present", "confidence": 0.9123, "confidence_state": "calibrated", "provenance": [{"doc_id": "pliego.md@r1", "doc_sha256": "abababababababababababababababababababababababababababababababab", "text_layer": "tl-1", "locator": "p.2 ¶3", "page": 2, "bbox": [10.12, 20.46, 300.0, 41.0], "char_start": 120, "char_end": 161, "quote": "La garantía definitiva será del 5 %", "quote_verified": true, "verify_reason": "exact", "boxes": [{"page": 2, "bbox": [10.12, 20.46, 300.0, 41.0]}, {"page": 3, "bbox": [1.0, 2.0, 3.0, 4.0]}], "comparison": "cmp-2"}], "extractor": {"name": "pincite.deterministic", "version": "1.0", "run_id": "r-1"}, "score": 1.2346, "parts": {"term": 0.3333, "near": 0.6667}, "margin": 0.05, "runner_up": {"value": {"percent": 4}, "score": 0.9}, "alternatives": [{"value": {"percent": 4}, "score": 0.9}], "value_span": {"doc_id": "pliego.md@r1", "char_start": 150, "char_end": 153}, "hard": true, "validation_errors": ["range:max"], "outcome": "review", "reason": "validation_failed", "thresholds": {"tau_show": 0.85, "tau_flag": 0.6}, "notes": ["n1", "n2"]}, {"field": "procedure", "type": "enum", "value": null, "status": "absent", "confidence": 0.0, "confidence_state": "uncalibrated", "provenance": [], "extractor": {"name": "x"}, "score": null, "parts": {}, "margin": null, "runner_up": null, "alternatives": [], "value_span": null, "hard": false, "validation_errors": [], "outcome": null, "reason": null, "thresholds": {}}]}'


def dumps(obj: object) -> str:
    return json.dumps(obj, ensure_ascii=False)


def test_a_full_field_record_keeps_its_json_bytes():
    assert dumps(FULL.to_dict()) == FULL_JSON


def test_a_bare_field_record_keeps_its_json_bytes_and_omits_empty_notes():
    assert dumps(BARE.to_dict()) == BARE_JSON
    assert "notes" not in BARE.to_dict()


def test_records_json_keeps_schema_name_version_and_bytes():
    assert dumps(records_json([FULL, BARE], run={"run_id": "r-1"})) == RECORDS_JSON


def test_an_evidence_bundle_keeps_its_json_bytes():
    assert dumps(BUNDLE.to_dict()) == BUNDLE_JSON
    assert dumps(EMPTY.to_dict()) == EMPTY_JSON


def test_filters_keep_their_cache_key():
    f = Filters.parse({"source_ids": ["a"], "kinds": ["table_row"]})
    assert f.key() == '[["a"], null, ["table_row"], null, null]'


INTS = FieldRecord(field="lots", type="number", value=1, status="present", confidence=1,
                   provenance=(), extractor={"name": "x"}, score=3, parts={"term": 2, "near": 0.5},
                   margin=0)
INT_ITEM = EvidenceItem(evidence_id="e3", source_id="s.xlsx", revision_id="r1", doc_sha256="",
                        text_layer="t", chunk_id="c", kind="table_row", char_start=0, char_end=1,
                        quote="1", locator="A1", page=1, bbox=(0, 0, 612, 792), heading_path=(),
                        lang=None, ranks={"bm25": 1}, scores={"bm25": 2, "bm25_coverage": 1})
INTS_JSON = '{"field": "lots", "type": "number", "value": 1, "status": "present", "confidence": 1, "confidence_state": "uncalibrated", "provenance": [], "extractor": {"name": "x"}, "score": 3, "parts": {"term": 2, "near": 0.5}, "margin": 0, "runner_up": null, "alternatives": [], "value_span": null, "hard": false, "validation_errors": [], "outcome": null, "reason": null, "thresholds": {}}'
INT_ITEM_JSON = '{"evidence_id": "e3", "source_id": "s.xlsx", "revision_id": "r1", "doc_id": "s.xlsx@r1", "doc_sha256": "", "text_layer": "t", "chunk_id": "c", "kind": "table_row", "char_start": 0, "char_end": 1, "quote": "1", "locator": "A1", "page": 1, "bbox": [0, 0, 612, 792], "heading_path": [], "lang": null, "ranks": {"bm25": 1}, "scores": {"bm25": 2, "bm25_coverage": 1}, "flags": []}'


def test_integer_numbers_stay_integers_in_the_json():
    assert dumps(INTS.to_dict()) == INTS_JSON
    assert dumps(INT_ITEM.to_dict()) == INT_ITEM_JSON
