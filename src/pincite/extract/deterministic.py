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

from ..facts.atomic import AtomicFact
from ..store import Store
from .case import Case, CaseDoc
from .clauses import Outline, clause_candidates, clause_record
from .records import Candidate, FieldRecord, Status, value_key
from .schema import FieldSpec, Schema
from .scoring import (
    SCORE_SCALE,
    Compiled,
    Scorer,
    anchored,
    compile_field,
    label_score,
    merged_provenance,
    trim_value,
)
from .typed import fact_value, is_valid, vat_of

NAME = "pincite.deterministic"
VERSION = "1.0"
RULES_VERSION = "rules-1"
ROUTE_K = 12
CONFLICT_RATIO = 0.85
MIN_ANCHOR = 1.0

Router = Callable[[FieldSpec], dict[str, list[tuple[int, int, int]]]]


class DeterministicExtractor:
    """Fills schema fields from a case with rules and score parts (no model)."""

    name = NAME
    version = VERSION
    rules_version = RULES_VERSION

    def __init__(self, *, router: Router | None = None) -> None:
        self.router = router
        self._outlines: dict[tuple[str, int], Outline] = {}

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
        c = compile_field(spec)
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
                cands.extend(clause_candidates(doc, c, scorer, self._outline(doc)))
            elif spec.type in ("text", "entity"):
                cands.extend(self._spans(doc, c, scorer))
        return [x for x in cands if anchored(x.parts) >= MIN_ANCHOR
                and is_valid(spec.type, x.value, spec.values)]

    # ---- candidates -------------------------------------------------------------------

    def _value_patterns(self, doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
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

    def _facts(self, doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
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

    def _money_extras(self, c: Compiled, value: Any, passage: str) -> Any:
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

    def _prose_candidate(self, doc: CaseDoc, c: Compiled, sc: Scorer, f: AtomicFact,
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

    def _cell_candidate(self, doc: CaseDoc, c: Compiled, sc: Scorer, f: AtomicFact,
                        value: Any, shape: float) -> Candidate | None:
        row = max(3.0 * label_score(c.rows, f.row_path), 2.0 * label_score(c.terms, f.row_path))
        if not row:
            return None
        col = label_score(c.cols, f.column_path)
        s, e = _row_span(doc, f)
        parts = sc.base(doc, f.char_start, f.char_end)
        parts.update({"row": row, "column": col, "shape": shape,
                      "unit": 0.5 if (f.currency or f.unit) else 0.0})
        value = self._money_extras(c, value, doc.text[s:e])
        return Candidate(value, (doc.cite(s, e),), sum(parts.values()), parts, "fact", f.fact_id,
                         (doc.doc_id, f.char_start, f.char_end))

    def _enums(self, doc: CaseDoc, c: Compiled, sc: Scorer) -> list[Candidate]:
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
                run_id: str) -> FieldRecord:
        ident = self.identity(run_id)
        if not cands:
            return FieldRecord(field=spec.name, type=spec.type, value=None, status="absent",
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
        status: Status = "present"
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
                        and anchored(r_best.parts) >= 2.0 and anchored(best.parts) >= 2.0)
            if conflict:
                status = "conflicting"
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
