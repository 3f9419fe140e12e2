"""Ingestion as a publication protocol: acquire → inspect → parse (sandboxed) → blob → commit.

An ingest either commits wholly (blob on disk and fsynced, then revision + text layer in
one SQLite transaction) or leaves no row behind; a crash between the blob and the commit
leaves an unreferenced blob that `fsck` reclaims. Bad input is quarantined with a reason
from the closed set and never half-stored.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import faults
from ..errors import ParseFailure, UsageError
from ..limits import Limits
from ..model import MEDIA_TYPES, Principal, Revision, TextLayer, check_name, timestamp
from ..model.names import check_source_id
from ..model.progress_report import Report, report_to
from ..parse import IMPORT_KINDS, parser_id
from ..parse.pdf.ocr_marks import OCR_PARSER_SUFFIX, OCR_VERSION
from ..store import QuarantineRecord, Store
from ..vocab import ElementKind, IngestStatus, LayerFlag, ProgressUnit
from .acquire import Input, open_bounded
from .authority import authorize_write, canonical_acl
from .bodies import Body, InMemory, parse_body, read_body, stored_body
from .inspect import inspect
from .sandbox import ParserSandbox

# Files at least this large are ingested from disk (`Ingestor.ingest_file`), never read
# whole into this process; smaller ones are read whole (one read, then bytes throughout).
STREAM_FROM = 16 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class IngestResult:
    """What happened to one input (the `ingest --json` line)."""

    path: str
    source_id: str
    status: IngestStatus
    revision_id: str | None = None
    doc_sha256: str | None = None
    media_type: str | None = None
    reason: str | None = None
    detail: str | None = None
    flags: tuple[str, ...] = field(default=())

    @property
    def doc_id(self) -> str | None:
        return f"{self.source_id}@{self.revision_id}" if self.revision_id else None

    def to_dict(self) -> dict[str, Any]:
        """Return the result as the JSON object of the CLI contract."""
        return {
            "path": self.path, "source_id": self.source_id, "revision_id": self.revision_id,
            "doc_id": self.doc_id, "doc_sha256": self.doc_sha256, "media_type": self.media_type,
            "status": self.status, "reason": self.reason, "flags": list(self.flags),
            **({"detail": self.detail} if self.detail else {}),
        }


class Ingestor:
    """Ingests byte strings into one store for one tenant, reusing one parser sandbox.
    Progress (files, and a PDF's pages) goes to `report` when one is given."""

    def __init__(self, store: Store, *, tenant: str, acl: Sequence[str] | None,
                 limits: Limits | None = None, sandbox: bool = True,
                 owner: str | None = None, stream_from: int = STREAM_FROM,
                 writer: Principal | None = None, new_acl: Sequence[str] | None = None,
                 report: Report | None = None) -> None:
        self.store = store
        self.report = report
        self.tenant = check_name("tenant", tenant)
        # the ingesting user: recorded as the owner of the sources it creates and of the
        # files it refuses (None: nobody, only an acl:admin may change those ACLs)
        self.owner = None if owner is None else check_name("user", owner)
        # who writes: every input passes the write rule (`authority.authorize_write`) as
        # this principal before anything of it is read or stored. None: the store's
        # operator (evals, the Python API without a principal), who may write anything.
        if writer is not None and writer.tenant != self.tenant:
            raise UsageError(f"principal {writer} is of tenant {writer.tenant!r}, not "
                             f"{self.tenant!r}: ingest as a principal of {self.tenant!r}")
        self.writer = writer
        if writer is not None and self.owner is None:
            self.owner = writer.subject
        # `acl` replaces the ACL of every source written (an ACL change on an existing one);
        # `new_acl` is given only to sources this ingest creates, existing ones keep theirs
        self.acl = canonical_acl(acl)
        self.new_acl = canonical_acl(new_acl)
        self.limits = limits or Limits()
        self._sandbox = ParserSandbox(self.limits) if sandbox else None
        self.stream_from = stream_from

    def close(self) -> None:
        """Stop the parser sandbox."""
        if self._sandbox is not None:
            self._sandbox.close()

    def __enter__(self) -> Ingestor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def parse(self, kind: str, body: Body, password: str | None = None) -> TextLayer:
        """Return the text layer of `body` read as `kind` (ParseFailure otherwise), in this
        ingestor's sandbox (`bodies.parse_body`)."""
        return parse_body(kind, body, password, limits=self.limits, sandbox=self._sandbox,
                          report=self.report)

    def ingest(self, data: bytes, *, source_id: str, path: str, name: str | None = None,
               password: str | None = None) -> IngestResult:
        """Ingest one input; return what happened (quarantine is a result, not an error).
        Raises NotFound for an existing source the writer cannot read (`authorize`)."""
        source_id = self.authorize(source_id)
        at = timestamp()
        if len(data) > self.limits.max_bytes:
            return self._quarantine(source_id, path, None, len(data), "over_limit",
                                    f"{len(data)} bytes is over the {self.limits.max_bytes}-byte limit", at)
        return self._ingest(InMemory(data), source_id, path, name, password, at)

    def authorize(self, source_id: str) -> str:
        """Return the checked source id once the writer may write it with this ingestor's
        ACL; raise NotFound / Forbidden as `authority.authorize_write` does."""
        source_id = check_source_id(source_id)
        if self.writer is not None:
            authorize_write(self.store, self.writer, source_id, acl=self.acl)
        return source_id

    def _ingest(self, body: Body, source_id: str, path: str, name: str | None,
                password: str | None, at: str) -> IngestResult:
        sha = body.sha256
        existing = self.store.source(self.tenant, source_id)
        acl = self.acl if self.acl is not None or existing is not None else self.new_acl
        if existing is None and acl is None:
            raise UsageError(f"source {source_id!r} is new: give it an ACL (missing ACL = invisible)")
        latest = self.store.latest_revision(self.tenant, source_id)
        if latest is not None and latest.sha256 == sha:
            if existing is not None and acl is not None and existing.acl != acl:
                self.store.set_acl(self.tenant, source_id, acl)
            return IngestResult(path, source_id, IngestStatus.UNCHANGED, latest.revision_id, sha,
                                latest.media_type, flags=latest.flags)
        try:
            found = inspect(body.view, name=name, limits=self.limits)
            layer = self.parse(found.kind, body, password)
        except ParseFailure as f:
            body.check()
            return self._quarantine(source_id, path, sha, body.size, f.reason, f.detail, at, body)
        body.check()
        flags = tuple(sorted(set(found.flags) | set(layer.flags)))
        if not layer.text.strip() and "no_text_layer" not in flags:
            flags = tuple(sorted(set(flags) | {"no_text_layer"}))
        body.store(self.store.blobs, self.tenant)
        faults.hit("ingest.after_blob")
        rev, status = self.store.commit_revision(
            tenant=self.tenant, source_id=source_id, sha256=sha,
            media_type=MEDIA_TYPES[found.kind], size=body.size, at=at, acl=acl,
            flags=flags, layer=layer, owner=self.owner,
        )
        faults.hit("ingest.after_commit")
        return IngestResult(path, source_id, status, rev.revision_id, sha, rev.media_type,
                            flags=rev.flags)

    def ingest_files(self, inputs: Sequence[Input], *, source_id: str | None = None,
                     password: str | None = None,
                     on_result: Callable[[IngestResult], None] | None = None,
                     ) -> list[IngestResult]:
        """Ingest files found by `walk_inputs` (each under `source_id`, default its own)
        once the writer may write every one; return one result per file, each also given
        to `on_result`. Each file is reported as it starts (`ProgressUnit.DOCUMENT`)."""
        for item in inputs:  # the write rule for all, before anything is stored
            self.authorize(source_id or item.source_id)
        results = []
        for i, item in enumerate(inputs):
            report_to(self.report, ProgressUnit.DOCUMENT, i, len(inputs),
                      source_id or item.source_id)
            results.append(self.ingest_file(item, source_id=source_id or item.source_id,
                                            password=password))
            if on_result is not None:
                on_result(results[-1])
        report_to(self.report, ProgressUnit.DOCUMENT, len(inputs), len(inputs))
        return results

    def ingest_file(self, item: Input, *, source_id: str | None = None,
                    password: str | None = None) -> IngestResult:
        """Ingest one file found by `walk_inputs` (under `source_id`, default its own); a
        refused link or a file over the size limit is quarantined without its bytes.

        A file under `stream_from` bytes is read whole and ingested as `ingest` does; a
        larger one never is: it is hashed in chunks, inspected through a `FileView`,
        parsed by the sandbox worker from the descriptor it is lent, and copied into the
        blob store in chunks — with the same results. A file written to in the meantime
        raises InputChanged and stores nothing."""
        sid = self.authorize(source_id or item.source_id)
        if item.read_from is None:
            return self.refuse(sid, str(item.path), item.reason or "symlink", item.detail or "")
        try:
            opened = open_bounded(item.read_from, self.limits.max_bytes)
        except ParseFailure as f:
            return self.refuse(sid, str(item.path), f.reason, f.detail)
        with opened:
            try:
                body = read_body(opened, self.stream_from)
            except ParseFailure as f:
                return self.refuse(sid, str(item.path), f.reason, f.detail)
            return self._ingest(body, sid, str(item.path), item.path.name, password, timestamp())

    def refuse(self, source_id: str, path: str, reason: str, detail: str) -> IngestResult:
        """Record in quarantine an input refused before its bytes were read."""
        source_id = self.authorize(source_id)
        size = 0
        with contextlib.suppress(OSError):
            size = os.lstat(path).st_size
        return self._quarantine(source_id, path, None, size, reason, detail,
                                timestamp())

    def _quarantine(self, source_id: str, path: str, sha: str | None, size: int, reason: str,
                    detail: str, at: str, body: Body | None = None) -> IngestResult:
        if body is not None and sha is not None:
            body.store(self.store.quarantine_blobs, self.tenant)
        self.store.add_quarantine(self.tenant, QuarantineRecord(
            source_id, path, sha, size, reason, detail, at, self.owner))
        return IngestResult(path, source_id, IngestStatus.QUARANTINED, doc_sha256=sha, reason=reason,
                            detail=detail)


def unread_pages(layer: TextLayer | None) -> bool:
    """Return True when a stored PDF layer has a page with no text in it, or flags one it
    could not read (`no_text_layer`, `ocr_incomplete`): OCR may now read it."""
    if layer is None:
        return True
    if LayerFlag.OCR_INCOMPLETE in layer.flags:
        return True
    record = (layer.meta or {}).get("ocr") or {}
    if record.get("reader") == OCR_VERSION:
        return False  # this OCR read every page that needed it (some held no words)
    if "no_text_layer" in layer.flags:
        return True
    pages = {el.page for el in layer.elements if el.kind == ElementKind.PAGE}
    return layer.geometry is not None and len(pages) < layer.page_count


def reparse_revision(ingestor: Ingestor, rev: Revision) -> str | None:
    """Parse a stored revision again with the current parser; return the new layer id, or
    None when nothing new came of it (old layers are kept, so citations into them keep
    verifying).

    A revision is parsed again when the current parser version has no layer of it yet,
    or — a PDF — when its layer by that version has a page without text and no layer of it
    was read with the current OCR (`pdf+ocr@<version>.<ocr version>`) yet: that is how
    documents ingested before OCR, or while it was unavailable, get their OCR layer.
    A blob of `ingestor.stream_from` bytes or more is parsed as `ingest_file` parses such a
    file: the sandbox worker reads it from a descriptor (`bodies.stored_body`), so this
    process never holds it whole."""
    if any(i.startswith(f"{k}@") for i in ingestor.store.layer_ids(rev) for k in IMPORT_KINDS):
        return None  # read from another tool's export (`docling_import`): not ours to redo
    kind = next(k for k, v in MEDIA_TYPES.items() if v == rev.media_type)
    current = parser_id(kind)
    store = ingestor.store
    ids = store.layer_ids(rev)
    if current in ids:
        name, _, version = current.partition("@")
        if kind != "pdf" or f"{name}{OCR_PARSER_SUFFIX}@{version}.{OCR_VERSION}" in ids \
                or not unread_pages(store.text_layer(rev, current)):
            return None
    with stored_body(store.blobs, rev.tenant, rev.sha256, rev.size, name=rev.source_id,
                     stream_from=ingestor.stream_from) as body:
        layer = ingestor.parse(kind, body)
    return layer.layer_id if store.add_text_layer(rev, layer, timestamp()) else None
