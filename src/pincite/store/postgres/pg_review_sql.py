"""SQL of review claims (leases, `FOR UPDATE SKIP LOCKED`), labels, incidents and
settings (PostgreSQL).

Tables and columns are the SQLite backend's (`sqlite/review_sql.py` says what each
holds). Claiming differs in how two claimers are kept apart: SQLite has one writer
(`BEGIN IMMEDIATE`); here many claimers run at once, so the pick is
`SELECT … ORDER BY <queue order> LIMIT 1 FOR UPDATE SKIP LOCKED` — a row another
transaction is claiming is passed over, not waited for — and the claim itself is the same
compare-and-set UPDATE (open, and unclaimed or its lease run out), which PostgreSQL
re-checks on the locked row. A lease that ran out is claimable again; a decision is a
compare-and-set on the claim (the deciding reviewer, a live lease).

Times are ISO 8601 UTC strings with microseconds, so they compare as text.
"""

from __future__ import annotations

from ...vocab import ClaimEnd, IncidentKind, ReviewDecision, sql_in
from .pg_records_sql import ITEM_COLS

MIGRATION_REVIEW = f"""
CREATE TABLE review_claims (
    id            BIGSERIAL PRIMARY KEY,
    tenant        TEXT NOT NULL,
    item_id       BIGINT NOT NULL,
    reviewer      TEXT NOT NULL,
    claimed_at    TEXT COLLATE "C" NOT NULL,
    lease_until   TEXT COLLATE "C" NOT NULL,
    ended         TEXT CHECK (ended IN ({sql_in(ClaimEnd)})),
    ended_at      TEXT COLLATE "C"
);
CREATE INDEX review_claims_item ON review_claims (tenant, item_id, id);
CREATE TABLE review_labels (
    id            BIGSERIAL PRIMARY KEY,
    tenant        TEXT NOT NULL,
    item_id       BIGINT,
    case_id       TEXT NOT NULL,
    source_id     TEXT NOT NULL,
    doc_sha256    TEXT NOT NULL,
    field         TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    reason        TEXT NOT NULL,
    hard          INTEGER NOT NULL DEFAULT 0,
    confidence    DOUBLE PRECISION,
    decision      TEXT NOT NULL CHECK (decision IN ({sql_in(ReviewDecision)})),
    accepted      INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    not_stated    INTEGER NOT NULL DEFAULT 0,
    candidate     TEXT NOT NULL,
    corrected     TEXT,
    reviewer      TEXT NOT NULL,
    claimed_at    TEXT,
    decided_at    TEXT NOT NULL,
    seconds       DOUBLE PRECISION,
    incident_id   BIGINT,
    UNIQUE (tenant, item_id)
);
CREATE INDEX review_labels_field ON review_labels (tenant, field, extractor_version);
CREATE INDEX review_labels_reviewer ON review_labels (tenant, reviewer, id);
CREATE INDEX review_labels_source ON review_labels (tenant, source_id);
CREATE TABLE review_incidents (
    id            BIGSERIAL PRIMARY KEY,
    tenant        TEXT NOT NULL,
    kind          TEXT NOT NULL CHECK (kind IN ({sql_in(IncidentKind)})),
    reviewer      TEXT NOT NULL,
    detail        TEXT NOT NULL,
    opened_at     TEXT NOT NULL,
    cleared_at    TEXT,
    cleared_by    TEXT
);
CREATE INDEX review_incidents_tenant ON review_incidents (tenant, id);
CREATE TABLE review_settings (
    tenant        TEXT NOT NULL,
    key           TEXT NOT NULL,
    value         TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    PRIMARY KEY (tenant, key)
);
"""

# ---- the queue ------------------------------------------------------------------------

# The source id of an evidence entry's doc id `SOURCE@rN`: strip the digits, then "@r"
# (exactly SQLite's rtrim/substr, so a malformed id means the same on both).
_EVIDENCE_SOURCE = "left(rtrim(e ->> 'doc_id', '0123456789'), -2)"
# An item is visible when its source and every source its evidence cites are in the
# principal's visible set (%(visible)s, an array of source ids).
# (`source_id || ''` keeps the planner on the queue-order index: picking by source and
# sorting every open item is what it would choose for a fresh queue with no statistics
# yet — SQLite's `+q.source_id` for the same reason.)
_VISIBLE = (
    "(q.source_id || '') = ANY(%(visible)s::text[]) AND NOT EXISTS ("
    f"SELECT 1 FROM json_array_elements(q.evidence::json) e WHERE NOT ({_EVIDENCE_SOURCE} "
    "= ANY(%(visible)s::text[])))"
)
# SQLite's `e NOT IN (set)` is true for an empty set and NULL otherwise when e is NULL;
# `NOT (e = ANY(array))` is the same three-valued answer.
_ORDER = "q.hard DESC, q.due_at ASC NULLS LAST, q.created_at ASC, q.id ASC"

