"""Extraction schemas: which typed fields a case is read for, and how to find them.

`load_schema(path)` reads a YAML or JSON file, validates it against the packaged JSON
Schema (`schemas/extraction-schema.json`) and returns a `Schema` of `FieldSpec`s. A field
says its type (one canonical JSON value per type, see `FIELD_TYPES`), the trigger terms
per language, optional patterns, table row/column labels, examples, whether it is a
disqualifying (`hard`) condition, its thresholds and its postconditions.

Postconditions are small expressions over field values, evaluated by code:
`guarantee.definitive <= 10`, `a + b == 100`, `deadline.submission > 2020-01-01`.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidSchema

FIELD_TYPES = ("money", "number", "percent", "date", "datetime", "duration", "enum", "bool",
               "text", "entity", "clause")
DEFAULT_TAU_SHOW = 0.85
DEFAULT_TAU_FLAG = 0.6
ENUM_OTHER = "other"


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
        return tuple(t for t in self.left + self.right if not _is_literal(t))


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


@cache
def json_schema() -> dict[str, Any]:
    """Return the JSON Schema that extraction schema files must satisfy."""
    text = resources.files("pincite").joinpath("schemas/extraction-schema.json").read_text("utf-8")
    return json.loads(text)  # type: ignore[no-any-return]


_OPS = ("<=", ">=", "==", "!=", "<", ">")
_TERM_RE = re.compile(r"^(?:[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)*|-?[0-9]+(?:\.[0-9]+)?|[0-9]{4}-[0-9]{2}-[0-9]{2})$")


def _is_literal(term: str) -> bool:
    return not term[:1].isalpha()


def parse_postcondition(check: str, message: str = "", *, where: str = "") -> Postcondition:
    """Return the parsed form of `left op right`; raise InvalidSchema when malformed."""
    for op in _OPS:
        if op in check:
            lhs, rhs = check.split(op, 1)
            break
    else:
        raise InvalidSchema(f"{where}postcondition {check!r} has no comparison ({', '.join(_OPS)})")
    sides = []
    for side in (lhs, rhs):
        terms = tuple(t.strip() for t in side.split("+"))
        if not terms or any(not _TERM_RE.match(t) for t in terms):
            raise InvalidSchema(
                f"{where}postcondition {check!r}: each side is a sum of field names or numbers")
        sides.append(terms)
    return Postcondition(check, message or check, sides[0], op, sides[1])


def _tuple(v: Any) -> tuple[str, ...]:
    return tuple(v or ())


def _field(d: dict[str, Any], defaults: dict[str, Any], where: str) -> FieldSpec:
    name = d["name"]
    ftype = d["type"]
    if ftype == "enum" and not d.get("values"):
        raise InvalidSchema(f"{where}field {name!r} is an enum and needs `values`")
    tau_show = float(d.get("tau_show", defaults.get("tau_show", DEFAULT_TAU_SHOW)))
    tau_flag = float(d.get("tau_flag", defaults.get("tau_flag", DEFAULT_TAU_FLAG)))
    if tau_flag > tau_show:
        raise InvalidSchema(f"{where}field {name!r}: tau_flag {tau_flag} is above tau_show {tau_show}")
    for pat in (*d.get("patterns", ()), *d.get("negative_patterns", ()),
                *(v["pattern"] for v in d.get("value_patterns", ())),
                *(p for ps in (d.get("basis_patterns") or {}).values() for p in ps)):
        try:
            re.compile(pat)
        except re.error as exc:
            raise InvalidSchema(f"{where}field {name!r}: pattern {pat!r} does not compile: {exc}") from exc
    return FieldSpec(
        name=name, type=ftype, description=d.get("description", ""),
        values=_tuple(d.get("values")),
        value_synonyms={k: _tuple(v) for k, v in (d.get("value_synonyms") or {}).items()},
        synonyms={k: _tuple(v) for k, v in (d.get("synonyms") or {}).items()},
        query=d.get("query", ""), patterns=_tuple(d.get("patterns")),
        negative_patterns=_tuple(d.get("negative_patterns")),
        value_patterns=tuple((v["pattern"], v["value"]) for v in d.get("value_patterns", ())),
        basis_patterns={k: _tuple(v) for k, v in (d.get("basis_patterns") or {}).items()},
        near_chars=int(d.get("near_chars", 160)),
        table_rows=_tuple(d.get("table_rows")), table_columns=_tuple(d.get("table_columns")),
        examples=_tuple(d.get("examples")), hard=bool(d.get("hard", False)),
        tau_show=tau_show, tau_flag=tau_flag, min=d.get("min"), max=d.get("max"),
        postconditions=tuple(parse_postcondition(p["check"], p.get("message", ""), where=where)
                             for p in d.get("postconditions", ())),
    )


def schema_from_dict(data: Any, *, digest: str = "", where: str = "") -> Schema:
    """Return the schema described by a parsed YAML/JSON document; raise InvalidSchema."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(json_schema())
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        path = "/".join(str(p) for p in e.absolute_path) or "(top level)"
        raise InvalidSchema(f"{where}{path}: {e.message} (fix the schema file; "
                            f"{len(errors)} problem(s) in all)")
    defaults = data.get("defaults") or {}
    fields = tuple(_field(f, defaults, where) for f in data["fields"])
    names = [f.name for f in fields]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise InvalidSchema(f"{where}field(s) defined twice: {', '.join(dupes)}")
    posts = tuple(parse_postcondition(p["check"], p.get("message", ""), where=where)
                  for p in data.get("postconditions", ()))
    known = set(names)
    for post in posts + tuple(p for f in fields for p in f.postconditions):
        missing = [t for t in post.fields() if t not in known]
        if missing:
            raise InvalidSchema(f"{where}postcondition {post.check!r} names unknown field(s) "
                                f"{', '.join(missing)}")
    due = data.get("due_field")
    if due is not None and due not in known:
        raise InvalidSchema(f"{where}due_field {due!r} is not a field of the schema")
    if not digest:
        digest = hashlib.sha256(json.dumps(data, sort_keys=True, default=str).encode()).hexdigest()
    return Schema(name=data["name"], version=str(data.get("version", "1")), fields=fields,
                  postconditions=posts, digest=digest, languages=_tuple(data.get("languages")),
                  due_field=due, description=data.get("description", ""))


def load_schema(path: str | Path) -> Schema:
    """Return the schema in a YAML or JSON file; raise InvalidSchema naming what is wrong."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise InvalidSchema(f"cannot read schema file {p}: {exc.strerror}") from exc
    try:
        data = yaml.safe_load(raw.decode("utf-8"))
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise InvalidSchema(f"{p}: not valid YAML/JSON: {exc}") from exc
    return schema_from_dict(data, digest=hashlib.sha256(raw).hexdigest(), where=f"{p}: ")
