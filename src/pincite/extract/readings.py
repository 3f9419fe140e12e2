"""Readings of a fact where it stands: what a bare number or a date means in its context.

The value scanner reads each value alone; a field sometimes needs its neighbours:

| reading                                   | example                                      |
|-------------------------------------------|----------------------------------------------|
| points of a weights column adding to 100  | "Precio │ 55" under "Puntuación máxima"      |
| (a points unit, or a header naming points |                                              |
| or a weight) → percent                    |                                              |
| points in the items of one list, or in    | "· Precio: 60 puntos. · Calidad: 40 puntos." |
| the prose of a document that scores out  | "sobre un total de 100 puntos … hasta 70     |
| of 100 points → percent                   | puntos"                                      |
| a date and the time beside it in its      | "Date: 14/05/2026 Local time: 12:00",        |
| element → datetime ("p.m." applied)       | "12:00 noon, 25 November 2026"               |
| an amount per thousand of the price is a  | "0,20 euros por cada 1.000 euros del precio" |
| rate, never a money value                 |                                              |
| a number after a label naming a time unit | "Duration in months: 36"                     |
| → duration                                |                                              |
| a count in words after a bound, or before | "at least two contracts", "se divide en dos  |
| the noun a count field counts             | lotes"                                       |
"""

from __future__ import annotations

import re
from typing import Any

from ..facts.atomic import AtomicFact
from ..values.words import WORD_RUN, parse_number_words
from .case import CaseDoc, fold
from .records import Candidate
from .scoring import Compiled, Scorer
from .typed import POINT_UNITS, clock_times, fact_value, json_number, negated

BOUND = 1.0  # a count after a bound ("at least two contracts") states a requirement
COUNTED = 0.5  # a count right before the noun it counts ("dos lotes")
_SCALE_100 = re.compile(r"(?:sobre|de|out\s+of|total\s+of|m[aá]ximo\s+de|maximum\s+of)\s+"
                        r"(?:un\s+total\s+de\s+|un\s+m[aá]ximo\s+de\s+|a\s+total\s+of\s+)?"
                        r"100\s+(?:puntos|points)\b", re.I)
_POINTS_HEADER = re.compile(r"\b(?:puntos?|puntuacion|points?|score|ponderacion|weight(?:ing)?|peso)\b")
# only these words may stand between a date and its time ("Date: 14/05/2026 Local time: 12:00")
_BETWEEN_DATE_TIME = re.compile(r"[\s,;.–—-]*(?:(?:local\s+time|time|hora(?:\s+local)?|at|a\s+las|"
                                r"on|el|del?|d[ií]a)[\s:,]*)*\Z", re.I)
_RATE_BASE = re.compile(r"(?:por\s+cada|per(?:\s+each)?|for\s+every)\s*\Z", re.I)
_RATE = re.compile(r"\s*(?:por\s+cada|per(?:\s+each)?|for\s+every)\s+(?:[€£$]\s?)?"
                   r"(?:1\.000|1,000|1000|mil|100|cien)"
                   r"(?!\d)", re.I)
_LABEL_UNIT = re.compile(r"(?:\b(?:in|en)\s+|\()(?P<u>months|days|years|weeks|meses|d[ií]as|años|"
                         r"semanas)\)?\s*:?\s*\Z", re.I)
_UNITS = {"months": "months", "meses": "months", "days": "days", "dias": "days", "días": "days",
          "years": "years", "años": "years", "weeks": "weeks", "semanas": "weeks"}
_WORD_COUNT = re.compile(
    r"(?<!\w)(?:at\s+least|a\s+minimum\s+of|minimum\s+of|no\s+fewer\s+than|not\s+less\s+than|"
    r"al\s+menos|por\s+lo\s+menos|como\s+m[ií]nimo|un\s+m[ií]nimo\s+de|m[ií]nimo\s+de)\s+"
    rf"(?P<w>{WORD_RUN})(?!\s+(?:a[ñn]os?|years?|mes(?:es)?|months?|semanas?|weeks?|d[ií]as?|days?"
    r"|horas?|hours?|por\s+ciento|percent)\b)", re.I)
_WORDS_BEFORE = re.compile(rf"(?P<w>{WORD_RUN})\s+\Z", re.I)


