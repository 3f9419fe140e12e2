"""`pincite db …`: the store's schema (create or migrate it, and say the versions)."""

from __future__ import annotations

from typing import Annotated

import typer

from .context import emit, errors, store_url
from .options import JsonOpt, StoreOpt

db_app = typer.Typer(help="The store's schema: create or migrate it.\n\n"
                     "Example: pincite --store postgresql://localhost/pincite db upgrade",
                     no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add the `db` command group to `app`."""
    app.add_typer(db_app, name="db")


@db_app.command("upgrade")
def db_upgrade(
    app_login: Annotated[str | None, typer.Option(
        "--app-login", help="PostgreSQL: make this role (created if missing, LOGIN NOINHERIT, "
        "not the owner) the login the service and workers connect as; set its password "
        "with ALTER ROLE.")] = None,
    json_: JsonOpt = False, store: StoreOpt = None,
) -> None:
    """Create or migrate the store's schema; print its version before and after.

    A PostgreSQL URL migrates as the URL's role (the tables' owner) and sets up the
    application and maintenance roles and the tenant wall; a SQLite directory is created
    or migrated. Workers refuse to run as the owner: give them the --app-login role.

    Example: pincite --store postgresql://pincite@db.internal/pincite db upgrade --app-login pincite_worker
    """
    from ..library import upgrade_store

    with errors():
        res = upgrade_store(store_url(store), app_login=app_login)
    if json_:
        emit(res)
        return
    typer.echo(f"store:   {res['store']} ({res['backend']})")
    typer.echo(f"before:  schema version {res['before']}")
    typer.echo(f"after:   schema version {res['after']}")
    typer.echo("upgraded" if res["changed"] else "already current")
