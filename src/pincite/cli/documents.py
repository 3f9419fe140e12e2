"""Document commands: `ingest`, `reparse`, `acl`, `sources`, `show`, `tables`, `facts`,
`fsck`, and (from `citing`) `cite` and `verify`. Heavy modules load inside the commands."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..vocab import IngestStatus
from .citing import cite, verify
from .context import emit, errors, library, out, principal, store_url
from .options import (
    AsOpt,
    JsonOpt,
    NoOcrOpt,
    OcrDpiOpt,
    OcrLangOpt,
    OcrPagesOpt,
    OcrSecondsOpt,
    StoreOpt,
)
from .progress_lines import bars_wanted, shown
from .whoami import tell_if_blind


def register(app: typer.Typer) -> None:
    """Add the document commands to `app`."""
    app.command("ingest")(ingest)
    app.command("reparse")(reparse)
    app.command("acl")(acl_cmd)
    app.command("sources")(sources)
    app.command("show")(show)
    app.command("tables")(tables)
    app.command("facts")(facts)
    app.command("fsck")(fsck)
    app.command("cite")(cite)
    app.command("verify")(verify)


# ---- ingest ------------------------------------------------------------------------------


def ingest(
    paths: Annotated[list[Path] | None, typer.Argument(help="Files or directories (walked).")] = None,
    tenant: Annotated[str, typer.Option("--tenant", help="Tenant the sources belong to.")] = "default",
    acl: Annotated[list[str] | None, typer.Option(
        "--acl", help="ACL entry: user:NAME, group:NAME or * (repeatable; new sources default to *).")] = None,
    source_id: Annotated[str | None, typer.Option("--id", help="Source id (one file only).")] = None,
    password: Annotated[str | None, typer.Option("--password", help="Password of encrypted PDFs.")] = None,
    no_publish: Annotated[bool, typer.Option(
        "--no-publish", help="Do not build and publish an index generation afterwards.")] = False,
    embedder: Annotated[str | None, typer.Option(
        "--embedder", help="Embedder of the generation built afterwards: minilm or hash "
        "(default: $PINCITE_EMBEDDER, else minilm when the 'embed' extra is installed).")] = None,
    follow_links: Annotated[bool, typer.Option(
        "--follow-links", help="Follow symbolic links whose target stays inside the folder "
        "given (default: links are quarantined unread).")] = False,
    ocr_lang: OcrLangOpt = None,
    no_ocr: NoOcrOpt = False,
    ocr_dpi: OcrDpiOpt = 300,
    ocr_max_pages: OcrPagesOpt = 500,
    ocr_page_seconds: OcrSecondsOpt = 60.0,
    from_docling: Annotated[Path | None, typer.Option(
        "--from-docling", help="Ingest a DoclingDocument JSON exported by docling instead of "
        "PATHS: its tree is the text layer (docs/docling.md).")] = None,
    docling_source: Annotated[Path | None, typer.Option(
        "--source", help="With --from-docling: the file docling converted. Its bytes are "
        "what citations pin, and its text must agree with the JSON's (without --source the "
        "JSON's own bytes are pinned).")] = None,
    async_: Annotated[bool, typer.Option(
        "--async", help="Enqueue the ingest as a durable run for `pincite worker` and print "
        "its id (see `pincite runs`); the workers read the files at their absolute paths.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ingest documents: new bytes become a revision, bad input is quarantined with a reason.
    Then build and publish an index generation for what changed (unless --no-publish).
    The user of --as owns the sources it creates (it may change their ACLs). With --async
    the work is a run of recorded steps that a worker carries out (docs/workers.md).

    PDF pages without a usable text layer (scans) are read by OCR (Tesseract); such a
    revision is flagged `ocr` and its citations say so.

    Example: pincite ingest examples/ --tenant acme --acl group:legal --json
    Example: pincite ingest --from-docling report.json --source report.pdf
    """
    from ..library import ocr_limits
    from ..model import parse_acl_entry
    from ..model.names import check_name

    with errors():
        check_name("tenant", tenant)  # before it is echoed: no control or bidi reaches the terminal
        _check_docling_options(paths, from_docling, docling_source, async_, follow_links)
        limits = ocr_limits(ocr_lang, enabled=not no_ocr, dpi=ocr_dpi, max_pages=ocr_max_pages,
                            page_seconds=ocr_page_seconds)
    with library(store, create=True) as lib:
        acl_given = [parse_acl_entry(a) for a in acl] if acl else None
        who = principal(as_)
        if as_ is not None and who.tenant != tenant:
            from ..errors import UsageError

            raise UsageError(f"--as {as_} is a principal of tenant {who.tenant!r}, not of "
                             f"{tenant!r}: give --tenant {who.tenant} or an --as of {tenant!r}")
        if who.tenant != tenant:  # no --as: the local user (or $PINCITE_AS's) in --tenant
            from ..model import Principal

            who = Principal(tenant, who.subject, who.groups)
        if async_:
            _enqueue_ingest(lib, store, who, paths or [], tenant, acl_given, source_id, password,
                            not no_publish, embedder, follow_links, limits, json_)
            return
        if not json_:
            note = f"acl {' '.join(acl_given)}" if acl_given else "acl * for new sources (default)"
            typer.echo(f"tenant {tenant} (default)" if tenant == "default" else f"tenant {tenant}", err=True)
            typer.echo(note, err=True)

        # -- progress (issue 30): documents and pages on stderr; JSON lines stream to
        # stdout as each file is done unless they would break into the terminal's display
        with shown("ingest") as bar:
            streamed = json_ and bar.stdout_free and from_docling is None
            # Without --acl: new sources get '*', existing ones keep their ACL.
            if from_docling is not None:  # one import: docs/docling.md
                from ..library import ingest_docling

                results = [ingest_docling(lib, from_docling, source=docling_source,
                                          tenant=tenant, acl=acl_given,
                                          new_acl=None if acl_given else ["*"],
                                          source_id=source_id, password=password,
                                          limits=limits, principal=who)]
            else:
                results = lib.ingest(paths or [], tenant=tenant, acl=acl_given,
                                     new_acl=None if acl_given else ["*"],
                                     source_id=source_id, password=password, publish=False,
                                     on_result=(lambda r: emit(r.to_dict())) if streamed else None,
                                     follow_links=follow_links, principal=who, limits=limits,
                                     report=bar.report)
        for r in results if not streamed else ():
            extra = f" {r.reason}: {r.detail}" if r.status == IngestStatus.QUARANTINED else ""
            flags = f" [{', '.join(r.flags)}]" if r.flags else ""
            out(json_, r.to_dict(), f"{r.status:11} {r.doc_id or r.source_id}{flags}{extra}")
        # -- end of progress
        if not no_publish:
            # What `lib.ingest(publish=True)` does, here after the results are printed.
            built = lib.update_index(embedder, progress=bars_wanted())
            if built is None:
                typer.echo("index up to date", err=True)
            else:
                c = built.manifest["counts"]
                typer.echo(f"published generation {built.gen_id} ({c['chunks']} chunks, "
                           f"{c['embedded']} embedded)", err=True)


