"""Schema extraction: cases, extractors, records, validation and the run that stores them."""

from .records import SCHEMA_NAME, Candidate, FieldRecord, records_json
from .run import ExtractionResult, run_extraction

__all__ = ["SCHEMA_NAME", "Candidate", "ExtractionResult", "FieldRecord", "records_json",
           "run_extraction"]
