"""SQL of the review stage: migration 4 and its named statements.

Migration 4 adds, beside the `review_queue` of migration 3,
- `review_claims` — every claim of an item by a reviewer, with its lease and how it
  ended (`decided`, `released`, `expired`): the audit trail that proves no two reviewers
  ever held the same item at once;
- `review_labels` — seed 000 §05: each decision as a labelled example, tagged with the
  field, the extractor version and the candidate's confidence, with `accepted` (1 when the
  candidate was accepted unchanged), the reviewer and the time to decision. Calibration is
  built from nothing else. `incident_id` ties a label to a rubber-stamp incident; while
  that incident is open the label is left out of calibration;
- `review_incidents` — runs of instant accepts by one reviewer (`rubber_stamp`);
- `review_settings` — per tenant: the sample-audit fraction and the rubber-stamp rule.

Claiming (SQLite): `BEGIN IMMEDIATE`, pick the first claimable item in queue order (hard
first, nearest deadline, oldest), then a conditional UPDATE that only succeeds while the
item is still open and unclaimed or its lease has run out. In PostgreSQL the same pick is
`SELECT … FOR UPDATE SKIP LOCKED`; the tables mean the same there.

Times are ISO 8601 UTC strings with microseconds (`…T10:00:00.000000+00:00`), so they
compare as text.
"""

from __future__ import annotations

from ...vocab import ClaimEnd, IncidentKind, ReviewDecision, sql_in

MIGRATION_4 = f"""
CREATE TABLE review_claims (
    id            INTEGER PRIMARY KEY,
    tenant        TEXT NOT NULL,
    item_id       INTEGER NOT NULL,
    reviewer      TEXT NOT NULL,
    claimed_at    TEXT NOT NULL,
    lease_until   TEXT NOT NULL,
    ended         TEXT CHECK (ended IN ({sql_in(ClaimEnd)})),
    ended_at      TEXT
);
CREATE INDEX review_claims_item ON review_claims (tenant, item_id, id);
CREATE TABLE review_labels (
    id            INTEGER PRIMARY KEY,
    tenant        TEXT NOT NULL,
    item_id       INTEGER,
    case_id       TEXT NOT NULL,
    source_id     TEXT NOT NULL,
    doc_sha256    TEXT NOT NULL,
    field         TEXT NOT NULL,
    extractor_version TEXT NOT NULL,
    reason        TEXT NOT NULL,
    hard          INTEGER NOT NULL DEFAULT 0,
    confidence    REAL,
    decision      TEXT NOT NULL CHECK (decision IN ({sql_in(ReviewDecision)})),
    accepted      INTEGER NOT NULL CHECK (accepted IN (0, 1)),
    not_stated    INTEGER NOT NULL DEFAULT 0,
    candidate     TEXT NOT NULL,
    corrected     TEXT,
    reviewer      TEXT NOT NULL,
    claimed_at    TEXT,
    decided_at    TEXT NOT NULL,
    seconds       REAL,
    incident_id   INTEGER,
    UNIQUE (tenant, item_id)
);
CREATE INDEX review_labels_field ON review_labels (tenant, field, extractor_version);
CREATE INDEX review_labels_reviewer ON review_labels (tenant, reviewer, id);
CREATE TABLE review_incidents (
    id            INTEGER PRIMARY KEY,
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
) WITHOUT ROWID;
CREATE INDEX review_queue_source ON review_queue (tenant, source_id, state);
CREATE INDEX review_queue_order ON review_queue
    (tenant, state, hard DESC, due_at IS NULL, due_at, created_at, id);
CREATE INDEX review_queue_claimer ON review_queue (tenant, claimed_by, state);
"""

# ---- the queue ------------------------------------------------------------------------

# The source id of an evidence entry's doc id `SOURCE@rN`: strip the digits, then "@r".
_EVIDENCE_SOURCE = ("substr(rtrim(json_extract(e.value, '$.doc_id'), '0123456789'), 1, "
                    "length(rtrim(json_extract(e.value, '$.doc_id'), '0123456789')) - 2)")
# An item is visible when its source and every source its evidence cites are in the
# principal's visible set (:visible, a JSON array of source ids).
_VISIBLE = (
    "+q.source_id IN (SELECT value FROM json_each(:visible)) AND NOT EXISTS ("
    f"SELECT 1 FROM json_each(q.evidence) e WHERE {_EVIDENCE_SOURCE} "
    "NOT IN (SELECT value FROM json_each(:visible)))"
)
_ORDER = "q.hard DESC, q.due_at IS NULL, q.due_at ASC, q.created_at ASC, q.id ASC"

