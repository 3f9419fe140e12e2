"""SQL of ACL entries, tenant epochs, tombstones, chunks, index generations, their
lexical tables, vectors (pgvector) and the published pointer (PostgreSQL).

Table and column names are the SQLite backend's (`store.sqlite.index_sql`), so the two
schemas read alike. Where SQLite makes tables per generation (`lex_<gen>`,
`post_<gen>`), PostgreSQL keys one table by `gen_id` (`gen_lex`, `gen_postings`,
`gen_vectors`) and gives every row its tenant, so the row-level-security wall
(`pg_security_sql`) covers bodies, postings and vectors as well as chunks.
`gen_tables` says which generations have their lexical tables (a dropped generation
keeps its row and manifest, not its tables). Each generation with vectors gets one HNSW
index on its own rows (a partial expression index, `pg_dense_sql.hnsw_ddl`).

The triggers keep `acl_entries` equal to `sources.acl` and bump the tenant's epochs
(`tenant_state`) in the same transaction as every change that can alter an
authorization decision (sources, ACLs, revisions, text layers, tombstones).
"""

from __future__ import annotations

MIGRATION_INDEX = """
CREATE TABLE acl_entries (
    tenant     TEXT NOT NULL,
    source_id  TEXT NOT NULL,
    entry      TEXT NOT NULL,
    PRIMARY KEY (tenant, source_id, entry)
);
CREATE TABLE tenant_state (
    tenant     TEXT PRIMARY KEY,
    epoch      BIGINT NOT NULL DEFAULT 0,
    rev_epoch  BIGINT NOT NULL DEFAULT 0
);
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
CREATE INDEX chunks_digest ON chunks (content_digest);
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
    tenant    TEXT NOT NULL,
    PRIMARY KEY (gen_id, ord)
);
CREATE UNIQUE INDEX generation_chunks_chunk ON generation_chunks (chunk_id, gen_id);
CREATE TABLE generation_tenants (
    gen_id     TEXT NOT NULL,
    tenant     TEXT NOT NULL,
    rev_epoch  BIGINT NOT NULL,
    chunks     INTEGER NOT NULL,
    PRIMARY KEY (gen_id, tenant)
);
CREATE TABLE gen_tables (
    gen_id  TEXT PRIMARY KEY
);
CREATE TABLE gen_lex (
    gen_id  TEXT NOT NULL,
    ord     INTEGER NOT NULL,
    tenant  TEXT NOT NULL,
    body    TEXT NOT NULL,
    PRIMARY KEY (gen_id, ord)
);
CREATE TABLE gen_postings (
    gen_id  TEXT NOT NULL,
    tenant  TEXT NOT NULL,
    term    TEXT NOT NULL,
    ords    BYTEA NOT NULL,
    tfs     BYTEA NOT NULL,
    PRIMARY KEY (gen_id, term)
);
CREATE TABLE gen_vectors (
    gen_id       TEXT NOT NULL,
    ord          INTEGER NOT NULL,
    tenant       TEXT NOT NULL,
    source_id    TEXT NOT NULL,
    revision_id  TEXT NOT NULL,
    kind         TEXT NOT NULL,
    lang         TEXT NOT NULL,
    embedding    vector NOT NULL,
    PRIMARY KEY (gen_id, ord)
);
CREATE INDEX gen_vectors_tenant ON gen_vectors (gen_id, tenant, ord);
CREATE TABLE index_pointer (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    current_gen   TEXT,
    previous_gen  TEXT,
    switched_at   TEXT
);
INSERT INTO index_pointer (id) VALUES (1);
CREATE FUNCTION pincite_bump(t TEXT, rev INTEGER) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO tenant_state (tenant, epoch, rev_epoch) VALUES (t, 1, rev)
        ON CONFLICT (tenant) DO UPDATE
        SET epoch = tenant_state.epoch + 1, rev_epoch = tenant_state.rev_epoch + rev;
END
$$;
CREATE FUNCTION pincite_acl_entries(t TEXT, s TEXT, acl TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF pg_input_is_valid(acl, 'jsonb') AND jsonb_typeof(acl::jsonb) = 'array' THEN
        INSERT INTO acl_entries (tenant, source_id, entry)
            SELECT t, s, e FROM jsonb_array_elements_text(acl::jsonb) AS e
            ON CONFLICT DO NOTHING;
    END IF;
END
$$;
CREATE FUNCTION pincite_sources_acl() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        DELETE FROM acl_entries WHERE tenant = OLD.tenant AND source_id = OLD.source_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM pincite_acl_entries(NEW.tenant, NEW.source_id, NEW.acl);
        PERFORM pincite_bump(NEW.tenant, 0);
    ELSE
        PERFORM pincite_bump(OLD.tenant, 0);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER sources_acl_insert AFTER INSERT ON sources
    FOR EACH ROW EXECUTE FUNCTION pincite_sources_acl();
CREATE TRIGGER sources_acl_update AFTER UPDATE OF acl ON sources
    FOR EACH ROW EXECUTE FUNCTION pincite_sources_acl();
CREATE TRIGGER sources_acl_delete AFTER DELETE ON sources
    FOR EACH ROW EXECUTE FUNCTION pincite_sources_acl();
CREATE FUNCTION pincite_epoch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        PERFORM pincite_bump(OLD.tenant, 0);
    ELSE
        PERFORM pincite_bump(NEW.tenant, CASE WHEN TG_OP = 'INSERT' THEN TG_ARGV[0]::integer ELSE 0 END);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER revisions_epoch_insert AFTER INSERT ON revisions
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('1');
CREATE TRIGGER revisions_epoch_update AFTER UPDATE ON revisions
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('0');
CREATE TRIGGER revisions_epoch_delete AFTER DELETE ON revisions
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('0');
CREATE TRIGGER text_layers_epoch_insert AFTER INSERT ON text_layers
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('1');
CREATE TRIGGER tombstones_epoch_insert AFTER INSERT ON tombstones
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('0');
CREATE TRIGGER tombstones_epoch_update AFTER UPDATE ON tombstones
    FOR EACH ROW EXECUTE FUNCTION pincite_epoch('0')
"""

