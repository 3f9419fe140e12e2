"""Retrieval commands: `search`, `ask`, `delete` and `index …`. Heavy modules load inside
the commands."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Annotated, Any

import typer

from .context import emit, errors, library, principal
from .options import AsOpt, EmbedderOpt, JsonOpt, QueryEmbedderOpt, StoreOpt
from .whoami import tell_if_blind

index_app = typer.Typer(help="Index generations: build in the shadow, publish, roll back, compare.\n\n"
                        "Example: pincite index list --json",
                        no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add the retrieval commands to `app`."""
    app.command("search")(search)
    app.command("ask")(ask)
    app.command("delete")(delete)
    app.add_typer(index_app, name="index")


def _short(text: str, n: int = 240) -> str:
    t = " ".join(text.split())
    return t if len(t) <= n else t[: n - 1] + "…"


def _item_line(n: int, item: Any) -> str:
    r = item.ranks
    parts = [f"{c} #{r[c]}" for c in ("bm25", "dense", "rerank") if r.get(c)]
    where = f", page {item.page}" if item.page else ""
    flags = f" [{', '.join(item.flags)}]" if item.flags else ""
    return (f"{n:2}. {item.doc_id}  {item.locator}{where}  "
            f"(fused #{r['fused']}; {', '.join(parts) or 'no channel rank'}){flags}")


# ---- search / ask / delete ----------------------------------------------------------------


