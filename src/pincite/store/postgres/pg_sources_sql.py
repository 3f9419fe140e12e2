"""SQL of sources, revisions, text layers, quarantine records and blobs (PostgreSQL).

Table and column names are the SQLite backend's, so the two schemas read alike.
"""

from __future__ import annotations

MIGRATION_SOURCES = """
CREATE TABLE sources (
    tenant      TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    acl         TEXT NOT NULL,
    acl_epoch   INTEGER NOT NULL DEFAULT 1,
    created_at  TEXT NOT NULL,
    owner       TEXT,
    PRIMARY KEY (tenant, source_id)
);
CREATE TABLE revisions (
    tenant       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    revision_id  TEXT NOT NULL,
    seq          INTEGER NOT NULL,
    sha256       TEXT NOT NULL,
    media_type   TEXT NOT NULL,
    size         BIGINT NOT NULL,
    acquired_at  TEXT NOT NULL,
    valid_from   TEXT NOT NULL,
    valid_to     TEXT,
    flags        TEXT NOT NULL DEFAULT '[]',
    PRIMARY KEY (tenant, source_id, revision_id),
    UNIQUE (tenant, source_id, seq),
    FOREIGN KEY (tenant, source_id) REFERENCES sources (tenant, source_id)
);
CREATE INDEX revisions_sha ON revisions (tenant, sha256);
CREATE TABLE text_layers (
    tenant       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    revision_id  TEXT NOT NULL,
    layer_id     TEXT NOT NULL,
    parser       TEXT NOT NULL,
    version      TEXT NOT NULL,
    text         TEXT NOT NULL,
    elements     BYTEA NOT NULL,
    geometry     BYTEA,
    page_count   INTEGER NOT NULL,
    page_sizes   TEXT NOT NULL,
    flags        TEXT NOT NULL,
    meta         TEXT,
    created_at   TEXT NOT NULL,
    layer_seq    BIGSERIAL,
    PRIMARY KEY (tenant, source_id, revision_id, layer_id),
    FOREIGN KEY (tenant, source_id, revision_id)
        REFERENCES revisions (tenant, source_id, revision_id)
);
CREATE TABLE quarantine (
    id          BIGSERIAL PRIMARY KEY,
    tenant      TEXT NOT NULL,
    source_id   TEXT NOT NULL,
    path        TEXT NOT NULL,
    sha256      TEXT,
    size        BIGINT NOT NULL,
    reason      TEXT NOT NULL,
    detail      TEXT NOT NULL,
    at          TEXT NOT NULL,
    owner       TEXT
);
CREATE INDEX quarantine_tenant ON quarantine (tenant, id);
CREATE TABLE blobs (
    tenant      TEXT NOT NULL,
    area        TEXT NOT NULL CHECK (area IN ('accepted', 'quarantine')),
    sha256      TEXT NOT NULL,
    data        BYTEA NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (tenant, area, sha256)
);
CREATE INDEX quarantine_sha ON quarantine (tenant, sha256);
"""

# ---- statements --------------------------------------------------------------------------

_SOURCE_COLS = "tenant, source_id, acl, acl_epoch, created_at, owner"
# A source whose newest revision is tombstoned is deleted: readers never see it.
_LIVE = ("NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant = s.tenant "
         "AND t.source_id = s.source_id AND t.through_seq >= (SELECT max(seq) FROM revisions r "
         "WHERE r.tenant = s.tenant AND r.source_id = s.source_id))")
SQL_LIVE_SOURCE = (f"SELECT {_SOURCE_COLS} FROM sources s "
                   f"WHERE tenant = %s AND source_id = %s AND {_LIVE}")
SQL_SOURCES = (f"SELECT {_SOURCE_COLS} FROM sources s "
               f"WHERE tenant = %s AND {_LIVE} ORDER BY source_id")
# The writer's lock: every commit of a revision to one source takes turns on its row.
SQL_LOCK_SOURCE = (f"SELECT {_SOURCE_COLS} FROM sources WHERE tenant = %s AND source_id = %s "
                   "FOR UPDATE")
