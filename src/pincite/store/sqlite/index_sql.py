"""SQL of the retrieval side of the SQLite store: migration 2 and its named statements.

Migration 2 adds
- `acl_entries` — one row per (source, ACL entry), kept equal to `sources.acl` by
  triggers, so authorization is an indexed join rather than JSON parsing;
- `tenant_state` — per tenant, `epoch` (bumped by triggers on every change to sources,
  ACLs, revisions, text layers and tombstones: the key of authorization caches) and
  `rev_epoch` (bumped on every new revision or text layer: what a generation has caught
  up to — a generation built at a lower one is `stale` for that tenant);
- `tombstones` — deleted sources: every revision with `seq <= through_seq` is gone for
  every reader; the ACL at deletion is kept for the verifier (`source_deleted`);
  `source_key` (sha256 of the source id) survives a purge, `source_id` does not;
- `chunk_sets`, `chunks` — retrieval units per (revision, text layer, segmenter policy),
  shared by generations;
- `generations`, `generation_chunks`, `generation_tenants`, `index_pointer` — immutable
  index generations and the one-row pointer that names the published one.
Per generation there are also two lexical tables, created by `LEXICAL_DDL`: `lex_<gen>`
(`ord` → tenant key and analyzed body, what a later build copies and a purge rewrites
postings from) and `post_<gen>` (packed postings, what retrieval reads: `postings.py`).
Generations built before 2026-12 had an FTS5 table `fts_<gen>` (and `fts_<gen>_v`) in
place of `lex_<gen>`; retrieval never queried it, and `LEXICAL_DROP` removes it.
"""

from __future__ import annotations

import re

