"""Typed candidates from atomic facts: money, numbers, percents, dates and durations.

A fact is a candidate of a field when something ties it to the field (in this order):
its table row names the field (`row`, `scoring.row_strength`); a trigger precedes or
follows it in its sentence (`term`); a label element before its element names the field
(`row`, as a table row); or it is the first value of the field's type under a heading that
names the field (`heading`, 1.5). Another value of the field's type, or a blank
(`extract.blanks`), between the trigger and the fact blocks the trigger: the trigger
governs the nearer value position. What a fact means in its context (points as percents,
a date with the time after it, a label's unit) is `extract.readings`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..facts.atomic import AtomicFact
from .blanks import Blank
from .case import CaseDoc, fold
from .positions import Structure, row_start
from .readings import Readings
from .records import Candidate
from .scoring import Compiled, Scorer, label_score, row_strength
from .typed import vat_of

HEADING_ANCHOR = 1.5
ASIDE = -2.0  # "3 years (plus an optional 2-year extension)": the value in brackets is an aside


def fact_candidates(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure, readings: Readings,
                    blanks: Sequence[Blank]) -> list[Candidate]:
    """Return the candidates of a typed field from a document's facts."""
    spec = c.spec
    out = []
    found = {f.fact_id: v for f in doc.facts
             if (v := readings.value(spec.type, f, spec.unit)) is not None}
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
    starts = [f.char_start for f in typed]
    for f in typed:
        value, shape = found[f.fact_id]
        if f.origin_type == "table_cell":
            cand = _cell(doc, c, sc, st, f, value, shape)
        else:
            cand = _prose(doc, c, sc, st, f, value, shape, blockers, f.char_start in first)
        if cand is not None and _aside(doc, f, starts):
            cand = _with_part(cand, "aside", ASIDE)
        if cand is not None:
            out.append(cand)
    # the heading stands in for a trigger only where no value of its section has one
    tied = {_section(doc, x.value_span[1]) for x in out
            if "heading" not in x.parts and x.value_span is not None}
    return [x for x in out if "heading" not in x.parts or x.value_span is None
            or _section(doc, x.value_span[1]) not in tied]


def _aside(doc: CaseDoc, f: AtomicFact, starts: Sequence[int]) -> bool:
    """Return True when a fact sits inside brackets after another value of the field in
    its sentence or cell (the value outside the brackets is the one stated)."""
    el = doc.element_at(f.char_start)
    lo = doc.sentence(f.char_start, f.char_end)[0] if el is None or el.kind != "cell" else el.char_start
    head = doc.text[lo:f.char_start]
    if head.count("(") <= head.count(")"):
        return False
    opened = lo + head.rfind("(")
    return any(lo <= s < opened for s in starts)


def _with_part(x: Candidate, name: str, value: float) -> Candidate:
    parts = {**x.parts, name: value}
    return Candidate(x.value, x.citations, sum(parts.values()), parts, x.origin, x.ref,
                     x.value_span)


def _section(doc: CaseDoc, pos: int) -> tuple[str, ...]:
    el = doc.element_at(pos)
    return tuple(el.heading_path) if el is not None else ()


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


def _cell(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure, f: AtomicFact, value: Any,
          shape: float) -> Candidate | None:
    row = row_strength(c, f.row_path or st.labels(f.char_start))
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
    return row_start(doc, el), max(el.char_end, end)
