"""Clause fields: the sentence that states a kind of clause, found by patterns, trigger
terms and the titles of numbered clauses, and the record that keeps the passages a
contract states it in.
"""

from __future__ import annotations

import bisect
import re
from typing import Any

from ..vocab import FieldStatus, RecordFlag
from .blanks import is_blank_value
from .case import CaseDoc, fold
from .records import Candidate, FieldRecord
from .schema import FieldSpec
from .scoring import (
    MAX_PROVENANCE,
    SCORE_SCALE,
    Compiled,
    Scorer,
    anchored,
    merged_provenance,
    trim_value,
)

CLAUSE_KEEP = 0.9
CLAUSE_JOIN = " … "
CLAUSE_DOUBT = 0.5


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


def is_title(text: str, s: int, e: int) -> bool:
    """Return True when `[s, e)` is a title or too short to be a clause on its own."""
    words = _TITLE_WORD.findall(text[s:e])
    if len(words) < MIN_CLAUSE_WORDS:
        return True
    title = clause_title(text, s, e)
    return bool(title) and len(_TITLE_WORD.findall(title)) >= len(words) - 1


def body_after(doc: CaseDoc, pos: int) -> tuple[int, int] | None:
    """Return the sentence that starts the text after a title ending at `pos`."""
    text = doc.text
    limit = min(len(text), pos + 200)
    while pos < limit and (text[pos].isspace() or text[pos] in "-_=.*"):
        pos += 1
    if pos >= limit:
        return None
    s, e = doc.sentence(pos, pos + 1)
    return None if is_title(text, s, e) else (s, e)


class Outline:
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


def clause_candidates(doc: CaseDoc, c: Compiled, sc: Scorer, outline: Outline) -> list[Candidate]:
    """Clause candidates: the sentence that holds a pattern match or a trigger term,
    or a pattern's `value` group when it has one (the pattern then says where the
    clause ends). A sentence that is only a title ("8.18 Insurance.") stands for the
    first sentence of its body. A title of the enclosing clause or heading naming
    the field adds the `section` part (1.5 its own title, 1.0 an enclosing one)."""
    out: list[Candidate] = []
    seen: set[tuple[int, int]] = set()

    def add(vs: int, ve: int, ms: int, me: int, origin: str, ref: str, pattern: bool) -> None:
        titled = False
        if origin == "clause" and is_title(doc.text, vs, ve):
            body = body_after(doc, ve)
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
                vs, ve = trim_value(doc.text, m.start("value"), m.end("value"))
                add(vs, ve, m.start(), m.end(), "pattern", rx.pattern, True)
            else:
                vs, ve = doc.sentence(m.start(), m.end())
                add(vs, ve, m.start(), m.end(), "clause", rx.pattern, True)
    if c.terms is not None:
        for m in c.terms.finditer(doc.folded):
            s, e = doc.sentence(m.start(), m.end())
            add(s, e, s, s, "clause", f"{s}:{e}", False)
    return out


def clause_record(spec: FieldSpec, cands: list[Candidate], ident: dict[str, Any]) -> FieldRecord:
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
    if best.origin == "pattern" and is_blank_value(best.value):
        # the value position the pattern reads ("made this ____ day of ______, 2013") is a
        # blank: the document does not state it (`extract.decide`: blank_in_document)
        return FieldRecord(field=spec.name, type=spec.type, value=None, status=FieldStatus.ABSENT,
                           confidence=0.0, provenance=best.citations, extractor=ident,
                           score=best.score, parts=dict(best.parts), value_span=best.value_span,
                           hard=spec.hard)
    chosen = [ranked[0]]
    rest = []
    for xs in ranked[1:]:
        x = xs[0]
        if (len(chosen) < MAX_PROVENANCE and x.score >= CLAUSE_KEEP * best.score
                and anchored(x.parts) >= 2.0
                and not any(overlap(x, ys[0]) for ys in chosen)):
            chosen.append(xs)
        else:
            rest.append(xs)
    chosen.sort(key=lambda xs: xs[0].reading_order())
    provenance = merged_provenance([xs[0] for xs in chosen] + [x for xs in chosen for x in xs[1:]])
    weakest = min(xs[0].score for xs in chosen)
    runner = rest[0][0] if rest else None
    confidence = min(1.0, max(0.0, weakest) / SCORE_SCALE)
    if runner is not None and best.score > 0:
        share = max(0.0, runner.score) / best.score
        confidence *= 1.0 - CLAUSE_DOUBT * share * share
    return FieldRecord(
        field=spec.name, type=spec.type, value=CLAUSE_JOIN.join(xs[0].value for xs in chosen),
        status=FieldStatus.PRESENT, confidence=round(confidence, 4),
        provenance=provenance, extractor=ident, score=best.score, parts=dict(best.parts),
        margin=None if runner is None else best.score - runner.score,
        runner_up=None if runner is None else {"value": runner.value, "score": round(runner.score, 4),
                                               "ref": runner.ref, "origin": runner.origin},
        value_span=best.value_span, hard=spec.hard,
        flags=(RecordFlag.TERM_ONLY,) if spec.patterns and not best.parts.get("pattern") else (),
    )


def overlap(a: Candidate, b: Candidate) -> bool:
    return any(x.doc_id == y.doc_id and x.char_start < y.char_end and y.char_start < x.char_end
               for x in a.citations for y in b.citations)