# ---- tenant state and the build snapshot ---------------------------------------------
SQL_TENANT_STATES = "SELECT tenant, epoch, rev_epoch FROM tenant_state ORDER BY tenant"
SQL_TENANT_STATE = "SELECT epoch, rev_epoch FROM tenant_state WHERE tenant=%s"
SQL_SOURCE_WATERMARK = "SELECT max(acquired_at) FROM revisions"
SQL_DELETION_WATERMARK = "SELECT max(deleted_at) FROM tombstones"
SQL_LIVE_REVISIONS = (
    "SELECT r.tenant, r.source_id, r.revision_id, r.seq, r.sha256, r.acquired_at, r.valid_to, "
    "(SELECT layer_id FROM text_layers l WHERE l.tenant=r.tenant AND l.source_id=r.source_id "
    " AND l.revision_id=r.revision_id ORDER BY created_at DESC, layer_seq DESC LIMIT 1) "
    "FROM revisions r WHERE NOT EXISTS (SELECT 1 FROM tombstones t WHERE t.tenant=r.tenant "
    "AND t.source_id=r.source_id AND t.through_seq >= r.seq) "
    "AND (%(history)s OR r.valid_to IS NULL) "
    "ORDER BY r.tenant COLLATE \"C\", r.source_id COLLATE \"C\", r.seq"
)

# ---- chunks ---------------------------------------------------------------------------
_CHUNK_COLS = ("chunk_id, tenant, source_id, revision_id, text_layer, policy, kind, char_start, "
               "char_end, locator, parent_locator, heading_path, cite_locator, page, bbox, lang, "
               "flags, text, content_digest")
CHUNK_COLS = tuple(c.strip() for c in _CHUNK_COLS.split(","))
SQL_CHUNK_SET = ("SELECT n_chunks FROM chunk_sets WHERE tenant=%s AND source_id=%s "
                 "AND revision_id=%s AND text_layer=%s AND policy=%s")
