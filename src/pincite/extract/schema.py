"""Extraction schemas: which typed fields a case is read for, and how to find them.

`load_schema(path)` reads a YAML or JSON file (through the guarded loader of `limits`:
size, depth, no aliases, finite numbers), validates it with the file-format models of
`schema_file.py` (their JSON Schema is `schemas/extraction-schema.json`, generated from
them) and returns a `Schema` of `FieldSpec`s. A field
says its type (one canonical JSON value per type, see `FIELD_TYPES`), the trigger terms
per language, optional patterns, table row/column labels, examples, whether it is a
disqualifying (`hard`) condition, its thresholds and its postconditions.

Postconditions are small expressions over field values, evaluated by code:
`guarantee.definitive <= 10`, `a + b == 100`, `deadline.submission > 2020-01-01`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationError

from ..errors import InvalidSchema
from ..limits import YAML_MAX_DEPTH, load_guarded, read_at_most
from .schema_file import (
    DEFAULT_TAU_FLAG,
    DEFAULT_TAU_SHOW,
    FIELD_TYPES,
    FieldEntry,
    PostconditionEntry,
    SchemaFile,
    is_literal,
    split_check,
)

__all__ = ["DEFAULT_TAU_FLAG", "DEFAULT_TAU_SHOW", "ENUM_OTHER", "FIELD_TYPES", "FieldSpec",
           "MAX_SCHEMA_BYTES", "Postcondition", "Schema", "load_schema", "parse_postcondition",
           "schema_from_checks", "schema_from_dict", "schema_from_text"]

ENUM_OTHER = "other"
MAX_SCHEMA_BYTES = 1024 * 1024  # a schema file or request schema; examples/ are under 40 KB


@dataclass(frozen=True, slots=True)
class Postcondition:
    """A check over field values: `left op right`, each side a sum of fields or numbers."""

    check: str
    message: str
    left: tuple[str, ...]
    op: str
    right: tuple[str, ...]

    def fields(self) -> tuple[str, ...]:
        """Return the field names the check reads."""
        return tuple(t for t in self.left + self.right if not is_literal(t))


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One field of a schema."""

    name: str
    type: str
    description: str = ""
    values: tuple[str, ...] = ()
    value_synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    synonyms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    query: str = ""
    patterns: tuple[str, ...] = ()
    negative_patterns: tuple[str, ...] = ()
    value_patterns: tuple[tuple[str, Any], ...] = ()
    basis_patterns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    near_chars: int = 160
    unit: str | None = None
    table_rows: tuple[str, ...] = ()
    table_columns: tuple[str, ...] = ()
    examples: tuple[str, ...] = ()
    hard: bool = False
    tau_show: float = DEFAULT_TAU_SHOW
    tau_flag: float = DEFAULT_TAU_FLAG
    min: float | None = None
    max: float | None = None
    postconditions: tuple[Postcondition, ...] = ()

    def terms(self, lang: str | None = None) -> tuple[str, ...]:
        """Return the trigger terms for a language (plus those for any language)."""
        out: list[str] = list(self.synonyms.get("any", ()))
        if lang is None:
            for k, v in self.synonyms.items():
                if k != "any":
                    out.extend(v)
        else:
            out.extend(self.synonyms.get(lang, ()))
        return tuple(dict.fromkeys(out))

    def query_text(self) -> str:
        """Return the retrieval query that routes this field (query, else terms)."""
        if self.query:
            return self.query
        terms = self.terms()
        return " ".join(terms[:8]) if terms else self.name.replace(".", " ").replace("_", " ")


@dataclass(frozen=True, slots=True)
class Schema:
    """A named set of fields, with its digest (the bytes it was read from)."""

    name: str
    version: str
    fields: tuple[FieldSpec, ...]
    postconditions: tuple[Postcondition, ...]
    digest: str
    languages: tuple[str, ...] = ()
    due_field: str | None = None
    description: str = ""

    def field(self, name: str) -> FieldSpec:
        """Return the field called `name`; raise InvalidSchema when there is none."""
        for f in self.fields:
            if f.name == name:
                return f
        raise InvalidSchema(f"schema {self.name!r} has no field {name!r}")

    def all_postconditions(self) -> tuple[Postcondition, ...]:
        """Return the schema-level and per-field postconditions, in file order."""
        out = list(self.postconditions)
        for f in self.fields:
            out.extend(f.postconditions)
        return tuple(out)

    def checks(self) -> dict[str, Any]:
        """Return what validation checks, as JSON: each field's type, values and range,
        and every postcondition (a run stores it; a reviewer's correction passes it too)."""
        return {"schema_name": self.name, "fields": [
            {"name": f.name, "type": f.type, "values": list(f.values), "min": f.min,
             "max": f.max, "postconditions": [[p.check, p.message] for p in f.postconditions]}
            for f in self.fields],
            "postconditions": [[p.check, p.message] for p in self.postconditions]}


