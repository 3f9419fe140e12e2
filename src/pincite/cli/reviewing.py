"""`pincite review …` and `pincite calibrate`: the review queue, decisions, calibration."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .context import emit, errors, library, principal, shown, store_url
from .options import AsOpt, JsonOpt, StoreOpt
from .whoami import tell_if_blind

review_app = typer.Typer(help="The review queue: list, claim, decide; the review page.\n\n"
                         "Example: pincite review list --state open --as demo:ana:analysts",
                         no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add the `review` command group and `calibrate` to `app`."""
    app.add_typer(review_app, name="review")
    app.command("calibrate")(calibrate)


def _queue(lib: Any, as_: str | None) -> Any:
    return lib.review_queue(principal(as_))


@review_app.command("serve")
def review_serve(
    port: Annotated[int, typer.Option("--port", help="Port to listen on (localhost).")] = 8765,
    host: Annotated[str, typer.Option("--host", help="Interface to bind.")] = "127.0.0.1",
    allow_host: Annotated[list[str] | None, typer.Option(
        "--allow-host", metavar="NAME[:PORT]", help="Another Host name the page answers to (repeatable; NAME or "
        "NAME:PORT). By default only the bound address and localhost on this port.")] = None,
    as_: AsOpt = None,
    store: StoreOpt = None,
) -> None:
    """Serve the review page on this machine, acting as the one reviewer --as names, with no
    sign-in; `pincite serve` serves the same page at /ui/ with sign-in (API key or JWT).

    Example: pincite review serve --port 8765 --as demo:ana:analysts
    """
    from ..limits import check_number

    with errors():
        check_number("--port", port, 1, 65535, integer=True)
        try:
            import uvicorn
        except ImportError:
            from ..errors import MissingExtra

            raise MissingExtra("uvicorn", "review") from None
        from ..library import open_library
        from ..service.review_page import create_app

        reviewer = principal(as_)
        bound = f"[{host}]" if ":" in host and not host.startswith("[") else host
        hosts = [f"{h}:{port}" for h in (bound, "127.0.0.1", "localhost", "[::1]")]
        app = create_app(open_library(store_url(store)), reviewer,
                         allowed_hosts=hosts + list(allow_host or []))
        typer.echo(f"review page for {reviewer} on http://{host}:{port}/", err=True)
        uvicorn.run(app, host=host, port=port, log_level="warning")


