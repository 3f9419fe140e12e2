"""The `pincite` command: a thin layer that parses arguments, calls the library, renders.

Heavy modules load inside the commands that need them, so `pincite --help` stays fast.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .options import AsOpt, JsonOpt, StoreOpt

if TYPE_CHECKING:
    from ..library import Library
    from ..model import Principal

app = typer.Typer(
    name="pincite",
    help="Retrieval and extraction where the document stays the authority: every output "
    "is a pointer into a source that code verifies.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

DEFAULT_STORE = "./pincite-store"
DEFAULT_PRINCIPAL = "default:local"
_state: dict[str, Any] = {"store": None}



@app.callback()
def _main(store: StoreOpt = None) -> None:
    _state["store"] = store


def _store_url(store: str | None) -> str:
    return store or _state.get("store") or os.environ.get("PINCITE_STORE") or DEFAULT_STORE


def _principal(as_: str | None) -> Principal:
    from ..model import Principal

    return Principal.parse(as_ or os.environ.get("PINCITE_AS") or DEFAULT_PRINCIPAL)


def _emit(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


@contextmanager
def _errors() -> Iterator[None]:
    """Turn pincite errors into one line on stderr and a non-zero exit."""
    from ..errors import PinciteError, UsageError

    try:
        yield
    except UsageError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(2) from None
    except PinciteError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        raise typer.Exit(1) from None


@contextmanager
def _library(store: str | None) -> Iterator[Library]:
    from ..library import open_library

    with _errors():
        lib = open_library(_store_url(store))
        try:
            yield lib
        finally:
            lib.close()


# ---- ingest ------------------------------------------------------------------------------


@app.command()
def ingest(
    paths: Annotated[list[Path], typer.Argument(help="Files or directories (walked).")],
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
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ingest documents: new bytes become a revision, bad input is quarantined with a reason.
    Then build and publish an index generation for what changed (unless --no-publish).

    Example: pincite ingest examples/ --tenant acme --acl group:legal --json
    """
    from ..model import parse_acl_entry

    with _library(store) as lib:
        acl_given = [parse_acl_entry(a) for a in acl] if acl else None
        existing = {s.source_id for s in lib.store.sources(tenant)} if acl_given is None else set()
        if not json_:
            note = f"acl {' '.join(acl_given)}" if acl_given else "acl * for new sources (default)"
            typer.echo(f"tenant {tenant} (default)" if tenant == "default" else f"tenant {tenant}", err=True)
            typer.echo(note, err=True)

        def run(on_result: Callable[[Any], None]) -> list[Any]:
            if acl_given is not None:
                return lib.ingest(paths, tenant=tenant, acl=acl_given, source_id=source_id,
                                  password=password, on_result=on_result)
            # Without --acl: new sources get '*', existing ones keep their ACL.
            from ..library import walk_inputs

            out: list[Any] = []
            for f, default_id in walk_inputs(paths):
                sid = source_id or default_id
                out.extend(lib.ingest([f], tenant=tenant, source_id=sid, password=password,
                                      acl=None if sid in existing else ["*"], on_result=on_result))
            return out

        if json_:
            results = run(lambda r: _emit(r.to_dict()))
        else:
            from rich.progress import Progress

            with Progress(transient=True) as progress:
                task = progress.add_task("ingesting", total=None)
                results = run(lambda r: progress.advance(task))
            for r in results:
                extra = f" {r.reason}: {r.detail}" if r.status == "quarantined" else ""
                flags = f" [{', '.join(r.flags)}]" if r.flags else ""
                typer.echo(f"{r.status:11} {r.doc_id or r.source_id}{flags}{extra}")
        if not no_publish:
            from .retrieval import publish_after_ingest

            publish_after_ingest(lib, embedder, quiet=json_)


