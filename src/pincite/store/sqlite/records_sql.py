"""SQL of extraction: migration 3 and its named statements.

Migration 3 adds
- `extraction_runs` — one row per `extract` run: the case, the schema (name, digest), the
  extractor identity and the documents read (doc ids with their sha256);
- `field_records` — the current record of each (tenant, case, field): the JSON record as
  the contract writes it, with its outcome and reason pulled out for queries, and the
  source ids it rests on (a purge removes the records of a purged source);
- `review_queue` — seed 000 §05: one item per (tenant, source, sha256, field), so a
  re-run after a prompt or rule change does not double the queue. `candidate` is the
  record as extracted, untouched; `evidence` the passages in reading order; `due_at` the
  case's own deadline; claiming (`claimed_by`, `claimed_at`, `lease_until`) and the
  decision columns are used by the review stage. In PostgreSQL the same table is claimed
  with `FOR UPDATE SKIP LOCKED`; here with `BEGIN IMMEDIATE` and a conditional update.
"""

from __future__ import annotations

from ...vocab import FieldStatus, Outcome, ReviewDecision, ReviewReason, ReviewState, sql_in

MIGRATION_3 = f"""
CREATE TABLE extraction_runs (
    tenant        TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    case_id       TEXT NOT NULL,
    schema_name   TEXT NOT NULL,
    schema_digest TEXT NOT NULL,
    extractor     TEXT NOT NULL,
    docs          TEXT NOT NULL,
    created_at    TEXT NOT NULL,
    PRIMARY KEY (tenant, run_id)
) WITHOUT ROWID;
CREATE TABLE field_records (
    tenant        TEXT NOT NULL,
    case_id       TEXT NOT NULL,
    field         TEXT NOT NULL,
    run_id        TEXT NOT NULL,
    schema_name   TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    status        TEXT NOT NULL CHECK (status IN ({sql_in(FieldStatus)})),
    outcome       TEXT NOT NULL CHECK (outcome IN ({sql_in(Outcome)})),
    reason        TEXT NOT NULL,
    confidence    REAL,
    source_ids    TEXT NOT NULL,
    record        TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (tenant, case_id, field)
);
CREATE TABLE review_queue (
    id            INTEGER PRIMARY KEY,
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
    due_at        TEXT,
    run_id        TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    confidence    REAL,
    created_at    TEXT NOT NULL,
    state         TEXT NOT NULL DEFAULT '{ReviewState.OPEN}' CHECK (state IN ({sql_in(ReviewState)})),
    claimed_by    TEXT,
    claimed_at    TEXT,
    lease_until   TEXT,
    decision      TEXT CHECK (decision IN ({sql_in(ReviewDecision)})),
    corrected     TEXT,
    decided_by    TEXT,
    decided_at    TEXT,
    UNIQUE (tenant, source_id, doc_sha256, field)
);
CREATE INDEX review_queue_next ON review_queue (tenant, state, hard DESC, due_at, created_at);
"""

SQL_INSERT_RUN = ("INSERT INTO extraction_runs (tenant, run_id, case_id, schema_name, schema_digest, "
                  "extractor, docs, created_at, checks) VALUES (?,?,?,?,?,?,?,?,?)")
_RECORD_INSERT = (
    "INSERT INTO field_records (tenant, case_id, field, run_id, schema_name, extractor_version, "
    "status, outcome, reason, confidence, source_ids, record, updated_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?) "
    "ON CONFLICT (tenant, case_id, field) DO UPDATE SET run_id=excluded.run_id, "
    "schema_name=excluded.schema_name, extractor_version=excluded.extractor_version, "
    "status=excluded.status, outcome=excluded.outcome, reason=excluded.reason, "
    "confidence=excluded.confidence, source_ids=excluded.source_ids, record=excluded.record, "
    "updated_at=excluded.updated_at"
)
# A reviewer's decision (the record's `review`) stands while the case's documents are the
# same bytes: a re-run over them does not overwrite it; a new revision does.
SQL_UPSERT_RECORD = _RECORD_INSERT + (
    " WHERE json_extract(field_records.record, '$.review') IS NULL"
    " OR COALESCE((SELECT r.docs FROM extraction_runs r WHERE r.tenant = field_records.tenant"
    " AND r.run_id = field_records.run_id), '') != ?"
)
SQL_REPLACE_RECORD = _RECORD_INSERT
SQL_RECORDS_OF_CASE = ("SELECT record FROM field_records WHERE tenant=? AND case_id=? ORDER BY rowid")
SQL_RECORD = "SELECT record FROM field_records WHERE tenant=? AND case_id=? AND field=?"
# every source a stored case holds: those its records rest on and those its runs read
SQL_CASE_RECORD_SOURCES = "SELECT source_ids FROM field_records WHERE tenant=? AND case_id=?"
SQL_CASE_RUN_DOCS = "SELECT docs FROM extraction_runs WHERE tenant=? AND case_id=?"
SQL_RUN = ("SELECT run_id, case_id, schema_name, schema_digest, extractor, docs, created_at, checks "
           "FROM extraction_runs WHERE tenant=? AND run_id=?")
SQL_ENQUEUE = (
    "INSERT OR IGNORE INTO review_queue (tenant, case_id, source_id, revision_id, doc_sha256, field, "
    "reason, candidate, evidence, hard, due_at, run_id, extractor_version, confidence, created_at) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
)
_ITEM_COLS = ("id, tenant, case_id, source_id, revision_id, doc_sha256, field, reason, candidate, "
              "evidence, hard, due_at, run_id, extractor_version, confidence, created_at, state, "
              "claimed_by, claimed_at, lease_until, decision, corrected, decided_by, decided_at")
ITEM_COLUMNS = tuple(c.strip() for c in _ITEM_COLS.split(","))
SQL_ITEMS_OF_TENANT = f"SELECT {_ITEM_COLS} FROM review_queue WHERE tenant=? ORDER BY id"
SQL_ITEM = f"SELECT {_ITEM_COLS} FROM review_queue WHERE tenant=? AND id=?"
SQL_PURGE_RECORDS_OF_SOURCE = (
    "DELETE FROM field_records WHERE tenant=? AND EXISTS "
    "(SELECT 1 FROM json_each(field_records.source_ids) WHERE value=?)"
)
SQL_PURGE_QUEUE_OF_SOURCE = "DELETE FROM review_queue WHERE tenant=? AND source_id=?"

# Rows of other documents that may quote a purged source, and their JSON columns: a purge
# rewrites these columns with `store.scrub` (docs/concepts.md, Deletion, lists them all).
SCRUBBED_COLUMNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "review_queue": ("id", ("candidate", "evidence", "corrected")),
    "review_labels": ("id", ("candidate", "corrected")),
    "field_records": ("rowid", ("record", "source_ids")),
    "extraction_runs": ("run_id", ("docs", "checks", "extractor")),
}


def sql_scrub_select(table: str) -> str:
    key, cols = SCRUBBED_COLUMNS[table]
    return f"SELECT {key}, {', '.join(cols)} FROM {table} WHERE tenant=?"


def sql_scrub_update(table: str, col: str) -> str:
    key, _ = SCRUBBED_COLUMNS[table]
    return f"UPDATE {table} SET {col}=? WHERE tenant=? AND {key}=?"