MIGRATION_2 = """
CREATE TABLE acl_entries (
    tenant     TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    entry      TEXT NOT NULL,
    PRIMARY KEY (tenant, source_id, entry)
) WITHOUT ROWID;
CREATE TABLE tenant_state (
    tenant     TEXT PRIMARY KEY,
    epoch      INTEGER NOT NULL DEFAULT 0,
    rev_epoch  INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE tombstones (
    tenant       TEXT NOT NULL,
    source_key   TEXT NOT NULL,
    through_seq  INTEGER NOT NULL,
    source_id    TEXT,
    deleted_at   TEXT NOT NULL,
    deleted_by   TEXT NOT NULL,
    acl          TEXT NOT NULL,
    purged_at    TEXT,
    PRIMARY KEY (tenant, source_key, through_seq)
);
CREATE INDEX tombstones_source ON tombstones (tenant, source_id, through_seq);
CREATE TABLE chunk_sets (
    tenant       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    revision_id  TEXT NOT NULL,
    text_layer   TEXT NOT NULL,
    policy       TEXT NOT NULL,
    n_chunks     INTEGER NOT NULL,
    created_at   TEXT NOT NULL,
    PRIMARY KEY (tenant, source_id, revision_id, text_layer, policy)
);
CREATE TABLE chunks (
    chunk_id        TEXT PRIMARY KEY,
    tenant          TEXT NOT NULL,
    source_id       TEXT NOT NULL,
    revision_id     TEXT NOT NULL,
    text_layer      TEXT NOT NULL,
    policy          TEXT NOT NULL,
    kind            TEXT NOT NULL,
    char_start      INTEGER NOT NULL,
    char_end        INTEGER NOT NULL,
    locator         TEXT NOT NULL,
    parent_locator  TEXT,
    heading_path    TEXT NOT NULL,
    cite_locator    TEXT NOT NULL,
    page            INTEGER,
    bbox            TEXT,
    lang            TEXT,
    flags           TEXT NOT NULL,
    text            TEXT NOT NULL,
    content_digest  TEXT NOT NULL
);
CREATE INDEX chunks_revision ON chunks (tenant, source_id, revision_id, text_layer, policy);
CREATE TABLE generations (
    gen_id          TEXT PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE,
    state           TEXT NOT NULL,
    created_at      TEXT NOT NULL,
    published_at    TEXT,
    builder         TEXT NOT NULL,
    manifest        TEXT,
    n_chunks        INTEGER NOT NULL DEFAULT 0,
    dimension       INTEGER NOT NULL DEFAULT 0,
    vectors_sha256  TEXT,
    chunks_sha256   TEXT,
    purged          INTEGER NOT NULL DEFAULT 0,
    note            TEXT
);
CREATE TABLE generation_chunks (
    gen_id    TEXT NOT NULL,
    ord       INTEGER NOT NULL,
    chunk_id  TEXT NOT NULL,
    ntok      INTEGER NOT NULL,
    PRIMARY KEY (gen_id, ord)
) WITHOUT ROWID;
CREATE UNIQUE INDEX generation_chunks_chunk ON generation_chunks (chunk_id, gen_id);
CREATE TABLE generation_tenants (
    gen_id     TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    rev_epoch  INTEGER NOT NULL,
    chunks     INTEGER NOT NULL,
    PRIMARY KEY (gen_id, tenant)
) WITHOUT ROWID;
CREATE TABLE index_pointer (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    current_gen   TEXT,
    previous_gen  TEXT,
    switched_at   TEXT
);
INSERT INTO index_pointer (id) VALUES (1);
CREATE TRIGGER sources_acl_insert AFTER INSERT ON sources BEGIN
    INSERT OR IGNORE INTO acl_entries (tenant, source_id, entry)
        SELECT NEW.tenant, NEW.source_id, value FROM json_each(NEW.acl) WHERE json_valid(NEW.acl);
    INSERT INTO tenant_state (tenant, epoch) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER sources_acl_update AFTER UPDATE OF acl ON sources BEGIN
    DELETE FROM acl_entries WHERE tenant = OLD.tenant AND source_id = OLD.source_id;
    INSERT OR IGNORE INTO acl_entries (tenant, source_id, entry)
        SELECT NEW.tenant, NEW.source_id, value FROM json_each(NEW.acl) WHERE json_valid(NEW.acl);
    INSERT INTO tenant_state (tenant, epoch) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER sources_acl_delete AFTER DELETE ON sources BEGIN
    DELETE FROM acl_entries WHERE tenant = OLD.tenant AND source_id = OLD.source_id;
    INSERT INTO tenant_state (tenant, epoch) VALUES (OLD.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER revisions_epoch_insert AFTER INSERT ON revisions BEGIN
    INSERT INTO tenant_state (tenant, epoch, rev_epoch) VALUES (NEW.tenant, 1, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1, rev_epoch = rev_epoch + 1;
END;
CREATE TRIGGER revisions_epoch_update AFTER UPDATE ON revisions BEGIN
    INSERT INTO tenant_state (tenant, epoch) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER revisions_epoch_delete AFTER DELETE ON revisions BEGIN
    INSERT INTO tenant_state (tenant, epoch) VALUES (OLD.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER text_layers_epoch_insert AFTER INSERT ON text_layers BEGIN
    INSERT INTO tenant_state (tenant, epoch, rev_epoch) VALUES (NEW.tenant, 1, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1, rev_epoch = rev_epoch + 1;
END;
CREATE TRIGGER tombstones_epoch_insert AFTER INSERT ON tombstones BEGIN
    INSERT INTO tenant_state (tenant, epoch) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
CREATE TRIGGER tombstones_epoch_update AFTER UPDATE ON tombstones BEGIN
    INSERT INTO tenant_state (tenant, epoch) VALUES (NEW.tenant, 1)
        ON CONFLICT (tenant) DO UPDATE SET epoch = epoch + 1;
END;
INSERT OR IGNORE INTO acl_entries (tenant, source_id, entry)
    SELECT s.tenant, s.source_id, j.value FROM sources s, json_each(s.acl) j WHERE json_valid(s.acl);
INSERT INTO tenant_state (tenant, epoch, rev_epoch)
    SELECT tenant, count(*) + 1, count(*) FROM revisions GROUP BY tenant;
"""

GEN_ID_RE = re.compile(r"g[0-9]{6}")  # whole string: fullmatch, never a `$` anchor


def lex_table(gen_id: str) -> str:
    """Return the body table name of a generation (the id is checked: it becomes SQL)."""
    if not GEN_ID_RE.fullmatch(gen_id):
        raise ValueError(f"bad generation id {gen_id!r}")
    return f"lex_{gen_id}"


def post_table(gen_id: str) -> str:
    """Return the postings table name of a generation (`store.postings`)."""
    return "post_" + lex_table(gen_id)[4:]


