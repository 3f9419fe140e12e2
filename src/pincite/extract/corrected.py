"""What a reviewer's corrected value must be besides the checks every extracted value
passes (`validate.value_errors`: the type's shape with its sub-keys, the range; the
postconditions; `stated.states`: the quote states it).

| what                         | rule (error code)                                          |
|------------------------------|------------------------------------------------------------|
| enum value                   | the cited quote names it as the extractor finds one: one   |
|                              | of its `value_synonyms` (not inside a longer synonym of    |
|                              | another value), or a `value_patterns` entry fixing it      |
|                              | matches; a value with neither is not checked               |
|                              | (`value_not_in_quote`)                                     |
| money `basis`                | one of the field's basis names (`basis:<names>`)            |
| text, entity, clause string  | at most `MAX_TEXT_CHARS` characters (`text:too_long`), no   |
|                              | lone surrogate, markup or formula start                    |
|                              | (`text:surrogate`, `text:markup`, `text:formula`)          |

The extractor reads these rules from the schema; a correction comes later, from the run the
store kept. `quote_rules(schema)` is what the run stores beside `Schema.checks()`;
`with_quote_rules(spec, checks)` puts them back on a field read from a stored run (a run
stored without them: the enum and basis rules are not checked, the others are).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..model.cells import text_problem
from .case import fold, term_regex
from .schema import FieldSpec, Schema
from .validate import VALUE_NOT_IN_QUOTE

MAX_TEXT_CHARS = 20_000  # as long as a quote a reviewer may cite
TEXT_TYPES = frozenset({"text", "entity", "clause"})


def quote_rules(schema: Schema) -> dict[str, Any]:
    """Return, per field, the rules a correction is checked by that `Schema.checks()` does
    not hold: enum synonyms, value patterns and basis names."""
    out: dict[str, Any] = {}
    for f in schema.fields:
        rules: dict[str, Any] = {}
        if f.value_synonyms:
            rules["value_synonyms"] = {k: list(v) for k, v in f.value_synonyms.items()}
        if f.value_patterns:
            rules["value_patterns"] = [[p, v] for p, v in f.value_patterns]
        if f.basis_patterns:
            rules["basis"] = sorted(f.basis_patterns)
        if rules:
            out[f.name] = rules
    return out


def with_quote_rules(spec: FieldSpec, checks: Mapping[str, Any]) -> FieldSpec:
    """Return `spec` with the rules `quote_rules` stored for it in a run's `checks`."""
    rules = (checks.get("quote_rules") or {}).get(spec.name) or {}
    return replace(
        spec,
        value_synonyms={str(k): tuple(map(str, v)) for k, v in
                        (rules.get("value_synonyms") or {}).items()},
        value_patterns=tuple((str(p), v) for p, v in rules.get("value_patterns") or ()),
        basis_patterns={str(b): () for b in rules.get("basis") or ()})


def enum_states(spec: FieldSpec, value: Any, quote: str) -> bool:
    """Return True when `quote` names the enum `value` as the extractor finds one (see the
    module docstring); True for a value with no synonym and no pattern."""
    patterns = [p for p, v in spec.value_patterns if v == value]
    own = spec.value_synonyms.get(value, ())
    if not own and not patterns:
        return True
    if any(re.search(p, quote, re.I | re.S) for p in patterns):
        return True
    folded = fold(quote)
    found = []
    for v in spec.values:
        rx = term_regex(spec.value_synonyms.get(v, ()))
        if rx is not None:
            found += [(m.start(), m.end(), v) for m in rx.finditer(folded)]
    return any(v == value and not any(s2 <= s and e <= e2 and e2 - s2 > e - s and v2 != value
                                      for s2, e2, v2 in found)
               for s, e, v in found)


def correction_errors(spec: FieldSpec, value: Any, quote: str) -> list[str]:
    """Return the codes of the rules of this module that a corrected `value`, resting on
    the verified `quote`, breaks (see the module docstring)."""
    errors = []
    if spec.type in TEXT_TYPES and isinstance(value, str):
        if len(value) > MAX_TEXT_CHARS:
            errors.append("text:too_long")
        problem = text_problem(value)
        if problem:
            errors.append(f"text:{problem}")
    if spec.type == "money" and isinstance(value, dict) and spec.basis_patterns \
            and "basis" in value and value["basis"] not in spec.basis_patterns:
        errors.append(f"basis:{'|'.join(sorted(spec.basis_patterns))}")
    if spec.type == "enum" and not errors and not enum_states(spec, value, quote):
        errors.append(VALUE_NOT_IN_QUOTE)
    return errors
