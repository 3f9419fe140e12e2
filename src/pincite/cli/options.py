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