def LEXICAL_DDL(gen_id: str) -> list[str]:  # noqa: N802 - a named statement set
    """The lexical tables of a generation: analyzed bodies by ord, packed postings."""
    return [
        f"CREATE TABLE {lex_table(gen_id)} (ord INTEGER PRIMARY KEY, tenant TEXT NOT NULL, "
        "body TEXT NOT NULL)",
        f"CREATE TABLE {post_table(gen_id)} (term TEXT PRIMARY KEY, ords BLOB NOT NULL, "
        "tfs BLOB NOT NULL) WITHOUT ROWID",
    ]


def legacy_table(gen_id: str) -> str:
    """Return the name of the FTS5 table of a generation built before 2026-12."""
    return "fts_" + lex_table(gen_id)[4:]


def LEXICAL_DROP(gen_id: str) -> list[str]:  # noqa: N802
    """Drop a generation's lexical tables (and the FTS5 ones of older builds)."""
    old = legacy_table(gen_id)
    return [f"DROP TABLE IF EXISTS {post_table(gen_id)}", f"DROP TABLE IF EXISTS {lex_table(gen_id)}",
            f"DROP TABLE IF EXISTS {old}_v", f"DROP TABLE IF EXISTS {old}"]


def POST_INSERT(gen_id: str) -> str:  # noqa: N802
    return f"INSERT INTO {post_table(gen_id)} (term, ords, tfs) VALUES (?, ?, ?)"


def POST_UPSERT(gen_id: str) -> str:  # noqa: N802
    return f"INSERT OR REPLACE INTO {post_table(gen_id)} (term, ords, tfs) VALUES (?, ?, ?)"


def POST_DELETE(gen_id: str) -> str:  # noqa: N802
    return f"DELETE FROM {post_table(gen_id)} WHERE term = ?"


def POST_ALL(gen_id: str) -> str:  # noqa: N802
    return f"SELECT term, ords, tfs FROM {post_table(gen_id)} ORDER BY term"


def POST_OF_TERMS(gen_id: str) -> str:  # noqa: N802
    return (f"SELECT term, ords, tfs FROM {post_table(gen_id)} "
            "WHERE term IN (SELECT value FROM json_each(?))")


def LEX_BODIES(gen_id: str) -> str:  # noqa: N802
    return (f"SELECT ord, body FROM {lex_table(gen_id)} "
            "WHERE ord IN (SELECT value FROM json_each(?))")


def LEX_INSERT(gen_id: str) -> str:  # noqa: N802
    return f"INSERT INTO {lex_table(gen_id)} (ord, tenant, body) VALUES (?, ?, ?)"


def LEX_BODY(gen_id: str) -> str:  # noqa: N802
    return f"SELECT tenant, body FROM {lex_table(gen_id)} WHERE ord = ?"


def LEX_COUNT(gen_id: str) -> str:  # noqa: N802
    return f"SELECT count(*) FROM {lex_table(gen_id)}"


def LEX_DELETE(gen_id: str) -> str:  # noqa: N802
    return f"DELETE FROM {lex_table(gen_id)} WHERE ord IN (SELECT value FROM json_each(?))"


def LEGACY_BODIES(gen_id: str) -> str:  # noqa: N802
    """Bodies of purged rows from the FTS5 table of a generation built before 2026-12."""
    return (f"SELECT rowid, body FROM {legacy_table(gen_id)} "
            "WHERE rowid IN (SELECT value FROM json_each(?))")


def TABLE_EXISTS() -> str:  # noqa: N802
    return "SELECT count(*) FROM sqlite_master WHERE type='table' AND name=?"


# The authorized universe of one principal in one generation: the rows of the tenant
# whose source ACL grants one of the principal's entries, whose revision is valid at the
# evaluation time (`?now` = 1: the current state, `valid_to IS NULL`), and whose source is
# not tombstoned through that revision. Optional filters narrow it further. Parameters are
# named: :gen, :tenant, :entries (JSON list), :now, :as_of, :sources (JSON list or NULL),
# :prefix (or NULL), :kinds, :langs, :media (JSON lists or NULL).
AUTH_CONDITIONS = """
      c.tenant = :tenant
      AND EXISTS (SELECT 1 FROM acl_entries a
                  WHERE a.tenant = c.tenant AND a.source_id = c.source_id
                    AND a.entry IN (SELECT value FROM json_each(:entries)))
      AND NOT EXISTS (SELECT 1 FROM tombstones t
                      WHERE t.tenant = c.tenant AND t.source_id = c.source_id
                        AND t.through_seq >= r.seq)
      AND ((:now = 1 AND r.valid_to IS NULL)
           OR (:now = 0 AND r.valid_from <= :as_of AND (r.valid_to IS NULL OR r.valid_to > :as_of)))
      AND (:sources IS NULL OR c.source_id IN (SELECT value FROM json_each(:sources)))
      AND (:prefix IS NULL OR substr(c.source_id, 1, length(:prefix)) = :prefix)
      AND (:kinds IS NULL OR c.kind IN (SELECT value FROM json_each(:kinds)))
      AND (:langs IS NULL OR coalesce(c.lang, '') IN (SELECT value FROM json_each(:langs)))
      AND (:media IS NULL OR r.media_type IN (SELECT value FROM json_each(:media)))
"""

