"""SQL of extraction runs, field records and the review queue (PostgreSQL).

The tables and columns are the SQLite backend's (`sqlite/records_sql.py` says what each
holds); the differences are PostgreSQL's own: ids are BIGSERIAL, reals are DOUBLE
PRECISION (SQLite's REAL is 8 bytes too), text that is sorted or compared (ids, ISO
times) has the byte order SQLite uses (`COLLATE "C"`), and `field_records` has an `id` column that
keeps the order a record was first written (SQLite's rowid). JSON stays TEXT, written by
the same `json.dumps` calls, so a row reads back byte for byte alike on both backends;
queries that look inside it cast to `json` (not `jsonb`, which refuses `\\u0000`).
"""

from __future__ import annotations

from ...vocab import FieldStatus, Outcome, ReviewDecision, ReviewReason, ReviewState, sql_in

MIGRATION_RECORDS = f"""
CREATE TABLE extraction_runs (
    tenant        TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    case_id       TEXT NOT NULL,
    schema_name   TEXT NOT NULL,
    schema_digest TEXT NOT NULL,
    extractor     TEXT NOT NULL,
    docs          TEXT NOT NULL,
    created_at    TEXT COLLATE "C" NOT NULL,
    checks        TEXT,
    PRIMARY KEY (tenant, run_id)
);
CREATE INDEX extraction_runs_case ON extraction_runs (tenant, case_id);
CREATE TABLE field_records (
    id            BIGSERIAL NOT NULL UNIQUE,
    tenant        TEXT NOT NULL,
    case_id       TEXT COLLATE "C" NOT NULL,
    field         TEXT COLLATE "C" NOT NULL,
    run_id        TEXT NOT NULL,
    schema_name   TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ({sql_in(FieldStatus)})),
    outcome       TEXT NOT NULL CHECK (outcome IN ({sql_in(Outcome)})),
    reason        TEXT NOT NULL,
    confidence    DOUBLE PRECISION,
    source_ids    TEXT NOT NULL,
    record        TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (tenant, case_id, field)
);
CREATE TABLE review_queue (
    id            BIGSERIAL PRIMARY KEY,
    tenant        TEXT NOT NULL,
    case_id       TEXT NOT NULL,
    source_id     TEXT NOT NULL,
    revision_id   TEXT NOT NULL,
    doc_sha256    TEXT NOT NULL,
    field         TEXT NOT NULL,
    reason        TEXT NOT NULL CHECK (reason IN ({sql_in(ReviewReason)})),
    candidate     TEXT NOT NULL,
    evidence      TEXT NOT NULL,
    hard          INTEGER NOT NULL DEFAULT 0,
    due_at        TEXT COLLATE "C",
    run_id        TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    confidence    DOUBLE PRECISION,
    created_at    TEXT COLLATE "C" NOT NULL,
    state         TEXT NOT NULL DEFAULT '{ReviewState.OPEN}' CHECK (state IN ({sql_in(ReviewState)})),
    claimed_by    TEXT,
    claimed_at    TEXT COLLATE "C",
    lease_until   TEXT COLLATE "C",
    decision      TEXT CHECK (decision IN ({sql_in(ReviewDecision)})),
    corrected     TEXT,
    decided_by    TEXT,
    decided_at    TEXT,
    UNIQUE (tenant, source_id, doc_sha256, field)
);
CREATE INDEX review_queue_order ON review_queue
    (tenant, state, hard DESC, due_at ASC NULLS LAST, created_at, id);
CREATE INDEX review_queue_source ON review_queue (tenant, source_id, state);
CREATE INDEX review_queue_claimer ON review_queue (tenant, claimed_by, state);
"""

