"""Write the JSON Schemas of pincite's cross-boundary records, generated from their models.

Usage: python scripts/gen_schemas.py [--check]

The files in src/pincite/schemas/ are generated, never edited by hand: change a model,
run this, commit both. `--check` exits 1 when a committed file differs from what the
models generate now (tests/extract/test_records_models.py runs the same comparison).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "pincite" / "schemas"


def generated() -> dict[str, str]:
    """Return {file name: JSON text} for every generated schema."""
    from pincite.extract.records import FieldRecord, RecordsDocument
    from pincite.extract.schema_file import SchemaFile
    from pincite.rank.profile import CompanyProfile
    from pincite.retrieve.bundle import EvidenceBundle
    from pincite.retrieve.filters import Filters
    from pincite.review.items import ReviewItem

    # Files a user writes are described as they are read (validation); records pincite
    # writes are described as they are written (serialization).
    schemas: dict[str, dict[str, Any]] = {
        "extraction-schema.json": SchemaFile.model_json_schema(mode="validation"),
        "retrieval-filters.json": Filters.model_json_schema(mode="validation"),
        "company-profile.json": CompanyProfile.model_json_schema(mode="validation"),
        "field-record.json": FieldRecord.model_json_schema(mode="serialization"),
        "records.json": RecordsDocument.model_json_schema(mode="serialization"),
        "evidence-bundle.json": EvidenceBundle.model_json_schema(mode="serialization"),
        "review-item.json": ReviewItem.model_json_schema(mode="serialization"),
    }
    return {name: json.dumps(s, indent=2, ensure_ascii=False) + "\n" for name, s in schemas.items()}


def stale() -> list[str]:
    """Return the names of committed schema files that differ from the generated ones."""
    return [name for name, text in generated().items()
            if not (OUT / name).exists() or (OUT / name).read_text("utf-8") != text]


def main(argv: list[str]) -> int:
    if "--check" in argv:
        bad = stale()
        if bad:
            sys.stderr.write(f"stale: {', '.join(bad)}; run python scripts/gen_schemas.py\n")
        return 1 if bad else 0
    for name, text in generated().items():
        (OUT / name).write_text(text, "utf-8")
        sys.stdout.write(f"wrote {OUT / name}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