SQL_AUTHORIZED = (
    "SELECT gc.ord, gc.ntok, c.chunk_id FROM chunks c "
    "JOIN generation_chunks gc ON gc.chunk_id = c.chunk_id AND gc.gen_id = :gen "
    "JOIN revisions r ON r.tenant = c.tenant AND r.source_id = c.source_id "
    "AND r.revision_id = c.revision_id WHERE" + AUTH_CONDITIONS + " ORDER BY gc.ord"
)


def SQL_POSTINGS(gen_id: str) -> str:  # noqa: N802
    """Postings (term, ord, tf) of the given terms, restricted to the authorized universe
    inside the same statement: the reference that the packed postings are checked against
    (tests, benchmarks). Bodies are split on spaces in SQL, so it scans the generation:
    never on a query path."""
    t = lex_table(gen_id)
    return (
        "WITH RECURSIVE split(doc, rest, tok) AS ("
        f"SELECT ord, body || ' ', NULL FROM {t} UNION ALL "
        "SELECT doc, substr(rest, instr(rest, ' ') + 1), substr(rest, 1, instr(rest, ' ') - 1) "
        "FROM split WHERE rest <> ''), "
        "p AS (SELECT tok AS term, doc, count(*) AS tf FROM split "
        "WHERE tok IN (SELECT value FROM json_each(:terms)) GROUP BY tok, doc) "
        "SELECT p.term, p.doc, p.tf FROM p CROSS JOIN generation_chunks gc CROSS JOIN chunks c "
        "CROSS JOIN revisions r WHERE gc.gen_id = :gen AND gc.ord = p.doc "
        "AND c.chunk_id = gc.chunk_id AND r.tenant = c.tenant AND r.source_id = c.source_id "
        "AND r.revision_id = c.revision_id AND" + AUTH_CONDITIONS
    )


# The static and per-tenant inputs of the in-memory authorized universe (store.sqlite.universe):
# the generation's rows in ord order, and a tenant's revisions, tombstones and ACL entries.
SQL_UNIVERSE_ROWS = (
    "SELECT gc.ord, gc.ntok, c.chunk_id, c.tenant, c.source_id, c.revision_id, c.kind, "
    "coalesce(c.lang, '') FROM generation_chunks gc JOIN chunks c ON c.chunk_id = gc.chunk_id "
    "WHERE gc.gen_id = ? ORDER BY gc.ord"
)
SQL_TENANT_REVISIONS = ("SELECT source_id, revision_id, seq, valid_from, valid_to, media_type "
                        "FROM revisions WHERE tenant = ?")
SQL_TENANT_TOMBSTONES = ("SELECT source_id, max(through_seq) FROM tombstones "
                         "WHERE tenant = ? AND source_id IS NOT NULL GROUP BY source_id")
SQL_TENANT_ACL_ENTRIES = "SELECT source_id, entry FROM acl_entries WHERE tenant = ?"
SQL_SET_MANIFEST = "UPDATE generations SET manifest=? WHERE gen_id=?"
SQL_GEN_KEY = "SELECT created_at, chunks_sha256, purged FROM generations WHERE gen_id=?"
SQL_GEN_MANIFEST = "SELECT manifest FROM generations WHERE gen_id=?"


_CHUNK_COLS = ("chunk_id, tenant, source_id, revision_id, text_layer, policy, kind, char_start, "
               "char_end, locator, parent_locator, heading_path, cite_locator, page, bbox, lang, "
               "flags, text, content_digest")
CHUNK_COLS = tuple(c.strip() for c in _CHUNK_COLS.split(","))
SQL_CHUNK_SET = ("SELECT n_chunks FROM chunk_sets WHERE tenant=? AND source_id=? AND revision_id=? "
                 "AND text_layer=? AND policy=?")
