"""What every command runs inside: the library opened from `--store`, the principal of
`--as`, pincite errors turned into one line and an exit code, JSON lines on stdout.

Every command group imports these; none reaches another group's module.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from ..library import Library
    from ..model import Principal

DEFAULT_STORE = "./pincite-store"
DEFAULT_PRINCIPAL = "default:local"
_root: dict[str, str | None] = {"store": None}  # `pincite --store S COMMAND`
# the principal the running command acts as (set by `principal`, cleared as each command
# starts), for `whoami`'s hint on a NotFound that leaves `library`
_acting: dict[str, Principal | None] = {"principal": None}


def set_root_store(store: str | None) -> None:
    """Remember the --store given before the command name (and forget the principal of a
    command run before this one in the same process)."""
    _root["store"] = store
    _acting["principal"] = None


def store_url(store: str | None) -> str:
    """Return the store to open: the command's --store, the root's, $PINCITE_STORE, or the default."""
    return store or _root["store"] or os.environ.get("PINCITE_STORE") or DEFAULT_STORE


def principal(as_: str | None) -> Principal:
    """Return the principal of --as, else $PINCITE_AS, else the local default."""
    from ..model import Principal

    who = Principal.parse(as_ or os.environ.get("PINCITE_AS") or DEFAULT_PRINCIPAL)
    _acting["principal"] = who
    return who


def emit(obj: Any) -> None:
    """Print one JSON line on stdout."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")


def out(json_: bool, obj: Any, text: str) -> None:
    """Print `obj` as a JSON line with --json, else `text`."""
    if json_:
        emit(obj)
    else:
        typer.echo(text)


@contextmanager
def errors() -> Iterator[None]:
    """Turn pincite errors into one line on stderr (then the lines of its notes, such as
    `whoami`'s hint) and a non-zero exit (2 for usage)."""
    from ..errors import PinciteError, UsageError

    try:
        yield
    except PinciteError as exc:
        typer.echo(f"error: {exc.message}", err=True)
        for note in getattr(exc, "__notes__", ()):
            typer.echo(note, err=True)
        raise typer.Exit(2 if isinstance(exc, UsageError) else 1) from None


@contextmanager
def library(store: str | None, *, create: bool = False) -> Iterator[Library]:
    """Yield the library at `store_url(store)`, closed afterwards, inside `errors()`. A
    store that does not exist is an error naming the path unless `create` (only ingest).
    A `NotFound` that leaves the command carries `whoami`'s hint when the principal it
    acted as can read no source at all."""
    from ..errors import NotFound
    from ..library import open_library
    from .whoami import note_if_blind

    with errors():
        lib = open_library(store_url(store), create=create)
        try:
            yield lib
        except Exception as exc:
            who = _acting["principal"]
            if isinstance(exc, NotFound) and who is not None:
                note_if_blind(exc, lib, who)
            damaged = lib.damage(exc)
            if damaged is None:
                raise
            raise damaged from exc
        finally:
            lib.close()


def shown(text: str) -> str:
    """Return `text` safe to print on a terminal: control, format (bidi, zero-width) and other
    invisible characters written as `\\uXXXX` (a name read from a file is not trusted)."""
    import unicodedata

    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch)[0] == "C" else ch
                   for ch in text)