def search(
    query: Annotated[str, typer.Argument(help="What to look for (plain words; no query syntax).")],
    k: Annotated[int, typer.Option("--k", help="How many passages.")] = 10,
    as_of: Annotated[str | None, typer.Option("--as-of", help="Search the revisions valid at this ISO time.")] = None,
    source: Annotated[list[str] | None, typer.Option("--source", help="Only these sources (repeatable).")] = None,
    source_prefix: Annotated[str | None, typer.Option("--source-prefix", help="Only sources whose id starts so.")] = None,
    embedder: QueryEmbedderOpt = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Search the passages you may read (BM25 + dense, fused by RRF); print evidence items.

    Ranks and scores are per channel: prioritisation signals, not probabilities.

    Example: pincite search "governing law" --as acme:ana:legal --k 5 --json
    """
    filters: dict[str, Any] = {}
    if source:
        filters["source_ids"] = source
    if source_prefix:
        filters["source_prefix"] = source_prefix
    with library(store) as lib:
        who = principal(as_)
        bundle = lib.search(who, query, k=k, as_of=as_of, filters=filters or None,
                            embedder=embedder, generation=lib.canary_for(who))
        if not bundle.items:
            tell_if_blind(lib, who)
        if json_:
            emit(bundle.to_dict())
            return
        for n, item in enumerate(bundle.items, start=1):
            typer.echo(_item_line(n, item))
            typer.echo(f"    {_short(item.quote)}")
        if not bundle.items:
            typer.echo("no passages found in the documents you can see")
        if bundle.flags:
            typer.echo(f"flags: {', '.join(bundle.flags)}")


def ask(
    question: Annotated[str, typer.Argument(help="The question.")],
    as_of: Annotated[str | None, typer.Option("--as-of", help="Answer from the revisions valid at this ISO time.")] = None,
    embedder: QueryEmbedderOpt = None,
    min_confidence: Annotated[float, typer.Option(
        "--min-confidence", min=0.0, max=1.0,
        help="Give back as related the answers whose confidence (a measured right rate, "
        "docs/evaluation.md) is under this; 0 keeps every answer.")] = 0.0,
    model_endpoint: Annotated[str | None, typer.Option(
        "--model-endpoint", help="OpenAI-compatible chat endpoint whose model picks, among "
        "the spans found, those that answer; it writes no text and every pick is verified "
        "(default: $PINCITE_MODEL_ENDPOINT; docs/concepts.md).")] = None,
    model: Annotated[str | None, typer.Option(
        "--model", help="Model name at the endpoint (default: $PINCITE_MODEL, else the "
        "first one it lists).")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Answer with the passage(s) that hold the answer, each with a verified citation — or say
    "not found in the documents you can see". No text is generated. Passages retrieval found
    that were not judged answers follow under "related passages". With --model-endpoint a
    model picks the answers among those spans; where it differs from pincite's reader, the
    output says so.

    Example: pincite ask "What law governs the contract?" --as acme:ana:legal --json
    """
    with library(store) as lib:
        who = principal(as_)
        result = lib.ask(who, question, as_of=as_of, embedder=embedder,
                         generation=lib.canary_for(who), min_confidence=min_confidence,
                         model_endpoint=model_endpoint or os.environ.get("PINCITE_MODEL_ENDPOINT"),
                         model=model)
        if not result.items and not result.related:
            tell_if_blind(lib, who)
        if json_:
            emit(result.to_dict())
            return
        if result.read_as is not None:  # the asker sees how the question was understood
            r = result.read_as
            typer.echo(f"read as: {r.canonical}  ({r.kind}, probability {r.probability:.2f})")
        pick = getattr(result, "model", None)  # what a model picked (--model-endpoint)
        if pick is not None:
            typer.echo(_model_line(pick.to_dict()))
        if result.status != "answered":
            typer.echo(result.message)
        for n, item in enumerate(result.items, start=1):
            _print_item(f"{n}.", item, f"  {item.answer_kind}, confidence {item.confidence:.2f}"
                        if item.confidence is not None else _model_note(item))
        if result.related:
            typer.echo("related passages (may help; not checked as an answer):")
            for item in result.related:
                _print_item("-", item, _model_note(item))
        if result.flags:
            typer.echo(f"flags: {', '.join(result.flags)}")


def _model_line(m: dict[str, Any]) -> str:
    """Return the line saying what the model picked, beside pincite's reader."""
    head = f"model {m['name'] or '?'}: "
    if m["agrees_with_reader"] is None:
        why = f" ({m['error']}); pincite's reader decided" if m["error"] else ""
        return head + {"no_candidates": "not asked (nothing found to choose from)"}.get(
            m["status"], m["status"] + why)
    picked = ", ".join(m["picked"]) or "none"
    agree = "agrees with the reader" if m["agrees_with_reader"] else \
        f"the reader picked {', '.join(m['reader']) or 'none'}"
    return head + f"picked {picked} of {len(m['offered'])} spans ({agree})"


def _model_note(item: Any) -> str:
    """Return the note of an item whose role the model's pick changed, else ''."""
    if "model_promoted" in item.flags:
        return f"  {item.answer_kind}, picked by the model (pincite's reader: related)"
    if "model_not_picked" in item.flags:
        return "  pincite's reader's answer; the model did not pick it"
    return ""


def _print_item(mark: str, item: Any, note: str) -> None:
    """Print one item of an ask result: where its citation points, then its quote."""
    c = item.citation or {}
    where = f", page {c.get('page')}" if c.get("page") else ""
    # the verifier's marks on the cited span (hidden_text: a reader does not see it)
    marks = f" [{', '.join(c['flags'])}]" if c.get("flags") else ""
    typer.echo(f"{mark} {c.get('doc_id')}  {c.get('locator')}{marks}{where}  "
               f"chars {c.get('char_start')}-{c.get('char_end')}  "
               f"{'verified' if c.get('quote_verified') else 'NOT verified'}{note}")
    typer.echo(f"   {_short(str(c.get('quote', '')), 400)}")


def delete(
    source_id: Annotated[str, typer.Argument(help="The source to delete.")],
    purge: Annotated[bool, typer.Option("--purge", help="Also remove its bytes from every copy (blobs, rows, index, vectors) and vacuum.")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Delete a source you can read: gone at once from search, ask, show, cite and verify.

    Example: pincite delete tender.pdf --as acme:ana:legal --purge
    """
    with library(store) as lib:
        result = lib.delete(principal(as_), source_id, purge=purge)
        if json_:
            emit(result.to_dict())
        else:
            typer.echo(f"deleted {result.source_id} (through {result.through_revision})"
                       + (f"; purged {result.removed}" if purge else ""))


# ---- index -----------------------------------------------------------------------------------


def _gen_line(d: dict[str, Any]) -> str:
    mark = {"current": "*", "previous": "<"}.get(d["pointer"] or "", " ")
    return (f"{mark} {d['gen_id']}  {d['state']:9} {d['chunks']:>7} chunks  "
            f"{d['embedding_space'] or '-':34} {d['ranking_policy'] or '-'}"
            + (f"  ({d['note']})" if d.get("note") else ""))


@index_app.command("build")
def index_build(
    publish: Annotated[bool, typer.Option("--publish", help="Publish it when it passes its checks.")] = False,
    embedder: EmbedderOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Build a new generation in the shadow from every revision that is not deleted.

    Example: pincite index build --embedder hash --publish
    """
    with library(store) as lib:
        with errors():
            result = lib.build_index(embedder, progress=not json_)
            if publish and result.state == "ready":
                lib.publish_index(result.gen_id)
        if json_:
            emit({"gen_id": result.gen_id, "state": result.state, "published": publish
                       and result.state == "ready", "problems": list(result.problems),
                       "manifest": result.manifest})
        else:
            counts = result.manifest["counts"]
            typer.echo(f"{result.gen_id} {result.state}: {counts['chunks']} chunks, "
                       f"{counts['embedded']} embedded, {counts['reused_revisions']} revisions reused"
                       + ("; published" if publish and result.state == "ready" else ""))
            for p in result.problems:
                typer.echo(f"  problem: {p}")
        if result.state != "ready":
            raise typer.Exit(1)


@index_app.command("publish")
def index_publish(
    gen_id: Annotated[str, typer.Argument(help="The generation to publish (e.g. g000003).")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Check a generation and switch readers to it in one transaction.

    Example: pincite index publish g000003
    """
    with library(store) as lib:
        g = lib.publish_index(gen_id)
        _report_pointer(lib, g, json_)


@index_app.command("rollback")
def index_rollback(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Switch readers back to the previous published generation.

    Example: pincite index rollback
    """
    with library(store) as lib:
        g = lib.rollback_index()
        _report_pointer(lib, g, json_)


def _report_pointer(lib: Any, g: Any, json_: bool) -> None:
    cur, prev, at = lib.pointer()
    if json_:
        emit({"current": cur, "previous": prev, "switched_at": at})
    else:
        typer.echo(f"published {g.gen_id} (previous: {prev or 'none'})")


@index_app.command("list")
def index_list(json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """List generations: * marks the published one, < the rollback target.

    Example: pincite index list --json
    """
    with library(store) as lib:
        for d in lib.generation_summaries():
            emit(d) if json_ else typer.echo(_gen_line(d))


@index_app.command("show")
def index_show(
    gen_id: Annotated[str | None, typer.Argument(help="A generation (default: the published one).")] = None,
    check: Annotated[bool, typer.Option("--check", help="Also run the integrity check (exit 1 on problems).")] = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Show a generation's manifest (and its integrity check).

    Example: pincite index show g000002 --check
    """
    with library(store) as lib:
        g = lib.generation(gen_id)
        problems = lib.check_generation(g.gen_id) if check else None
        out = {"gen_id": g.gen_id, "state": g.state, "published_at": g.published_at,
               "purged": g.purged, "manifest": g.manifest,
               **({"problems": problems} if problems is not None else {})}
        if json_:
            emit(out)
        else:
            typer.echo(json.dumps(out, indent=2, ensure_ascii=False))
        if problems:
            raise typer.Exit(1)


@index_app.command("diff")
def index_diff(
    gen_a: Annotated[str, typer.Argument(help="Generation A (e.g. the published one).")],
    gen_b: Annotated[str, typer.Argument(help="Generation B (e.g. a shadow build).")],
    query: Annotated[list[str] | None, typer.Option("--query", help="A query (repeatable).")] = None,
    queries: Annotated[Path | None, typer.Option("--queries", help="A file with one query per line.")] = None,
    k: Annotated[int, typer.Option("--k", help="Passages per query.")] = 10,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Run queries against two generations as one principal and print what moved.

    Example: pincite index diff g000002 g000003 --query "penalties" --as acme:ana:legal
    """
    from ..errors import UsageError

    qs = list(query or [])
    with library(store) as lib:
        with errors():
            if queries is not None:
                try:
                    qs += [line.strip() for line in queries.read_text(encoding="utf-8").splitlines()
                           if line.strip()]
                except OSError as exc:
                    raise UsageError(f"cannot read {queries}: {exc.strerror}") from None
                except UnicodeDecodeError:
                    raise UsageError(f"{queries} is not UTF-8 text: give one query per "
                                     "line in UTF-8") from None
            if not qs:
                raise UsageError("give --query TEXT or --queries FILE")
        for rec in lib.diff_generations(principal(as_), gen_a, gen_b, qs, k=k):
            if json_:
                emit(rec)
                continue
            typer.echo(f"{rec['query']!r}: overlap {rec['overlap']}/{k}")
            for e in rec["entered"]:
                typer.echo(f"  + #{e['rank']} {e['doc_id']} {e['locator']}")
            for e in rec["left"]:
                typer.echo(f"  - #{e['rank']} {e['doc_id']} {e['locator']}")
            for e in rec["moved"]:
                typer.echo(f"  ~ {e['doc_id']} #{e['from']} -> #{e['to']}")


@index_app.command("prune")
def index_prune(
    keep: Annotated[int, typer.Option("--keep", help="Servable generations to keep (besides current and previous).")] = 3,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Drop the tables and vector files of old generations (their manifests stay listed).

    Example: pincite index prune --keep 2
    """
    from ..limits import check_number

    with library(store) as lib:
        with errors():
            dropped = lib.prune_index(check_number("--keep", keep, 0, 10**6, integer=True))
        emit({"dropped": dropped}) if json_ else typer.echo(
            f"dropped {', '.join(dropped) or 'nothing'}")
