"""Schema extraction: cases, extractors, records and validation (the run that decides and
stores them is `pincite.extraction`)."""

from .records import SCHEMA_NAME, Candidate, FieldRecord, records_json

__all__ = ["SCHEMA_NAME", "Candidate", "FieldRecord", "records_json"]