def parse_postcondition(check: str, message: str = "", *, where: str = "") -> Postcondition:
    """Return the parsed form of `left op right`; raise InvalidSchema when malformed."""
    try:
        left, op, right = split_check(check)
    except ValueError as exc:
        raise InvalidSchema(f"{where}{exc}") from None
    return Postcondition(check, message or check, left, op, right)


def _post(p: PostconditionEntry) -> Postcondition:
    return parse_postcondition(p.check, p.message)


def _field(f: FieldEntry, doc: SchemaFile) -> FieldSpec:
    tau_show, tau_flag = doc.tau(f)
    return FieldSpec(
        name=f.name, type=f.type, description=f.description, values=tuple(f.values or ()),
        value_synonyms={k: tuple(v) for k, v in f.value_synonyms.items()},
        synonyms={k: tuple(v) for k, v in f.synonyms.items()},
        query=f.query, patterns=tuple(f.patterns), negative_patterns=tuple(f.negative_patterns),
        value_patterns=tuple((v.pattern, v.value) for v in f.value_patterns),
        basis_patterns={k: tuple(v) for k, v in f.basis_patterns.items()},
        near_chars=f.near_chars, unit=f.unit, table_rows=tuple(f.table_rows),
        table_columns=tuple(f.table_columns), examples=tuple(f.examples), hard=f.hard,
        tau_show=tau_show, tau_flag=tau_flag, min=f.min, max=f.max,
        postconditions=tuple(_post(p) for p in f.postconditions),
    )


_PLAIN = {
    "missing": "is required; add it",
    "model_type": "should be a mapping of keys to values",
    "extra_forbidden": "is not a key of this section; check its spelling (the format is "
                       "src/pincite/schemas/extraction-schema.json)",
}


def validation_problem(exc: ValidationError, where: str = "") -> InvalidSchema:
    """Return the InvalidSchema that names the first problem of a file (in the order the
    format lists its keys) and says how many there are."""
    errors = exc.errors(include_url=False)
    e = errors[0]
    path = "/".join(str(x) for x in e["loc"]) or "(top level)"
    msg = _PLAIN.get(e["type"]) or e["msg"].removeprefix("Value error, ")
    return InvalidSchema(f"{where}{path}: {msg} (fix the schema file; {len(errors)} problem(s) in all)")


def schema_from_checks(checks: dict[str, Any]) -> Schema:
    """Return the schema that `Schema.checks()` describes (only what validation reads)."""
    fields = tuple(FieldSpec(
        name=f["name"], type=f["type"], values=tuple(f.get("values") or ()), min=f.get("min"),
        max=f.get("max"), postconditions=tuple(parse_postcondition(c, m)
                                               for c, m in f.get("postconditions") or ()))
        for f in checks.get("fields") or ())
    return Schema(name=str(checks.get("schema_name", "")), version="", fields=fields,
                  postconditions=tuple(parse_postcondition(c, m)
                                       for c, m in checks.get("postconditions") or ()),
                  digest="")


def schema_from_dict(data: Any, *, digest: str = "", where: str = "") -> Schema:
    """Return the schema described by a parsed YAML/JSON document; raise InvalidSchema."""
    try:
        doc = SchemaFile.model_validate(data)
    except ValidationError as exc:
        raise validation_problem(exc, where) from None
    if not digest:
        digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    return Schema(name=doc.name, version=str(doc.version),
                  fields=tuple(_field(f, doc) for f in doc.fields),
                  postconditions=tuple(_post(p) for p in doc.postconditions), digest=digest,
                  languages=tuple(doc.languages), due_field=doc.due_field,
                  description=doc.description)


def schema_from_text(raw: str | bytes, what: str = "the schema", *,
                     syntax: Literal["yaml", "json"] = "yaml") -> Schema:
    """Return the schema in YAML or JSON text (a file's content, a request's schema); raise
    InvalidSchema naming `what`, never a path of the server's (see `load_guarded`)."""
    data = load_guarded(raw, what, refuse=InvalidSchema, max_bytes=MAX_SCHEMA_BYTES,
                        max_depth=YAML_MAX_DEPTH, syntax=syntax)
    body = raw.encode("utf-8") if isinstance(raw, str) else raw
    return schema_from_dict(data, digest=hashlib.sha256(body).hexdigest(), where=f"{what}: ")


def load_schema(path: str | Path) -> Schema:
    """Return the schema in a YAML or JSON file; raise InvalidSchema naming what is wrong."""
    p = Path(path)
    if p.exists() and not p.is_file():
        raise InvalidSchema(f"cannot read schema file {p}: not a regular file")
    try:
        raw = read_at_most(p, MAX_SCHEMA_BYTES + 1)  # more is refused, unread
    except OSError as exc:
        raise InvalidSchema(f"cannot read schema file {p}: {exc.strerror}") from exc
    return schema_from_text(raw, str(p))