def _check_docling_options(paths: list[Path] | None, from_docling: Path | None,
                           source: Path | None, async_: bool, follow_links: bool) -> None:
    """Raise UsageError for PATHS and --from-docling together, or neither, and for options
    that do not go with --from-docling."""
    from ..errors import UsageError

    if from_docling is None:
        if source is not None:
            raise UsageError("--source goes with --from-docling FILE.json: give both")
        if not paths:
            raise UsageError("give the files or folders to ingest (or --from-docling FILE.json)")
        return
    if paths:
        raise UsageError("--from-docling imports one DoclingDocument JSON: give no PATHS with "
                         "it (its --source is the file docling converted)")
    if async_ or follow_links:
        raise UsageError("--from-docling runs here and now: leave out --async and --follow-links")


def _enqueue_ingest(lib: Any, store: str | None, who: Any, paths: list[Path], tenant: str,
                    acl: list[str] | None, source_id: str | None, password: str | None,
                    publish: bool, embedder: str | None, follow_links: bool, limits: Any,
                    json_: bool) -> None:
    from ..errors import UsageError

    if password is not None:
        raise UsageError("--password is not stored in a run: ingest encrypted PDFs without --async")
    book = lib.runs(store_url(store))
    try:
        run_id = book.submit_ingest(who, paths, tenant=tenant, acl=acl,
                                    new_acl=None if acl else ["*"], source_id=source_id,
                                    limits=limits, publish=publish, embedder=embedder,
                                    follow_links=follow_links)
    finally:
        book.close()
    out(json_, {"run_id": run_id, "queue": "ingest"}, run_id)


