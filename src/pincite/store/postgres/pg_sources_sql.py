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
    PRIMARY KEY (tenant, area, sha256)
);
"""
