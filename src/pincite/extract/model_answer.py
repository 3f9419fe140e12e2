"""What the model-backed extractor accepts: the answer checked, its quotes located and cited by code.

Bad output (not JSON, wrong keys, a value off its type's shape, `present` without a value)
becomes a record with `validation_errors` (`model_output:…`) and confidence 0, so it goes
to review: never a crash, never SHOW, never an abstention. A quote code cannot locate in
the named document (or one too short to be evidence) stays in the provenance as an entry
that fails verification. The model never sets `quote_verified`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from ..cite.compare import comparison_form
from ..model import Citation
from ..vocab import ANSWER_STATUSES, FieldStatus, VerifyReason
from .case import Case
from .model_prompt import MIN_QUOTE_CHARS, Passage
from .records import FieldRecord
from .schema import FieldSpec

MAX_QUOTES = 6
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_answer(content: str | None) -> tuple[dict[str, Any] | None, str | None]:
    """Return (answer object, None) or (None, error code) for the model's content."""
    if content is None or not content.strip():
        return None, "model_output:empty"
    m = _FENCE.match(content)
    try:
        obj = json.loads(m.group(1) if m else content)
    except ValueError:
        return None, "model_output:invalid_json"
    if not isinstance(obj, dict):
        return None, "model_output:not_an_object"
    missing = [k for k in ("value", "status", "quotes", "confidence") if k not in obj]
    if missing:
        return None, "model_output:missing_" + "_".join(missing)
    if obj["status"] not in ANSWER_STATUSES:
        return None, "model_output:status"
    conf = obj["confidence"]
    if isinstance(conf, bool) or not isinstance(conf, (int, float)):
        return None, "model_output:confidence"
    quotes = obj["quotes"]
    if not isinstance(quotes, list) or not all(
            isinstance(q, dict) and isinstance(q.get("doc_id"), str) and isinstance(q.get("quote"), str)
            for q in quotes):
        return None, "model_output:quotes"
    return obj, None


def normalize_value(ftype: str, value: Any) -> Any:
    """Return the value with null optional keys dropped and whole floats as ints."""
    def num(x: Any) -> Any:
        return int(x) if isinstance(x, float) and x.is_integer() else x

    if isinstance(value, dict):
        if ftype in ("money", "datetime", "duration"):
            value = {k: v for k, v in value.items() if v is not None}
        return {k: num(v) for k, v in value.items()}
    return num(value)


def locate_quote(case: Case, doc_id: str, quote: str,
                 passages: Sequence[Passage]) -> tuple[Citation, str | None]:
    """Return (citation, None) for a located quote, or (an entry that fails verification,
    why) when the named document does not hold it."""
    doc = case.doc(doc_id)
    short = len(comparison_form(quote)) < MIN_QUOTE_CHARS
    spans = [] if doc is None or short else \
        case.verifier.folded(doc.rev, doc.loaded).find_all(quote, limit=50)
    if doc is not None and spans:
        inside = [s for s in spans if any(p.doc is doc and p.char_start <= s[0] and s[1] <= p.char_end
                                          for p in passages)]
        s, e = (inside or spans)[0]
        return doc.cite(s, e), None
    why = VerifyReason.UNKNOWN_DOCUMENT.value if doc is None else "quote_too_short" if short else "quote_not_found"
    return Citation(doc_id=doc.doc_id if doc else doc_id[:200],
                    doc_sha256=doc.rev.sha256 if doc else "",
                    text_layer=doc.loaded.layer.layer_id if doc else "", locator="", page=None,
                    bbox=None, char_start=0, char_end=0, quote=quote[:2000],
                    verify_reason=why), why


def build_record(case: Case, spec: FieldSpec, content: str | None, passages: Sequence[Passage],
                 ident: dict[str, Any]) -> FieldRecord:
    """Return the field record of one model answer: quotes located and cited by code."""
    base = FieldRecord(field=spec.name, type=spec.type, value=None, status=FieldStatus.PRESENT,
                       confidence=0.0, provenance=(), extractor=ident, hard=spec.hard)
    sent = f"passages_sent:{len(passages)}"
    obj, error = parse_answer(content)
    if obj is None:
        raw = (content or "")[:300]
        return base.with_(validation_errors=(error or "model_output:invalid",),
                          notes=(f"{error}: {raw!r}", sent))
    conf = min(1.0, max(0.0, float(obj["confidence"])))
    value = normalize_value(spec.type, obj["value"])
    notes: list[str] = [sent]
    if obj["status"] == FieldStatus.ABSENT and value is None:
        if obj["quotes"]:
            notes.append(f"absent: {len(obj['quotes'])} quote(s) ignored")
        return base.with_(status=FieldStatus.ABSENT, confidence=conf, notes=tuple(notes))
    errors: list[str] = []
    if obj["status"] == FieldStatus.ABSENT:
        errors.append("model_output:absent_with_value")
    if value is None:
        errors.append("model_output:present_without_value")
    quotes = obj["quotes"][:MAX_QUOTES]
    if len(obj["quotes"]) > MAX_QUOTES:
        notes.append(f"{len(obj['quotes']) - MAX_QUOTES} quote(s) beyond {MAX_QUOTES} ignored")
    located: dict[tuple[str, int, int], Citation] = {}
    unlocated: list[Citation] = []
    for q in quotes:
        c, why = locate_quote(case, q["doc_id"], q["quote"], passages)
        if why is None:
            located.setdefault((c.doc_id, c.char_start, c.char_end), c)
        else:
            notes.append(f"{why}: {q['doc_id']}: {q['quote'][:120]!r}")
            unlocated.append(c)
    order = {d.doc_id: d.order for d in case.docs}
    cites = sorted(located.values(), key=lambda c: (order[c.doc_id], c.char_start)) + unlocated
    if errors:  # a self-contradicting answer's confidence means nothing: it cannot show
        notes.append(f"model_confidence:{conf}")
        conf = 0.0
    return base.with_(value=value, confidence=conf, provenance=tuple(cites),
                      validation_errors=tuple(errors), notes=tuple(notes))