# A reviewer holds at most one live claim (`next` hands their own back first).
SQL_OWN_LIVE_CLAIM = (
    "SELECT q.id, q.case_id FROM review_queue q INDEXED BY review_queue_claimer WHERE q.tenant=:tenant "
    "AND q.claimed_by=:reviewer AND q.state='open' AND q.lease_until > :now AND " + _VISIBLE +
    " LIMIT 1"
)
SQL_NEXT_CLAIMABLE = (
    "SELECT q.id, q.case_id FROM review_queue q WHERE q.tenant=:tenant AND q.state='open' "
    "AND (q.claimed_by IS NULL OR q.lease_until <= :now) "
    "AND (:field IS NULL OR q.field=:field) AND " + _VISIBLE +
    " AND q.case_id NOT IN (SELECT value FROM json_each(:closed))"
    f" ORDER BY {_ORDER} LIMIT 1"
)
SQL_CLAIM = (
    "UPDATE review_queue SET claimed_by=:reviewer, claimed_at=:now, lease_until=:lease "
    "WHERE tenant=:tenant AND id=:id AND state='open' "
    "AND (claimed_by IS NULL OR lease_until <= :now)"
)
SQL_RENEW = ("UPDATE review_queue SET lease_until=:lease WHERE tenant=:tenant AND id=:id "
             "AND claimed_by=:reviewer AND state='open'")
SQL_RENEW_CLAIM_ROW = ("UPDATE review_claims SET lease_until=:lease WHERE tenant=:tenant "
                       "AND item_id=:id AND reviewer=:reviewer AND ended IS NULL")
SQL_EXPIRE_CLAIMS = ("UPDATE review_claims SET ended='expired', ended_at=:now "
                     "WHERE tenant=:tenant AND item_id=:id AND ended IS NULL")
SQL_INSERT_CLAIM = ("INSERT INTO review_claims (tenant, item_id, reviewer, claimed_at, lease_until) "
                    "VALUES (:tenant, :id, :reviewer, :now, :lease)")
SQL_END_CLAIM = ("UPDATE review_claims SET ended=:ended, ended_at=:now WHERE tenant=:tenant "
                 "AND item_id=:id AND reviewer=:reviewer AND ended IS NULL")
SQL_RELEASE = ("UPDATE review_queue SET claimed_by=NULL, claimed_at=NULL, lease_until=NULL "
               "WHERE tenant=:tenant AND id=:id AND state='open' AND claimed_by=:reviewer "
               "AND lease_until > :now")
SQL_DECIDE = (
    "UPDATE review_queue SET state='decided', decision=:decision, corrected=:corrected, "
    "decided_by=:reviewer, decided_at=:now WHERE tenant=:tenant AND id=:id AND state='open' "
    "AND claimed_by=:reviewer AND lease_until > :now"
)
SQL_VISIBLE_ITEMS = (
    "SELECT {cols} FROM review_queue q WHERE q.tenant=:tenant AND " + _VISIBLE +
    f" ORDER BY q.state='open' DESC, {_ORDER}"
)
# The depth of every tenant's queue (the service's metrics, no tenant named): open items
# waiting for a reviewer (unclaimed, or their lease ran out) and open items held now.
SQL_QUEUE_DEPTH = (
    "SELECT coalesce(sum(CASE WHEN claimed_by IS NULL OR lease_until <= :now THEN 1 ELSE 0 END), 0), "
    "coalesce(sum(CASE WHEN claimed_by IS NOT NULL AND lease_until > :now THEN 1 ELSE 0 END), 0) "
    "FROM review_queue WHERE state='open'"
)
SQL_CLAIMS_OF_ITEM = ("SELECT reviewer, claimed_at, lease_until, ended, ended_at FROM review_claims "
                      "WHERE tenant=? AND item_id=? ORDER BY id")
SQL_ALL_CLAIMS = ("SELECT item_id, reviewer, claimed_at, lease_until, ended, ended_at "
                  "FROM review_claims WHERE tenant=? ORDER BY item_id, id")

# A new revision of a source: every open item resting on an older version of it (its
# main document or any cited passage) becomes stale. Named parameters :tenant, :source,
# :sha (the new revision's sha256).
SQL_MARK_STALE = (
    "UPDATE review_queue SET state='stale' WHERE tenant=:tenant AND state='open' AND ("
    "(source_id=:source AND doc_sha256<>:sha) OR EXISTS (SELECT 1 FROM json_each(review_queue.evidence) e "
    "WHERE substr(json_extract(e.value, '$.doc_id'), 1, length(:source) + 1) = :source || '@' "
    "AND substr(json_extract(e.value, '$.doc_id'), length(:source) + 2) GLOB 'r[0-9]*' "
    "AND json_extract(e.value, '$.doc_sha256') <> :sha))"
)

