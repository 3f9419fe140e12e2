"""`pincite fill` and `pincite eval fill`: a target workbook filled from source documents,
every written cell cited; the eval on TAT-QA tables relabelled as operating models."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .context import emit, errors, library, principal
from .options import AsOpt, JsonOpt, StoreOpt


def register(app: typer.Typer) -> None:
    """Add `fill` to `app`."""
    app.command("fill")(fill)


def fill(
    docs: Annotated[list[str], typer.Argument(help="Source documents (SOURCE_ID or SOURCE_ID@rN).")],
    target: Annotated[Path, typer.Option("--target", help="The target workbook (.xlsx); it is read, never written.")],
    out: Annotated[Path, typer.Option("--out", help="Folder for the filled copy and the artifacts (audit.json, audit.xlsx, report.html, …); a re-run resumes from its checkpoints.")] = Path("fill-out"),
    marks: Annotated[Path | None, typer.Option("--marks", help="marks.csv: obligation_id,status,target_table,reason for source facts left out on purpose.")] = None,
    review: Annotated[bool, typer.Option("--review", help="Queue every unresolved cell for a reviewer.")] = False,
    trace: Annotated[Path | None, typer.Option("--trace", help="Write OpenTelemetry spans as JSON lines to FILE (default: OUT/trace.jsonl when the 'trace' extra is installed).")] = None,
    model_endpoint: Annotated[str | None, typer.Option("--model-endpoint", help="OpenAI-compatible endpoint for the gated fallback on unresolved cells (its writes pass the same checks).")] = None,
    model: Annotated[str | None, typer.Option("--model", help="Model name for --model-endpoint.")] = None,
    as_: AsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Fill a copy of a target workbook from source documents, each written cell cited.

    Example: pincite fill --target model.xlsx report/annual-2024.pdf --as acme:ana:analysts --out fill-out
    """
    from ..library import fill_summary, fill_workbook

    with library(store) as lib:
        result = fill_workbook(lib, principal(as_), target, docs, out=out, marks=marks,
                               trace=trace, review=review, model_endpoint=model_endpoint,
                               model=model)
    if json_:
        emit(fill_summary(result, str(result.out)))
        return
    typer.echo(result.summary)
    if result.skipped:
        typer.echo(f"resumed: skipped finished stages {', '.join(result.skipped)}")
    if review:
        typer.echo(f"queued {result.queued} unresolved cell(s) for review")
    typer.echo(f"wrote {result.out}")


def eval_fill(
    data: Annotated[Path, typer.Option("--data", help="A TAT-QA folder (*.json contexts).")],
    folds: Annotated[int | None, typer.Option("--folds", help="Split the contexts into K folds and print fit beside held-out; the thresholds are chosen on the fit folds only.")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Use only the first N contexts.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Fill TAT-QA tables relabelled as operating models; print right, wrong, unresolved.

    Example: pincite eval fill --data ../shared/data/tatqa/dev --folds 2 --json
    """
    from ..evals.fill_tatqa import run_fill_eval

    with errors():
        result = run_fill_eval(data, store_url=store, folds=folds, limit=limit)
    if json_:
        emit(result)
        return
    typer.echo(f"cells {result['cells']}  written_right {result['written_right']}  "
               f"written_wrong {result['written_wrong']}  unresolved {result['unresolved']}  "
               f"right {result['right_rate']:.4f}  wrong {result['wrong_rate']:.4f}")
    for name, n in sorted(result["failure_classes"].items()):
        typer.echo(f"  {name:18} {n}")
    f = result.get("folds")
    if f:
        for row in f["folds"]:
            typer.echo(f"fold {row['fold']}: fit right {row['fit']['right_rate']:.4f} wrong "
                       f"{row['fit']['wrong_rate']:.4f} · held-out right "
                       f"{row['held_out']['right_rate']:.4f} wrong {row['held_out']['wrong_rate']:.4f}"
                       f" (min_score {row['min_score']}, margin {row['margin']})")
        p = f["pooled"]
        typer.echo(f"pooled: fit right {p['fit']['right_rate']:.4f} wrong {p['fit']['wrong_rate']:.4f}"
                   f" · held-out right {p['held_out']['right_rate']:.4f} wrong "
                   f"{p['held_out']['wrong_rate']:.4f}")
