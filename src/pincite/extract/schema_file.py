"""The extraction schema file format, as pydantic models: what a YAML/JSON file may say.

These models are the file's contract: they validate a parsed file (unknown keys are
refused), and `schemas/extraction-schema.json` is generated from them
(`scripts/gen_schemas.py`). `schema.py` turns a validated file into the runtime `Schema`
(defaults applied, postconditions parsed, digest attached).
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

FieldType = Literal["money", "number", "percent", "date", "datetime", "duration", "enum", "bool",
                    "text", "entity", "clause"]
FIELD_TYPES: tuple[str, ...] = get_args(FieldType)
DEFAULT_TAU_SHOW = 0.85
DEFAULT_TAU_FLAG = 0.6
OPS = ("<=", ">=", "==", "!=", "<", ">")
FIELD_NAME = r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$"
_TERM_RE = re.compile(
    r"^(?:[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*|-?[0-9]+(?:\.[0-9]+)?|[0-9]{4}-[0-9]{2}-[0-9]{2})$")

Threshold = Annotated[float, Field(ge=0, le=1)]
Term = Annotated[str, StringConstraints(min_length=1)]


def split_check(check: str) -> tuple[tuple[str, ...], str, tuple[str, ...]]:
    """Return (left terms, operator, right terms) of `left op right`; raise ValueError."""
    for op in OPS:
        if op in check:
            lhs, rhs = check.split(op, 1)
            break
    else:
        raise ValueError(f"postcondition {check!r} has no comparison ({', '.join(OPS)})")
    sides = []
    for side in (lhs, rhs):
        terms = tuple(t.strip() for t in side.split("+"))
        if not terms or any(not _TERM_RE.match(t) for t in terms):
            raise ValueError(f"postcondition {check!r}: each side is a sum of field names or numbers")
        sides.append(terms)
    return sides[0], op, sides[1]


def is_literal(term: str) -> bool:
    """Return whether a postcondition term is a number or date rather than a field name."""
    return not term[:1].isalpha()


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class PostconditionEntry(_Strict):
    """A check over field values, evaluated by code."""

    check: str = Field(min_length=1, description=(
        "An expression over field values: `guarantee.definitive <= 10`, "
        "`award_criteria.price_weight + award_criteria.quality_weight == 100`, "
        "`budget.base_excl_vat <= budget.estimated_value`."))
    message: str = ""

    @field_validator("check")
    @classmethod
    def _parses(cls, v: str) -> str:
        split_check(v)
        return v

    def fields(self) -> tuple[str, ...]:
        """Return the field names the check reads."""
        left, _, right = split_check(self.check)
        return tuple(t for t in left + right if not is_literal(t))


class ValuePattern(_Strict):
    """A regex whose match states a fixed value."""

    pattern: str
    value: Any = Field(description="The value stated: any JSON value.")


class Defaults(_Strict):
    """Thresholds for every field that does not set its own."""

    tau_show: Threshold | None = None
    tau_flag: Threshold | None = None


class FieldEntry(_Strict):
    """One typed field to extract."""

    name: str = Field(pattern=FIELD_NAME)
    type: FieldType
    description: str = ""
    values: list[str] | None = Field(default=None, min_length=1)
    value_synonyms: dict[str, list[str]] = Field(default_factory=dict)
    synonyms: dict[str, list[Term]] = Field(
        default_factory=dict,
        description="Trigger terms per language code ('any' for all languages).")
    query: str = ""
    patterns: list[str] = Field(default_factory=list)
    negative_patterns: list[str] = Field(default_factory=list)
    value_patterns: list[ValuePattern] = Field(
        default_factory=list,
        description=("Regexes whose match states a fixed value: `no se divide en lotes` -> 1, "
                     "`no se exige garantía provisional` -> {required: false}."))
    basis_patterns: dict[str, list[str]] = Field(
        default_factory=dict,
        description="For money: basis name -> regexes found near the value (`best_of_last_3_years`).")
    unit: Literal["years", "months", "weeks", "days", "hours", "minutes", "count"] | None = Field(
        default=None,
        description=("For a number: what it counts. A time unit (`payment.term_days`: days): a "
                     "duration in that unit gives its count, no other does; `count`: things, "
                     "never a duration (\"the last five years\" is not five contracts); "
                     "absent: any duration gives its count."))
    near_chars: int = Field(default=160, ge=20, le=2000)
    table_rows: list[str] = Field(default_factory=list)
    table_columns: list[str] = Field(default_factory=list)
    examples: list[str] = Field(default_factory=list)
    hard: bool = False
    tau_show: Threshold | None = None
    tau_flag: Threshold | None = None
    min: int | float | None = None  # an int stays an int: messages say `max:10`
    max: int | float | None = None
    postconditions: list[PostconditionEntry] = Field(default_factory=list)

    @field_validator("min", "max")
    @classmethod
    def _finite(cls, v: int | float | None) -> int | float | None:
        if isinstance(v, float) and not math.isfinite(v):  # a quoted "1e400" or "nan"
            raise ValueError("must be a finite number")
        return v

    @model_validator(mode="after")
    def _consistent(self) -> FieldEntry:
        if self.type == "enum" and not self.values:
            raise ValueError(f"field {self.name!r} is an enum and needs `values`")
        for pat in (*self.patterns, *self.negative_patterns,
                    *(v.pattern for v in self.value_patterns),
                    *(p for ps in self.basis_patterns.values() for p in ps)):
            try:
                re.compile(pat)
            except re.error as exc:
                raise ValueError(f"field {self.name!r}: pattern {pat!r} does not compile: {exc}") from None
        return self


class SchemaFile(_Strict):
    """A set of typed fields to extract from one case (one or more documents)."""

    model_config = ConfigDict(title="pincite extraction schema", json_schema_extra={
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pincite.dev/schemas/extraction-schema.json"})

    name: str = Field(min_length=1)
    version: str | int = "1"
    description: str = ""
    languages: list[Annotated[str, StringConstraints(pattern=r"^[a-z]{2}$")]] = Field(default_factory=list)
    defaults: Defaults = Field(default_factory=Defaults)
    due_field: str | None = Field(
        default=None, description="The field whose date is the case's own deadline (review due_at).")
    postconditions: list[PostconditionEntry] = Field(default_factory=list)
    fields: list[FieldEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> SchemaFile:
        names = [f.name for f in self.fields]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"field(s) defined twice: {', '.join(dupes)}")
        for f in self.fields:
            show, flag = self.tau(f)
            if flag > show:
                raise ValueError(f"field {f.name!r}: tau_flag {flag} is above tau_show {show}")
        known = set(names)
        for post in [*self.postconditions, *(p for f in self.fields for p in f.postconditions)]:
            missing = [t for t in post.fields() if t not in known]
            if missing:
                raise ValueError(f"postcondition {post.check!r} names unknown field(s) "
                                 f"{', '.join(missing)}")
        if self.due_field is not None and self.due_field not in known:
            raise ValueError(f"due_field {self.due_field!r} is not a field of the schema")
        return self

    def tau(self, f: FieldEntry) -> tuple[float, float]:
        """Return a field's (tau_show, tau_flag): its own, else the file's defaults, else ours."""
        show = next(v for v in (f.tau_show, self.defaults.tau_show, DEFAULT_TAU_SHOW) if v is not None)
        flag = next(v for v in (f.tau_flag, self.defaults.tau_flag, DEFAULT_TAU_FLAG) if v is not None)
        return show, flag