def reparse(
    source_ids: Annotated[list[str] | None, typer.Argument(help="Sources (default: all visible).")] = None,
    ocr_lang: OcrLangOpt = None,
    no_ocr: NoOcrOpt = False,
    ocr_dpi: OcrDpiOpt = 300,
    ocr_max_pages: OcrPagesOpt = 500,
    ocr_page_seconds: OcrSecondsOpt = 60.0,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Re-parse revisions with the current parsers; old text layers are kept, and citations
    into them keep verifying. A PDF with pages that have no text (ingested before OCR, or
    while it was unavailable) gets a new layer read by OCR (`pdf+ocr@…`).

    Example: pincite reparse tender/pliego.pdf --as demo:ana:analysts --json
    """
    from ..library import ocr_limits

    with errors():
        limits = ocr_limits(ocr_lang, enabled=not no_ocr, dpi=ocr_dpi, max_pages=ocr_max_pages,
                            page_seconds=ocr_page_seconds)
    with library(store) as lib:
        for doc_id, layer in lib.reparse(principal(as_), source_ids or [], limits=limits):
            if json_:
                emit({"doc_id": doc_id, "new_text_layer": layer})
            else:
                typer.echo(f"{doc_id}: {'added ' + layer if layer else 'up to date'}")


def acl_cmd(
    source_id: Annotated[str, typer.Argument(help="The source whose ACL to replace.")],
    entries: Annotated[list[str] | None, typer.Argument(help="More ACL entries.")] = None,
    set_: Annotated[list[str] | None, typer.Option("--set", help="ACL entry (repeatable).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Replace a source's ACL; revocation takes effect on the next read.

    Example: pincite acl tender.pdf --set group:legal user:ana
    """
    all_entries = (set_ or []) + (entries or [])
    with library(store) as lib:
        if not all_entries:
            from ..errors import UsageError

            with errors():
                raise UsageError("give the new ACL with --set ENTRY…")
        src = lib.set_acl(principal(as_), source_id, all_entries)
        if json_:
            emit({"source_id": src.source_id, "acl": list(src.acl), "acl_epoch": src.acl_epoch})
        else:
            typer.echo(f"{src.source_id}: acl {' '.join(src.acl)} (epoch {src.acl_epoch})")


def sources(
    quarantined: Annotated[bool, typer.Option("--quarantined", help="List refused files instead.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List the sources you can see, or the quarantined files with their reasons.

    Example: pincite sources --quarantined --as acme:ana:legal --json
    """
    with library(store) as lib:
        p = principal(as_)
        if quarantined:
            refused = lib.quarantined(p)
            for q in refused:
                if json_:
                    emit(q.to_dict())
                else:
                    typer.echo(f"{q.reason:16} {q.path}  {q.detail}")
            if not refused:
                tell_if_blind(lib, p)
            return
        listed = lib.sources(p)
        if not listed:
            tell_if_blind(lib, p)
        for s in listed:
            revs = lib.revisions(p, s.source_id)
            latest = revs[-1]
            if json_:
                emit({"source_id": s.source_id, "doc_id": latest.doc_id,
                       "doc_sha256": latest.sha256, "media_type": latest.media_type,
                       "revisions": len(revs), "acl": list(s.acl), "flags": list(latest.flags)})
            else:
                typer.echo(f"{latest.doc_id:40} {latest.media_type:20} "
                           f"{len(revs)} rev  {latest.sha256[:12]}")


def show(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID (latest revision) or SOURCE_ID@REVISION.")],
    locator: Annotated[str | None, typer.Option("--locator", help="Show the element(s) with this locator.")] = None,
    chars: Annotated[str | None, typer.Option("--chars", help="Show the text at A:B.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Show a document's text layer, an element by locator, or a character range.

    Example: pincite show tender.pdf --locator "clause 12.1.a"
    """
    from ..errors import NotFound, UsageError

    with library(store) as lib:
        rev, layer = lib.document(principal(as_), doc)
        head = {"doc_id": rev.doc_id, "doc_sha256": rev.sha256, "media_type": rev.media_type,
                "text_layer": layer.layer_id, "valid_to": rev.valid_to, "flags": list(rev.flags)}
        with errors():
            if chars is not None:
                try:
                    a, b = (int(x) for x in chars.split(":"))
                except ValueError:
                    raise UsageError("--chars takes A:B, two offsets") from None
                if not 0 <= a <= b <= len(layer.text):
                    raise UsageError(f"--chars {chars} is outside 0:{len(layer.text)}")
                piece = layer.text[a:b]
                out(json_, {**head, "char_start": a, "char_end": b, "text": piece}, piece)
                return
            if locator is not None:
                els = [e for e in layer.elements if e.locator == locator and e.kind != "page"]
                if not els:
                    raise NotFound("locator", locator)
                el = max(els, key=lambda e: e.char_end - e.char_start)
                piece = layer.text[el.char_start:el.char_end]
                out(json_, {**head, **el.to_dict(), "text": piece}, piece)
                return
        if json_:
            emit({**head, "text": layer.text, "elements": [e.to_dict() for e in layer.elements]})
        else:
            typer.echo(f"{rev.doc_id}  {rev.media_type}  {layer.layer_id}  sha256 {rev.sha256}")
            typer.echo(layer.text)


def tables(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID (latest revision) or SOURCE_ID@REVISION.")],
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List a document's tables with caption, unit, scale, period and header paths per cell.

    Example: pincite tables report.pdf --json
    """
    with library(store) as lib:
        for t in lib.tables(principal(as_), doc):
            if json_:
                emit(t.to_dict())
                continue
            where = f"page {t.page}, " if t.page else ""
            typer.echo(f"{t.locator} ({where}{t.n_rows}x{t.n_cols}, header rows {t.header_rows}, "
                       f"unit {t.unit or '-'}, scale {t.scale or '-'}, period {t.period_grain or '-'})"
                       f"{'  ' + t.caption if t.caption else ''}")
            for c in t.cells:
                if c.header is None:
                    typer.echo(f"  {c.locator}: {c.text}")


def facts(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID (latest revision) or SOURCE_ID@REVISION.")],
    type_: Annotated[list[str] | None, typer.Option(
        "--type", help="Keep only these value types: number, money, percent, date, datetime, "
        "period, duration, text (repeatable).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List a document's atomic facts (table cells and typed values in prose), each citable.

    Example: pincite facts tender/pliego.pdf --type money --json
    """
    from ..errors import UsageError
    from ..library import VALUE_TYPES

    with library(store) as lib:
        bad = [t for t in type_ or [] if t not in VALUE_TYPES]
        if bad:
            with errors():
                raise UsageError(f"unknown --type {bad[0]!r}: use one of {', '.join(VALUE_TYPES)}")
        for f in lib.facts(principal(as_), doc, types=type_ or None):
            if json_:
                emit(f.to_dict())
            else:
                q = f" [{f.qualifier}]" if f.qualifier else ""
                typer.echo(f"{f.value_type:9} {f.normalized_value or '':>16} {f.value!r}{q}  "
                           f"@ {f.locator}")


def fsck(
    grace: Annotated[float, typer.Option("--grace", help="Leave unreferenced files younger than this (s).")] = 600.0,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Check blob hashes, orphans and SQLite integrity; reclaim debris; exit 1 on damage.

    Example: pincite fsck --grace 60 --json
    """
    from ..errors import StoreDamaged
    from ..library import open_library
    from ..limits import check_number

    with errors():
        check_number("--grace (seconds)", grace, 0, 10 * 365 * 86400)
        try:
            lib = open_library(store_url(store))
        except StoreDamaged as exc:  # damage is the report, not an error
            report: dict[str, Any] = {
                "ok": False, "revisions": 0, "blobs_checked": 0, "reclaimed": [],
                "damage": [f"sqlite: the database cannot be read ({exc.detail})",
                           "store: nothing checked or reclaimed until the database is "
                           "restored from a backup"]}
        else:
            try:
                report = lib.fsck(grace_seconds=grace).to_dict()
            finally:
                lib.close()
    if json_:
        emit(report)
    else:
        typer.echo(f"{report['revisions']} revisions, {report['blobs_checked']} blobs checked")
        for line in report["damage"]:
            typer.echo(f"DAMAGE   {line}")
        for line in report["reclaimed"]:
            typer.echo(f"reclaimed {line}")
        typer.echo("ok" if report["ok"] else "damaged")
    if not report["ok"]:
        raise typer.Exit(1)
