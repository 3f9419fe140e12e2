"""Store check and repair: blob hashes, orphan rows and blobs, stray temp files, SQLite integrity.

Damage (a blob whose bytes no longer hash to its name, a revision whose blob is missing,
a failed integrity check or a database that cannot be read, a revision without a text
layer) is reported and left alone; a damaged database stops the check before anything
is reclaimed.
Debris of interrupted writes (unreferenced blobs, temporary files, orphan layer rows) is
reclaimed.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Protocol

from ...model import Revision
from ..blobs import TMP_MARK, BlobStore, sha256_file
from ..fsck_report import FsckReport
from .connection import is_damage


class Checked(Protocol):
    """What `fsck` reads and repairs: the backend's own maintenance methods."""

    root: Path
    blobs: BlobStore
    quarantine_blobs: BlobStore

    def integrity_check(self) -> list[str]: ...
    def all_revisions(self) -> list[Revision]: ...
    def orphan_rows(self) -> dict[str, list[tuple[str, ...]]]: ...
    def delete_orphan_layer(self, key: tuple[str, ...]) -> None: ...
    def blob_refs(self, quarantine: bool = False) -> set[tuple[str, str]]: ...


def fsck(store: Checked, *, grace_seconds: float = 600.0) -> FsckReport:
    """Check the whole store, reclaim debris, and return the report.

    Unreferenced files younger than `grace_seconds` are left alone: they may belong to an
    ingest that has written its blob and not yet committed.
    """
    report = FsckReport()
    try:
        problems = store.integrity_check()
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        problems = [f"the database cannot be read ({exc})"]
    report.damage.extend(f"sqlite: {p}" for p in problems)
    if problems:  # rows may be missing: judging a file unreferenced could delete data
        report.damage.append("store: blobs not checked and nothing reclaimed until the "
                             "database is restored from a backup")
        return report
    try:
        _check_rows(store, report, time.time() - grace_seconds)
    except sqlite3.DatabaseError as exc:
        if not is_damage(exc):
            raise
        report.damage.append(f"sqlite: the database cannot be read ({exc})")
    return report


def _check_rows(store: Checked, report: FsckReport, cutoff: float) -> None:
    revs = store.all_revisions()
    report.revisions = len(revs)
    hashed: dict[tuple[str, str], bool] = {}
    for rev in revs:
        key = (rev.tenant, rev.sha256)
        if key not in hashed:
            path = store.blobs.path(rev.tenant, rev.sha256)
            if not path.is_file():
                hashed[key] = False
                report.damage.append(f"missing blob for {rev.tenant}/{rev.doc_id} ({rev.sha256})")
            else:
                report.blobs_checked += 1
                hashed[key] = sha256_file(path) == rev.sha256
                if not hashed[key]:
                    report.damage.append(
                        f"blob of {rev.tenant}/{rev.doc_id} no longer hashes to {rev.sha256}")
    orphans = store.orphan_rows()
    for row in orphans["text_layers"]:
        store.delete_orphan_layer(row)
        report.reclaimed.append(f"orphan text layer {'/'.join(row)}")
    for row in orphans["revisions"]:
        report.damage.append(f"revision without source {'/'.join(row)}")
    for row in orphans["revisions_without_layer"]:
        report.damage.append(f"revision without text layer {'/'.join(row)}")
    for blobs, refs in ((store.blobs, store.blob_refs()),
                        (store.quarantine_blobs, store.blob_refs(quarantine=True))):
        for tenant, name, path in list(blobs.walk()):
            if name.startswith(TMP_MARK) or (tenant, name) not in refs:
                if path.stat().st_mtime > cutoff:
                    continue
                path.unlink(missing_ok=True)
                report.reclaimed.append(f"unreferenced file {path.relative_to(store.root)}")