SQL_INSERT_CHUNK_SET = ("INSERT INTO chunk_sets (tenant, source_id, revision_id, text_layer, "
                        "policy, n_chunks, created_at) VALUES (%s,%s,%s,%s,%s,%s,%s) "
                        "ON CONFLICT DO NOTHING")
SQL_INSERT_CHUNK = (f"INSERT INTO chunks ({_CHUNK_COLS}) VALUES "
                    f"({','.join(['%s'] * len(CHUNK_COLS))}) ON CONFLICT DO NOTHING")
SQL_CHUNKS_OF = (f"SELECT {_CHUNK_COLS} FROM chunks WHERE tenant=%s AND source_id=%s "
                 "AND revision_id=%s AND text_layer=%s AND policy=%s "
                 "ORDER BY char_start, chunk_id COLLATE \"C\"")
SQL_CHUNKS_BY_ORD = (
    "SELECT gc.ord, " + ", ".join("c." + c for c in CHUNK_COLS) + ", r.sha256, r.valid_to, "
    "r.media_type FROM generation_chunks gc JOIN chunks c ON c.chunk_id = gc.chunk_id "
    "JOIN revisions r ON r.tenant = c.tenant AND r.source_id = c.source_id "
    "AND r.revision_id = c.revision_id "
    "WHERE gc.gen_id = %s AND c.tenant = %s AND gc.ord = ANY(%s)"
)
# Every quote of a bundle in one statement: (position, start, length, layer key) rows.
SQL_QUOTES = ("SELECT u.i, substr(l.text, u.s + 1, u.n) FROM unnest(%s::int[], %s::int[], "
              "%s::int[], %s::text[], %s::text[], %s::text[], %s::text[]) "
              "AS u(i, s, n, tenant, source_id, revision_id, layer_id) "
              "JOIN text_layers l ON l.tenant = u.tenant AND l.source_id = u.source_id "
              "AND l.revision_id = u.revision_id AND l.layer_id = u.layer_id")
SQL_CHUNK_TENANTS = "SELECT chunk_id, tenant FROM chunks WHERE chunk_id = ANY(%s)"

# ---- generations ----------------------------------------------------------------------
GEN_LOCK = 0x70676E31  # advisory lock: one generation id at a time
_GEN_COLS = ("gen_id, seq, state, created_at, published_at, builder, manifest, n_chunks, "
             "dimension, vectors_sha256, chunks_sha256, purged, note")
SQL_NEXT_GEN_SEQ = "SELECT coalesce(max(seq), 0) + 1 FROM generations"
SQL_INSERT_GENERATION = ("INSERT INTO generations (gen_id, seq, state, created_at, builder) "
                         "VALUES (%s,%s,'building',%s,%s)")
SQL_GENERATION = f"SELECT {_GEN_COLS} FROM generations WHERE gen_id=%s"
SQL_GENERATIONS = f"SELECT {_GEN_COLS} FROM generations ORDER BY seq"
SQL_FINISH_GENERATION = ("UPDATE generations SET state=%s, manifest=%s, n_chunks=%s, dimension=%s, "
                         "vectors_sha256=%s, chunks_sha256=%s, note=%s "
                         "WHERE gen_id=%s AND state='building'")
SQL_SET_GEN_STATE = "UPDATE generations SET state=%s, note=%s WHERE gen_id=%s"
SQL_MARK_PUBLISHED = "UPDATE generations SET state='published', published_at=%s WHERE gen_id=%s"
SQL_MARK_RETIRED = "UPDATE generations SET state='retired' WHERE gen_id=%s AND state='published'"
SQL_GEN_PURGED = ("UPDATE generations SET purged = purged + %s, vectors_sha256=%s, "
                  "chunks_sha256=%s WHERE gen_id=%s")
SQL_SET_MANIFEST = "UPDATE generations SET manifest=%s WHERE gen_id=%s"
# A universe's cache key and whether the lexical rows exist, in one round trip.
SQL_UNIVERSE_KEY = ("SELECT g.created_at, g.chunks_sha256, g.purged, "
                    "coalesce((SELECT s.epoch FROM tenant_state s WHERE s.tenant = %s), 0), "
                    "EXISTS (SELECT 1 FROM gen_tables t WHERE t.gen_id = g.gen_id) "
                    "FROM generations g WHERE g.gen_id = %s")
