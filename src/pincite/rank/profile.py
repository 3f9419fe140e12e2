"""A company profile for the fit ranking: what the company holds, read from a YAML file.

The profile is the company's side of every comparison (`rank.fit`): sector codes (CPV
prefixes), business classifications held, annual turnover, the number of similar
contracts performed, the regions it works in (NUTS prefixes) and how many days it needs
to prepare a bid. Every number must be finite and in range; an unknown key, a path that
is not a regular file or a file past `MAX_PROFILE_BYTES` is refused (`InvalidProfile`).
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ..errors import BodyTooLarge, InvalidProfile, UsageError
from ..limits import YAML_MAX_DEPTH, load_json, non_finite_path, read_yaml_file

MAX_PROFILE_BYTES = 64 * 1024
MAX_AMOUNT = 1e13          # a turnover past ten trillion is a typo, not a company
MAX_CONTRACTS = 100_000
MAX_DAYS = 3650
CPV_PREFIX = re.compile(r"^[0-9]{2,8}$")
NUTS_PREFIX = re.compile(r"^[A-Z]{2}[0-9A-Z]{0,3}$")
CURRENCY = re.compile(r"^[A-Z]{3}$")



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



def profile_from_dict(data: Any, *, where: str = "the profile") -> CompanyProfile:
    """Return the profile a mapping describes; raise InvalidProfile naming the key."""
    if not isinstance(data, dict):
        raise InvalidProfile(f"{where} must be a mapping of keys (name, sector_codes, "
                             "classifications, turnover, similar_contracts, regions, …)")
    bad = non_finite_path(data)
    if bad is not None:
        raise InvalidProfile(f"{where}: {bad} must be a finite number (not nan or inf)")
    try:
        return CompanyProfile.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        key = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise InvalidProfile(f"{where}: {key}: {err['msg']}") from None



def load_profile(path: str | Path) -> CompanyProfile:
    """Return the profile in a YAML (or JSON) file; raise InvalidProfile when the path is
    not a regular file, is too large, is not YAML or describes no valid profile."""
    data = read_yaml_file(path, max_bytes=MAX_PROFILE_BYTES, refuse=InvalidProfile,
                          what="the path of a profile YAML file "
                               "(see examples/calls/profile-*.yaml)")
    return profile_from_dict(data, where=Path(path).name)


def profile_from_json(body: bytes) -> CompanyProfile:
    """Return the profile a JSON body describes (the content of a profile file): past
    `MAX_PROFILE_BYTES` it is BodyTooLarge; not JSON, nested deeper than a profile file may
    be, or holding a number that is not finite (`NaN`, `Infinity`, `1e400`) it is
    InvalidProfile, as is a profile the file checks refuse."""
    if len(body) > MAX_PROFILE_BYTES:
        raise BodyTooLarge(MAX_PROFILE_BYTES, "profile")
    try:
        data = load_json(body, "the profile", max_bytes=MAX_PROFILE_BYTES,
                         max_depth=YAML_MAX_DEPTH)
    except UsageError as exc:
        raise InvalidProfile(exc.message) from None
    return profile_from_dict(data)
