"""Typed candidates from atomic facts: money, numbers, percents, dates and durations.

A fact is a candidate of a field when something ties it to the field (in this order):
its table row names the field (`row`, 3 for a row label, 2 for a trigger); a trigger
precedes or follows it in its sentence (`term`); a label element before its element names
the field (`row`, as a table row); or it is the first value of the field's type under a
heading that names the field (`heading`, 1.5). Another value of the field's type, or a
blank (`extract.blanks`), between the trigger and the fact blocks the trigger: the trigger
governs the nearer value position.

Percent fields take plain numbers from a weights table: a column whose cells count points
(a `puntos`/`points` unit, or a header naming points or weight) and add up to 100.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ..facts.atomic import AtomicFact
from ..values.words import WORD_RUN, parse_number_words
from .blanks import Blank
from .case import CaseDoc, fold
from .positions import Structure
from .records import Candidate
from .scoring import Compiled, Scorer, label_score, row_strength
from .typed import POINT_UNITS, fact_value, json_number, negated, vat_of

HEADING_ANCHOR = 1.5
BOUND = 1.0  # a count after a bound ("at least two contracts") states a requirement
# "sobre un total de 100 puntos", "out of 100 points": the document scores out of 100
_SCALE_100 = re.compile(r"(?:sobre|de|out\s+of|total\s+of|m[aá]ximo\s+de|maximum\s+of)\s+"
                        r"(?:un\s+total\s+de\s+|un\s+m[aá]ximo\s+de\s+|a\s+total\s+of\s+)?"
                        r"100\s+(?:puntos|points)\b", re.I)
_POINTS_HEADER = re.compile(r"\b(?:puntos?|puntuacion|points?|score|ponderacion|weight(?:ing)?|peso)\b")


def fact_candidates(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure,
                    blanks: Sequence[Blank]) -> list[Candidate]:
    """Return the candidates of a typed field from a document's facts."""
    spec = c.spec
    out = []
    points_ok = points_columns(doc.facts)
    scale_100 = spec.type == "percent" and bool(_SCALE_100.search(doc.text))
    found = {f.fact_id: v for f in doc.facts
             if (v := _value(spec.type, f, points_ok, spec.unit, scale_100)) is not None}
    typed = sorted((f for f in doc.facts if f.fact_id in found), key=lambda f: f.char_start)
    blockers = sorted([f.char_start for f in typed] + [b.char_start for b in blanks])
    first: set[int] = set()
    seen_sections: set[tuple[str, ...]] = set()
    for f in typed:
        el = doc.element_at(f.char_start)
        key = tuple(el.heading_path) if el is not None else ()
        if key not in seen_sections:
            seen_sections.add(key)
            first.add(f.char_start)
    for f in typed:
        value, shape = found[f.fact_id]
        if f.origin_type == "table_cell":
            cand = _cell(doc, c, sc, f, value, shape)
        else:
            cand = _prose(doc, c, sc, st, f, value, shape, blockers, f.char_start in first)
        if cand is not None:
            out.append(cand)
    return out


def _value(ftype: str, f: AtomicFact, points_ok: set[tuple[str, tuple[str, ...]]],
           unit: str | None = None, scale_100: bool = False) -> tuple[Any, float] | None:
    """Return (value, shape) of a fact for a field type; a number is a percent only as the
    points of a weights column that adds up to 100, or as points in the prose of a document
    that scores out of 100 points."""
    if ftype == "percent" and f.value_type == "number":
        if negated(f) or not f.normalized_value:
            return None
        if (f.locator.split(" / ")[0], f.column_path) in points_ok:
            return {"percent": json_number(f.normalized_value)}, 0.9
        if scale_100 and f.origin_type != "table_cell" and (f.unit or "").lower() in POINT_UNITS:
            return {"percent": json_number(f.normalized_value)}, 0.8
        return None
    return fact_value(ftype, f, unit)


def money_extras(c: Compiled, value: Any, passage: str) -> Any:
    """Return a money value with the VAT basis and the named basis its passage states."""
    if c.spec.type != "money":
        return value
    v = dict(value)
    vat = vat_of(passage)
    if vat:
        v["vat"] = vat
    for name, rx in c.basis:
        if rx.search(passage):
            v["basis"] = name
            break
    return v


def _unit(f: AtomicFact) -> float:
    return 0.5 if (f.currency or f.unit or f.value_type in ("date", "datetime")) else 0.0