SQL_GEN_CHUNK_LIST = ("SELECT gc.ord, gc.chunk_id, c.content_digest FROM generation_chunks gc "
                      "LEFT JOIN chunks c ON c.chunk_id = gc.chunk_id WHERE gc.gen_id=%s "
                      "ORDER BY gc.ord")
SQL_GEN_CHUNK_COUNT = "SELECT count(*) FROM generation_chunks WHERE gen_id=%s"
SQL_GEN_ORDS_OF_CHUNKS = ("SELECT gen_id, ord FROM generation_chunks WHERE chunk_id = ANY(%s) "
                          "ORDER BY gen_id, ord")
SQL_GEN_CHUNK_MAP = "SELECT chunk_id, ord, ntok FROM generation_chunks WHERE gen_id=%s"
SQL_DELETE_GEN_CHUNKS = "DELETE FROM generation_chunks WHERE gen_id=%s AND ord = ANY(%s)"
SQL_DROP_GEN_CHUNKS = "DELETE FROM generation_chunks WHERE gen_id=%s"
SQL_INSERT_GEN_TENANT = ("INSERT INTO generation_tenants (gen_id, tenant, rev_epoch, chunks) "
                         "VALUES (%s,%s,%s,%s)")
SQL_GEN_TENANT = "SELECT rev_epoch, chunks FROM generation_tenants WHERE gen_id=%s AND tenant=%s"
SQL_DROP_GEN_TENANTS = "DELETE FROM generation_tenants WHERE gen_id=%s"
SQL_POINTER = "SELECT current_gen, previous_gen, switched_at FROM index_pointer WHERE id=1"
SQL_POINTER_LOCK = "SELECT current_gen FROM index_pointer WHERE id=1 FOR UPDATE"
SQL_SET_POINTER = ("UPDATE index_pointer SET current_gen=%s, previous_gen=%s, switched_at=%s "
                   "WHERE id=1")

# ---- lexical tables (one per concern, keyed by gen_id) --------------------------------
SQL_GEN_TABLES_ADD = "INSERT INTO gen_tables (gen_id) VALUES (%s)"
SQL_GEN_TABLES_HAS = "SELECT 1 FROM gen_tables WHERE gen_id=%s"
SQL_GEN_TABLES_DROP = "DELETE FROM gen_tables WHERE gen_id=%s"
# Bulk inserts as one statement over arrays (COPY FROM is refused under row-level security).
SQL_GEN_CHUNKS_FILL = ("INSERT INTO generation_chunks (gen_id, ord, chunk_id, ntok, tenant) "
                       "SELECT %s, * FROM unnest(%s::int[], %s::text[], %s::int[], %s::text[])")
SQL_LEX_FILL = ("INSERT INTO gen_lex (gen_id, ord, tenant, body) "
                "SELECT %s, * FROM unnest(%s::int[], %s::text[], %s::text[])")
SQL_POST_FILL = ("INSERT INTO gen_postings (gen_id, tenant, term, ords, tfs) "
                 "SELECT %s, * FROM unnest(%s::text[], %s::text[], %s::bytea[], %s::bytea[])")
SQL_LEX_COPY = ("INSERT INTO gen_lex (gen_id, ord, tenant, body) "
                "SELECT %s, n.ord, o.tenant, o.body FROM unnest(%s::int[], %s::int[]) AS n(ord, old) "
                "JOIN gen_lex o ON o.gen_id = %s AND o.ord = n.old")
