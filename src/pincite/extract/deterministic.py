"""The deterministic extractor: schema fields from facts and clauses, with score parts.

Per field:
1. **Route**: authorized hybrid search (`retrieve.search`, the same path users hit)
   restricted to the case's sources ranks passages for the field's query; a candidate
   inside a routed passage earns the `route` part.
2. **Candidates**: typed values from atomic facts (money, number, percent, date,
   datetime, duration) anchored to a trigger term in their sentence, table row or heading;
   fixed values stated by `value_patterns` ("no se divide en lotes" → 1); enum values
   from their synonyms; text/entity values from patterns with a `value` group; clause
   values as the sentence that holds a trigger or pattern (or a pattern's `value`
   group), a bare title ("8.18 Insurance.") standing for the first sentence of its body.
3. **Score parts** (seed 003): `term` (a trigger before/after the value in its sentence),
   `row`/`column` (table labels), `section` (heading path; for clauses the title of the
   enclosing numbered clause), `pattern`, `shape` (the fact's type against the field's),
   `unit`, `route`, `source` (document order), `agreement` (another passage says the
   same), `negative`.
4. **Record**: candidates with equal values merge (their citations become one provenance
   list in reading order); the best value wins; a runner-up with a different value and
   nearly the same anchored score makes the field `conflicting` (both kept); nothing
   anchored → `absent` with empty provenance. A clause field keeps up to MAX_PROVENANCE
   non-overlapping passages of nearly the best score (a contract often states one kind
   of clause in several places); clauses never conflict.

Confidence is `min(1, score / SCORE_SCALE)` reduced by the runner-up's share (for a
clause field: the weakest kept passage's, reduced by the best passage left out); it is a
self-report until calibration exists (`confidence_state: uncalibrated`).
`candidates(case, spec)` returns every anchored candidate of a field, for rankers.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..facts import AtomicFact
from ..model import Citation
from ..schema import FieldSpec, Schema
from ..store import Store
from .case import Case, CaseDoc, fold, term_regex
from .records import Candidate, FieldRecord, value_key
from .typed import fact_value, is_valid, vat_of

NAME = "pincite.deterministic"
VERSION = "1.0"
RULES_VERSION = "rules-1"
SCORE_SCALE = 6.5
ROUTE_K = 12
CONFLICT_RATIO = 0.85
MIN_ANCHOR = 1.0
MAX_PROVENANCE = 3
CLAUSE_KEEP = 0.9
CLAUSE_JOIN = " … "
CLAUSE_DOUBT = 0.5

Router = Callable[[FieldSpec], dict[str, list[tuple[int, int, int]]]]


@dataclass
class _Compiled:
    spec: FieldSpec
    terms: re.Pattern[str] | None
    rows: re.Pattern[str] | None
    cols: re.Pattern[str] | None
    patterns: tuple[re.Pattern[str], ...]
    negatives: tuple[re.Pattern[str], ...]
    value_patterns: tuple[tuple[re.Pattern[str], Any], ...]
    basis: tuple[tuple[str, re.Pattern[str]], ...]
    enum_terms: tuple[tuple[str, re.Pattern[str]], ...]


def _compile(spec: FieldSpec) -> _Compiled:
    flags = re.I | re.S
    enum_terms = []
    for v in spec.values:
        words = (*spec.value_synonyms.get(v, ()),)
        rx = term_regex(words)
        if rx is not None:
            enum_terms.append((v, rx))
    return _Compiled(
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

    def __init__(self, c: _Compiled, routes: dict[str, list[tuple[int, int, int]]]) -> None:
        self.c = c
        self.routes = routes

    def term(self, doc: CaseDoc, s: int, e: int, vs: int, ve: int,
             blockers: Sequence[int] = ()) -> float:
        """3 for a trigger before the value in its sentence within `near_chars`, 2 after
        it, 1.5 elsewhere in the sentence or when another value of the field's type stands
        between them (`blockers`: sorted start offsets of those values); 0 without one."""
        rx = self.c.terms
        if rx is None:
            return 0.0
        near = self.c.spec.near_chars
        best = 0.0
        for m in rx.finditer(doc.folded, s, e):
            if m.end() <= vs and vs - m.end() <= near and not _between(blockers, m.end(), vs):
                best = max(best, 3.0)
            elif m.start() >= ve and m.start() - ve <= near // 2 and not _between(blockers, ve, m.start()):
                best = max(best, 2.0)
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


def _between(starts: Sequence[int], lo: int, hi: int) -> bool:
    """Return True when a start offset lies in `[lo, hi)`."""
    i = bisect.bisect_left(starts, lo)
    return i < len(starts) and starts[i] < hi


def _label_score(rx: re.Pattern[str] | None, labels: Sequence[str]) -> float:
    if rx is None or not labels:
        return 0.0
    return 1.0 if rx.search(fold(" / ".join(labels))) else 0.0


def _anchored(parts: dict[str, float]) -> float:
    return parts.get("term", 0.0) + parts.get("row", 0.0) + parts.get("pattern", 0.0) + \
        parts.get("value_pattern", 0.0)


_ENUMERATOR = re.compile(r"\s*(?:(?:article|section|clause)\s+)?\(?(?:[0-9]{1,3}(?:\.[0-9]{1,3})*|[a-z]{1,4})"
                         r"[.)]*\s+", re.I)
_TITLE_END = re.compile(r"\.(?:\s|$)|:\s|\n")
_TITLE_WORD = re.compile(r"[^\W\d_][\w'’-]*")
MAX_TITLE_WORDS = 8
SMALL_WORDS = frozenset("a an and as at by for from in of on or the to with without".split())


def clause_title(text: str, start: int, end: int) -> str:
    """Return the title a clause starts with ("12.5. Applicable Law", "(c) Governing Law.
    This Agreement…" → the words), or "" when its first sentence is not a title: more
    than MAX_TITLE_WORDS words, or a long word not capitalised."""
    head = text[start:min(end, start + 200)]
    m = _ENUMERATOR.match(head)
    head = head[m.end():] if m else head
    cut = _TITLE_END.search(head)
    title = (head[:cut.start()] if cut else head).strip()
    words = _TITLE_WORD.findall(title)
    if not words or len(words) > MAX_TITLE_WORDS:
        return ""
    if any(not w[0].isupper() for w in words if w.lower() not in SMALL_WORDS):
        return ""
    return title


MIN_CLAUSE_WORDS = 6


def _is_title(text: str, s: int, e: int) -> bool:
    """Return True when `[s, e)` is a title or too short to be a clause on its own."""
    words = _TITLE_WORD.findall(text[s:e])
    if len(words) < MIN_CLAUSE_WORDS:
        return True
    title = clause_title(text, s, e)
    return bool(title) and len(_TITLE_WORD.findall(title)) >= len(words) - 1


def _body_after(doc: CaseDoc, pos: int) -> tuple[int, int] | None:
    """Return the sentence that starts the text after a title ending at `pos`."""
    text = doc.text
    limit = min(len(text), pos + 200)
    while pos < limit and (text[pos].isspace() or text[pos] in "-_=.*"):
        pos += 1
    if pos >= limit:
        return None
    s, e = doc.sentence(pos, pos + 1)
    return None if _is_title(text, s, e) else (s, e)


class _Outline:
    """The titles of a document's clause elements and headings, for the `section` part."""

    def __init__(self, doc: CaseDoc) -> None:
        spans = []
        for el in doc.loaded.layer.elements:
            if el.kind == "clause":
                title = clause_title(doc.text, el.char_start, el.char_end)
                if title:
                    spans.append((el.char_start, el.char_end, fold(title)))
        spans.sort(key=lambda t: (t[0], -t[1]))
        self.spans = spans
        self.starts = [t[0] for t in spans]
        self.doc = doc

    def titles(self, pos: int) -> list[str]:
        """Return the titles around `pos`, innermost first, then the nearest heading."""
        k = bisect.bisect_right(self.starts, pos)
        inside = sorted((e - s, t) for s, e, t in self.spans[:k] if s <= pos < e)
        out = [t for _, t in inside]
        el = self.doc.element_at(pos)
        if el is not None and len(el.heading_path) >= 2:  # [0] is the document's title
            out.append(fold(el.heading_path[-1]))
        return out

    def section(self, rx: re.Pattern[str] | None, pos: int) -> float:
        if rx is None:
            return 0.0
        for i, title in enumerate(self.titles(pos)):
            if rx.search(title):
                return 1.5 if i == 0 else 1.0
        return 0.0


class DeterministicExtractor:
    """Fills schema fields from a case with rules and score parts (no model)."""

    name = NAME
    version = VERSION
    rules_version = RULES_VERSION

    def __init__(self, *, router: Router | None = None) -> None:
        self.router = router
        self._outlines: dict[tuple[str, int], _Outline] = {}

    def identity(self, run_id: str) -> dict[str, Any]:
        """Return the `extractor` object of records made by this extractor."""
        return {"name": self.name, "version": self.version, "rules_version": self.rules_version,
                "run_id": run_id}

    def extract(self, case: Case, schema: Schema, run_id: str) -> list[FieldRecord]:
        """Return one record per schema field, in schema order."""
        return [self.extract_field(case, spec, run_id) for spec in schema.fields]

    def extract_field(self, case: Case, spec: FieldSpec, run_id: str) -> FieldRecord:
        """Return the record of one field of a case."""
        return self._record(case, spec, self.candidates(case, spec), run_id)

    def candidates(self, case: Case, spec: FieldSpec) -> list[Candidate]:
        """Return every anchored, well-typed candidate of one field, in discovery order
        (the record keeps only the winner and its runner-up; rankers need them all)."""
        c = _compile(spec)
        routes = self.router(spec) if self.router is not None else {}
        scorer = Scorer(c, routes)
        cands: list[Candidate] = []
        for doc in case.docs:
            cands.extend(self._value_patterns(doc, c, scorer))
            if spec.type in ("money", "number", "percent", "date", "datetime", "duration"):
                cands.extend(self._facts(doc, c, scorer))
            elif spec.type == "enum":
                cands.extend(self._enums(doc, c, scorer))
            elif spec.type == "clause":
                cands.extend(self._clauses(doc, c, scorer))
            elif spec.type in ("text", "entity"):
                cands.extend(self._spans(doc, c, scorer))
        return [x for x in cands if _anchored(x.parts) >= MIN_ANCHOR
                and is_valid(spec.type, x.value, spec.values)]

    # ---- candidates -------------------------------------------------------------------

    def _value_patterns(self, doc: CaseDoc, c: _Compiled, sc: Scorer) -> list[Candidate]:
        out = []
        for rx, value in c.value_patterns:
            for m in rx.finditer(doc.text):
                s, e = doc.sentence(m.start(), m.end())
                parts = sc.base(doc, s, e)
                parts["value_pattern"] = 3.0
                parts["term"] = sc.term(doc, s, e, m.start(), m.end())
                parts["shape"] = 1.0
                out.append(Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts,
                                     "value_pattern", rx.pattern, (doc.doc_id, m.start(), m.end())))
        return out

    def _facts(self, doc: CaseDoc, c: _Compiled, sc: Scorer) -> list[Candidate]:
        spec = c.spec
        out = []
        points_ok = _points_tables(doc.facts)
        typed = [f for f in doc.facts if fact_value(spec.type, f) is not None]
        blockers = sorted(f.char_start for f in typed)
        for f in typed:
            fv = fact_value(spec.type, f)
            if fv is None:
                continue
            value, shape = fv
            if spec.type == "percent" and f.value_type == "number":
                if f.locator.split(" / ")[0] not in points_ok:
                    continue
                shape = 0.9  # points of a table whose column adds up to 100
            if f.origin_type == "table_cell":
                cand = self._cell_candidate(doc, c, sc, f, value, shape)
            else:
                cand = self._prose_candidate(doc, c, sc, f, value, shape, blockers)
            if cand is not None:
                out.append(cand)
        return out

    def _money_extras(self, c: _Compiled, value: Any, passage: str) -> Any:
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

    def _prose_candidate(self, doc: CaseDoc, c: _Compiled, sc: Scorer, f: AtomicFact,
                         value: Any, shape: float, blockers: Sequence[int]) -> Candidate | None:
        s, e = doc.sentence(f.char_start, f.char_end)
        parts = sc.base(doc, s, e)
        others = [b for b in blockers if b != f.char_start]
        parts["term"] = sc.term(doc, s, e, f.char_start, f.char_end, others)
        if not parts["term"] and not parts["pattern"]:
            return None
        parts["shape"] = shape
        parts["unit"] = 0.5 if (f.currency or f.unit or f.value_type in ("date", "datetime")) else 0.0
        value = self._money_extras(c, value, doc.text[s:e])
        return Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts, "fact", f.fact_id,
                         (doc.doc_id, f.char_start, f.char_end))

    def _cell_candidate(self, doc: CaseDoc, c: _Compiled, sc: Scorer, f: AtomicFact,
                        value: Any, shape: float) -> Candidate | None:
        row = max(3.0 * _label_score(c.rows, f.row_path), 2.0 * _label_score(c.terms, f.row_path))
        if not row:
            return None
        col = _label_score(c.cols, f.column_path)
        s, e = _row_span(doc, f)
        parts = sc.base(doc, f.char_start, f.char_end)
        parts.update({"row": row, "column": col, "shape": shape,
                      "unit": 0.5 if (f.currency or f.unit) else 0.0})
        value = self._money_extras(c, value, doc.text[s:e])
        return Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts, "fact", f.fact_id,
                         (doc.doc_id, f.char_start, f.char_end))

    def _enums(self, doc: CaseDoc, c: _Compiled, sc: Scorer) -> list[Candidate]:
        out = []
        for value, rx in c.enum_terms:
            for m in rx.finditer(doc.folded):
                s, e = doc.sentence(m.start(), m.end())
                parts = sc.base(doc, s, e)
                parts["term"] = sc.term(doc, s, e, m.start(), m.end())
                parts["pattern"] = max(parts["pattern"], 1.0)
                parts["shape"] = 1.0
                out.append(Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts,
                                     "enum", value, (doc.doc_id, m.start(), m.end())))
        return out

    def _spans(self, doc: CaseDoc, c: _Compiled, sc: Scorer) -> list[Candidate]:
        out = []
        seen: set[tuple[int, int]] = set()
        for rx in c.patterns:
            for m in rx.finditer(doc.text):
                if "value" in rx.groupindex and m.group("value"):
                    vs, ve = _trim_value(doc.text, m.start("value"), m.end("value"))
                else:
                    vs, ve = m.start(), m.end()
                s, e = doc.sentence(vs, ve)
                if (vs, ve) in seen or ve <= vs:
                    continue
                seen.add((vs, ve))
                parts = sc.base(doc, s, e)
                parts["term"] = sc.term(doc, s, e, vs, ve)
                parts["shape"] = 1.0
                out.append(Candidate(doc.text[vs:ve], (doc.cite(s, e),), sum(parts.values()), parts,
                                     "pattern", rx.pattern, (doc.doc_id, vs, ve)))
        return out

    def _clauses(self, doc: CaseDoc, c: _Compiled, sc: Scorer) -> list[Candidate]:
        """Clause candidates: the sentence that holds a pattern match or a trigger term,
        or a pattern's `value` group when it has one (the pattern then says where the
        clause ends). A sentence that is only a title ("8.18 Insurance.") stands for the
        first sentence of its body. A title of the enclosing clause or heading naming
        the field adds the `section` part (1.5 its own title, 1.0 an enclosing one)."""
        outline = self._outline(doc)
        out: list[Candidate] = []
        seen: set[tuple[int, int]] = set()

        def add(vs: int, ve: int, ms: int, me: int, origin: str, ref: str, pattern: bool) -> None:
            titled = False
            if origin == "clause" and _is_title(doc.text, vs, ve):
                body = _body_after(doc, ve)
                if body is None:
                    return
                (vs, ve), ms, me, titled = body, body[0], body[0], True
            if (vs, ve) in seen or ve <= vs:
                return
            seen.add((vs, ve))
            s, e = (vs, ve) if origin == "clause" else doc.sentence(vs, ve)
            s, e = min(s, vs), max(e, ve)
            parts = sc.base(doc, s, e)
            parts["section"] = outline.section(c.terms, vs)
            parts["pattern"] = 2.0 if pattern and not titled else 0.0
            # a pattern's own match is context too: "between X (“A”) and Y (“B”)" puts the
            # trigger of the second value in the match, not in the value's sentence
            parts["term"] = sc.term(doc, min(s, ms), e, vs if origin == "pattern" else ms,
                                    ve if origin == "pattern" else me)
            if titled:  # the trigger is in the title of the clause this sentence opens
                parts["term"] = max(parts["term"], 1.5)
            parts["shape"] = 1.0 if pattern and not titled else 0.5
            out.append(Candidate(doc.text[vs:ve], (doc.cite(vs, ve),), sum(parts.values()), parts,
                                 origin, ref, (doc.doc_id, vs, ve)))

        for rx in c.patterns:
            for m in rx.finditer(doc.text):
                if "value" in rx.groupindex and m.group("value"):
                    vs, ve = _trim_value(doc.text, m.start("value"), m.end("value"))
                    add(vs, ve, m.start(), m.end(), "pattern", rx.pattern, True)
                else:
                    vs, ve = doc.sentence(m.start(), m.end())
                    add(vs, ve, m.start(), m.end(), "clause", rx.pattern, True)
        if c.terms is not None:
            for m in c.terms.finditer(doc.folded):
                s, e = doc.sentence(m.start(), m.end())
                add(s, e, s, s, "clause", f"{s}:{e}", False)
        return out

    def _outline(self, doc: CaseDoc) -> _Outline:
        key = (doc.doc_id, id(doc.loaded))
        found = self._outlines.get(key)
        if found is None:
            found = self._outlines[key] = _Outline(doc)
        return found

    # ---- the record -------------------------------------------------------------------

    def _record(self, case: Case, spec: FieldSpec, cands: list[Candidate],
                run_id: str) -> FieldRecord:
        ident = self.identity(run_id)
        if not cands:
            return FieldRecord(field=spec.name, type=spec.type, value=None, status="absent",
                               confidence=0.0, provenance=(), extractor=ident, hard=spec.hard)
        if spec.type == "clause":
            return _clause_record(spec, cands, ident)
        groups: dict[str, list[Candidate]] = {}
        for x in cands:
            groups.setdefault(_core_key(x.value), []).append(x)
        ranked = []
        for key, xs in groups.items():
            xs.sort(key=lambda x: (-x.score, x.reading_order()))
            best = xs[0]
            passages = {(c.doc_id, c.char_start, c.char_end) for x in xs for c in x.citations}
            parts = dict(best.parts)
            if len(passages) > 1:
                parts["agreement"] = 0.5
            ranked.append((sum(parts.values()), key, best, xs, parts))
        ranked.sort(key=lambda t: (-t[0], t[2].reading_order()))
        score, _, best, xs, parts = ranked[0]
        provenance = _provenance(xs)
        runner = ranked[1] if len(ranked) > 1 else None
        confidence = min(1.0, max(0.0, score) / SCORE_SCALE)
        status = "present"
        margin = None
        runner_up = None
        alternatives: tuple[dict[str, Any], ...] = ()
        if runner is not None:
            r_score, _, r_best, r_xs, _ = runner
            margin = score - r_score
            runner_up = {"value": r_best.value, "score": round(r_score, 4), "ref": r_best.ref,
                         "origin": r_best.origin}
            share = max(0.0, r_score) / score if score > 0 else 1.0
            conflict = (share >= CONFLICT_RATIO
                        and _anchored(r_best.parts) >= 2.0 and _anchored(best.parts) >= 2.0)
            if conflict:
                status = "conflicting"
                provenance = tuple(sorted(provenance + _provenance(r_xs),
                                          key=lambda c: (c.doc_id, c.char_start)))
                alternatives = ({"value": r_best.value,
                                 "provenance": [c.to_dict() for c in _provenance(r_xs)]},)
            confidence *= 1.0 - 0.5 * share * share
        value = _merged_value(xs)
        return FieldRecord(
            field=spec.name, type=spec.type, value=value, status=status,
            confidence=round(confidence, 4), provenance=provenance, extractor=ident,
            score=score, parts=parts, margin=margin, runner_up=runner_up,
            alternatives=alternatives, value_span=best.value_span, hard=spec.hard,
        )


