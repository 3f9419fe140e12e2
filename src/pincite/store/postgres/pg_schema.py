"""The PostgreSQL schema's migrations, in order; the version is their count.

Each concern keeps its tables' DDL beside its statements (`pg_*_sql`); the security
step (`pg_security_sql.secure`) runs after every upgrade.
"""

from __future__ import annotations

from .pg_connection import PgMigration
from .pg_embeddings_sql import MIGRATION_EMBEDDINGS
from .pg_index_sql import MIGRATION_INDEX
from .pg_records_sql import MIGRATION_RECORDS
from .pg_review_sql import MIGRATION_REVIEW
from .pg_security_sql import secure
from .pg_sources_sql import MIGRATION_SOURCES

PG_MIGRATIONS: tuple[PgMigration, ...] = (
    "CREATE EXTENSION IF NOT EXISTS vector",
    # 2: sources, revisions, text layers, quarantine, blobs
    MIGRATION_SOURCES,
    # 3: ACL entries, tenant epochs, tombstones, chunks, generations, vectors
    MIGRATION_INDEX,
    # 4: extraction runs, field records, the review queue
    MIGRATION_RECORDS,
    # 5: claims, labels, incidents, review settings
    MIGRATION_REVIEW,
    # 6: the embedding cache
    MIGRATION_EMBEDDINGS,
    # 7: the wall compares for equality only (no `*`), cross-tenant work as pincite_maint,
    # `embeddings` walled by scope, HNSW DDL through the owner's functions (issue 25)
    secure,
)
