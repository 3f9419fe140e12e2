"""PgRecordTables: extraction runs, field records and the review queue's insert and read
paths on PostgreSQL (the SQLite backend's `RecordTables`, statement for statement).

Every method opens its transaction for its tenant, so the row-level-security wall holds
behind each `WHERE tenant = …`. Rows become records with the SQLite backend's own
converters (`item_from_row`, `record_row`): the two backends return the same objects.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...model import extractor_key, split_doc_id
from ..scrub import scrub
from ..sqlite.records_store import CaseGuard, QueueEntry, item_from_row, record_row
from .pg_connection import ALL_TENANTS
from .pg_records_sql import (
    SCRUBBED_COLUMNS,
    SQL_CASE_RECORD_SOURCES,
    SQL_CASE_RUN_DOCS,
    SQL_ENQUEUE,
    SQL_INSERT_RUN,
    SQL_ITEM,
    SQL_ITEMS_OF_TENANT,
    SQL_LOCK_CASE,
    SQL_PURGE_QUEUE_OF_SOURCE,
    SQL_PURGE_RECORDS_OF_SOURCE,
    SQL_RECORD,
    SQL_RECORDS_OF_CASE,
    SQL_RUN,
    SQL_UPSERT_RECORD,
    sql_scrub_select,
    sql_scrub_update,
)


def real(x: float | None) -> float | None:
    """Return a REAL column's value as SQLite stores it: NaN becomes NULL (PostgreSQL would
    keep it), so both backends read back the same."""
    return None if x is None or math.isnan(x) else x


def record_values(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """Return `record_row`'s values with the confidence (the 10th) as SQLite stores it."""
    return (*row[:9], real(row[9]), *row[10:])


def _case_sources(c: Any, tenant: str, case_id: str) -> set[str]:
    out: set[str] = set()
    for (ids,) in c.execute(SQL_CASE_RECORD_SOURCES, (tenant, case_id)).fetchall():
        out.update(json.loads(ids))
    for (docs,) in c.execute(SQL_CASE_RUN_DOCS, (tenant, case_id)).fetchall():
        out.update(split_doc_id(str(d["doc_id"]))[0] for d in json.loads(docs)
                   if d.get("doc_id"))  # a purged document is a tombstone (`store.scrub`)
    return out


class PgRecordTables:
    """Runs, field records, review-queue inserts (needs `write`, `read` of the store)."""

    def write(self, tenant: str = ALL_TENANTS) -> AbstractContextManager[Any]:  # type: ignore[empty-body]
        """Provided by `PostgresStore`."""

    def read(self, tenant: str = ALL_TENANTS) -> AbstractContextManager[Any]:  # type: ignore[empty-body]
        """Provided by `PostgresStore`."""

    def save_extraction(self, tenant: str, run: dict[str, Any], records: Iterable[dict[str, Any]],
                        queue: Iterable[QueueEntry], at: str, *, guard: CaseGuard | None = None
                        ) -> int:
        """Store a run, upsert its field records and enqueue its review items, in one
        transaction; return how many review items were new. A reviewed record stands
        while the run reads the same documents. `guard` is called inside the transaction
        (which holds the case's lock) with the source ids the stored case already holds,
        and raises to refuse the write."""
        added = 0
        docs = json.dumps(run["docs"])
        with self.write(tenant) as c:
            c.execute(SQL_LOCK_CASE, (tenant, run["case_id"]))
            if guard is not None:
                guard(_case_sources(c, tenant, run["case_id"]))
            c.execute(SQL_INSERT_RUN, (
                tenant, run["run_id"], run["case_id"], run["schema_name"], run["schema_digest"],
                json.dumps(run["extractor"], sort_keys=True), docs, at,
                None if run.get("checks") is None else json.dumps(run["checks"], sort_keys=True)))
            rows = [(*record_values(record_row(
                tenant, run["case_id"], r, set(run.get("source_ids", ())), at, run_id=run["run_id"],
                version=extractor_key(r["extractor"]), schema_name=run["schema_name"])), docs)
                for r in records]
            with c.cursor() as cur:
                if rows:
                    cur.executemany(SQL_UPSERT_RECORD, rows)
                entries = [(tenant, q.case_id, q.source_id, q.revision_id, q.doc_sha256, q.field,
                            q.reason, json.dumps(q.candidate, sort_keys=True, ensure_ascii=False),
                            json.dumps(q.evidence, ensure_ascii=False), int(q.hard), q.due_at,
                            q.run_id, q.extractor_version, real(q.confidence), at) for q in queue]
                if entries:
                    # one round trip per batch; rowcount of each statement tells what was new
                    cur.executemany(SQL_ENQUEUE, entries, returning=False)
                    added = max(cur.rowcount, 0)
        return added

    def case_source_ids(self, tenant: str, case_id: str) -> set[str]:
        """Return the source ids a stored case holds (its records' and its runs'), or an
        empty set for a case never stored."""
        with self.read(tenant) as c:
            return _case_sources(c, tenant, case_id)

    def field_records(self, tenant: str, case_id: str) -> list[dict[str, Any]]:
        """Return the stored records of a case, in the order they were first written."""
        with self.read(tenant) as c:
            return [json.loads(r[0]) for r in c.execute(SQL_RECORDS_OF_CASE, (tenant, case_id))]

    def field_record(self, tenant: str, case_id: str, field: str) -> dict[str, Any] | None:
        """Return the stored record of one field of a case, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_RECORD, (tenant, case_id, field)).fetchone()
        return json.loads(row[0]) if row else None

    def extraction_run(self, tenant: str, run_id: str) -> dict[str, Any] | None:
        """Return one extraction run as a JSON object, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_RUN, (tenant, run_id)).fetchone()
        if row is None:
            return None
        return {"run_id": row[0], "case_id": row[1], "schema_name": row[2], "schema_digest": row[3],
                "extractor": json.loads(row[4]), "docs": json.loads(row[5]), "created_at": row[6],
                "checks": None if row[7] is None else json.loads(row[7])}

    def review_items(self, tenant: str) -> list[dict[str, Any]]:
        """Return every review item of a tenant, oldest first (no ACL applied: callers filter)."""
        with self.read(tenant) as c:
            return [item_from_row(r) for r in c.execute(SQL_ITEMS_OF_TENANT, (tenant,))]

    def review_item(self, tenant: str, item_id: int) -> dict[str, Any] | None:
        """Return one review item of a tenant, or None."""
        with self.read(tenant) as c:
            row = c.execute(SQL_ITEM, (tenant, item_id)).fetchone()
        return item_from_row(row) if row else None

    def purge_records_of_source(self, tenant: str, source_id: str) -> int:
        """Delete the field records and review items that quote a purged source; return how
        many rows went."""
        with self.write(tenant) as c:
            n = c.execute(SQL_PURGE_RECORDS_OF_SOURCE, (tenant, source_id)).rowcount
            n += c.execute(SQL_PURGE_QUEUE_OF_SOURCE, (tenant, source_id)).rowcount
        return int(n)

    def scrub_source(self, tenant: str, source_id: str, shas: Sequence[str]) -> int:
        """Tombstone every JSON object that rests on a purged source in the rows other
        documents keep (review items and labels, field records, runs); return how many
        rows changed. An undecided review item stays in the queue."""
        n = 0
        with self.write(tenant) as c:
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
