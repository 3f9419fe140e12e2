"""Who the caller is taken to be, said when a read comes back empty.

Without `--as` every command acts as `default:local` (or `$PINCITE_AS`), and a caller
that may read nothing gets the same "not found" a missing document gets — by design, so
that nothing leaks. When a read finds nothing *and* the caller can read no source at all,
the command adds one line on stderr naming the principal it acted as. The line speaks only
of the caller's own tenant and of what the caller can read (0), never of sources it cannot
read, and it is never printed to a caller who can read some source. Stdout and exit codes
do not change.

`context.library` adds the line to a `NotFound` that leaves a command (printed after the
error by `context.errors`); the commands whose empty result is not an error (`sources`,
`search`, `ask`, `verify`, `review list`) call `tell_if_blind`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from ..library import Library
    from ..model import Principal


def blind_hint(lib: Library, who: Principal) -> str | None:
    """Return the line telling `who` it can read no source at all, or None when it can read one."""
    if lib.sources(who):
        return None
    return (f"acting as {who}, who can read 0 sources in tenant {who.tenant} — "
            "pass --as TENANT:USER[:GROUP] or set PINCITE_AS")


def tell_if_blind(lib: Library, who: Principal) -> None:
    """Print `blind_hint` on stderr when `who` can read no source (a read found nothing)."""
    hint = blind_hint(lib, who)
    if hint is not None:
        typer.echo(hint, err=True)


def note_if_blind(exc: BaseException, lib: Library, who: Principal) -> None:
    """Add `blind_hint` to `exc` as a note (once) when `who` can read no source; a failure to
    tell leaves `exc` as it was (the hint never replaces the error it comments)."""
    try:
        hint = blind_hint(lib, who)
    except Exception:
        return
    if hint is not None and hint not in getattr(exc, "__notes__", ()):
        exc.add_note(hint)
