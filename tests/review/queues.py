"""Builders shared by the review tests: a hand-moved clock, the tender extracted into a
review queue under strict thresholds, synthetic queues of any size on a real store."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pincite
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.model import Principal
from pincite.store import Store
from pincite.store.sqlite.records_store import QueueEntry
from tests.corpus import EXAMPLES, TENDER_DOCS

ANA = Principal.parse("demo:ana:analysts")
BOB = Principal.parse("demo:bob:analysts")
EVE = Principal.parse("demo:eve:outsiders")


class Clock:
    """A clock the test moves by hand."""

    def __init__(self, start: datetime | None = None) -> None:
        self.t = start or datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += timedelta(seconds=seconds)


VALID_BY_TYPE: dict[str, Any] = {
    "money": {"amount": 1000.0, "currency": "EUR"}, "percent": {"percent": 2},
    "number": 3, "duration": {"value": 12, "unit": "months"}, "date": "2027-01-15",
    "datetime": {"date": "2027-01-15", "time": "14:00"}, "bool": True, "text": "corrected",
}


def valid_value(item: dict[str, Any]) -> Any:
    """Return a value of the item's field type that passes its checks (the candidate's own
    value when it has one and no validation error)."""
    cand = item["candidate"]
    if cand.get("value") is not None and not cand.get("validation_errors"):
        return cand["value"]
    return VALID_BY_TYPE.get(cand["type"], "corrected")


def strict_schema(tmp_path: Path, tau: float = 0.99) -> Path:
    """Return a copy of the tender schema whose thresholds send most fields to review."""
    text = (EXAMPLES / "tender" / "schema.yaml").read_text(encoding="utf-8")
    text = text.replace("  tau_show: 0.85", f"  tau_show: {tau}").replace(
        "  tau_flag: 0.6", f"  tau_flag: {tau}")
    out = tmp_path / "schema-strict.yaml"
    out.write_text(text, encoding="utf-8")
    return out


def extract_tender(lib: Any, tmp_path: Path, *, tau: float = 0.99, audit: Any = None) -> Any:
    schema = load_schema(strict_schema(tmp_path, tau))
    return run_extraction(lib.store, ANA, schema, TENDER_DOCS, route=False, audit=audit)


def location(store: Store) -> str:
    """Return where a store lives, as `pincite.open` takes it (a directory, or a URL)."""
    return str(getattr(store, "url", None) or store.root)


def synthetic_queue(store: Store, n: int, *, tenant: str = "t", acl: str = "group:rev",
                    source_id: str = "doc.md", hard: Any = None, due: Any = None,
                    confidence: Any = None, at: str = "2026-03-01T08:00:00+00:00") -> list[int]:
    """Queue `n` items on one small real document; return their ids (in insertion order)."""
    lib = pincite.open(location(store))
    lib.ingest_bytes(b"# Doc\n\n1. Terms\n\n1.1 Payment within 30 days.\n", source_id=source_id,
                     tenant=tenant, acl=[acl], sandbox=False)
    rev = lib.store.latest_revision(tenant, source_id)
    lib.close()
    assert rev is not None
    run = {"run_id": f"run-{source_id}", "case_id": f"case-{source_id}", "schema_name": "synthetic",
           "schema_digest": "0", "extractor": {"name": "synthetic", "version": "1.0"},
           "docs": [{"doc_id": rev.doc_id, "doc_sha256": rev.sha256}]}
    entries = []
    for i in range(n):
        conf = confidence(i) if confidence else 0.5
        cand = {"field": f"f{i:05d}", "type": "number", "value": i, "status": "present",
                "confidence": conf, "provenance": [], "outcome": "review",
                "reason": "low_confidence", "extractor": {"name": "synthetic", "version": "1.0",
                                                          "run_id": run["run_id"]}}
        entries.append(QueueEntry(
            case_id=run["case_id"], source_id=source_id, revision_id=rev.revision_id,
            doc_sha256=rev.sha256, field=cand["field"], reason="low_confidence", candidate=cand,
            evidence=[], hard=bool(hard(i)) if hard else False, due_at=due(i) if due else None,
            run_id=run["run_id"], extractor_version="1.0", confidence=conf))
    store.save_extraction(tenant, run, [], entries, at)
    ids = [it["id"] for it in store.review_items(tenant) if it["source_id"] == source_id]
    return ids[-n:]