def _prose(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure, f: AtomicFact, value: Any,
           shape: float, blockers: Sequence[int], first: bool) -> Candidate | None:
    s, e = doc.sentence(f.char_start, f.char_end)
    parts = sc.base(doc, s, e)
    others = [b for b in blockers if b != f.char_start]
    parts["term"] = sc.term(doc, s, e, f.char_start, f.char_end, others)
    if not parts["term"] and not parts["pattern"]:
        labels = st.labels(f.char_start)
        row = row_strength(c, labels)
        span = st.label_span(f.char_start) if row else None
        if span is not None:
            parts["row"] = row
            s, e = span
        elif first and c.terms is not None and _heading_names(doc, c, f.char_start):
            parts["heading"] = HEADING_ANCHOR
        else:
            return None
    parts["shape"] = shape
    parts["unit"] = _unit(f)
    value = money_extras(c, value, doc.text[s:e])
    return Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts, "fact", f.fact_id,
                     (doc.doc_id, f.char_start, f.char_end))


def _heading_names(doc: CaseDoc, c: Compiled, pos: int) -> bool:
    """Return True when the nearest heading of `pos` names the field."""
    el = doc.element_at(pos)
    return (el is not None and bool(el.heading_path) and c.terms is not None
            and bool(c.terms.search(fold(el.heading_path[-1]))))


def _cell(doc: CaseDoc, c: Compiled, sc: Scorer, f: AtomicFact, value: Any,
          shape: float) -> Candidate | None:
    row = row_strength(c, f.row_path)
    if not row:
        return None
    col = label_score(c.cols, f.column_path)
    s, e = row_span(doc, f.char_start, f.char_end)
    parts = sc.base(doc, f.char_start, f.char_end)
    parts.update({"row": row, "column": col, "shape": shape, "unit": _unit(f)})
    value = money_extras(c, value, doc.text[s:e])
    return Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts, "fact", f.fact_id,
                     (doc.doc_id, f.char_start, f.char_end))


def row_span(doc: CaseDoc, start: int, end: int) -> tuple[int, int]:
    """Return the span from the row's first cell to the end of the cell at `start`."""
    el = doc.element_at(start)
    if el is None or el.row is None:
        return start, end
    table_loc = el.locator.rsplit(" r", 1)[0]
    s = el.char_start
    for other in doc.loaded.layer.elements:
        if (other.kind == "cell" and other.row == el.row and other.char_start < s
                and other.locator.rsplit(" r", 1)[0] == table_loc):
            s = other.char_start
    return s, max(el.char_end, end)


def points_columns(facts: list[AtomicFact]) -> set[tuple[str, tuple[str, ...]]]:
    """Return the (table, column) pairs whose point-valued cells sum to 100: cells with a
    points unit, or plain numbers under a header naming points or a weight."""
    sums: dict[tuple[str, tuple[str, ...]], float] = {}
    for f in facts:
        if f.origin_type != "table_cell" or f.value_type != "number" or not f.normalized_value:
            continue
        unit = (f.unit or "").lower()
        header = fold(" ".join(f.column_path))
        if unit in POINT_UNITS or (not unit and _POINTS_HEADER.search(header)):
            key = (f.locator.split(" / ")[0], f.column_path)
            sums[key] = sums.get(key, 0.0) + float(f.normalized_value)
    return {k for k, v in sums.items() if abs(v - 100.0) < 1e-6}


_WORD_COUNT = re.compile(
    r"(?<!\w)(?:at\s+least|a\s+minimum\s+of|minimum\s+of|no\s+fewer\s+than|not\s+less\s+than|"
    r"al\s+menos|por\s+lo\s+menos|como\s+m[ií]nimo|un\s+m[ií]nimo\s+de|m[ií]nimo\s+de)\s+"
    rf"(?P<w>{WORD_RUN})(?!\s+(?:a[ñn]os?|years?|mes(?:es)?|months?|semanas?|weeks?|d[ií]as?|days?"
    r"|horas?|hours?|por\s+ciento|percent)\b)", re.I)


def word_counts(doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
    """Counts written in words after a bound ("at least two contracts", "un mínimo de dos
    obras"): a number candidate tied to the field by a trigger in its sentence (the value
    scanner reads number words only beside a numeral or a unit)."""
    out = []
    for m in _WORD_COUNT.finditer(doc.text):
        n = parse_number_words(m.group("w"))
        if n is None:
            continue
        vs, ve = m.start("w"), m.end("w")
        s, e = doc.sentence(vs, ve)
        parts = sc.base(doc, s, e)
        parts["term"] = sc.term(doc, s, e, vs, ve)
        if not parts["term"]:
            continue
        parts.update({"shape": 1.0, "bound": BOUND})
        out.append(Candidate(n, (doc.cite(s, e),), sum(parts.values()), parts, "words",
                             m.group("w"), (doc.doc_id, vs, ve)))
    return out