SQL_INSERT_SOURCE = ("INSERT INTO sources (tenant, source_id, acl, acl_epoch, created_at, owner) "
                     "VALUES (%s, %s, %s, 1, %s, %s) ON CONFLICT (tenant, source_id) DO NOTHING")
SQL_SET_ACL = ("UPDATE sources SET acl = %s, acl_epoch = acl_epoch + 1 "
               "WHERE tenant = %s AND source_id = %s")

_REV_COLS = ("tenant, source_id, revision_id, sha256, media_type, size, acquired_at, "
             "valid_from, valid_to, flags")
_NOT_DELETED = ("NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant = r.tenant "
                "AND t.source_id = r.source_id AND t.through_seq >= r.seq)")
SQL_REVISION = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant = %s AND source_id = %s "
                f"AND revision_id = %s AND {_NOT_DELETED}")
SQL_LATEST = (f"SELECT {_REV_COLS} FROM revisions WHERE tenant = %s AND source_id = %s "
              "ORDER BY seq DESC LIMIT 1")
SQL_LATEST_LIVE = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant = %s AND source_id = %s "
                   f"AND {_NOT_DELETED} ORDER BY seq DESC LIMIT 1")
SQL_REVISIONS = (f"SELECT {_REV_COLS} FROM revisions r WHERE tenant = %s AND source_id = %s "
                 f"AND {_NOT_DELETED} ORDER BY seq")
SQL_ALL_REVISIONS = f"SELECT {_REV_COLS} FROM revisions ORDER BY tenant, source_id, seq"
# The next seq follows every revision ever numbered, the purged ones (whose tombstone
# keeps only the source's key) included.
SQL_NEXT_SEQ = (
    "SELECT greatest((SELECT coalesce(max(seq), 0) FROM revisions "
    "WHERE tenant = %(tenant)s AND source_id = %(source)s), "
    "(SELECT coalesce(max(through_seq), 0) FROM tombstones "
    "WHERE tenant = %(tenant)s AND source_key = %(key)s)) + 1"
)
SQL_CLOSE_REVISION = ("UPDATE revisions SET valid_to = %s WHERE tenant = %s AND source_id = %s "
                      "AND revision_id = %s AND valid_to IS NULL")
SQL_INSERT_REVISION = (f"INSERT INTO revisions ({_REV_COLS}, seq) "
                       "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)")

_LAYER_COLS = "parser, version, text, elements, geometry, page_count, page_sizes, flags, meta"
SQL_INSERT_LAYER = (
    f"INSERT INTO text_layers (tenant, source_id, revision_id, layer_id, {_LAYER_COLS}, "
    "created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
    "ON CONFLICT (tenant, source_id, revision_id, layer_id) DO NOTHING"
)
SQL_LAYER = (f"SELECT {_LAYER_COLS} FROM text_layers WHERE tenant = %s AND source_id = %s "
             "AND revision_id = %s AND layer_id = %s")
SQL_LATEST_LAYER = (f"SELECT {_LAYER_COLS} FROM text_layers WHERE tenant = %s AND source_id = %s "
                    "AND revision_id = %s ORDER BY created_at DESC, layer_seq DESC LIMIT 1")
SQL_LAYER_IDS = ("SELECT layer_id FROM text_layers WHERE tenant = %s AND source_id = %s "
                 "AND revision_id = %s ORDER BY created_at, layer_seq")

# Open review items whose evidence came from other bytes of this source go stale (the
# same rule as the SQLite backend's SQL_MARK_STALE: the item's own source, or any piece
# of evidence quoting a revision `<source>@r<n>` with another sha256).
SQL_MARK_STALE = (
    "UPDATE review_queue SET state = 'stale' WHERE tenant = %(tenant)s AND state = 'open' AND ("
    "(source_id = %(source)s AND doc_sha256 <> %(sha)s) OR EXISTS ("
    "SELECT 1 FROM jsonb_array_elements(review_queue.evidence::jsonb) e "
    "WHERE left(e->>'doc_id', length(%(source)s) + 1) = %(source)s || '@' "
    "AND substr(e->>'doc_id', length(%(source)s) + 2) ~ '^r[0-9]' "
    "AND e->>'doc_sha256' <> %(sha)s))"
)