SQL_INSERT_CHUNK_SET = ("INSERT OR IGNORE INTO chunk_sets (tenant, source_id, revision_id, text_layer, "
                        "policy, n_chunks, created_at) VALUES (?,?,?,?,?,?,?)")
SQL_INSERT_CHUNK = (f"INSERT OR IGNORE INTO chunks ({_CHUNK_COLS}) VALUES "
                    f"({','.join('?' * len(CHUNK_COLS))})")
SQL_CHUNKS_OF = (f"SELECT {_CHUNK_COLS} FROM chunks WHERE tenant=? AND source_id=? AND revision_id=? "
                 "AND text_layer=? AND policy=? ORDER BY char_start, chunk_id")
SQL_CHUNKS_BY_ORD = (
    "SELECT gc.ord, " + ", ".join("c." + c for c in CHUNK_COLS) + ", r.sha256, r.valid_to, "
    "r.media_type FROM generation_chunks gc JOIN chunks c ON c.chunk_id = gc.chunk_id "
    "JOIN revisions r ON r.tenant = c.tenant AND r.source_id = c.source_id "
    "AND r.revision_id = c.revision_id "
    "WHERE gc.gen_id = ? AND c.tenant = ? AND gc.ord IN (SELECT value FROM json_each(?))"
)
SQL_QUOTE = ("SELECT substr(text, ? + 1, ?) FROM text_layers WHERE tenant=? AND source_id=? "
             "AND revision_id=? AND layer_id=?")

# build snapshot
SQL_LIVE_REVISIONS = (
    "SELECT r.tenant, r.source_id, r.revision_id, r.seq, r.sha256, r.acquired_at, r.valid_to, "
    "(SELECT layer_id FROM text_layers l WHERE l.tenant=r.tenant AND l.source_id=r.source_id "
    " AND l.revision_id=r.revision_id ORDER BY created_at DESC, rowid DESC LIMIT 1) "
    "FROM revisions r WHERE NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant=r.tenant "
    "AND t.source_id=r.source_id AND t.through_seq >= r.seq) "
    "AND (:history = 1 OR r.valid_to IS NULL) "
    "ORDER BY r.tenant, r.source_id, r.seq"
)
SQL_TENANT_STATES = "SELECT tenant, epoch, rev_epoch FROM tenant_state ORDER BY tenant"
SQL_TENANT_STATE = "SELECT epoch, rev_epoch FROM tenant_state WHERE tenant=?"
SQL_SOURCE_WATERMARK = "SELECT max(acquired_at) FROM revisions"
SQL_DELETION_WATERMARK = "SELECT max(deleted_at) FROM tombstones"

# generations
_GEN_COLS = ("gen_id, seq, state, created_at, published_at, builder, manifest, n_chunks, dimension, "
             "vectors_sha256, chunks_sha256, purged, note")
SQL_NEXT_GEN_SEQ = "SELECT coalesce(max(seq), 0) + 1 FROM generations"
SQL_INSERT_GENERATION = ("INSERT INTO generations (gen_id, seq, state, created_at, builder) "
                         "VALUES (?,?,'building',?,?)")
SQL_GENERATION = f"SELECT {_GEN_COLS} FROM generations WHERE gen_id=?"
SQL_GENERATIONS = f"SELECT {_GEN_COLS} FROM generations ORDER BY seq"
SQL_FINISH_GENERATION = ("UPDATE generations SET state=?, manifest=?, n_chunks=?, dimension=?, "
                         "vectors_sha256=?, chunks_sha256=?, note=? WHERE gen_id=? AND state='building'")
SQL_SET_GEN_STATE = "UPDATE generations SET state=?, note=? WHERE gen_id=?"
SQL_MARK_PUBLISHED = "UPDATE generations SET state='published', published_at=? WHERE gen_id=?"
SQL_MARK_RETIRED = "UPDATE generations SET state='retired' WHERE gen_id=? AND state='published'"
SQL_GEN_PURGED = ("UPDATE generations SET purged = purged + ?, vectors_sha256=?, chunks_sha256=? "
                  "WHERE gen_id=?")
SQL_INSERT_GEN_CHUNK = "INSERT INTO generation_chunks (gen_id, ord, chunk_id, ntok) VALUES (?,?,?,?)"
SQL_GEN_CHUNK_LIST = ("SELECT gc.ord, gc.chunk_id, c.content_digest FROM generation_chunks gc "
                      "LEFT JOIN chunks c ON c.chunk_id = gc.chunk_id WHERE gc.gen_id=? ORDER BY gc.ord")