SQL_LEX_BODIES_OF = "SELECT ord, body FROM gen_lex WHERE gen_id=%s AND ord = ANY(%s) ORDER BY ord"
SQL_LEX_COUNT = "SELECT count(*) FROM gen_lex WHERE gen_id=%s"
SQL_LEX_DELETE = "DELETE FROM gen_lex WHERE gen_id=%s AND ord = ANY(%s)"
SQL_LEX_DROP = "DELETE FROM gen_lex WHERE gen_id=%s"
SQL_POST_ALL = "SELECT term, ords, tfs FROM gen_postings WHERE gen_id=%s ORDER BY term COLLATE \"C\""
SQL_POST_OF_TERMS = ("SELECT term, ords, tfs FROM gen_postings WHERE gen_id=%s AND tenant=%s "
                     "AND term = ANY(%s) ORDER BY term COLLATE \"C\"")
SQL_POST_OF_TERMS_ANY = ("SELECT term, ords, tfs FROM gen_postings WHERE gen_id=%s "
                         "AND term = ANY(%s)")
SQL_POST_UPDATE = "UPDATE gen_postings SET ords=%s, tfs=%s WHERE gen_id=%s AND term=%s"
SQL_POST_DELETE = "DELETE FROM gen_postings WHERE gen_id=%s AND term=%s"
SQL_POST_DROP = "DELETE FROM gen_postings WHERE gen_id=%s"

# ---- tombstones and purge -------------------------------------------------------------
SQL_INSERT_TOMBSTONE = ("INSERT INTO tombstones (tenant, source_key, through_seq, source_id, "
                        "deleted_at, deleted_by, acl) VALUES (%s,%s,%s,%s,%s,%s,%s) "
                        "ON CONFLICT DO NOTHING")
SQL_TOMBSTONE_FOR = ("SELECT through_seq, source_id, deleted_at, deleted_by, acl, purged_at "
                     "FROM tombstones WHERE tenant=%s AND source_key=%s AND through_seq >= %s "
                     "ORDER BY through_seq LIMIT 1")
SQL_TOMBSTONE_MAX = ("SELECT coalesce(max(through_seq), 0) FROM tombstones "
                     "WHERE tenant=%s AND source_key=%s")
SQL_MARK_PURGED = ("UPDATE tombstones SET source_id=NULL, purged_at=%s WHERE tenant=%s "
                   "AND source_key=%s AND purged_at IS NULL")
SQL_CHUNKS_OF_SOURCE = ("SELECT chunk_id, content_digest FROM chunks WHERE tenant=%s "
                        "AND source_id=%s ORDER BY chunk_id COLLATE \"C\"")
SQL_DELETE_CHUNKS_OF_SOURCE = "DELETE FROM chunks WHERE tenant=%s AND source_id=%s"
SQL_DELETE_CHUNK_SETS_OF_SOURCE = "DELETE FROM chunk_sets WHERE tenant=%s AND source_id=%s"
SQL_DELETE_LAYERS_OF_SOURCE = "DELETE FROM text_layers WHERE tenant=%s AND source_id=%s"
SQL_DELETE_REVISIONS_OF_SOURCE = "DELETE FROM revisions WHERE tenant=%s AND source_id=%s"
SQL_DELETE_SOURCE = "DELETE FROM sources WHERE tenant=%s AND source_id=%s"
SQL_SHAS_OF_SOURCE = ("SELECT DISTINCT sha256 FROM revisions WHERE tenant=%s AND source_id=%s "
                      "ORDER BY sha256")
SQL_SHA_USED = "SELECT 1 FROM revisions WHERE tenant=%s AND sha256=%s LIMIT 1"
SQL_QUARANTINE_OF_SOURCE = ("SELECT DISTINCT sha256 FROM quarantine WHERE tenant=%s "
                            "AND source_id=%s ORDER BY sha256")
SQL_DELETE_QUARANTINE_OF_SOURCE = "DELETE FROM quarantine WHERE tenant=%s AND source_id=%s"
SQL_QUARANTINE_SHA_USED = "SELECT 1 FROM quarantine WHERE tenant=%s AND sha256=%s LIMIT 1"
SQL_CONTENT_DIGEST_USED = "SELECT 1 FROM chunks WHERE content_digest=%s LIMIT 1"
SQL_CHUNK_TEXTS = "SELECT chunk_id, text FROM chunks WHERE chunk_id = ANY(%s)"