def _clause_record(spec: FieldSpec, cands: list[Candidate], ident: dict[str, Any]) -> FieldRecord:
    """Return the record of a clause field: the best passage, joined by the other
    passages (up to MAX_PROVENANCE, not overlapping) that score at least CLAUSE_KEEP of it
    and are anchored by a pattern or a near trigger, because a contract often states one
    kind of clause in several places. The value is their texts in reading order joined by
    CLAUSE_JOIN; the confidence is the weakest passage's; no runner-up share is taken off
    (a second clause of the same kind is not a doubt about the first)."""
    groups: dict[str, list[Candidate]] = {}
    for x in cands:
        groups.setdefault(x.key(), []).append(x)
    ranked = sorted((sorted(xs, key=lambda x: (-x.score, x.reading_order())) for xs in groups.values()),
                    key=lambda xs: (-xs[0].score, xs[0].reading_order()))
    best = ranked[0][0]
    chosen = [ranked[0]]
    rest = []
    for xs in ranked[1:]:
        x = xs[0]
        if (len(chosen) < MAX_PROVENANCE and x.score >= CLAUSE_KEEP * best.score
                and _anchored(x.parts) >= 2.0
                and not any(_overlap(x, ys[0]) for ys in chosen)):
            chosen.append(xs)
        else:
            rest.append(xs)
    chosen.sort(key=lambda xs: xs[0].reading_order())
    provenance = _provenance([xs[0] for xs in chosen] + [x for xs in chosen for x in xs[1:]])
    weakest = min(xs[0].score for xs in chosen)
    runner = rest[0][0] if rest else None
    confidence = min(1.0, max(0.0, weakest) / SCORE_SCALE)
    if runner is not None and best.score > 0:
        share = max(0.0, runner.score) / best.score
        confidence *= 1.0 - CLAUSE_DOUBT * share * share
    return FieldRecord(
        field=spec.name, type=spec.type, value=CLAUSE_JOIN.join(xs[0].value for xs in chosen),
        status="present", confidence=round(confidence, 4),
        provenance=provenance, extractor=ident, score=best.score, parts=dict(best.parts),
        margin=None if runner is None else best.score - runner.score,
        runner_up=None if runner is None else {"value": runner.value, "score": round(runner.score, 4),
                                               "ref": runner.ref, "origin": runner.origin},
        value_span=best.value_span, hard=spec.hard,
    )


