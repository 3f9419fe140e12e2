"""Score parts of extraction candidates (seed 003): the compiled field and its scorer.

`Scorer` gives the parts every passage can earn — `term`, `section`, `pattern`,
`negative`, `route`, `source` — and `anchored(parts)` says how strongly a candidate is
tied to the field (a trigger, a table row, a pattern). `provenance` merges candidates'
citations in reading order.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..model import Citation
from .case import CaseDoc, fold, term_regex
from .records import Candidate
from .schema import FieldSpec

SCORE_SCALE = 6.5
LABEL_GAP = 25  # a trigger this close before a value labels it ("quality 70%, price 30%")
MAX_PROVENANCE = 3


@dataclass
class Compiled:
    spec: FieldSpec
    terms: re.Pattern[str] | None
    rows: re.Pattern[str] | None
    cols: re.Pattern[str] | None
    patterns: tuple[re.Pattern[str], ...]
    negatives: tuple[re.Pattern[str], ...]
    value_patterns: tuple[tuple[re.Pattern[str], Any], ...]
    basis: tuple[tuple[str, re.Pattern[str]], ...]
    enum_terms: tuple[tuple[str, re.Pattern[str]], ...]


def compile_field(spec: FieldSpec) -> Compiled:
    flags = re.I | re.S
    enum_terms = []
    for v in spec.values:
        words = (*spec.value_synonyms.get(v, ()),)
        rx = term_regex(words)
        if rx is not None:
            enum_terms.append((v, rx))
    return Compiled(
        spec=spec, terms=term_regex(spec.terms()), rows=term_regex(spec.table_rows),
        cols=term_regex(spec.table_columns),
        patterns=tuple(re.compile(p, flags) for p in spec.patterns),
        negatives=tuple(re.compile(p, flags) for p in spec.negative_patterns),
        value_patterns=tuple((re.compile(p, flags), v) for p, v in spec.value_patterns),
        basis=tuple((name, re.compile(p, flags)) for name, ps in spec.basis_patterns.items() for p in ps),
        enum_terms=tuple(enum_terms),
    )


class Scorer:
    """Score parts of a candidate span for one compiled field."""

    def __init__(self, c: Compiled, routes: dict[str, list[tuple[int, int, int]]]) -> None:
        self.c = c
        self.routes = routes

    def term(self, doc: CaseDoc, s: int, e: int, vs: int, ve: int,
             blockers: Sequence[int] = ()) -> float:
        """3 for a trigger before the value in its sentence within `near_chars`, 2 after
        it (unless another value follows the trigger within LABEL_GAP: the trigger labels
        that one), 1.5 elsewhere in the sentence or when another value of the field's type
        stands between them (`blockers`: sorted start offsets of those values); 0 without."""
        rx = self.c.terms
        if rx is None:
            return 0.0
        near = self.c.spec.near_chars
        best = 0.0
        for m in rx.finditer(doc.folded, s, e):
            if m.end() <= vs and vs - m.end() <= near and not between(blockers, m.end(), vs):
                best = max(best, 3.0)
            elif (m.start() >= ve and m.start() - ve <= near // 2
                  and not between(blockers, ve, m.start())
                  and not between(blockers, m.end(), m.end() + LABEL_GAP)):
                best = max(best, 2.0)  # unless the trigger labels the value right after it
            else:
                best = max(best, 1.5)
        return best

    def section(self, doc: CaseDoc, pos: int) -> float:
        rx = self.c.terms
        return 1.0 if rx is not None and rx.search(doc.heading(pos)) else 0.0

    def pattern(self, doc: CaseDoc, s: int, e: int) -> float:
        seg = doc.text[s:e]
        return 2.0 if any(p.search(seg) for p in self.c.patterns) else 0.0

    def negative(self, doc: CaseDoc, s: int, e: int) -> float:
        seg = doc.text[s:e]
        return -3.0 if any(p.search(seg) for p in self.c.negatives) else 0.0

    def route(self, doc: CaseDoc, s: int, e: int) -> float:
        best = 0.0
        for lo, hi, rank in self.routes.get(doc.doc_id, ()):
            if lo <= s < hi or lo < e <= hi:
                best = max(best, 1.0 / (1.0 + (rank - 1) / 3.0))
        return best

    @staticmethod
    def source(doc: CaseDoc) -> float:
        return 0.3 if doc.order == 0 else 0.15

    def base(self, doc: CaseDoc, s: int, e: int) -> dict[str, float]:
        """Return the parts every passage gets: section, pattern, negative, route, source."""
        parts = {"section": self.section(doc, s), "pattern": self.pattern(doc, s, e),
                 "route": self.route(doc, s, e), "source": self.source(doc)}
        neg = self.negative(doc, s, e)
        if neg:
            parts["negative"] = neg
        return parts


def between(starts: Sequence[int], lo: int, hi: int) -> bool:
    """Return True when a start offset lies in `[lo, hi)`."""
    i = bisect.bisect_left(starts, lo)
    return i < len(starts) and starts[i] < hi


def label_score(rx: re.Pattern[str] | None, labels: Sequence[str]) -> float:
    if rx is None or not labels:
        return 0.0
    return 1.0 if rx.search(fold(" / ".join(labels))) else 0.0


SHORT_LABEL_WORDS = 6


def row_strength(c: Compiled, labels: Sequence[str]) -> float:
    """Return the `row` part of a value under row labels (a table row, a label element):
    3 when a table-row label of the field matches, or a trigger does in a short label (one
    that names the field: "Plazo de pago", "Contracting authority"); 2 when a trigger is in
    a longer label; 0 when none is."""
    if label_score(c.rows, labels):
        return 3.0
    if not label_score(c.terms, labels):
        return 0.0
    return 3.0 if len(" ".join(labels).split()) <= SHORT_LABEL_WORDS else 2.0


def anchored(parts: dict[str, float]) -> float:
    return parts.get("term", 0.0) + parts.get("row", 0.0) + parts.get("pattern", 0.0) + \
        parts.get("value_pattern", 0.0) + parts.get("heading", 0.0)


def merged_provenance(xs: list[Candidate]) -> tuple[Citation, ...]:
    out: list[Citation] = []
    seen: set[tuple[str, int, int]] = set()
    for x in xs:
        for c in x.citations:
            k = (c.doc_id, c.char_start, c.char_end)
            if k not in seen:
                seen.add(k)
                out.append(c)
    out = out[:MAX_PROVENANCE]
    return tuple(sorted(out, key=lambda c: (c.doc_id, c.char_start)))


def trim_value(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and (text[s].isspace() or text[s] in ",;:"):
        s += 1
    while e > s and (text[e - 1].isspace() or text[e - 1] in ".,;:"):
        e -= 1
    return s, e
