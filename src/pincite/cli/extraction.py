"""`pincite extract`: fill a schema from a case of documents; write records.json,
report.html (the dictamen), records.xlsx, records.csv and report.docx."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from .context import emit, errors, library, principal, store_url
from .options import AsOpt, JsonOpt, StoreOpt


def register(app: typer.Typer) -> None:
    """Add `extract` to `app`."""
    app.command("extract")(extract)


def extract(
    docs: Annotated[list[str], typer.Argument(help="The case's documents: source ids (or SOURCE@rN).")],
    schema: Annotated[Path, typer.Option("--schema", help="Schema file (YAML or JSON).")],
    out: Annotated[Path | None, typer.Option(
        "--out", help="Write records.json, report.html, records.xlsx, records.csv and "
        "report.docx into this folder.")] = None,
    case: Annotated[str | None, typer.Option(
        "--case", help="Case id (default: a digest of the source ids).")] = None,
    model_endpoint: Annotated[str | None, typer.Option(
        "--model-endpoint", help="OpenAI-compatible chat endpoint for the model-backed extractor "
        "(default: $PINCITE_MODEL_ENDPOINT; without one the deterministic extractor runs).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name at the endpoint.")] = None,
    async_: Annotated[bool, typer.Option(
        "--async", help="Enqueue the extraction as a durable run for `pincite worker` and "
        "print its id, which the stored run also bears (see `pincite runs`).")] = False,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Extract one record per schema field from DOCS read as one case; validate, decide
    (show / flag / review / abstain) and queue what needs a person. With --async the work
    is a run of recorded steps that a worker carries out (docs/workers.md).

    Example: pincite extract --schema examples/tender/schema.yaml tender/pliego.pdf \\
    tender/anexo-tecnico.docx --as demo:ana:analysts --out reports/dictamen
    """
    from ..library import records_json

    endpoint = model_endpoint or os.environ.get("PINCITE_MODEL_ENDPOINT")
    if async_:
        with errors(), library(store) as lib:
            if out is not None:
                from ..errors import UsageError

                raise UsageError("--out is not written by a worker: read the records of the "
                                 "run with `pincite review` or run extract without --async")
            book = lib.runs(store_url(store))
            try:
                run_id = book.submit_extract(principal(as_), schema, docs, case_id=case,
                                             model_endpoint=endpoint, model=model)
            finally:
                book.close()
        if json_:
            emit({"run_id": run_id, "queue": "extract"})
        else:
            typer.echo(run_id)
        return
    with errors(), library(store) as lib:
        result = lib.extract(principal(as_), schema, docs, case_id=case, model_endpoint=endpoint,
                             model=model, out=out)
        doc = records_json(result.records, run=result.run)
    if json_:
        emit(doc)
        return
    _print_table(result.records)
    typer.echo(f"run {result.run['run_id']}  case {result.run['case_id']}  "
               f"new review items {result.queued}")
    if out is not None:
        typer.echo(f"wrote {out / 'records.json'}, {out / 'report.html'}, "
                   f"{out / 'report.docx'}, {out / 'records.xlsx'} and {out / 'records.csv'}")


def _print_table(records: list[Any]) -> None:
    import json

    for r in records:
        if r.outcome == "abstain":
            shown = "not stated in the document"
        else:
            shown = json.dumps(r.value, ensure_ascii=False)
            if len(shown) > 60:
                shown = shown[:57] + "…"
        where = r.provenance[0].locator if r.provenance else ""
        typer.echo(f"{r.outcome:8} {r.field:42} {shown:62} {where}  "
                   f"conf {r.confidence:.2f} ({r.reason})")
