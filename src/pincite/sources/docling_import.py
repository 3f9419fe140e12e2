"""Importing a docling parse: `pincite ingest --from-docling FILE.json [--source FILE]`.

The text layer is built from docling's DoclingDocument JSON (`parse.docling_tree`, run in
the parser sandbox like every parser); what the revision stores, and so what a
citation's `doc_sha256` pins, is:

- with `--source`: the bytes of the file docling converted (the PDF, DOCX, HTML…). That
  file is inspected and read by pincite's own parser first, and the import is refused
  (`text_mismatch`) unless the two texts agree: at least `MIN_AGREEMENT` of the word
  characters of each text are found among the other's words (`agreement`). Its media
  type is the source's; its own layer only serves the check and is not stored;
- without `--source`: the JSON's own bytes (media type `application/json`).

A source that already has a revision with these bytes gets the docling layer added to
that revision (the layer id names the export: `docling@1+<sha256 prefix of the JSON>`,
so another export of the same file is another layer), and the newest layer is what
`cite`, `show` and the index read. `reparse` leaves a revision with a docling layer alone:
pincite cannot redo docling's parse.

The same rules as `ingest` hold: the writer is authorized before any file is read; both
files are opened as `acquire.open_bounded` opens an input (no link followed in the last
component, regular files only, `Limits.max_bytes`); a refused file is recorded in
quarantine with its reason and nothing of it is stored.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol

from ..errors import ParseFailure, UsageError
from ..limits import Limits
from ..model import Principal, TextLayer, timestamp
from ..store import QuarantineRecord
from ..vocab import IngestStatus, QuarantineReason
from .acquire import Input, open_bounded
from .authority import writer_of
from .bodies import Body, InMemory, read_body
from .ingest import Ingestor, IngestResult
from .inspect import inspect

DOCLING_KIND = "docling"  # the parse kind of the JSON (`parse._MODULES`)
JSON_MEDIA_TYPE = "application/json"
# The least share of each text's word characters found among the other's words. Measured
# on docling's own test documents (31 exports beside the files they came from): every
# export agrees with its file by 0.78 or more (a spreadsheet whose dates docling writes
# with a time, 0.784; all others 0.85 or more); an export beside another, unrelated file
# agrees by 0.59 at most. Files that hold the same words (variants of one table) agree.
MIN_AGREEMENT = 0.7
_WORD = re.compile(r"\w+")


class HasStore(Protocol):
    """What `ingest_docling` needs of the library: its store."""

    store: Any


def ingest_docling(lib: HasStore, docling: str | Path, *, tenant: str,
                   acl: list[str] | None, new_acl: list[str] | None = None,
                   source: str | Path | None = None, source_id: str | None = None,
                   password: str | None = None, limits: Limits | None = None,
                   sandbox: bool = True, owner: str | None = None,
                   principal: Principal | None = None) -> IngestResult:
    """Return what happened to a docling import into the library's store (see the module
    docstring); the facade re-exports it as `pincite.library.ingest_docling`. The writer
    (`principal`, else `tenant:owner`, else the store's operator) and the ACLs are those
    of `Library.ingest`. It publishes nothing: call `update_index()` before searching."""
    with Ingestor(lib.store, tenant=tenant, acl=acl, new_acl=new_acl, limits=limits,
                  sandbox=sandbox, owner=owner,
                  writer=writer_of(tenant, principal, owner)) as ing:
        return import_docling(ing, Path(docling), source=None if source is None else Path(source),
                              source_id=source_id, password=password)


def import_docling(ing: Ingestor, docling: Path, *, source: Path | None = None,
                   source_id: str | None = None, password: str | None = None) -> IngestResult:
    """Return what happened to the DoclingDocument `docling` (with the file it was made
    from, `source`) ingested by `ing` under `source_id` (default: the source's file name,
    else the JSON's)."""
    named = Input(source or docling, (source or docling).name, None)
    sid = ing.authorize(source_id or named.source_id)
    _acl_of(ing, sid)  # a new source without an ACL is refused before anything is read
    at = timestamp()
    with ExitStack() as files:
        try:
            json_body = _read(files, docling, ing, whole=True)
        except ParseFailure as f:
            return ing.refuse(sid, str(docling), f.reason, f.detail)
        try:
            layer = ing.parse(DOCLING_KIND, json_body)
        except ParseFailure as f:
            return _quarantine(ing, sid, docling, json_body, f.reason, f.detail, at)
        if source is None:
            return _commit(ing, sid, str(docling), json_body, JSON_MEDIA_TYPE, layer.flags,
                           layer, at)
        try:
            body = _read(files, source, ing, whole=False)
        except ParseFailure as f:
            return ing.refuse(sid, str(source), f.reason, f.detail)
        try:
            found = inspect(body.view, name=source.name, limits=ing.limits)
            own = ing.parse(found.kind, body, password)
        except ParseFailure as f:
            body.check()
            return _quarantine(ing, sid, source, body, f.reason, f.detail, at)
        body.check()
        share = agreement(layer.text, own.text)
        if share < MIN_AGREEMENT:
            return _quarantine(ing, sid, docling, json_body, QuarantineReason.TEXT_MISMATCH,
                               _mismatch(source.name, share, own), at)
        flags = tuple(sorted(set(found.flags) | set(layer.flags)))
        return _commit(ing, sid, str(source), body, found.media_type, flags, layer, at)


def agreement(a: str, b: str) -> float:
    """Return how far two texts agree in their words: the lesser of the two shares of a
    text's word characters (NFKC, case folded, counted with repeats) found among the
    other's words; 0.0 when either holds no word."""
    wa, wb = _words(a), _words(b)
    return min(_covered(wa, wb), _covered(wb, wa))


def _words(text: str) -> Counter[str]:
    return Counter(_WORD.findall(unicodedata.normalize("NFKC", text).casefold()))


def _covered(a: Counter[str], b: Counter[str]) -> float:
    total = sum(len(w) * n for w, n in a.items())
    if not total:
        return 0.0
    return sum(len(w) * min(n, b[w]) for w, n in a.items()) / total


def _mismatch(name: str, share: float, own: TextLayer) -> str:
    why = (f"{name} holds no text pincite could read (a scan read without OCR?)"
           if not own.text.strip() else f"only {share:.0%} of their words agree, under "
           f"the {MIN_AGREEMENT:.0%} required")
    return (f"the docling JSON's text is not the text of {name}: {why}; give with --source "
            "the file docling converted, or leave --source out to pin the JSON itself")


def _read(files: ExitStack, path: Path, ing: Ingestor, *, whole: bool) -> Body:
    """Return the body of the file `path` opened as ingest opens an input (ParseFailure
    for a link, a file that is not regular, or one over the size limit)."""
    opened = files.enter_context(open_bounded(path, ing.limits.max_bytes))
    if whole:
        return InMemory(opened.read_all())
    return read_body(opened, ing.stream_from)


def _acl_of(ing: Ingestor, source_id: str) -> tuple[str, ...] | None:
    """Return the ACL a write of `source_id` gives it (None: keep the existing one);
    raise UsageError for a new source without one."""
    existing = ing.store.source(ing.tenant, source_id)
    acl = ing.acl if ing.acl is not None or existing is not None else ing.new_acl
    if existing is None and acl is None:
        raise UsageError(f"source {source_id!r} is new: give it an ACL (missing ACL = invisible)")
    return acl


def _commit(ing: Ingestor, source_id: str, path: str, body: Body, media_type: str,
            flags: tuple[str, ...], layer: TextLayer, at: str) -> IngestResult:
    """Store `body` and commit it as a revision with the docling `layer`; bytes the source
    holds already get the layer added to that revision instead."""
    store, tenant = ing.store, ing.tenant
    existing = store.source(tenant, source_id)
    acl = _acl_of(ing, source_id)
    latest = store.latest_revision(tenant, source_id)
    if latest is not None and latest.sha256 == body.sha256:
        if existing is not None and acl is not None and existing.acl != acl:
            store.set_acl(tenant, source_id, acl)
        added = layer.layer_id not in store.layer_ids(latest) and \
            store.add_text_layer(latest, layer, at)
        return IngestResult(path, source_id, IngestStatus.UNCHANGED, latest.revision_id,
                            latest.sha256, latest.media_type, flags=latest.flags,
                            detail=f"added text layer {layer.layer_id}" if added else None)
    body.store(store.blobs, tenant)
    rev, status = store.commit_revision(
        tenant=tenant, source_id=source_id, sha256=body.sha256, media_type=media_type,
        size=body.size, at=at, acl=acl, flags=flags, layer=layer, owner=ing.owner)
    return IngestResult(path, source_id, status, rev.revision_id, body.sha256, rev.media_type,
                        flags=rev.flags)


def _quarantine(ing: Ingestor, source_id: str, path: Path, body: Body, reason: str,
                detail: str, at: str) -> IngestResult:
    """Record `body` (kept in the quarantine blobs) as refused; return the result."""
    body.store(ing.store.quarantine_blobs, ing.tenant)
    ing.store.add_quarantine(ing.tenant, QuarantineRecord(
        source_id, str(path), body.sha256, body.size, reason, detail, at, ing.owner))
    return IngestResult(str(path), source_id, IngestStatus.QUARANTINED,
                        doc_sha256=body.sha256, reason=reason, detail=detail)

