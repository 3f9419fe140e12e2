"""PgUpkeep: check and repair (`fsck`), the purge's vacuum, and the embedding cache.

`fsck` on PostgreSQL checks what the database's own constraints cannot: revisions whose
bytes are missing, stored bytes that no longer hash to their name (hashed inside the
server), rows whose parents are gone; it reclaims orphan text layers and blobs nothing
refers to once they are older than the grace period. Page-level integrity is the
server's business (checksums, `amcheck`), not re-checked here.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import Any

from ...errors import StoreDamaged, StoreError
from ..fsck_report import FsckReport
from .pg_embeddings import PgEmbeddings
from .pg_sources_sql import (
    SQL_DELETE_LAYER,
    SQL_DELETE_UNREFERENCED,
    SQL_HASH_BLOBS,
    SQL_MISSING_BLOBS,
    SQL_ORPHAN_LAYERS,
    SQL_ORPHAN_REVISIONS,
    SQL_REVISIONS_WITHOUT_LAYER,
)

# Every table of the schema (the purge's vacuum rewrites them all, like SQLite's VACUUM).
SQL_TABLES = ("SELECT c.relname FROM pg_class c WHERE c.relnamespace = current_schema()::regnamespace "
              "AND c.relkind IN ('r', 'm') ORDER BY c.relname")


class PgUpkeep:
    """Maintenance of the PostgreSQL store (needs `url`, `conn`, `write`, `read`, `damage`)."""

    # provided by PostgresStore
    url: str
    conn: Any
    write: Callable[..., AbstractContextManager[Any]]
    read: Callable[..., AbstractContextManager[Any]]
    damage: Callable[[BaseException], StoreDamaged | None]

    def orphan_rows(self) -> dict[str, list[tuple[str, ...]]]:
        """Return rows whose parents are missing, by kind (every tenant)."""
        with self.read() as c:
            return {
                "text_layers": [tuple(r) for r in c.execute(SQL_ORPHAN_LAYERS).fetchall()],
                "revisions": [tuple(r) for r in c.execute(SQL_ORPHAN_REVISIONS).fetchall()],
                "revisions_without_layer": [tuple(r) for r in
                                            c.execute(SQL_REVISIONS_WITHOUT_LAYER).fetchall()],
            }

    def fsck(self, grace_seconds: float = 600.0) -> FsckReport:
        """Check the whole store, reclaim debris older than `grace_seconds`; return the report."""
        report = FsckReport()
        try:
            self._check(report, grace_seconds)
        except Exception as exc:
            damaged = self.damage(exc)
            if damaged is None:
                raise
            report.damage.append(f"postgresql: the database cannot be read ({exc})")
        return report

    def _check(self, report: FsckReport, grace_seconds: float) -> None:
        with self.read() as c:
            report.revisions = int(c.execute("SELECT count(*) FROM revisions").fetchone()[0])
            for tenant, source_id, revision_id, sha in c.execute(SQL_MISSING_BLOBS).fetchall():
                report.damage.append(f"missing blob for {tenant}/{source_id}@{revision_id} ({sha})")
            for tenant, sha, sound, doc_id in c.execute(SQL_HASH_BLOBS).fetchall():
                report.blobs_checked += 1
                if not sound:
                    report.damage.append(f"blob of {tenant}/{doc_id} no longer hashes to {sha}")
        orphans = self.orphan_rows()
        for row in orphans["revisions"]:
            report.damage.append(f"revision without source {'/'.join(row)}")
        for row in orphans["revisions_without_layer"]:
            report.damage.append(f"revision without text layer {'/'.join(row)}")
        with self.write() as c:
            for row in orphans["text_layers"]:
                c.execute(SQL_DELETE_LAYER, row)
                report.reclaimed.append(f"orphan text layer {'/'.join(row)}")
            for area, tenant, sha in c.execute(SQL_DELETE_UNREFERENCED,
                                               {"grace": float(grace_seconds)}).fetchall():
                report.reclaimed.append(f"unreferenced blob {area}/{tenant}/{sha}")

    def secure_vacuum(self) -> None:
        """Rewrite every table of the schema (VACUUM FULL), so the bytes of deleted rows
        survive in no table file; see docs/postgres.md for what else holds them (WAL)."""
        self._vacuum_full(None)

    def _vacuum_full(self, table: str | None) -> None:
        conn = self.conn
        if conn.info.transaction_status != 0:  # psycopg.pq.TransactionStatus.IDLE
            raise StoreError("secure_vacuum cannot run inside a transaction; call it after "
                             "the purge has committed")
        tables = [table] if table else [r[0] for r in conn.execute(SQL_TABLES).fetchall()]
        for name in tables:
            conn.execute(f'VACUUM (FULL) "{name}"')

    def embeddings(self) -> PgEmbeddings:
        """Open the store's embedding cache (the caller closes it)."""
        return PgEmbeddings(self.url)

    def forget_embeddings(self, digests: Sequence[str]) -> int:
        """Delete the cached vectors of these inputs (every scope and space) and rewrite the
        table so no deleted vector survives in it; return rows removed."""
        if not digests:
            return 0
        rows = self.embeddings()
        try:
            removed = rows.forget(digests)
        finally:
            rows.close()
        if removed:
            self._vacuum_full("embeddings")
        return removed
