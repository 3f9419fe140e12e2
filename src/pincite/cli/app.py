"""The `pincite` command: the root app and its command groups, one module each.

A thin layer: each command parses arguments, calls the library (`pincite.library`),
renders. Shared options live in `options`, what every command runs inside (the library,
the principal, errors, JSON output) in `context`. Heavy modules load inside the commands,
so `pincite --help` stays fast.
"""

from __future__ import annotations

import typer

from . import (
    database,
    documents,
    durable,
    evaluation,
    extraction,
    filling,
    keys,
    ranking,
    releasing,
    retrieval,
    reviewing,
    serving,
)
from .context import set_root_store
from .options import StoreOpt

app = typer.Typer(
    name="pincite",
    help="Retrieval and extraction where the document stays the authority: every output "
    "is a pointer into a source that code verifies.\n\n"
    "Example: pincite --store ./lib ingest contracts/ --tenant acme --acl group:legal",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


@app.callback()
def _main(store: StoreOpt = None) -> None:
    set_root_store(store)  # the root's --store applies to every command


documents.register(app)   # ingest, reparse, acl, sources, show, tables, facts, fsck, cite, verify
evaluation.register(app)  # eval …
retrieval.register(app)   # search, ask, delete, index …
extraction.register(app)  # extract
filling.register(app)     # fill
reviewing.register(app)   # review …, calibrate
ranking.register(app)     # rank
releasing.register(app)   # release …
durable.register(app)     # worker, runs
serving.register(app)     # serve, mcp
keys.register(app)        # keys …
database.register(app)    # db upgrade


def main() -> None:
    """Entry point of the `pincite` script."""
    app(prog_name="pincite")


if __name__ == "__main__":
    main()
