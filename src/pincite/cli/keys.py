"""`pincite keys …`: API keys of the service, hashed at rest, per tenant with scopes."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from .context import emit, errors, store_url
from .options import JsonOpt, StoreOpt

keys_app = typer.Typer(help="API keys of `pincite serve` and `pincite mcp`: made once, shown "
                       "once, stored only as a hash.\n\n"
                       "Example: pincite keys create --tenant acme --user ana --scope read --json",
                       no_args_is_help=True, rich_markup_mode=None)

KeysOpt = Annotated[Path | None, typer.Option(
    "--keys", help="The keys file (default: $PINCITE_KEYS, else keys.json in the store "
    "directory).")]


def register(app: typer.Typer) -> None:
    """Add the `keys` command group to `app`."""
    app.add_typer(keys_app, name="keys")


def ring(keys: Path | None, store: str | None):  # type: ignore[no-untyped-def]
    """Return the key ring of `--keys`, else of the store: keys.json beside its database
    (StoreMissing when there is no store there, so a mistyped --store creates nothing)."""
    from ..errors import StoreMissing
    from ..service.keyring import KeyRing, default_keys_path

    if keys is not None:
        return KeyRing(keys)
    path = default_keys_path(store_url(store))  # $PINCITE_KEYS, else in the store
    if not os.environ.get("PINCITE_KEYS") and not (path.parent / "pincite.db").is_file():
        raise StoreMissing(path.parent)
    return KeyRing(path)


@keys_app.command("create")
def keys_create(
    tenant: Annotated[str, typer.Option("--tenant", help="The tenant the key acts in.")],
    user: Annotated[str, typer.Option("--user", help="The user the key acts as.")],
    group: Annotated[list[str] | None, typer.Option(
        "--group", help="A group the user belongs to, for ACLs (repeatable).")] = None,
    scope: Annotated[list[str] | None, typer.Option(
        "--scope", help="read, ingest, review, review:admin or admin (repeatable).")] = None,
    note: Annotated[str, typer.Option("--note", help="What the key is for.")] = "",
    keys: KeysOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Create a key and print it once ({"key": …} with --json); only its hash is kept.

    Example: pincite keys create --tenant acme --user ana --group legal --scope read --scope review --json
    """
    from ..model import Principal
    from ..service.scopes import parse_scopes

    with errors():
        who = Principal(tenant, user, tuple(sorted(set(group or ()))))
        key, entry = ring(keys, store).create(who, parse_scopes(scope or ()), note=note)
    if json_:
        emit({"key": key, **entry.public()})
    else:
        typer.echo(key)
        typer.echo(f"key {entry.key_id} for {who} with {', '.join(entry.public()['scopes'])}; "
                   "it is shown only now", err=True)


@keys_app.command("list")
def keys_list(
    tenant: Annotated[str | None, typer.Option("--tenant", help="Only this tenant's keys.")] = None,
    keys: KeysOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """List keys (id, tenant, user, groups, scopes, when made and revoked; never the key).

    Example: pincite keys list --tenant acme --json
    """
    with errors():
        entries = ring(keys, store).entries(tenant)
    for e in entries:
        d = e.public()
        if json_:
            emit(d)
        else:
            state = f"revoked {d['revoked_at']}" if d["revoked_at"] else "live"
            typer.echo(f"{d['key_id']}  {d['tenant']}:{d['user']}  {' '.join(d['scopes'])}  "
                       f"{d['created_at']}  {state}")


@keys_app.command("revoke")
def keys_revoke(
    key_id: Annotated[str, typer.Argument(help="The key id (`keys list`).")],
    keys: KeysOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Revoke a key: a running server refuses it on the next request.

    Example: pincite keys revoke 3f2a9c01b7de
    """
    with errors():
        e = ring(keys, store).revoke(key_id)
    if json_:
        emit(e.public())
    else:
        typer.echo(f"revoked {e.key_id} ({e.tenant}:{e.user})")