# ---- labels, incidents, settings --------------------------------------------------------

LABEL_COLUMNS = ("id", "tenant", "item_id", "case_id", "source_id", "doc_sha256", "field",
                 "extractor_version", "reason", "hard", "confidence", "decision", "accepted",
                 "not_stated", "candidate", "corrected", "reviewer", "claimed_at", "decided_at",
                 "seconds", "incident_id")
_LABEL_COLS = ", ".join(LABEL_COLUMNS)
SQL_INSERT_LABEL = (
    f"INSERT INTO review_labels ({', '.join(LABEL_COLUMNS[1:])}) "
    f"VALUES ({', '.join('?' for _ in LABEL_COLUMNS[1:])})"
)
SQL_LABELS = f"SELECT {_LABEL_COLS} FROM review_labels WHERE tenant=? ORDER BY id"
SQL_LABEL = f"SELECT {_LABEL_COLS} FROM review_labels WHERE tenant=? AND id=?"
# Labels calibration may use: none tied to an incident that is still open.
SQL_CALIBRATION_LABELS = (
    f"SELECT {', '.join('l.' + c for c in LABEL_COLUMNS)} FROM review_labels l "
    "LEFT JOIN review_incidents i ON i.id = l.incident_id "
    "WHERE l.tenant=? AND (l.incident_id IS NULL OR i.cleared_at IS NOT NULL) ORDER BY l.id"
)
SQL_RECENT_LABELS_OF_REVIEWER = (
    "SELECT id, decision, seconds, incident_id FROM review_labels WHERE tenant=? AND reviewer=? "
    "ORDER BY id DESC LIMIT ?"
)
SQL_OPEN_INCIDENT = ("SELECT id FROM review_incidents WHERE id=? AND cleared_at IS NULL")
SQL_INSERT_INCIDENT = ("INSERT INTO review_incidents (tenant, kind, reviewer, detail, opened_at) "
                       "VALUES (?,?,?,?,?)")
SQL_INCIDENT_DETAIL = "UPDATE review_incidents SET detail=? WHERE id=?"
SQL_LABEL_INCIDENT = "UPDATE review_labels SET incident_id=? WHERE id=? AND incident_id IS NULL"
SQL_INCIDENTS = ("SELECT i.id, i.kind, i.reviewer, i.detail, i.opened_at, i.cleared_at, i.cleared_by, "
                 "(SELECT count(*) FROM review_labels l WHERE l.incident_id=i.id) "
                 "FROM review_incidents i WHERE i.tenant=? ORDER BY i.id")
SQL_CLEAR_INCIDENT = ("UPDATE review_incidents SET cleared_at=?, cleared_by=? "
                      "WHERE tenant=? AND id=? AND cleared_at IS NULL")
SQL_SETTINGS = "SELECT key, value FROM review_settings WHERE tenant=?"
SQL_SET_SETTING = (
    "INSERT INTO review_settings (tenant, key, value, updated_at) VALUES (?,?,?,?) "
    "ON CONFLICT (tenant, key) DO UPDATE SET value=excluded.value, updated_at=excluded.updated_at"
)

# What the threshold chooser needs besides labels: the confidences of extracted values
# (present or conflicting records) per field and extractor version, and the span of runs.
SQL_FIELD_CONFIDENCES = (
    "SELECT field, extractor_version, confidence, outcome, record, source_ids FROM field_records "
    "WHERE tenant=? ORDER BY case_id, field"
)
SQL_RUN_SPAN = "SELECT min(created_at), max(created_at), count(*) FROM extraction_runs WHERE tenant=?"
SQL_RUN_DOCS = "SELECT created_at, docs FROM extraction_runs WHERE tenant=?"

SQL_PURGE_LABELS_OF_SOURCE = "DELETE FROM review_labels WHERE tenant=? AND source_id=?"
SQL_PURGE_CLAIMS_OF_SOURCE = (
    "DELETE FROM review_claims WHERE tenant=:tenant AND (item_id IN "
    "(SELECT id FROM review_queue WHERE tenant=:tenant AND source_id=:source) OR item_id NOT IN "
    "(SELECT id FROM review_queue WHERE tenant=:tenant))"
)
SQL_ALL_FIELD_RECORDS = "SELECT case_id, source_ids, record FROM field_records WHERE tenant=? ORDER BY case_id, field"
