"""`rank_for`: the fit ranking as the facade offers it — the profile file read, the
principal's visible sources gathered, the calls ranked (`rank.fit`). `rank_json` is the
same over HTTP: the profile arrives as a JSON body instead of a file."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any, Protocol

from ..cite.resolve import visible_source
from ..model import Principal
from ..store import Store
from .fit import fit_schema, rank_calls
from .profile import CompanyProfile, load_profile, profile_from_json


class HasStore(Protocol):
    """What the facade passes: a library and its store."""

    store: Store


def rank_for(lib: HasStore, principal: Principal, profile: str | Path,
             tender_schema: str | Path, *, today: date | None = None) -> dict[str, Any]:
    """Return the fit ranking of the calls `principal` may read for the profile in the file
    `profile`, read with the tender schema at `tender_schema` (see `rank.fit`)."""
    out = _ranked(lib, principal, load_profile(profile), tender_schema, today)
    out["profile_file"] = Path(profile).name
    return out


def rank_json(lib: HasStore, principal: Principal, body: bytes, tender_schema: str | Path, *,
              today: date | None = None) -> dict[str, Any]:
    """Return `rank_for`'s ranking for a profile sent as a JSON body (the profile file's
    content, checked as `profile.profile_from_json` checks it); `profile_file` is None,
    as no file was read."""
    out = _ranked(lib, principal, profile_from_json(body), tender_schema, today)
    out["profile_file"] = None
    return out


def _ranked(lib: HasStore, principal: Principal, prof: CompanyProfile,
            tender_schema: str | Path, today: date | None) -> dict[str, Any]:
    store = lib.store
    schema = fit_schema(tender_schema)
    visible = [s.source_id for s in store.sources(principal.tenant)
               if visible_source(store, principal, s.source_id) is not None]
    return rank_calls(store, principal, prof, schema, source_ids=visible, today=today)
