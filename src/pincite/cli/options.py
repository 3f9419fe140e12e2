"""Option types shared by every command group: `--store`, `--as`, `--json`, `--embedder`."""

from __future__ import annotations

from typing import Annotated

import typer

StoreOpt = Annotated[str | None, typer.Option(
    "--store", help="Store location (default: $PINCITE_STORE, else ./pincite-store); only "
    "ingest creates a store, other commands refuse one that does not exist.")]
AsOpt = Annotated[str | None, typer.Option(
    "--as", help="Act as TENANT:USER[:GROUP,…] (default: $PINCITE_AS, else default:local).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
EmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", help="minilm or hash (default: $PINCITE_EMBEDDER, else minilm when the "
    "'embed' extra is installed, else hash).")]
QueryEmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", help="Embed the query with minilm or hash (default: the embedder of the "
    "generation's space; another space is refused).")]
OcrLangOpt = Annotated[str | None, typer.Option(
    "--ocr-lang", help="Tesseract language packs for PDF pages read by OCR, joined by '+' "
    "(default eng+spa); a pack that is not installed is refused.")]
NoOcrOpt = Annotated[bool, typer.Option(
    "--no-ocr", help="Do not read PDF pages without a usable text layer from their images.")]
OcrDpiOpt = Annotated[int, typer.Option(
    "--ocr-dpi", help="Resolution PDF pages are drawn at for OCR (72-600).")]
OcrPagesOpt = Annotated[int, typer.Option(
    "--ocr-max-pages", help="Pages of one document that OCR may read (past them: flagged "
    "ocr_incomplete).")]
OcrSecondsOpt = Annotated[float, typer.Option(
    "--ocr-page-seconds", help="Seconds OCR may take for one page (past them: flagged "
    "ocr_incomplete).")]
