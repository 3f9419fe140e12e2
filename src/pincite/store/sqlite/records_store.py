"""The extraction side of the SQLite store: runs, field records and the review queue's
insert and read paths. Mixed into `SQLiteStore`; the review stage adds claiming and
decisions.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any

from ...model import extractor_key, split_doc_id
from ..scrub import scrub
from .records_sql import (
    ITEM_COLUMNS,
    SCRUBBED_COLUMNS,
    SQL_CASE_RECORD_SOURCES,
    SQL_CASE_RUN_DOCS,
    SQL_ENQUEUE,
    SQL_INSERT_RUN,
    SQL_ITEM,
    SQL_ITEMS_OF_TENANT,
    SQL_PURGE_QUEUE_OF_SOURCE,
    SQL_PURGE_RECORDS_OF_SOURCE,
    SQL_RECORD,
    SQL_RECORDS_OF_CASE,
    SQL_RUN,
    SQL_UPSERT_RECORD,
    sql_scrub_select,
    sql_scrub_update,
)

_JSON_COLS = ("candidate", "evidence", "corrected")
# called with the source ids a stored case holds; raises to refuse writing the case
CaseGuard = Callable[[set[str]], None]


@dataclass(frozen=True, slots=True)
class QueueEntry:
    """A review item to insert: one per (tenant, source, sha256, field)."""

    case_id: str
    source_id: str
    revision_id: str
    doc_sha256: str
    field: str
    reason: str
    candidate: dict[str, Any]
    evidence: list[dict[str, Any]]
    hard: bool
    due_at: str | None
    run_id: str
    extractor_version: str
    confidence: float | None


def item_from_row(row: Sequence[Any]) -> dict[str, Any]:
    """Return a review-queue row as a JSON object (JSON columns decoded, `hard` a bool)."""
    d = dict(zip(ITEM_COLUMNS, row, strict=True))
    for k in _JSON_COLS:
        if d[k] is not None:
            d[k] = json.loads(d[k])
    d["hard"] = bool(d["hard"])
    return d


def record_row(tenant: str, case_id: str, record: dict[str, Any], sources: set[str], at: str, *,
               run_id: str, version: str, schema_name: str) -> tuple[Any, ...]:
    """Return the `field_records` column values of one record (`sources`: the source ids it
    rests on besides those its provenance names)."""
    sources = sources | {p["doc_id"].split("@", 1)[0] for p in record.get("provenance", ())
                         if p.get("doc_id")}  # a purged source's entry is a tombstone
    return (tenant, case_id, record["field"], run_id, schema_name, version,
            record["status"], record["outcome"], record["reason"], record.get("confidence"),
            json.dumps(sorted(sources)), json.dumps(record, sort_keys=True, ensure_ascii=False), at)


def _case_sources(c: sqlite3.Connection, tenant: str, case_id: str) -> set[str]:
    out: set[str] = set()
    for (ids,) in c.execute(SQL_CASE_RECORD_SOURCES, (tenant, case_id)):
        out.update(json.loads(ids))
    for (docs,) in c.execute(SQL_CASE_RUN_DOCS, (tenant, case_id)):
        out.update(split_doc_id(str(d["doc_id"]))[0] for d in json.loads(docs)
                   if d.get("doc_id"))  # a purged document is a tombstone (`store.scrub`)
    return out


class RecordTables:
    """Runs, field records, review-queue inserts (needs `conn`, `write`)."""

    @property
    def conn(self) -> sqlite3.Connection:  # provided by SQLiteStore
        raise NotImplementedError

    def write(self) -> AbstractContextManager[sqlite3.Connection]: ...  # type: ignore[empty-body]

    def save_extraction(self, tenant: str, run: dict[str, Any], records: Iterable[dict[str, Any]],
                        queue: Iterable[QueueEntry], at: str, *, guard: CaseGuard | None = None
                        ) -> int:
        """Store a run, upsert its field records and enqueue its review items, in one
        transaction; return how many review items were new. A reviewed record stands
        while the run reads the same documents (see SQL_UPSERT_RECORD). `guard` is called
        inside the transaction with the source ids the stored case already holds, and
        raises to refuse the write (the caller may not read one of them)."""
        added = 0
        docs = json.dumps(run["docs"])
        with self.write() as c:
            if guard is not None:
                guard(_case_sources(c, tenant, run["case_id"]))
            c.execute(SQL_INSERT_RUN, (
                tenant, run["run_id"], run["case_id"], run["schema_name"], run["schema_digest"],
                json.dumps(run["extractor"], sort_keys=True), docs, at,
                None if run.get("checks") is None else json.dumps(run["checks"], sort_keys=True)))
            for r in records:
                c.execute(SQL_UPSERT_RECORD, (
                    *record_row(tenant, run["case_id"], r, set(run.get("source_ids", ())), at,
                                run_id=run["run_id"], version=extractor_key(r["extractor"]),
                                schema_name=run["schema_name"]),
                    docs))
            for q in queue:
                cur = c.execute(SQL_ENQUEUE, (
                    tenant, q.case_id, q.source_id, q.revision_id, q.doc_sha256, q.field, q.reason,
                    json.dumps(q.candidate, sort_keys=True, ensure_ascii=False),
                    json.dumps(q.evidence, ensure_ascii=False), int(q.hard), q.due_at, q.run_id,
                    q.extractor_version, q.confidence, at))
                added += cur.rowcount
        return added

    def case_source_ids(self, tenant: str, case_id: str) -> set[str]:
        """Return the source ids a stored case holds (its records' and its runs'), or an
        empty set for a case never stored."""
        return _case_sources(self.conn, tenant, case_id)

    def field_records(self, tenant: str, case_id: str) -> list[dict[str, Any]]:
        """Return the stored records of a case, in the order they were first written."""
        return [json.loads(r[0]) for r in self.conn.execute(SQL_RECORDS_OF_CASE, (tenant, case_id))]

    def field_record(self, tenant: str, case_id: str, field: str) -> dict[str, Any] | None:
        """Return the stored record of one field of a case, or None."""
        row = self.conn.execute(SQL_RECORD, (tenant, case_id, field)).fetchone()
        return json.loads(row[0]) if row else None

    def extraction_run(self, tenant: str, run_id: str) -> dict[str, Any] | None:
        """Return one extraction run as a JSON object, or None."""
        row = self.conn.execute(SQL_RUN, (tenant, run_id)).fetchone()
        if row is None:
            return None
        return {"run_id": row[0], "case_id": row[1], "schema_name": row[2], "schema_digest": row[3],
                "extractor": json.loads(row[4]), "docs": json.loads(row[5]), "created_at": row[6],
                "checks": None if row[7] is None else json.loads(row[7])}

    def review_items(self, tenant: str) -> list[dict[str, Any]]:
        """Return every review item of a tenant, oldest first (no ACL applied: callers filter)."""
        return [item_from_row(r) for r in self.conn.execute(SQL_ITEMS_OF_TENANT, (tenant,))]

    def review_item(self, tenant: str, item_id: int) -> dict[str, Any] | None:
        """Return one review item of a tenant, or None."""
        row = self.conn.execute(SQL_ITEM, (tenant, item_id)).fetchone()
        return item_from_row(row) if row else None

    def purge_records_of_source(self, tenant: str, source_id: str) -> int:
        """Delete the field records and review items that quote a purged source; return how
        many rows went."""
        with self.write() as c:
            n = c.execute(SQL_PURGE_RECORDS_OF_SOURCE, (tenant, source_id)).rowcount
            n += c.execute(SQL_PURGE_QUEUE_OF_SOURCE, (tenant, source_id)).rowcount
        return n

    def scrub_source(self, tenant: str, source_id: str, shas: Sequence[str]) -> int:
        """Tombstone every JSON object that rests on a purged source in the rows other
        documents keep (SCRUBBED_COLUMNS: review items and labels, field records, runs);
        return how many rows changed. An undecided review item stays in the queue."""
        n = 0
        with self.write() as c:
            for table, (_, cols) in SCRUBBED_COLUMNS.items():
                for key, *values in c.execute(sql_scrub_select(table), (tenant,)).fetchall():
                    hit = False
                    for col, raw in zip(cols, values, strict=True):
                        if raw is None or not any(s in raw for s in (source_id, *shas)):
                            continue
                        new, changed = scrub(json.loads(raw), source_id, shas)
                        if changed:
                            c.execute(sql_scrub_update(table, col),
                                      (json.dumps(new, sort_keys=True), tenant, key))
                            hit = True
                    n += hit
        return n
