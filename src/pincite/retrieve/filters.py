"""Retrieval filters: metadata conditions applied inside the authorized universe.

A filter narrows the passages a principal may see before ranking (never after top-k), so
a selective filter has exact recall. `Filters.parse` reads the mapping a caller gives
(`--source`, the HTTP API, Python) and refuses an unknown key or a wrong type with a
UsageError that says what to write instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import UsageError


class Filters(BaseModel):
    """Metadata filters, applied inside the authorized universe (never after top-k)."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite retrieval filters")

    source_ids: tuple[str, ...] | None = None
    source_prefix: str | None = None
    kinds: tuple[str, ...] | None = None
    langs: tuple[str, ...] | None = None
    media_types: tuple[str, ...] | None = None

    @classmethod
    def parse(cls, value: Filters | Mapping[str, Any] | None) -> Filters:
        """Return the filters a caller gave (none: no filter); raise UsageError naming the
        unknown key or the wrong type."""
        if value is None:
            return cls()
        if isinstance(value, Filters):
            return value
        if not isinstance(value, Mapping):
            raise UsageError("filters are a mapping of filter names to values")
        try:
            return cls.model_validate(dict(value))
        except ValidationError as exc:
            raise _usage(exc) from None

    def key(self) -> str:
        """Return the filters as a cache key (stable JSON)."""
        return json.dumps([self.source_ids, self.source_prefix, self.kinds, self.langs,
                           self.media_types])


def _usage(exc: ValidationError) -> UsageError:
    known = ", ".join(Filters.model_fields)
    errors = exc.errors(include_url=False)
    unknown = sorted(str(e["loc"][0]) for e in errors if e["type"] == "extra_forbidden")
    if unknown:
        return UsageError(f"unknown filter(s) {', '.join(unknown)}: use {known}")
    name = str(errors[0]["loc"][0])
    if name == "source_prefix":
        return UsageError("filter source_prefix takes a string")
    return UsageError(f"filter {name} takes a list of strings")