@review_app.command("list")
def review_list(
    state: Annotated[str | None, typer.Option("--state", help="open, stale or decided.")] = None,
    reason: Annotated[str | None, typer.Option("--reason", help="Only items queued for this reason.")] = None,
    field: Annotated[str | None, typer.Option("--field", help="Only items of this field.")] = None,
    mine: Annotated[bool, typer.Option("--mine", help="Only items you hold a live claim on.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List the review items you may see: open first, hard first, nearest deadline, oldest.
    Each line: id, state, HARD, reason, document (SOURCE@REVISION), field, confidence,
    deadline, live claim.

    Example: pincite review list --state open --as demo:ana:analysts --json
    """
    with library(store) as lib:
        who = principal(as_)
        items = lib.review_queue(who).items(state=state, reason=reason, field=field, mine=mine)
        if not items:
            tell_if_blind(lib, who)
    if json_:
        emit(items)
        return
    for it in items:
        claim = f"{it['claimed_by']} until {it['lease_until'][11:19]}" if it["claim_live"] else ""
        conf = "" if it["confidence"] is None else f"{it['confidence']:.2f}"
        doc = shown(f"{it['source_id']}@{it['revision_id']}")
        typer.echo(f"{it['id']:>5} {it['state']:8} {'HARD' if it['hard'] else '    '} "
                   f"{it['reason']:20} {doc:32} {it['field']:42} {conf:5} "
                   f"due {it['due_at'] or '—':17} {claim}")
    typer.echo(f"{len(items)} items", err=True)


@review_app.command("next")
def review_next(
    lease: Annotated[float, typer.Option("--lease", help="Seconds the claim lasts.")] = 900.0,
    field: Annotated[str | None, typer.Option("--field", help="Only claim items of this field.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Claim the next item for the lease and print it as JSON ({"id": …}); `null` when none.

    Your own live claim comes back first. Example: pincite review next --lease 600 --as demo:ana:analysts
    """
    with library(store) as lib:
        item = _queue(lib, as_).next(lease=lease, field=field)
    emit(item)


@review_app.command("decide")
def review_decide(
    item_id: Annotated[int, typer.Argument(help="The item id.")],
    decision: Annotated[str, typer.Option("--decision", help="accept, correct, reject or abstain.")],
    value: Annotated[str | None, typer.Option("--value", help="The corrected value, as JSON (with correct).")] = None,
    quote: Annotated[str | None, typer.Option("--quote", help="Words of the document the correction rests on.")] = None,
    not_stated: Annotated[bool, typer.Option("--not-stated", help="The value is not in the document (with correct).")] = False,
    doc: Annotated[str | None, typer.Option("--doc", help="Document the quote is in (default: the case's, item's first).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Decide a claimed item: accept, correct (with --value and --quote, or --not-stated),
    reject (the value is wrong), or abstain (the document does not state it).

    Example: pincite review decide 12 --decision correct --value '{"percent": 5}' \\
    --quote "garantía definitiva del 5 por ciento" --as demo:ana:analysts
    """
    from ..library import load_json

    with errors():
        parsed = None
        if value is not None:
            parsed = load_json(value, "--value")
    with library(store) as lib:
        res = _queue(lib, as_).decide(item_id, decision, value=parsed, quote=quote, doc=doc,
                                      not_stated=not_stated)
    if json_:
        emit(res)
        return
    typer.echo(f"item {item_id}: {decision}; record {res['record']['field']} → "
               f"{res['record']['outcome']} ({res['record']['reason']}); "
               f"{res['label']['seconds'] or 0:.1f} s to decide")
    if res["incident"]:
        typer.echo(f"rubber-stamp incident {res['incident']} is open: these labels stay out of "
                   "calibration until it is cleared", err=True)


@review_app.command("release")
def review_release(
    item_id: Annotated[int, typer.Argument(help="The item id.")],
    as_: AsOpt = None,
    store: StoreOpt = None,
) -> None:
    """Give a claimed item back to the queue.

    Example: pincite review release 12 --as demo:ana:analysts
    """
    with library(store) as lib:
        _queue(lib, as_).release(item_id)
    typer.echo(f"released item {item_id}")


@review_app.command("incidents")
def review_incidents(
    clear: Annotated[int | None, typer.Option("--clear", help="Clear this open incident first.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List rubber-stamp incidents (runs of fast accepts); --clear ID lets its labels count again.

    Example: pincite review incidents --clear 3 --as demo:lead:analysts,review.admin
    """
    with library(store) as lib:
        q = _queue(lib, as_)
        if clear is not None:
            q.clear_incident(clear)
        incidents = q.incidents()
    if json_:
        emit(incidents)
        return
    for i in incidents:
        state = f"cleared by {i['cleared_by']}" if i["cleared_at"] else "OPEN"
        typer.echo(f"{i['id']:>4} {i['kind']} {i['reviewer']:12} {i['labels']:>3} labels  "
                   f"{i['opened_at'][:19]}  {state}  {i['detail'].get('message', '')}")


@review_app.command("settings")
def review_settings_cmd(
    audit_fraction: Annotated[float | None, typer.Option(
        "--audit-fraction", help="Share of SHOW records queued as sample_audit (0–1).")] = None,
    stamp_run: Annotated[int | None, typer.Option(
        "--stamp-run", help="Accepts in a row that make a rubber stamp (0: off).")] = None,
    stamp_seconds: Annotated[float | None, typer.Option(
        "--stamp-seconds", help="… each decided in under this many seconds.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Show or change the tenant's review settings (audit stream, rubber-stamp rule).

    Example: pincite review settings --audit-fraction 0.05 --stamp-run 5 --stamp-seconds 10 --as demo:lead:review.admin
    """
    with library(store) as lib:
        s = _queue(lib, as_).set_settings(audit_fraction=audit_fraction, stamp_run=stamp_run,
                                          stamp_seconds=stamp_seconds)
    if json_:
        emit(s.to_dict())
    else:
        typer.echo(f"audit fraction {s.audit_fraction:g}; rubber stamp: {s.stamp_run} accepts "
                   f"in a row under {s.stamp_seconds:g} s")


def calibrate(
    field: Annotated[str | None, typer.Option("--field", help="Only this field.")] = None,
    diagram: Annotated[Path | None, typer.Option(
        "--diagram", help="Write the reliability diagram here (.png or .svg).")] = None,
    seed_example: Annotated[bool, typer.Option(
        "--seed-example", help="Print the seed's worked example (3,600 fields/day) instead.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Calibration from reviewer decisions: per field and confidence bin, the fraction
    accepted unchanged (Wilson 95 %), ECE, and the threshold trade-off table.

    Example: pincite calibrate --field guarantee.definitive --as demo:ana:analysts --json
    """
    from ..library import format_table, seed_worked_example

    if seed_example:
        rows = seed_worked_example()
        if json_:
            emit([r.to_dict() for r in rows])
        else:
            typer.echo("seed 000 §05: 3,600 fields/day; 55/20/12/7/6 % from ≥ 0.95 down; "
                       "error = 1 − bin midpoint; 90 s per reviewed item")
            typer.echo(format_table(rows))
        return
    with library(store) as lib:
        rep = lib.calibration(principal(as_), field=field)
        if diagram is not None:
            fmt = "png" if diagram.suffix.lower() == ".png" else "svg"
            diagram.write_bytes(lib.reliability_diagram(principal(as_), field=field, fmt=fmt))
    if json_:
        emit(rep)
        return
    _print_report(rep)


def _print_report(rep: dict[str, Any]) -> None:
    from fractions import Fraction

    from ..library import ThresholdRow, format_table

    for f in rep["fields"]:
        th = f["thresholds"]
        used = (f"calibrated: show ≥ {th['tau_show']}, flag ≥ {th['tau_flag']}" if th else
                f"schema thresholds ({f['labels']}/{rep['min_labels']} labels)")
        ece = "—" if f["ece"] is None else f"{f['ece']:.3f}"
        typer.echo(f"\n{f['field']} (extractor {f['extractor_version']}{', hard' if f['hard'] else ''}): "
                   f"{f['labels']} labels, {f['excluded_by_incidents']} held by incidents, "
                   f"ECE {ece}; {used}")
        typer.echo(f"  {'bin':10} {'labels':>6} {'accepted':>8} {'fraction':>8} {'Wilson 95 %':>13} "
                   f"{'records':>7} {'error':>6}")
        for b in f["bins"]:
            frac = "—" if b["fraction_accepted"] is None else f"{b['fraction_accepted']:.3f}"
            wil = "—" if b["wilson_low"] is None else f"{b['wilson_low']:.2f}–{b['wilson_high']:.2f}"
            err = f"{b['error']:.3f}" + ("*" if b["error_source"] == "assumed" else "")
            typer.echo(f"  {b['bin']:10} {b['n']:>6} {b['accepted']:>8} {frac:>8} {wil:>13} "
                       f"{b['records']:>7} {err:>6}")
        rows = [ThresholdRow(r["tau"], Fraction(str(r["shown_per_day"])),
                             Fraction(str(r["reviewed_per_day"])),
                             Fraction(str(r["reviewer_hours_per_day"])),
                             Fraction(str(r["errors_shown_per_day"]))) for r in f["table"]]
        typer.echo(f"  {f['fields_per_day']} fields/day (* error assumed: 1 − bin midpoint)")
        typer.echo("\n".join("  " + line for line in format_table(rows).splitlines()))
    if not rep["fields"]:
        typer.echo("no extraction runs or decisions yet")