SQL_INSERT_RUN = (
    "INSERT INTO extraction_runs (tenant, run_id, case_id, schema_name, schema_digest, "
    "extractor, docs, created_at, checks) VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s)"
)
# Two writers of one case take turns (SQLite has one writer; here a transaction lock).
SQL_LOCK_CASE = "SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))"
_RECORD_INSERT = (
    "INSERT INTO field_records (tenant, case_id, field, run_id, schema_name, extractor_version, "
    "status, outcome, reason, confidence, source_ids, record, updated_at) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (tenant, case_id, field) DO UPDATE SET run_id=excluded.run_id, "
    "schema_name=excluded.schema_name, extractor_version=excluded.extractor_version, "
    "status=excluded.status, outcome=excluded.outcome, reason=excluded.reason, "
    "confidence=excluded.confidence, source_ids=excluded.source_ids, record=excluded.record, "
    "updated_at=excluded.updated_at"
)
# A reviewer's decision (the record's `review`) stands while the case's documents are the
# same bytes: a re-run over them does not overwrite it; a new revision does. (`->>` gives
# SQL NULL for a missing key and for JSON null, as SQLite's json_extract does.)
SQL_UPSERT_RECORD = _RECORD_INSERT + (
    " WHERE (field_records.record::json ->> 'review') IS NULL"
    " OR COALESCE((SELECT r.docs FROM extraction_runs r WHERE r.tenant = field_records.tenant"
    " AND r.run_id = field_records.run_id), '') <> %s"
)
SQL_REPLACE_RECORD = _RECORD_INSERT
SQL_RECORDS_OF_CASE = "SELECT record FROM field_records WHERE tenant=%s AND case_id=%s ORDER BY id"
SQL_RECORD = "SELECT record FROM field_records WHERE tenant=%s AND case_id=%s AND field=%s"
SQL_CASE_RECORD_SOURCES = "SELECT source_ids FROM field_records WHERE tenant=%s AND case_id=%s"
SQL_CASE_RUN_DOCS = "SELECT docs FROM extraction_runs WHERE tenant=%s AND case_id=%s"
SQL_RUN = ("SELECT run_id, case_id, schema_name, schema_digest, extractor, docs, created_at, checks "
           "FROM extraction_runs WHERE tenant=%s AND run_id=%s")
SQL_ENQUEUE = (
    "INSERT INTO review_queue (tenant, case_id, source_id, revision_id, doc_sha256, field, "
    "reason, candidate, evidence, hard, due_at, run_id, extractor_version, confidence, created_at) "
    "VALUES (%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s) "
    "ON CONFLICT (tenant, source_id, doc_sha256, field) DO NOTHING"
)
ITEM_COLS = ("id, tenant, case_id, source_id, revision_id, doc_sha256, field, reason, candidate, "
             "evidence, hard, due_at, run_id, extractor_version, confidence, created_at, state, "
             "claimed_by, claimed_at, lease_until, decision, corrected, decided_by, decided_at")
SQL_ITEMS_OF_TENANT = f"SELECT {ITEM_COLS} FROM review_queue WHERE tenant=%s ORDER BY id"
SQL_ITEM = f"SELECT {ITEM_COLS} FROM review_queue WHERE tenant=%s AND id=%s"
SQL_ITEM_FOR_UPDATE = SQL_ITEM + " FOR UPDATE"
SQL_PURGE_RECORDS_OF_SOURCE = (
    "DELETE FROM field_records WHERE tenant=%s AND EXISTS "
    "(SELECT 1 FROM json_array_elements_text(field_records.source_ids::json) v WHERE v = %s)"
)
SQL_PURGE_QUEUE_OF_SOURCE = "DELETE FROM review_queue WHERE tenant=%s AND source_id=%s"

# Rows of other documents that may quote a purged source, and their JSON columns (as in
# SQLite; `field_records` is keyed by its `id` here).
SCRUBBED_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "review_queue": ("id", ("candidate", "evidence", "corrected")),
    "review_labels": ("id", ("candidate", "corrected")),
    "field_records": ("id", ("record", "source_ids")),
    "extraction_runs": ("run_id", ("docs", "checks", "extractor")),
}


def sql_scrub_select(table: str) -> str:
    """Return the statement that reads a table's scrubbed columns for a tenant (locked)."""
    key, cols = SCRUBBED_COLUMNS[table]
    return f"SELECT {key}, {', '.join(cols)} FROM {table} WHERE tenant=%s FOR UPDATE"


def sql_scrub_update(table: str, col: str) -> str:
    """Return the statement that rewrites one scrubbed column of one row."""
    key, _ = SCRUBBED_COLUMNS[table]
    return f"UPDATE {table} SET {col}=%s WHERE tenant=%s AND {key}=%s"