class Readings:
    """The context readings of one document's facts (built once per document)."""

    def __init__(self, doc: CaseDoc) -> None:
        self.doc = doc
        self.points_ok = _points_columns(doc.facts) | _points_lists(doc)
        self.scale_100 = bool(_SCALE_100.search(doc.text))

    def value(self, ftype: str, f: AtomicFact, unit: str | None = None) -> tuple[Any, float] | None:
        """Return (canonical value, shape) of a fact for a field type, read in context."""
        if negated(f):
            return None
        if ftype == "percent" and f.value_type == "number":
            return self._points(f)
        if ftype == "money" and (_RATE.match(self.doc.text, f.char_end, f.char_end + 30)
                                 or _RATE_BASE.search(self.doc.text, max(0, f.char_start - 20),
                                                      f.char_start)):
            return None  # "0,20 euros por cada 1.000 euros del precio": a rate and its base
        if ftype == "datetime" and f.value_type == "date":
            timed = self._with_time(f)
            if timed is not None:
                return timed
        if ftype == "duration" and f.value_type == "number" and not f.unit and f.normalized_value:
            u = self._label_unit(f)
            if u is not None:
                return {"value": json_number(f.normalized_value), "unit": u}, 0.8
        return fact_value(ftype, f, unit)

    def _points(self, f: AtomicFact) -> tuple[Any, float] | None:
        if not f.normalized_value:
            return None
        pct = {"percent": json_number(f.normalized_value)}
        if f.fact_id in self.points_ok or (f.locator.split(" / ")[0], f.column_path) in self.points_ok:
            return pct, 0.9
        if (self.scale_100 and f.origin_type != "table_cell"
                and (f.unit or "").lower() in POINT_UNITS):
            return pct, 0.8
        return None

    def _with_time(self, f: AtomicFact) -> tuple[Any, float] | None:
        """A date and a time beside it in its element, with only label words between:
        "Date: 14/05/2026 Local time: 12:00", "12:00 noon, 25 November 2026"."""
        el = self.doc.element_at(f.char_start)
        text = self.doc.text
        lo = max(el.char_start if el is not None else 0, f.char_start - 40)
        hi = min(el.char_end if el is not None else len(text), f.char_end + 40)
        if not f.normalized_value:
            return None
        after = clock_times(text, f.char_end, hi)
        if after and _BETWEEN_DATE_TIME.match(text[f.char_end:after[0][0]]):
            return {"date": f.normalized_value[:10], "time": after[0][2]}, 0.9
        before = clock_times(text, lo, f.char_start)
        if before and _BETWEEN_DATE_TIME.match(text[before[-1][1]:f.char_start]):
            return {"date": f.normalized_value[:10], "time": before[-1][2]}, 0.9
        return None

    def _label_unit(self, f: AtomicFact) -> str | None:
        el = self.doc.element_at(f.char_start)
        lo = max(el.char_start if el is not None else 0, f.char_start - 60)
        m = _LABEL_UNIT.search(self.doc.text, lo, f.char_start)
        return _UNITS.get(m.group("u").lower()) if m else None


def _points_columns(facts: list[AtomicFact]) -> set[Any]:
    """Return the (table, column) pairs whose point-valued cells sum to 100: cells with a
    points unit, or plain numbers under a header naming points or a weight."""
    sums: dict[tuple[str, tuple[str, ...]], float] = {}
    for f in facts:
        if f.origin_type != "table_cell" or f.value_type != "number" or not f.normalized_value:
            continue
        unit = (f.unit or "").lower()
        if unit in POINT_UNITS or (not unit and _POINTS_HEADER.search(fold(" ".join(f.column_path)))):
            key = (f.locator.split(" / ")[0], f.column_path)
            sums[key] = sums.get(key, 0.0) + float(f.normalized_value)
    return {k for k, v in sums.items() if abs(v - 100.0) < 1e-6}


def _points_lists(doc: CaseDoc) -> set[Any]:
    """Return the ids of point facts in the items of one list (one heading) adding to 100."""
    groups: dict[tuple[str, ...], list[AtomicFact]] = {}
    for f in doc.facts:
        if f.value_type != "number" or (f.unit or "").lower() not in POINT_UNITS \
                or not f.normalized_value:
            continue
        el = doc.element_at(f.char_start)
        if el is not None and el.kind == "list_item":
            groups.setdefault(tuple(el.heading_path), []).append(f)
    out: set[Any] = set()
    for fs in groups.values():
        if abs(sum(float(f.normalized_value or 0) for f in fs) - 100.0) < 1e-6:
            out.update(f.fact_id for f in fs)
    return out


def word_counts(doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
    """Counts written in words the value scanner leaves (it reads number words only beside
    a numeral or a unit): after a bound ("at least two contracts", "un mínimo de dos
    obras"), tied by a trigger in the sentence; and, for a field that counts things
    (`unit: count`), right before its trigger ("se divide en dos lotes")."""
    found: list[tuple[int, int, int, str]] = []
    for m in _WORD_COUNT.finditer(doc.text):
        n = parse_number_words(m.group("w"))
        if n is not None:
            found.append((m.start("w"), m.end("w"), n, "bound"))
    if c.spec.unit == "count" and c.terms is not None:
        for t in c.terms.finditer(doc.folded):
            w = _WORDS_BEFORE.search(doc.text, max(0, t.start() - 40), t.start())
            n = parse_number_words(w.group("w")) if w else None
            if w and n is not None:
                found.append((w.start("w"), w.end("w"), n, "counted"))
    out = []
    seen: set[int] = set()
    for vs, ve, n, how in found:
        if vs in seen:
            continue
        seen.add(vs)
        s, e = doc.sentence(vs, ve)
        parts = sc.base(doc, s, e)
        parts["term"] = sc.term(doc, s, e, vs, ve)
        if not parts["term"] and not parts["pattern"]:
            continue
        parts.update({"shape": 1.0, how: BOUND if how == "bound" else COUNTED})
        out.append(Candidate(n, (doc.cite(s, e),), sum(parts.values()), parts, "words",
                             doc.text[vs:ve], (doc.doc_id, vs, ve)))
    return out