SQL_GEN_CHUNK_COUNT = "SELECT count(*) FROM generation_chunks WHERE gen_id=?"
SQL_GEN_ORDS_OF_CHUNKS = ("SELECT gen_id, ord FROM generation_chunks WHERE chunk_id IN "
                          "(SELECT value FROM json_each(?)) ORDER BY gen_id, ord")
SQL_GEN_CHUNK_MAP = "SELECT chunk_id, ord, ntok FROM generation_chunks WHERE gen_id=?"
SQL_DELETE_GEN_CHUNKS = ("DELETE FROM generation_chunks WHERE gen_id=? AND ord IN "
                         "(SELECT value FROM json_each(?))")
SQL_DROP_GEN_CHUNKS = "DELETE FROM generation_chunks WHERE gen_id=?"
SQL_INSERT_GEN_TENANT = ("INSERT INTO generation_tenants (gen_id, tenant, rev_epoch, chunks) "
                         "VALUES (?,?,?,?)")
SQL_GEN_TENANT = "SELECT rev_epoch, chunks FROM generation_tenants WHERE gen_id=? AND tenant=?"
SQL_DROP_GEN_TENANTS = "DELETE FROM generation_tenants WHERE gen_id=?"
SQL_POINTER = "SELECT current_gen, previous_gen, switched_at FROM index_pointer WHERE id=1"
SQL_SET_POINTER = "UPDATE index_pointer SET current_gen=?, previous_gen=?, switched_at=? WHERE id=1"

# tombstones and purge
SQL_INSERT_TOMBSTONE = ("INSERT OR IGNORE INTO tombstones (tenant, source_key, through_seq, source_id, "
                        "deleted_at, deleted_by, acl) VALUES (?,?,?,?,?,?,?)")
SQL_TOMBSTONE_FOR = ("SELECT through_seq, source_id, deleted_at, deleted_by, acl, purged_at "
                     "FROM tombstones WHERE tenant=? AND source_key=? AND through_seq >= ? "
                     "ORDER BY through_seq LIMIT 1")
SQL_TOMBSTONE_MAX = "SELECT coalesce(max(through_seq), 0) FROM tombstones WHERE tenant=? AND source_key=?"
SQL_MARK_PURGED = ("UPDATE tombstones SET source_id=NULL, purged_at=? WHERE tenant=? AND source_key=? "
                   "AND purged_at IS NULL")
SQL_CHUNKS_OF_SOURCE = "SELECT chunk_id, content_digest FROM chunks WHERE tenant=? AND source_id=?"
SQL_DELETE_CHUNKS_OF_SOURCE = "DELETE FROM chunks WHERE tenant=? AND source_id=?"
SQL_DELETE_CHUNK_SETS_OF_SOURCE = "DELETE FROM chunk_sets WHERE tenant=? AND source_id=?"
SQL_DELETE_LAYERS_OF_SOURCE = "DELETE FROM text_layers WHERE tenant=? AND source_id=?"
SQL_DELETE_REVISIONS_OF_SOURCE = "DELETE FROM revisions WHERE tenant=? AND source_id=?"
SQL_DELETE_SOURCE = "DELETE FROM sources WHERE tenant=? AND source_id=?"
SQL_SHAS_OF_SOURCE = "SELECT DISTINCT sha256 FROM revisions WHERE tenant=? AND source_id=?"
SQL_SHA_USED = "SELECT 1 FROM revisions WHERE tenant=? AND sha256=? LIMIT 1"
SQL_QUARANTINE_OF_SOURCE = "SELECT DISTINCT sha256 FROM quarantine WHERE tenant=? AND source_id=?"
SQL_DELETE_QUARANTINE_OF_SOURCE = "DELETE FROM quarantine WHERE tenant=? AND source_id=?"
SQL_QUARANTINE_SHA_USED = "SELECT 1 FROM quarantine WHERE tenant=? AND sha256=? LIMIT 1"
SQL_CONTENT_DIGEST_USED = "SELECT 1 FROM chunks WHERE content_digest=? LIMIT 1"
SQL_CHUNK_TEXTS = "SELECT chunk_id, text FROM chunks WHERE chunk_id IN (SELECT value FROM json_each(?))"
