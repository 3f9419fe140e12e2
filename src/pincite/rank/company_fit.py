"""`rank_for`: the fit ranking as the facade offers it — the profile file read, the
principal's visible sources gathered, the calls ranked (`rank.fit`)."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Protocol

from ..cite.resolve import visible_source
from ..model import Principal
from ..store import Store
from .fit import fit_schema, rank_calls
from .profile import load_profile


class HasStore(Protocol):
    """What the facade passes: a library and its store."""

    store: Store


def rank_for(lib: HasStore, principal: Principal, profile: str | Path,
             tender_schema: str | Path, *, today: date | None = None) -> dict[str, Any]:
    """Return the fit ranking of the calls `principal` may read for the profile in the file
    `profile`, read with the tender schema at `tender_schema` (see `rank.fit`)."""
    store = lib.store
    prof = load_profile(profile)
    schema = fit_schema(tender_schema)
    visible = [s.source_id for s in store.sources(principal.tenant)
               if visible_source(store, principal, s.source_id) is not None]
    out = rank_calls(store, principal, prof, schema, source_ids=visible, today=today)
    out["profile_file"] = Path(profile).name
    return out