# A reviewer holds at most one live claim (`next` hands their own back first).
SQL_OWN_LIVE_CLAIM = (
    "SELECT q.id, q.case_id FROM review_queue q WHERE q.tenant=%(tenant)s "
    "AND q.claimed_by=%(reviewer)s AND q.state='open' AND q.lease_until > %(now)s AND "
    + _VISIBLE + " LIMIT 1 FOR UPDATE"
)
SQL_NEXT_CLAIMABLE = (
    "SELECT q.id, q.case_id FROM review_queue q WHERE q.tenant=%(tenant)s AND q.state='open' "
    "AND (q.claimed_by IS NULL OR q.lease_until <= %(now)s) "
    "AND (%(field)s::text IS NULL OR q.field=%(field)s::text) AND " + _VISIBLE +
    " AND NOT (q.case_id = ANY(%(closed)s::text[]))"
    f" ORDER BY {_ORDER} LIMIT 1 FOR UPDATE SKIP LOCKED"
)
# The claim is a compare-and-set; RETURNING hands back the item (ITEM_COLS) in the same
# round trip.
SQL_CLAIM = (
    "UPDATE review_queue SET claimed_by=%(reviewer)s, claimed_at=%(now)s, lease_until=%(lease)s "
    "WHERE tenant=%(tenant)s AND id=%(id)s AND state='open' "
    f"AND (claimed_by IS NULL OR lease_until <= %(now)s) RETURNING {ITEM_COLS}"
)
SQL_RENEW = ("UPDATE review_queue SET lease_until=%(lease)s WHERE tenant=%(tenant)s AND id=%(id)s "
             f"AND claimed_by=%(reviewer)s AND state='open' RETURNING {ITEM_COLS}")
SQL_RENEW_CLAIM_ROW = ("UPDATE review_claims SET lease_until=%(lease)s WHERE tenant=%(tenant)s "
                       "AND item_id=%(id)s AND reviewer=%(reviewer)s AND ended IS NULL")
# The claim trail: a claim left by a lease that ran out ends `expired`, and the new one
# begins (one statement).
SQL_RECORD_CLAIM = (
    "WITH expired AS (UPDATE review_claims SET ended='expired', ended_at=%(now)s "
    "WHERE tenant=%(tenant)s AND item_id=%(id)s AND ended IS NULL) "
    "INSERT INTO review_claims (tenant, item_id, reviewer, claimed_at, lease_until) "
    "VALUES (%(tenant)s, %(id)s, %(reviewer)s, %(now)s, %(lease)s)"
)
SQL_END_CLAIM = ("UPDATE review_claims SET ended=%(ended)s, ended_at=%(now)s WHERE tenant=%(tenant)s "
                 "AND item_id=%(id)s AND reviewer=%(reviewer)s AND ended IS NULL")
SQL_RELEASE = ("UPDATE review_queue SET claimed_by=NULL, claimed_at=NULL, lease_until=NULL "
               "WHERE tenant=%(tenant)s AND id=%(id)s AND state='open' AND claimed_by=%(reviewer)s "
               "AND lease_until > %(now)s")
SQL_DECIDE = (
    "UPDATE review_queue SET state='decided', decision=%(decision)s, corrected=%(corrected)s, "
    "decided_by=%(reviewer)s, decided_at=%(now)s WHERE tenant=%(tenant)s AND id=%(id)s "
    f"AND state='open' AND claimed_by=%(reviewer)s AND lease_until > %(now)s RETURNING {ITEM_COLS}"
)
SQL_VISIBLE_ITEMS = (
    "SELECT {cols} FROM review_queue q WHERE q.tenant=%(tenant)s AND " + _VISIBLE +
    f" ORDER BY q.state='open' DESC, {_ORDER}"
)
SQL_CLAIMS_OF_ITEM = ("SELECT reviewer, claimed_at, lease_until, ended, ended_at FROM review_claims "
                      "WHERE tenant=%s AND item_id=%s ORDER BY id")
SQL_ALL_CLAIMS = ("SELECT item_id, reviewer, claimed_at, lease_until, ended, ended_at "
                  "FROM review_claims WHERE tenant=%s ORDER BY item_id, id")

# ---- labels, incidents, settings --------------------------------------------------------

LABEL_COLUMNS = ("id", "tenant", "item_id", "case_id", "source_id", "doc_sha256", "field",
                 "extractor_version", "reason", "hard", "confidence", "decision", "accepted",
                 "not_stated", "candidate", "corrected", "reviewer", "claimed_at", "decided_at",
                 "seconds", "incident_id")
