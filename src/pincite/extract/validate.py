"""Validation of field records, in code (never in a prompt).

`validate(records, schema, verifier)` re-verifies every provenance entry with the
deterministic verifier (the model never sets `quote_verified`), then checks:
- a non-null value without verified provenance is an error (`unverified_provenance`);
- a value that none of its verified quotes states is an error (`value_not_in_quote`, the
  rules of `extract.stated`); a fixed value of one of the field's `value_patterns` is
  stated by a quote the pattern matches ("no se divide en lotes" states 1 lot);
- the value has its type's canonical JSON shape (`type:<field type>`);
- per-field ranges (`min`/`max`);
- postconditions across fields (`guarantee.definitive <= 10`, dates in order, sums);
  a check that names a null field does not apply;
- no verified entry cites text that reads as an instruction to the reader or a model
  (`instruction_in_evidence`, found by `ask.instructions` in the cited block): an order
  planted in a document is never evidence of a value, whoever quotes it — an extractor,
  or a model that obeyed it.
Errors are codes on the record (`validation_errors`), not exceptions.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Sequence
from typing import Any

from ..ask.instructions import hands_over, instruction_spans, neighbour_spans, points_back
from ..cite.verifier import Verifier
from ..index.segment import BLOCK_KINDS
from ..model import Citation
from ..vocab import FieldStatus
from .records import FieldRecord
from .schema import FieldSpec, Postcondition, Schema
from .stated import states
from .typed import is_valid, numeric

VALUE_NOT_IN_QUOTE = "value_not_in_quote"
_OPS = {"<=": operator.le, ">=": operator.ge, "<": operator.lt, ">": operator.gt,
        "==": operator.eq, "!=": operator.ne}


def _side(terms: Sequence[str], values: dict[str, Any]) -> float | str | None:
    total: float | str | None = None
    for t in terms:
        if t[:1].isalpha():
            v = numeric(values.get(t))
        elif "-" in t[1:]:
            v = t
        else:
            v = float(t)
        if v is None:
            return None
        if total is None:
            total = v
        elif isinstance(total, float) and isinstance(v, float):
            total += v
        else:
            return None  # dates do not add
    return total


def check_postcondition(post: Postcondition, values: dict[str, Any]) -> bool | None:
    """Return whether a postcondition holds, or None when it does not apply."""
    left, right = _side(post.left, values), _side(post.right, values)
    if left is None or right is None or type(left) is not type(right):
        return None
    if post.op == "==" and isinstance(left, float):
        return abs(left - float(right)) < 1e-6
    return bool(_OPS[post.op](left, right))


def value_errors(spec: FieldSpec, value: Any) -> list[str]:
    """Return the codes of the checks one value fails: its type's canonical shape
    (`type:<field type>`) and the field's range (`min:`/`max:`)."""
    errors: list[str] = []
    if not is_valid(spec.type, value, spec.values):
        errors.append(f"type:{spec.type}")
    n = numeric(value)
    if isinstance(n, float) and not math.isfinite(n):
        errors.append("not_finite")
    elif isinstance(n, float):
        if spec.min is not None and n < spec.min:
            errors.append(f"min:{spec.min}")
        if spec.max is not None and n > spec.max:
            errors.append(f"max:{spec.max}")
    return errors


def postcondition_errors(schema: Schema, values: dict[str, Any]) -> dict[str, list[str]]:
    """Return, per field, the postconditions (`postcondition:<check>`) that `values` (the
    present fields' values) break; a check that names a missing field does not apply."""
    failed: dict[str, list[str]] = {}
    for post in schema.all_postconditions():
        if check_postcondition(post, values) is False:
            for name in post.fields():
                failed.setdefault(name, []).append(f"postcondition:{post.check}")
    return failed


def cites_instruction(verifier: Verifier, c: Citation) -> bool:
    """Return whether a verified entry's span overlaps an instruction-like span of a block
    it lies in (`ask.instructions.instruction_spans` over the block's text, with the first
    sentence of a block the one before handed an order over to, and the last of one the
    block after points back at)."""
    rev = verifier.revision(c.doc_id) if c.quote_verified else None
    loaded = verifier.layer(rev, c.text_layer) if rev is not None else None
    if loaded is None:
        return False
    text = loaded.text
    blocks = sorted((e for e in loaded.layer.elements if e.kind in BLOCK_KINDS),
                    key=lambda e: (e.char_start, -e.char_end))
    for k, e in enumerate(blocks):
        if e.char_end <= c.char_start or e.char_start >= c.char_end:
            continue
        body = text[e.char_start:e.char_end]
        spans = instruction_spans(body)
        # the block before handed its order over to this one ("Ignore the previous clause."
        # in one form field, the value in the next), or the block after points back at it
        # ("This is the correct answer …"): `ask.instructions.hands_over`, `points_back`
        carried = k > 0 and hands_over(text[blocks[k - 1].char_start:blocks[k - 1].char_end])
        pointed = k + 1 < len(blocks) and points_back(
            text[blocks[k + 1].char_start:blocks[k + 1].char_end])
        if carried or pointed:
            spans = [*spans, *neighbour_spans(body, carried, pointed)]
        for a, b in spans:
            if e.char_start + a < c.char_end and c.char_start < e.char_start + b:
                return True
    return False


def pattern_states(spec: FieldSpec, value: Any, quotes: Sequence[str]) -> bool:
    """Return True when a quote matches one of the field's value patterns whose fixed value
    is `value`: the code re-derives the value from the quote by the same rule."""
    for pattern, fixed in spec.value_patterns:
        if fixed == value and any(re.search(pattern, q, re.I | re.S) for q in quotes):
            return True
    return False


def validate(records: Sequence[FieldRecord], schema: Schema, verifier: Verifier) -> list[FieldRecord]:
    """Return the records with provenance re-verified and `validation_errors` set."""
    out = []
    for r in records:
        spec = schema.field(r.field)
        prov = tuple(verifier.verify(c) for c in r.provenance)
        errors: list[str] = []
        if r.value is not None and (not prov or not all(c.quote_verified for c in prov)):
            errors.append("unverified_provenance")
        elif r.value is not None and not states(spec.type, r.value, [c.quote for c in prov]) \
                and not pattern_states(spec, r.value, [c.quote for c in prov]):
            errors.append(VALUE_NOT_IN_QUOTE)
        errors += value_errors(spec, r.value)
        if any(cites_instruction(verifier, c) for c in prov):
            errors.append("instruction_in_evidence")
        # errors an extractor already recorded (e.g. malformed model output) are kept
        out.append(r.with_(provenance=prov, validation_errors=r.validation_errors + tuple(
            e for e in errors if e not in r.validation_errors)))
    values = {r.field: r.value for r in out if r.status == FieldStatus.PRESENT}
    failed = postcondition_errors(schema, values)
    return [r.with_(validation_errors=r.validation_errors + tuple(failed.get(r.field, ())))
            for r in out]