SQL_INSERT_QUARANTINE = (
    "INSERT INTO quarantine (tenant, source_id, path, sha256, size, reason, detail, at, owner) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)"
)
SQL_QUARANTINED = ("SELECT source_id, path, sha256, size, reason, detail, at, owner "
                   "FROM quarantine WHERE tenant = %s ORDER BY id")
SQL_BLOB_USED = "SELECT 1 FROM revisions WHERE tenant = %s AND sha256 = %s LIMIT 1"
SQL_QUARANTINE_BLOB_USED = "SELECT 1 FROM quarantine WHERE tenant = %s AND sha256 = %s LIMIT 1"

# ---- fsck ------------------------------------------------------------------------------

SQL_ORPHAN_LAYERS = (
    "SELECT l.tenant, l.source_id, l.revision_id, l.layer_id FROM text_layers l "
    "LEFT JOIN revisions r USING (tenant, source_id, revision_id) WHERE r.revision_id IS NULL"
)
SQL_ORPHAN_REVISIONS = (
    "SELECT r.tenant, r.source_id, r.revision_id FROM revisions r "
    "LEFT JOIN sources s USING (tenant, source_id) WHERE s.source_id IS NULL"
)
SQL_REVISIONS_WITHOUT_LAYER = (
    "SELECT r.tenant, r.source_id, r.revision_id FROM revisions r "
    "WHERE NOT EXISTS (SELECT 1 FROM text_layers l WHERE l.tenant = r.tenant "
    "AND l.source_id = r.source_id AND l.revision_id = r.revision_id)"
)
SQL_DELETE_LAYER = ("DELETE FROM text_layers WHERE tenant = %s AND source_id = %s "
                    "AND revision_id = %s AND layer_id = %s")
# Revisions whose bytes are missing, and stored bytes that no longer hash to their name
# (the database computes the digest: the bytes never leave the server).
SQL_MISSING_BLOBS = (
    "SELECT DISTINCT ON (r.tenant, r.sha256) r.tenant, r.source_id, r.revision_id, r.sha256 "
    "FROM revisions r WHERE NOT EXISTS (SELECT 1 FROM blobs b WHERE b.tenant = r.tenant "
    "AND b.area = 'accepted' AND b.sha256 = r.sha256) ORDER BY r.tenant, r.sha256, r.seq"
)
SQL_HASH_BLOBS = (
    "SELECT b.tenant, b.sha256, encode(sha256(b.data), 'hex') = b.sha256, "
    "(SELECT r.source_id || '@' || r.revision_id FROM revisions r WHERE r.tenant = b.tenant "
    "AND r.sha256 = b.sha256 ORDER BY r.seq LIMIT 1) "
    "FROM blobs b WHERE b.area = 'accepted' AND EXISTS (SELECT 1 FROM revisions r "
    "WHERE r.tenant = b.tenant AND r.sha256 = b.sha256) ORDER BY b.tenant, b.sha256"
)
# Bytes nothing refers to, older than the grace period (an ingest may have stored its
# blob and not yet committed its revision): reclaimed.
SQL_DELETE_UNREFERENCED = (
    "DELETE FROM blobs b WHERE b.created_at < now() - make_interval(secs => %(grace)s) AND ("
    "(b.area = 'accepted' AND NOT EXISTS (SELECT 1 FROM revisions r "
    "WHERE r.tenant = b.tenant AND r.sha256 = b.sha256)) OR "
    "(b.area = 'quarantine' AND NOT EXISTS (SELECT 1 FROM quarantine q "
    "WHERE q.tenant = b.tenant AND q.sha256 = b.sha256))) RETURNING b.area, b.tenant, b.sha256"
)
