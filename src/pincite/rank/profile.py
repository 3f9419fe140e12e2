"""A company profile for the fit ranking: what the company holds, read from a YAML file.

The profile is the company's side of every comparison (`rank.fit`): sector codes (CPV
prefixes), business classifications held, annual turnover, the number of similar
contracts performed, the regions it works in (NUTS prefixes) and how many days it needs
to prepare a bid. Every number must be finite and in range; an unknown key, a path that
is not a regular file or a file past `MAX_PROFILE_BYTES` is refused (`InvalidProfile`).
"""

from __future__ import annotations

import math
import re
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import InvalidProfile

MAX_PROFILE_BYTES = 64 * 1024
MAX_AMOUNT = 1e13          # a turnover past ten trillion is a typo, not a company
MAX_CONTRACTS = 100_000
MAX_DAYS = 3650
CPV_PREFIX = re.compile(r"^[0-9]{2,8}$")
NUTS_PREFIX = re.compile(r"^[A-Z]{2}[0-9A-Z]{0,3}$")
CURRENCY = re.compile(r"^[A-Z]{3}$")

MAX_DEPTH = 32  # a flow collection nested deeper is refused before YAML reads it


class Money(BaseModel):
    """An amount in one currency (ISO 4217 code)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    amount: float = Field(ge=0, le=MAX_AMOUNT, allow_inf_nan=False)
    currency: str

    @field_validator("currency")
    @classmethod
    def _currency(cls, v: str) -> str:
        if not CURRENCY.match(v):
            raise ValueError("a currency is a three-letter ISO 4217 code such as EUR or GBP")
        return v


class Classification(BaseModel):
    """A business classification held: group (letter), subgroup (number), category (1-6)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    group: str = Field(pattern=r"^[A-Z]$")
    subgroup: int = Field(ge=1, le=99)
    category: int = Field(ge=1, le=6)


class CompanyProfile(BaseModel):
    """What a company holds, compared with what each call requires."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, max_length=200)
    sector_codes: tuple[str, ...] = ()
    classifications: tuple[Classification, ...] = ()
    turnover: Money | None = None
    similar_contracts: int | None = Field(default=None, ge=0, le=MAX_CONTRACTS)
    regions: tuple[str, ...] = ()
    min_days_to_prepare: int = Field(default=10, ge=0, le=MAX_DAYS)
    as_of: date | None = None  # the day deadlines are counted from (default: today, UTC)

    @field_validator("sector_codes")
    @classmethod
    def _cpv(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in v if not CPV_PREFIX.match(c)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a CPV code or prefix (2 to 8 digits, as a "
                             "quoted string)")
        return v

    @field_validator("regions")
    @classmethod
    def _nuts(cls, v: tuple[str, ...]) -> tuple[str, ...]:
        bad = [c for c in v if not NUTS_PREFIX.match(c)]
        if bad:
            raise ValueError(f"{bad[0]!r} is not a NUTS code or prefix (e.g. ES42 or UKE)")
        return v


def _non_finite(data: Any, path: str = "") -> str | None:
    """Return the key path of the first non-finite float in `data`, else None."""
    if isinstance(data, float) and not math.isfinite(data):
        return path or "(top level)"
    if isinstance(data, dict):
        for k, v in data.items():
            if (hit := _non_finite(v, f"{path}.{k}" if path else str(k))) is not None:
                return hit
    if isinstance(data, list):
        for i, v in enumerate(data):
            if (hit := _non_finite(v, f"{path}[{i}]")) is not None:
                return hit
    return None


def profile_from_dict(data: Any, *, where: str = "the profile") -> CompanyProfile:
    """Return the profile a mapping describes; raise InvalidProfile naming the key."""
    if not isinstance(data, dict):
        raise InvalidProfile(f"{where} must be a mapping of keys (name, sector_codes, "
                             "classifications, turnover, similar_contracts, regions, …)")
    bad = _non_finite(data)
    if bad is not None:
        raise InvalidProfile(f"{where}: {bad} must be a finite number (not nan or inf)")
    try:
        return CompanyProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise InvalidProfile(f"{where}: {key}: {err['msg']}") from None


def _bracket_depth(text: str) -> int:
    """Return the deepest nesting of [ and { in text (quotes ignored: an over-estimate)."""
    depth = top = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            top = max(top, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return top


def load_profile(path: str | Path) -> CompanyProfile:
    """Return the profile in a YAML (or JSON) file; raise InvalidProfile when the path is
    not a regular file, is too large, is not YAML or describes no valid profile."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise InvalidProfile(f"--profile {str(p)[:200]!r} is not a file: give the path of a "
                             "profile YAML file (see examples/calls/profile-*.yaml)")
    size = p.stat().st_size
    if size > MAX_PROFILE_BYTES:
        raise InvalidProfile(f"{p.name}: {size} bytes is past the {MAX_PROFILE_BYTES}-byte "
                             "limit of a profile")
    try:
        text = p.read_text("utf-8")
        if _bracket_depth(text) > MAX_DEPTH:
            raise InvalidProfile(f"{p.name} nests too deeply to read (more than {MAX_DEPTH} brackets)")
        if any(isinstance(t, yaml.AliasToken) for t in yaml.scan(text)):
            raise InvalidProfile(f"{p.name}: YAML aliases (*name) are refused: write each value out")
        data = yaml.safe_load(text)
    except RecursionError:
        raise InvalidProfile(f"{p.name} nests too deeply to read") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InvalidProfile(f"{p.name} is not UTF-8 YAML: {str(exc)[:200]}") from None
    return profile_from_dict(data, where=p.name)
