"""Citation commands: `cite` (find quotes, print verified provenance entries) and `verify`
(re-check entries against the stored bytes). Registered with the document commands."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from ..model.provenance import provenance_entries
from ..vocab import CiteNote, ComparisonForm, VerifyReason
from .context import emit, errors, library, principal, shown
from .options import AsOpt, JsonOpt, StoreOpt
from .whoami import note_if_blind, tell_if_blind

MAX_OCCURRENCE = 10_000
EXIT_SUPERSEDED = 3  # `verify`: every entry verifies, but some cite a revision that has a newer one


def _quotes(quote: list[str] | None, quotes: Path | None) -> list[str]:
    """Return the quotes of `--quote` and `--quotes FILE`; raise UsageError/EmptyQuote."""
    from ..errors import EmptyQuote, UsageError
    from ..library import comparison_form, load_json

    wanted = list(quote or [])
    if quotes is not None:
        try:
            for line in quotes.read_text(encoding="utf-8").splitlines():
                if line.strip():
                    q = load_json(line, f"{quotes}")
                    if not isinstance(q, str):
                        raise ValueError
                    wanted.append(q)
        except (OSError, ValueError, UsageError):
            raise UsageError(f"{quotes}: expected one JSON string per line") from None
    if not wanted:
        raise UsageError("give --quote TEXT or --quotes FILE")
    for i, q in enumerate(wanted, 1):
        if not comparison_form(q):  # checked before any is cited
            raise EmptyQuote(f" {i}" if len(wanted) > 1 else "")
    return wanted


def _describe(c: Any) -> str:
    """Return the human lines of one citation."""
    where = f"page {c.page}, " if c.page else ""
    notes = f" [{', '.join(c.notes)}]" if c.notes else ""
    line = (f"{c.doc_id} {c.locator} ({where}chars {c.char_start}-{c.char_end}) "
            f"{'verified' if c.quote_verified else 'NOT verified'}{notes}: {c.quote!r}")
    if not c.occurrences:
        return line
    listed = "; ".join(f"{n}) {o.locator or '(no locator)'} chars {o.char_start}-{o.char_end}"
                       + (f" page {o.page}" if o.page else "")
                       for n, o in enumerate(c.occurrences, 1))
    more = (f" (and {c.occurrence_count - len(c.occurrences)} more)"
            if c.occurrence_count > len(c.occurrences) else "")
    head = (f"  occurs {c.occurrence_count} times, cited #{c.occurrence}"
            + (" (choose with --occurrence N or --locator LOCATOR)"
               if CiteNote.AMBIGUOUS in c.notes else ""))
    return f"{line}\n{head}: {listed}{more}"


def cite(
    doc: Annotated[str, typer.Argument(help="SOURCE_ID or SOURCE_ID@REVISION.")],
    quote: Annotated[list[str] | None, typer.Option("--quote", help="Text to cite (repeatable).")] = None,
    quotes: Annotated[Path | None, typer.Option("--quotes", help="File with one JSON string per line.")] = None,
    occurrence: Annotated[int | None, typer.Option(
        "--occurrence", min=1, max=MAX_OCCURRENCE,
        help="Cite the N-th occurrence (1-based, in text order) of a quote found more than once.")] = None,
    locator: Annotated[str | None, typer.Option(
        "--locator", help="Cite only occurrences inside the element(s) with this locator "
        "(as `show --locator`: \"clause 7.1\", \"page 3\").")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Find quotes in a document and print verified provenance entries; exit 1 if one is missing.

    The quote printed is the document's own text. A quote that stops inside a word is
    extended to the word's end (`extended`); one found more than once lists every
    occurrence and is `ambiguous` unless --occurrence or --locator picks one.

    Example: pincite cite tender.pdf --quote "450.000 €" --locator "clause 7.1" --json
    """
    from ..errors import NotFound, QuoteNotFound

    with library(store) as lib:
        with errors():
            wanted = _quotes(quote, quotes)
        who = principal(as_)
        ver = lib.verifier(who)
        missing = 0
        for q in wanted:
            with errors():  # an unknown document or locator stops the command
                try:
                    c = ver.cite(doc, q, occurrence=occurrence, locator=locator)
                except NotFound as exc:
                    note_if_blind(exc, lib, who)
                    raise
                except QuoteNotFound as exc:
                    missing += 1
                    if json_:
                        emit({"quote": q, "error": "not_found", "message": exc.message})
                    else:
                        typer.echo(f"not found: {exc.message}", err=True)
                    continue
            if json_:
                emit(c.to_dict())
            else:
                typer.echo(_describe(c))
        if missing:
            raise typer.Exit(1)


def verify(
    file: Annotated[Path, typer.Argument(help="JSON: an entry, a list, or objects with provenance lists ('-' = stdin).")],
    form: Annotated[ComparisonForm | None, typer.Option(
        "--form", help="Compare every quote in this comparison form, whatever the entry "
        "records (re-verify entries made in cmp-1 under cmp-2).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Re-check provenance entries against the stored bytes; exit 0 only if all verify `ok`.

    An entry is compared in the comparison form it records (`comparison`; none: cmp-1,
    it was made before cmp-2). Exit codes: 0 every entry `ok`; 3 every entry verifies but
    one or more is `superseded` (its source has a newer revision: cite that one); 1 an
    entry does not verify; 2 an empty or whitespace-only quote, or input that is not
    provenance.

    Example: pincite cite doc.pdf --quote "…" --json > c.json && pincite verify c.json
    """
    from ..errors import UsageError
    from ..library import Citation, load_json

    with library(store) as lib, errors():
        try:
            raw = sys.stdin.read() if str(file) == "-" else file.read_text(encoding="utf-8")
        except OSError as exc:
            raise UsageError(f"cannot read {file}: {exc.strerror}") from None
        except UnicodeDecodeError:
            raise UsageError(f"{file} is not UTF-8 text: give JSON in UTF-8") from None
        try:
            data = load_json(raw, f"{file}")
        except UsageError:
            # also accept JSON lines (what `cite --json` prints)
            try:
                data = [load_json(line, f"{file}") for line in raw.splitlines() if line.strip()]
            except UsageError as exc:
                raise UsageError(f"{exc.message} (give one JSON value, or JSON lines)") from None
        entries = [Citation.from_dict(e) for e in provenance_entries(data)]
        if not entries:
            raise UsageError(f"{file} holds no provenance entries")
        who = principal(as_)
        results = lib.verify(who, entries, form=form.value if form else None)
        if not all(c.quote_verified for c in results):
            tell_if_blind(lib, who)
        for c in results:
            if json_:
                emit({"doc_id": c.doc_id, "char_start": c.char_start, "char_end": c.char_end,
                      "quote_verified": c.quote_verified, "verify_reason": c.verify_reason,
                      "comparison": c.comparison})
            else:
                typer.echo(f"{'ok ' if c.quote_verified else 'BAD'} {c.verify_reason:18} "
                           f"{shown(c.doc_id)} {c.char_start}-{c.char_end}"
                           + (f" ({c.comparison})" if c.comparison != ComparisonForm.CMP_2 else ""))
    if not all(c.quote_verified for c in results):
        raise typer.Exit(1)
    if any(c.verify_reason == VerifyReason.SUPERSEDED for c in results):
        raise typer.Exit(EXIT_SUPERSEDED)