def _overlap(a: Candidate, b: Candidate) -> bool:
    return any(x.doc_id == y.doc_id and x.char_start < y.char_end and y.char_start < x.char_end
               for x in a.citations for y in b.citations)


def _core_key(value: Any) -> str:
    """Return the identity of a value for agreement: a money amount without its extras."""
    if isinstance(value, dict) and "amount" in value:
        return value_key({"amount": value["amount"], "currency": value.get("currency")})
    return value_key(value)


def _merged_value(xs: list[Candidate]) -> Any:
    """Return the best candidate's value with the extras (basis, vat) other passages add."""
    value = xs[0].value
    if isinstance(value, dict) and "amount" in value:
        merged = dict(value)
        for x in xs[1:]:
            for k in ("basis", "vat"):
                if k not in merged and isinstance(x.value, dict) and k in x.value:
                    merged[k] = x.value[k]
        return merged
    return value


def _provenance(xs: list[Candidate]) -> tuple[Citation, ...]:
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


def _trim_value(text: str, s: int, e: int) -> tuple[int, int]:
    while s < e and (text[s].isspace() or text[s] in ",;:"):
        s += 1
    while e > s and (text[e - 1].isspace() or text[e - 1] in ".,;:"):
        e -= 1
    return s, e


def _row_span(doc: CaseDoc, f: AtomicFact) -> tuple[int, int]:
    """Return the span from the row's first cell to the end of the fact's cell."""
    el = doc.element_at(f.char_start)
    if el is None or el.row is None:
        return f.char_start, f.char_end
    table_loc = el.locator.rsplit(" r", 1)[0]
    start = el.char_start
    for other in doc.loaded.layer.elements:
        if (other.kind == "cell" and other.row == el.row and other.char_start < start
                and other.locator.rsplit(" r", 1)[0] == table_loc):
            start = other.char_start
    return start, max(el.char_end, f.char_end)


