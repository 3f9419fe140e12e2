"""Versioned records (`to_dict` output with `schema_name` and `version`) read back.

Policies and spaces are recorded in manifests; a reader must refuse a record of another
kind, a version newer than it knows, and fields it does not know, so that an old pincite
never half-reads what a newer one wrote.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import fields
from typing import Any

from .errors import UsageError


def record_fields(data: Mapping[str, Any], cls: type, schema_name: str, supported: int,
                  what: str, *, strict: bool = False,
                  legacy: Sequence[str] = ()) -> dict[str, Any]:
    """Return the dataclass fields of `data`; raise UsageError for a record of
    another kind, a version newer than `supported`, or unknown fields. A missing
    `schema_name` or `version` passes as the current one unless `strict`; `legacy` keys of
    older versions and the derived `name` are dropped."""
    d = dict(data)
    name = d.pop("schema_name", None if strict else schema_name)
    if name != schema_name:
        raise UsageError(f"expected {what} record, found schema_name={name!r}")
    version = d.pop("version", None if strict else supported)
    if not isinstance(version, int) or version > supported:
        raise UsageError(f"{what} record version {version!r} is newer than this pincite "
                         f"supports ({supported}); upgrade pincite to read it")
    known = {f.name for f in fields(cls)}
    if "name" not in known:
        d.pop("name", None)
    if version < supported:
        for key in legacy:
            d.pop(key, None)
    unknown = sorted(set(d) - known)
    if unknown:
        raise UsageError(f"unknown {what} field(s): {', '.join(unknown)}")
    return d