@app.command()
def reparse(
    source_ids: Annotated[list[str] | None, typer.Argument(help="Sources (default: all visible).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Re-parse revisions with the current parsers; old text layers are kept."""
    with _library(store) as lib:
        out = lib.reparse(_principal(as_), source_ids or [])
        for doc_id, layer in out:
            if json_:
                _emit({"doc_id": doc_id, "new_text_layer": layer})
            else:
                typer.echo(f"{doc_id}: {'added ' + layer if layer else 'up to date'}")


@app.command("acl")
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
    with _library(store) as lib:
        if not all_entries:
            from ..errors import UsageError

            with _errors():
                raise UsageError("give the new ACL with --set ENTRY…")
        src = lib.set_acl(_principal(as_), source_id, all_entries)
        if json_:
            _emit({"source_id": src.source_id, "acl": list(src.acl), "acl_epoch": src.acl_epoch})
        else:
            typer.echo(f"{src.source_id}: acl {' '.join(src.acl)} (epoch {src.acl_epoch})")


@app.command()
def sources(
    quarantined: Annotated[bool, typer.Option("--quarantined", help="List refused files instead.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List the sources you can see, or the quarantined files with their reasons."""
    with _library(store) as lib:
        p = _principal(as_)
        if quarantined:
            for q in lib.quarantined(p):
                if json_:
                    _emit(q.to_dict())
                else:
                    typer.echo(f"{q.reason:16} {q.path}  {q.detail}")
            return
        for s in lib.sources(p):
            revs = lib.revisions(p, s.source_id)
            latest = revs[-1]
            if json_:
                _emit({"source_id": s.source_id, "doc_id": latest.doc_id,
                       "doc_sha256": latest.sha256, "media_type": latest.media_type,
                       "revisions": len(revs), "acl": list(s.acl), "flags": list(latest.flags)})
            else:
                typer.echo(f"{latest.doc_id:40} {latest.media_type:20} "
                           f"{len(revs)} rev  {latest.sha256[:12]}")


@app.command()
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

    with _library(store) as lib:
        rev, layer = lib.document(_principal(as_), doc)
        head = {"doc_id": rev.doc_id, "doc_sha256": rev.sha256, "media_type": rev.media_type,
                "text_layer": layer.layer_id, "valid_to": rev.valid_to, "flags": list(rev.flags)}
        with _errors():
            if chars is not None:
                try:
                    a, b = (int(x) for x in chars.split(":"))
                except ValueError:
                    raise UsageError("--chars takes A:B, two offsets") from None
                if not 0 <= a <= b <= len(layer.text):
                    raise UsageError(f"--chars {chars} is outside 0:{len(layer.text)}")
                piece = layer.text[a:b]
                _out(json_, {**head, "char_start": a, "char_end": b, "text": piece}, piece)
                return
            if locator is not None:
                els = [e for e in layer.elements if e.locator == locator and e.kind != "page"]
                if not els:
                    raise NotFound("locator", locator)
                el = max(els, key=lambda e: e.char_end - e.char_start)
                piece = layer.text[el.char_start:el.char_end]
                _out(json_, {**head, **el.to_dict(), "text": piece}, piece)
                return
        if json_:
            _emit({**head, "text": layer.text, "elements": [e.to_dict() for e in layer.elements]})
        else:
            typer.echo(f"{rev.doc_id}  {rev.media_type}  {layer.layer_id}  sha256 {rev.sha256}")
            typer.echo(layer.text)


@app.command()
def tables(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID (latest revision) or SOURCE_ID@REVISION.")],
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List a document's tables with caption, unit, scale, period and header paths per cell.

    Example: pincite tables report.pdf --json
    """
    from ..facts.canonical import canonical_tables

    with _library(store) as lib:
        rev, layer = lib.document(_principal(as_), doc)
        for t in canonical_tables(layer, rev.doc_id):
            if json_:
                _emit(t.to_dict())
                continue
            where = f"page {t.page}, " if t.page else ""
            typer.echo(f"{t.locator} ({where}{t.n_rows}x{t.n_cols}, header rows {t.header_rows}, "
                       f"unit {t.unit or '-'}, scale {t.scale or '-'}, period {t.period_grain or '-'})"
                       f"{'  ' + t.caption if t.caption else ''}")
            for c in t.cells:
                if c.header is None:
                    typer.echo(f"  {c.locator}: {c.text}")


@app.command()
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
    from ..facts.atomic import extract_facts
    from ..values import VALUE_TYPES

    with _library(store) as lib:
        bad = [t for t in type_ or [] if t not in VALUE_TYPES]
        if bad:
            with _errors():
                raise UsageError(f"unknown --type {bad[0]!r}: use one of {', '.join(VALUE_TYPES)}")
        rev, layer = lib.document(_principal(as_), doc)
        for f in extract_facts(layer, rev.doc_id, types=type_ or None):
            if json_:
                _emit(f.to_dict())
            else:
                q = f" [{f.qualifier}]" if f.qualifier else ""
                typer.echo(f"{f.value_type:9} {f.normalized_value or '':>16} {f.value!r}{q}  "
                           f"@ {f.locator}")


def _out(json_: bool, obj: dict[str, Any], text: str) -> None:
    if json_:
        _emit(obj)
    else:
        typer.echo(text)


@app.command()
def fsck(
    grace: Annotated[float, typer.Option("--grace", help="Leave unreferenced files younger than this (s).")] = 600.0,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Check blob hashes, orphans and SQLite integrity; reclaim debris; exit 1 on damage."""
    with _library(store) as lib:
        report = lib.fsck(grace_seconds=grace)
        if json_:
            _emit(report.to_dict())
        else:
            typer.echo(f"{report.revisions} revisions, {report.blobs_checked} blobs checked")
            for line in report.damage:
                typer.echo(f"DAMAGE   {line}")
            for line in report.reclaimed:
                typer.echo(f"reclaimed {line}")
            typer.echo("ok" if report.ok else "damaged")
        if not report.ok:
            raise typer.Exit(1)


# ---- citations ---------------------------------------------------------------------------


@app.command()
def cite(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID or SOURCE_ID@REVISION.")],
    quote: Annotated[list[str] | None, typer.Option("--quote", help="Text to cite (repeatable).")] = None,
    quotes: Annotated[Path | None, typer.Option("--quotes", help="File with one JSON string per line.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Find quotes in a document and print verified provenance entries; exit 1 if one is missing.

    Example: pincite cite tender.pdf --quote "450.000 €" --json
    """
    from ..errors import QuoteNotFound, UsageError

    wanted = list(quote or [])
    with _library(store) as lib:
        if quotes is not None:
            with _errors():
                try:
                    for line in quotes.read_text(encoding="utf-8").splitlines():
                        if line.strip():
                            q = json.loads(line)
                            if not isinstance(q, str):
                                raise ValueError
                            wanted.append(q)
                except (OSError, ValueError):
                    raise UsageError(f"{quotes}: expected one JSON string per line") from None
        if not wanted:
            with _errors():
                raise UsageError("give --quote TEXT or --quotes FILE")
        ver = lib.verifier(_principal(as_))
        missing = 0
        for q in wanted:
            try:
                c = ver.cite(doc, q)
            except QuoteNotFound:
                missing += 1
                if json_:
                    _emit({"quote": q, "error": "not_found"})
                else:
                    typer.echo(f"not found: {q!r}", err=True)
                continue
            if json_:
                _emit(c.to_dict())
            else:
                where = f"page {c.page}, " if c.page else ""
                typer.echo(f"{c.doc_id} {c.locator} ({where}chars {c.char_start}-{c.char_end}) "
                           f"{'verified' if c.quote_verified else 'NOT verified'}: {c.quote!r}")
        if missing:
            raise typer.Exit(1)


def _entries(obj: Any) -> Iterator[Any]:
    """Yield every provenance entry inside a JSON value."""
    if isinstance(obj, list):
        for x in obj:
            yield from _entries(x)
    elif isinstance(obj, dict):
        if "doc_id" in obj and "quote" in obj:
            yield obj
            return
        for k, v in obj.items():
            if k == "provenance" and isinstance(v, list):
                yield from v
            elif isinstance(v, dict | list):
                yield from _entries(v)


@app.command()
def verify(
    file: Annotated[Path, typer.Argument(help="JSON: an entry, a list, or objects with provenance lists ('-' = stdin).")],
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Re-check provenance entries against the stored bytes; exit 0 only if all verify.

    Example: pincite cite doc.pdf --quote "…" --json > c.json && pincite verify c.json
    """
    from ..errors import UsageError
    from ..model import Citation

    with _library(store) as lib, _errors():
        try:
            raw = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror}") from None
        try:
            data = json.loads(raw)
        except ValueError:
            # also accept JSON lines (what `cite --json` prints)
            try:
                data = [json.loads(line) for line in raw.splitlines() if line.strip()]
            except ValueError:
                raise UsageError(f"{file} is not JSON") from None
        entries = [Citation.from_dict(e) for e in _entries(data)]
        if not entries:
            raise UsageError(f"{file} holds no provenance entries")
        results = lib.verify(_principal(as_), entries)
        for c in results:
            if json_:
                _emit({"doc_id": c.doc_id, "char_start": c.char_start, "char_end": c.char_end,
                       "quote_verified": c.quote_verified, "verify_reason": c.verify_reason})
            else:
                typer.echo(f"{'ok ' if c.quote_verified else 'BAD'} {c.verify_reason:18} "
                           f"{c.doc_id} {c.char_start}-{c.char_end}")
    if not all(c.quote_verified for c in results):
        raise typer.Exit(1)


def _register_command_groups() -> None:
    """Add `eval …` (cli_eval), `search`, `ask`, `delete`, `index …` (cli_search),
    `extract` (cli_extract), `review …` and `calibrate` (cli_review)."""
    from . import (
        evaluation as cli_eval,
    )
    from . import (
        extraction as cli_extract,
    )
    from . import (
        retrieval as cli_search,
    )
    from . import (
        reviewing as cli_review,
    )

    cli_eval.register(app, sys.modules[__name__])
    cli_search.register(app, sys.modules[__name__])
    cli_extract.register(app, sys.modules[__name__])
    cli_review.register(app, sys.modules[__name__])


_register_command_groups()


def main() -> None:
    """Entry point of the `pincite` script."""
    app(prog_name="pincite")


if __name__ == "__main__":
    main()
