"""Schema extraction: a case of documents read for a schema of typed fields, each value
cited, validated and decided.

`schema`/`schema_file` (the schema file) → `case` (the documents and their passages) →
`typed`, `scoring`, `clauses`, `deterministic` (the rule extractor) and `model_prompt`,
`model_answer`, `model_adapter` (the model-backed one) → `records` (field records) →
`validate` → `decide` (show / flag / review / abstain) → `run` (one extraction run,
stored) → `report` (`records.json` and the dictamen).
"""

from .records import SCHEMA_NAME, Candidate, FieldRecord, records_json

__all__ = ["SCHEMA_NAME", "Candidate", "FieldRecord", "records_json"]
