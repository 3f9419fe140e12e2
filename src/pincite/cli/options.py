"""Option types shared by the CLI modules (`cli`, `cli_search`, `cli_eval`)."""

from __future__ import annotations

from typing import Annotated

import typer

StoreOpt = Annotated[str | None, typer.Option(
    "--store", help="Store location (default: $PINCITE_STORE, else ./pincite-store).")]
AsOpt = Annotated[str | None, typer.Option(
    "--as", help="Act as TENANT:USER[:GROUP,…] (default: $PINCITE_AS, else default:local).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]