_LABEL_COLS = ", ".join(LABEL_COLUMNS)
SQL_INSERT_LABEL = (
    f"INSERT INTO review_labels ({', '.join(LABEL_COLUMNS[1:])}) "
    f"VALUES ({', '.join('%s' for _ in LABEL_COLUMNS[1:])})"
)
SQL_INSERT_LABEL_RETURNING = f"{SQL_INSERT_LABEL} RETURNING {_LABEL_COLS}"
SQL_LABELS = f"SELECT {_LABEL_COLS} FROM review_labels WHERE tenant=%s ORDER BY id"
SQL_LABEL = f"SELECT {_LABEL_COLS} FROM review_labels WHERE tenant=%s AND id=%s"
# Labels calibration may use: none tied to an incident that is still open.
SQL_CALIBRATION_LABELS = (
    f"SELECT {', '.join('l.' + c for c in LABEL_COLUMNS)} FROM review_labels l "
    "LEFT JOIN review_incidents i ON i.id = l.incident_id "
    "WHERE l.tenant=%s AND (l.incident_id IS NULL OR i.cleared_at IS NOT NULL) ORDER BY l.id"
)
SQL_RECENT_LABELS_OF_REVIEWER = (
    "SELECT id, decision, seconds, incident_id FROM review_labels WHERE tenant=%s AND reviewer=%s "
    "ORDER BY id DESC LIMIT %s"
)
SQL_OPEN_INCIDENT = "SELECT id FROM review_incidents WHERE tenant=%s AND id=%s AND cleared_at IS NULL"
SQL_INSERT_INCIDENT = ("INSERT INTO review_incidents (tenant, kind, reviewer, detail, opened_at) "
                       "VALUES (%s,%s,%s,%s,%s) RETURNING id")
SQL_INCIDENT_DETAIL = "UPDATE review_incidents SET detail=%s WHERE tenant=%s AND id=%s"
SQL_LABEL_INCIDENT = ("UPDATE review_labels SET incident_id=%s WHERE tenant=%s AND id=%s "
                      "AND incident_id IS NULL")
SQL_INCIDENTS = ("SELECT i.id, i.kind, i.reviewer, i.detail, i.opened_at, i.cleared_at, i.cleared_by, "
                 "(SELECT count(*) FROM review_labels l WHERE l.incident_id=i.id) "
                 "FROM review_incidents i WHERE i.tenant=%s ORDER BY i.id")
SQL_CLEAR_INCIDENT = ("UPDATE review_incidents SET cleared_at=%s, cleared_by=%s "
                      "WHERE tenant=%s AND id=%s AND cleared_at IS NULL")
# The depth of every tenant's queue (sqlite/review_sql.py says what each count is).
SQL_QUEUE_DEPTH = (
    "SELECT count(*) FILTER (WHERE claimed_by IS NULL OR lease_until <= %(now)s), "
    "count(*) FILTER (WHERE claimed_by IS NOT NULL AND lease_until > %(now)s) "
    "FROM review_queue WHERE state='open'"
)
SQL_SETTINGS = "SELECT key, value FROM review_settings WHERE tenant=%s ORDER BY key"
SQL_SET_SETTING = (
    "INSERT INTO review_settings (tenant, key, value, updated_at) VALUES (%s,%s,%s,%s) "
    "ON CONFLICT (tenant, key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at"
)
# Two decisions by one reviewer take turns over the rubber-stamp check (SQLite: one writer).
SQL_LOCK_REVIEWER = "SELECT pg_advisory_xact_lock(hashtext('review ' || %s), hashtext(%s))"

SQL_FIELD_CONFIDENCES = (
    "SELECT field, extractor_version, confidence, outcome, record, source_ids FROM field_records "
    "WHERE tenant=%s ORDER BY case_id, field"
)
SQL_RUN_SPAN = "SELECT min(created_at), max(created_at), count(*) FROM extraction_runs WHERE tenant=%s"
SQL_RUN_DOCS = "SELECT created_at, docs FROM extraction_runs WHERE tenant=%s"

SQL_PURGE_LABELS_OF_SOURCE = "DELETE FROM review_labels WHERE tenant=%s AND source_id=%s"
SQL_PURGE_CLAIMS_OF_SOURCE = (
    "DELETE FROM review_claims c WHERE c.tenant=%(tenant)s AND (c.item_id IN "
    "(SELECT id FROM review_queue WHERE tenant=%(tenant)s AND source_id=%(source)s) OR NOT EXISTS "
    "(SELECT 1 FROM review_queue q WHERE q.tenant=%(tenant)s AND q.id=c.item_id))"
)
SQL_ALL_FIELD_RECORDS = ("SELECT case_id, source_ids, record FROM field_records WHERE tenant=%s "
                         "ORDER BY case_id, field")
