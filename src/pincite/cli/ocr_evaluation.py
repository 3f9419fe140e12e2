"""`pincite eval ocr`: scans made from born-digital pages, read by OCR, measured against
the born-digital layer (`evals.ocr`)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .context import emit, errors
from .options import JsonOpt, StoreOpt
from .progress_lines import shown


def eval_ocr(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    pages: Annotated[int, typer.Option("--pages", help="CUAD pages to sample (the examples/ PDFs are added whole).")] = 40,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the document order the sample follows.")] = 0,
    variant: Annotated[list[str] | None, typer.Option("--variant", help="Scan variants to run: clean, skew, lowres, noise (repeatable; default all).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Scan born-digital pages (clean 300 dpi, skewed, 150 dpi, noisy), OCR them; print CER
    against the born-digital layer and the share of gold CUAD segments cited from OCR.

    Example: pincite eval ocr --data ../shared/data/cuad/dev --pages 40 --json
    """
    from ..evals.ocr import run_ocr
    from ..evals.scans import VARIANTS
    from ..limits import check_number

    with errors():
        check_number("--pages", pages, 1, 10_000, integer=True)
        check_number("--seed", seed, 0, 2**31, integer=True)
        with shown("eval ocr") as bar:  # variants, then scans and their pages read by OCR
            result = run_ocr(data, pages=pages, seed=seed, store_url=store,
                             variants=tuple(variant) if variant else VARIANTS,
                             report=bar.report)
    if json_:
        emit(result)
        return
    typer.echo(f"ocr: {result['pages']} pages ({result['cuad_pages']} CUAD pages of "
               f"{result['cuad_documents']} documents, seed {result['seed']}), "
               f"{result['segments_on_pages']} gold segments on them")
    typer.echo(f"{'variant':8} {'CER cuad':>9} {'CER examples':>13} {'segments':>12} "
               f"{'share':>6} {'pages/s':>8} {'bar':>5} {'held-out err':>13}")
    for name, r in result["variants"].items():
        w = r["word_confidence"]
        typer.echo(f"{name:8} {r['cer'].get('cuad', 0):9.4f} {r['cer'].get('examples', 0):13.4f} "
                   f"{r['segments_cited']:>5}/{r['segments']:<6} {r['segment_share'] or 0:6.3f} "
                   f"{r['pages_per_second'] or 0:8.3f} {w['bar_from_fit']:5.0f} "
                   f"{w['held_out_error_at_bar'] or 0:13.4f}")
