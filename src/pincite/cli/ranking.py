"""`pincite rank` and `pincite eval rank`: the fit ranking of calls for a company profile."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from .context import emit, errors, library, principal, shown
from .options import AsOpt, JsonOpt, StoreOpt

ProfileOpt = Annotated[Path, typer.Option(
    "--profile", help="The company profile (YAML): sector_codes, classifications, turnover, "
    "similar_contracts, regions, min_days_to_prepare, as_of.")]
SchemaOpt = Annotated[Path | None, typer.Option(
    "--schema", help="The tender schema the calls are read with (default: "
    "examples/tender/schema.yaml).")]


def register(app: typer.Typer) -> None:
    """Add the `rank` command to `app`."""
    app.command("rank")(rank)


def _schema(schema: Path | None) -> Path:
    from ..library import default_tender_schema

    return schema or default_tender_schema()


def rank(profile: ProfileOpt, schema: SchemaOpt = None, as_: AsOpt = None,
         json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Rank the calls you may read for a company profile: each a score with its parts (each
    citing the clause it compared), a link to the official record, and the label
    "prioritisation signal — not an eligibility decision". A requirement the documents do
    not state is unknown, never met.

    Example: pincite rank --profile examples/calls/profile-constructora.yaml --as demo:ana:bids
    """
    from ..library import rank_for

    who = principal(as_)
    with library(store) as lib:
        out = rank_for(lib, who, profile, _schema(schema))
    if json_:
        emit(out)
        return
    typer.echo(f"fit ranking for {shown(out['profile'])} (deadlines counted from "
               f"{out['as_of']}) — {out['label']}")
    for r in out["results"]:
        link = r["official_record"]["url"] or r["official_record"]["doc_id"]
        typer.echo(f"{r['rank']:2d}. {r['call']}  score {r['score']:+d} of {r['max_score']} "
                   f"(met {r['counts']['met']}, not met {r['counts']['not_met']}, unknown "
                   f"{r['counts']['unknown']})  {shown(link)}")
        for p in r["parts"]:
            c = p["citation"]
            where = f" [{c['locator']}, verified]" if c and c["quote_verified"] else \
                " [citation does not verify]" if c else ""
            typer.echo(f"      {p['part']:18} {p['status']:8} {p['points']:+d}  "
                       f"{shown(p['detail'])}{where}")


def eval_rank(
    data: Annotated[Path | None, typer.Option("--data", help="A folder of calls with relevance.yaml and profile-*.yaml (default: examples/calls).")] = None,
    schema: SchemaOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Rank the example calls for each labelled profile in a temporary store and print
    nDCG@5 against the hand-labelled relevance, and the score parts whose citation does not
    verify (must be 0).

    Example: pincite eval rank --json
    """
    from ..library import run_rank_eval

    with errors():
        result: dict[str, Any] = run_rank_eval(data, schema_path=schema)
    if json_:
        emit(result)
        return
    for name, p in result["profiles"].items():
        typer.echo(f"{name:32} nDCG@5 {p['ndcg@5']:.4f}  ranked {' > '.join(p['ranked'])}")
    typer.echo(f"mean nDCG@5 {result['ndcg@5']:.4f}; {result['parts']} score parts, "
               f"{result['parts_unknown']} unknown, {result['citations_unverified']} with a "
               "citation that does not verify")
