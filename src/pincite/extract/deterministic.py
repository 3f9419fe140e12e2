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

from collections.abc import Callable, Sequence
from typing import Any

from ..store import Store
from ..vocab import FieldStatus
from .blanks import Blank, find_blanks, fits, is_blank_value
from .case import Case, CaseDoc
from .clauses import Outline, clause_candidates, clause_record
from .fact_candidates import fact_candidates, row_span
from .positions import Structure, blank_candidates, labelled_candidates
from .readings import Readings, word_counts
from .records import Candidate, FieldRecord, value_key
from .schema import FieldSpec, Schema
from .scoring import (
    SCORE_SCALE,
    Compiled,
    Scorer,
    anchored,
    compile_field,
    merged_provenance,
    row_strength,
    trim_value,
)
from .typed import is_valid

NAME = "pincite.deterministic"
VERSION = "1.0"
RULES_VERSION = "rules-1"
ROUTE_K = 12
CONFLICT_RATIO = 0.85
MIN_ANCHOR = 1.0
VALUE_GROUP = 1.0    # a pattern's `value` group: it says where the value starts and ends
OWN_TRIGGER = 2.0    # an enum synonym that holds the field's trigger

Router = Callable[[FieldSpec], dict[str, list[tuple[int, int, int]]]]


class DeterministicExtractor:
    """Fills schema fields from a case with rules and score parts (no model)."""

    name = NAME
    version = VERSION
    rules_version = RULES_VERSION

    def __init__(self, *, router: Router | None = None) -> None:
        self.router = router
        self._outlines: dict[tuple[str, int], Outline] = {}
        self._structures: dict[tuple[str, int], tuple[Structure, list[Blank]]] = {}
        self._readings_of: dict[tuple[str, int], Readings] = {}
        self._gathered: tuple[tuple[int, str, int], tuple[list[Candidate], list[Candidate]]] | None = None

    def identity(self, run_id: str) -> dict[str, Any]:
        """Return the `extractor` object of records made by this extractor."""
        return {"name": self.name, "version": self.version, "rules_version": self.rules_version,
                "run_id": run_id}

    def extract(self, case: Case, schema: Schema, run_id: str) -> list[FieldRecord]:
        """Return one record per schema field, in schema order."""
        return [self.extract_field(case, spec, run_id) for spec in schema.fields]

    def extract_field(self, case: Case, spec: FieldSpec, run_id: str) -> FieldRecord:
        """Return the record of one field of a case."""
        values = self.candidates(case, spec)
        return self._record(case, spec, values, self.blanks(case, spec), run_id)

    def candidates(self, case: Case, spec: FieldSpec) -> list[Candidate]:
        """Return every anchored, well-typed candidate of one field, in discovery order
        (the record keeps only the winner and its runner-up; rankers need them all)."""
        return self._gather(case, spec)[0]

    def blanks(self, case: Case, spec: FieldSpec) -> list[Candidate]:
        """Return the blanks that stand where a value of the field would (value None,
        origin `blank`), anchored like values (`extract.blanks`, `extract.positions`)."""
        return self._gather(case, spec)[1]

    def _gather(self, case: Case, spec: FieldSpec) -> tuple[list[Candidate], list[Candidate]]:
        key = (id(case), spec.name, id(spec))
        if self._gathered is not None and self._gathered[0] == key:
            return self._gathered[1]
        found = self._find(case, spec)
        self._gathered = (key, found)
        return found

    def _find(self, case: Case, spec: FieldSpec) -> tuple[list[Candidate], list[Candidate]]:
        c = compile_field(spec)
        routes = self.router(spec) if self.router is not None else {}
        scorer = Scorer(c, routes)
        cands: list[Candidate] = []
        blanks: list[Candidate] = []
        for doc in case.docs:
            st, doc_blanks = self._structure(doc)
            fitting = [b for b in doc_blanks
                       if fits(spec.type, b.kind, spec.unit) and not st.in_form(b.char_start)]
            cands.extend(self._value_patterns(doc, c, scorer))
            if spec.type in ("money", "number", "percent", "date", "datetime", "duration"):
                cands.extend(self._facts(doc, c, scorer, st, fitting))
            if spec.type == "number":
                cands.extend(word_counts(doc, c, scorer))
            elif spec.type == "enum":
                cands.extend(self._enums(doc, c, scorer, st))
            elif spec.type == "clause":
                cands.extend(clause_candidates(doc, c, scorer, self._outline(doc)))
            elif spec.type in ("text", "entity"):
                cands.extend(self._spans(doc, c, scorer))
                cands.extend(self._labelled(doc, c, scorer, st))
            if spec.type != "clause":
                blanks.extend(self._blank_positions(doc, c, scorer, st, fitting))
        values = []
        for x in cands:
            if anchored(x.parts) < MIN_ANCHOR:
                continue
            if (spec.type != "clause" and isinstance(x.value, str)
                    and x.origin in ("pattern", "label") and is_blank_value(x.value)):
                blanks.append(Candidate(None, x.citations, x.score, x.parts, "blank", x.ref,
                                        x.value_span))
            elif is_valid(spec.type, x.value, spec.values):
                values.append(x)
        return values, blanks

    # ---- candidates -------------------------------------------------------------------

    def _value_patterns(self, doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
        out = []
        for rx, value in c.value_patterns:
            for m in rx.finditer(doc.text):
                s, e = doc.sentence(m.start(), m.end())
                s, e = min(s, m.start()), max(e, m.end())  # "División en lotes | No": two cells
                parts = sc.base(doc, s, e)
                parts["value_pattern"] = 3.0
                parts["term"] = sc.term(doc, s, e, m.start(), m.end())
                parts["shape"] = 1.0
                out.append(Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts,
                                     "value_pattern", rx.pattern, (doc.doc_id, m.start(), m.end())))
        return out

    def _facts(self, doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure,
               blanks: list[Blank]) -> list[Candidate]:
        return fact_candidates(doc, c, sc, st, self._readings(doc), blanks)

    def _enums(self, doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure) -> list[Candidate]:
        """Enum values from their synonyms: where two values' synonyms overlap, the longer
        match wins ("procedimiento abierto simplificado" is not "procedimiento abierto");
        a synonym without the field's trigger in it ("abierto") counts only with a trigger
        in its sentence, its label or its table row."""
        found = [(m.start(), m.end(), value) for value, rx in c.enum_terms
                 for m in rx.finditer(doc.folded)]
        out = []
        for ms, me, value in found:
            if any(s2 <= ms and me <= e2 and e2 - s2 > me - ms and v2 != value
                   for s2, e2, v2 in found):
                continue
            s, e = doc.sentence(ms, me)
            parts = sc.base(doc, s, e)
            parts["term"] = sc.term(doc, s, e, ms, me)
            labels = st.labels(ms)
            row = row_strength(c, labels)
            own = c.terms is not None and c.terms.search(doc.folded, ms, me) is not None
            if not own and not parts["term"] and not row:
                continue
            if own:  # "procedimiento abierto" names the field and its value at once
                parts["term"] = max(parts["term"], OWN_TRIGGER)
            el = doc.element_at(ms)
            if row:
                parts["row"] = row
                span = st.label_span(ms) if el is None or el.kind != "cell" else row_span(doc, ms, me)
                if span is not None:
                    s, e = span
            parts["pattern"] = max(parts["pattern"], 1.0)
            parts["shape"] = 1.0
            out.append(Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts,
                                 "enum", value, (doc.doc_id, ms, me)))
        return out

    def _labelled(self, doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure) -> list[Candidate]:
        return labelled_candidates(doc, c, sc, st)

    def _blank_positions(self, doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure,
                         blanks: list[Blank]) -> list[Candidate]:
        if not blanks:
            return []
        readings = self._readings(doc)
        starts = [f.char_start for f in doc.facts
                  if readings.value(c.spec.type, f, c.spec.unit) is not None]
        return blank_candidates(doc, c, sc, st, blanks, starts)

    def _readings(self, doc: CaseDoc) -> Readings:
        key = (doc.doc_id, id(doc.loaded))
        found = self._readings_of.get(key)
        if found is None:
            found = self._readings_of[key] = Readings(doc)
        return found

    def _structure(self, doc: CaseDoc) -> tuple[Structure, list[Blank]]:
        key = (doc.doc_id, id(doc.loaded))
        found = self._structures.get(key)
        if found is None:
            found = self._structures[key] = (Structure(doc), find_blanks(doc.text))
        return found

    def _spans(self, doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
        out = []
        seen: set[tuple[int, int]] = set()
        for rx in c.patterns:
            for m in rx.finditer(doc.text):
                if "value" in rx.groupindex and m.group("value"):
                    vs, ve = trim_value(doc.text, m.start("value"), m.end("value"))
                else:
                    vs, ve = m.start(), m.end()
                s, e = doc.sentence(vs, ve)
                if (vs, ve) in seen or ve <= vs:
                    continue
                seen.add((vs, ve))
                parts = sc.base(doc, s, e)
                parts["term"] = sc.term(doc, s, e, vs, ve)
                parts["shape"] = 1.0
                if "value" in rx.groupindex:  # the pattern says where the value is
                    parts["value_group"] = VALUE_GROUP
                out.append(Candidate(doc.text[vs:ve], (doc.cite(s, e),), sum(parts.values()), parts,
                                     "pattern", rx.pattern, (doc.doc_id, vs, ve)))
        return out

    def _outline(self, doc: CaseDoc) -> Outline:
        key = (doc.doc_id, id(doc.loaded))
        found = self._outlines.get(key)
        if found is None:
            found = self._outlines[key] = Outline(doc)
        return found

    # ---- the record -------------------------------------------------------------------

    def _record(self, case: Case, spec: FieldSpec, cands: list[Candidate],
                blanks: list[Candidate], run_id: str) -> FieldRecord:
        ident = self.identity(run_id)
        top = max((x.score for x in cands), default=None)
        blank = min(blanks, key=lambda x: (-x.score, x.reading_order()), default=None)
        if blank is not None and (top is None or blank.score > top):
            return _blank_record(spec, blank, blanks, ident)
        if not cands:
            return FieldRecord(field=spec.name, type=spec.type, value=None, status=FieldStatus.ABSENT,
                               confidence=0.0, provenance=(), extractor=ident, hard=spec.hard)
        if spec.type == "clause":
            return clause_record(spec, cands, ident)
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
        provenance = merged_provenance(xs)
        runner = ranked[1] if len(ranked) > 1 else None
        confidence = min(1.0, max(0.0, score) / SCORE_SCALE)
        status = FieldStatus.PRESENT
        margin = None
        runner_up = None
        alternatives: tuple[dict[str, Any], ...] = ()
        if runner is not None:
            r_score, _, r_best, r_xs, _ = runner
            margin = score - r_score
            runner_up = {"value": r_best.value, "score": round(r_score, 4), "ref": r_best.ref,
                         "origin": r_best.origin}
            share = max(0.0, r_score) / score if score > 0 else 1.0
            if anchored(r_best.parts) < 2.0:
                share = 0.0  # a value whose trigger a nearer value took is no competitor
            conflict = (share >= CONFLICT_RATIO
                        and anchored(r_best.parts) >= 2.0 and anchored(best.parts) >= 2.0)
            if conflict:
                status = FieldStatus.CONFLICTING
                provenance = tuple(sorted(provenance + merged_provenance(r_xs),
                                          key=lambda c: (c.doc_id, c.char_start)))
                alternatives = ({"value": r_best.value,
                                 "provenance": [c.to_dict() for c in merged_provenance(r_xs)]},)
            confidence *= 1.0 - 0.5 * share * share
        value = _merged_value(xs)
        return FieldRecord(
            field=spec.name, type=spec.type, value=value, status=status,
            confidence=round(confidence, 4), provenance=provenance, extractor=ident,
            score=score, parts=parts, margin=margin, runner_up=runner_up,
            alternatives=alternatives, value_span=best.value_span, hard=spec.hard,
        )


def _blank_record(spec: FieldSpec, best: Candidate, blanks: list[Candidate],
                  ident: dict[str, Any]) -> FieldRecord:
    """Return the record of a field whose strongest evidence is a blank: absent, citing
    the blank(s) that stand where the value goes (`extract.decide`: blank_in_document)."""
    ranked = sorted(blanks, key=lambda x: (-x.score, x.reading_order()))
    kept = [x for x in ranked if x.score >= CONFLICT_RATIO * best.score]
    return FieldRecord(field=spec.name, type=spec.type, value=None, status=FieldStatus.ABSENT,
                       confidence=0.0, provenance=merged_provenance(kept), extractor=ident,
                       score=best.score, parts=dict(best.parts), value_span=best.value_span,
                       hard=spec.hard)


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


def search_router(store: Store, case: Case, *, k: int = ROUTE_K,
                  channels: Sequence[str] = ("bm25", "dense")) -> Router:
    """Return a router that ranks a case's passages for a field with authorized search."""
    from ..retrieve.search import search

    source_ids = case.source_ids()

    def route(spec: FieldSpec) -> dict[str, list[tuple[int, int, int]]]:
        bundle = search(store, spec.query_text(), case.principal,  # type: ignore[arg-type]
                        filters={"source_ids": source_ids}, k=k, channels=channels)
        out: dict[str, list[tuple[int, int, int]]] = {}
        for rank, item in enumerate(bundle.items, 1):
            out.setdefault(item.doc_id, []).append((item.char_start, item.char_end, rank))
        return out

    return route