def _points_tables(facts: list[AtomicFact]) -> set[str]:
    """Return the tables whose point-valued cells of one column sum to 100."""
    sums: dict[tuple[str, tuple[str, ...]], float] = {}
    for f in facts:
        if (f.origin_type == "table_cell" and f.value_type == "number"
                and (f.unit or "").lower() in ("puntos", "points", "pts", "punto", "point")
                and f.normalized_value):
            key = (f.locator.split(" / ")[0], f.column_path)
            sums[key] = sums.get(key, 0.0) + float(f.normalized_value)
    return {k[0] for k, v in sums.items() if abs(v - 100.0) < 1e-6}


def search_router(store: Store, case: Case, *, k: int = ROUTE_K,
                  channels: Sequence[str] = ("bm25", "dense")) -> Router:
    """Return a router that ranks a case's passages for a field with authorized search."""
    from ..retrieve import search

    source_ids = case.source_ids()

    def route(spec: FieldSpec) -> dict[str, list[tuple[int, int, int]]]:
        bundle = search(store, spec.query_text(), case.principal,  # type: ignore[arg-type]
                        filters={"source_ids": source_ids}, k=k, channels=channels)
        out: dict[str, list[tuple[int, int, int]]] = {}
        for rank, item in enumerate(bundle.items, 1):
            out.setdefault(item.doc_id, []).append((item.char_start, item.char_end, rank))
        return out

    return route
