"""Value positions: where a document puts the value of a field, read from its structure.

A value is tied to its field by where it sits, not only by a trigger in its sentence:

- **a label before it**: a short label element right before a short value element (an
  HTML `<dt>`/`<dd>` pair, a "Label" paragraph over its value), read as a table row label;
- **a label inline**: "Objeto del contrato: Servicio de …" — a trigger followed by a colon
  states a text or entity value up to the end of its sentence (`labelled_spans`);
- **a table row**: a cell's row labels (`Element.row_path`);
- **a heading**: the first value of the field's type under a heading that names the field
  ("CLÁUSULA QUINTA.- PLAZO DE EJECUCIÓN" → "en un plazo de SEIS (6) MESES");
- **a form to fill**: text under a heading that names a form the bidder fills in ("Form of
  Tender", "Modelo de proposición económica", "Declaración responsable") states the
  bidder's offer, not the tender's conditions: its blanks are never the document's.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from ..model import Element
from .blanks import Blank
from .case import CaseDoc, fold
from .records import Candidate
from .scoring import Compiled, Scorer, row_strength, trim_value

LABEL_MAX_CHARS = 90
LABEL_MAX_WORDS = 10
VALUE_MAX_CHARS = 300
_LEAF = ("paragraph", "list_item")
_FORM_HEADING = re.compile(
    r"\b(?:form\s+of\s+(?:tender|bid|offer|proposal|quotation|agreement|contract|guarantee|bond)"
    r"|(?:bid|tender|offer|proposal|quotation|price)\s+form|formulario"
    r"|modelo\s+de\s+(?:proposicion|oferta|declaracion|aval|garantia|contrato|compromiso)"
    r"|declaracion\s+responsable)\b")
_INLINE_LABEL_END = re.compile(r"[ \t\xa0]*(?:\([^)\n]{0,40}\)[ \t\xa0]*)?:[ \t\xa0]*")


class Structure:
    """The label and form lookups of one document (built once per document)."""

    def __init__(self, doc: CaseDoc) -> None:
        self.doc = doc
        leaves = [el for el in doc.loaded.layer.elements if el.kind in _LEAF]
        leaves.sort(key=lambda el: el.char_start)
        self.leaves = leaves
        self.starts = [el.char_start for el in leaves]
        self._rows: dict[tuple[str, int], list[Element]] | None = None

    def _leaf_at(self, pos: int) -> int | None:
        i = bisect.bisect_right(self.starts, pos) - 1
        if i >= 0 and self.leaves[i].char_start <= pos < self.leaves[i].char_end:
            return i
        return None

    def label_before(self, pos: int) -> Element | None:
        """Return the label element right before the short value element at `pos`, or None."""
        i = self._leaf_at(pos)
        if i is None or i == 0:
            return None
        value, label = self.leaves[i], self.leaves[i - 1]
        text = self.doc.text
        between = text[label.char_end:value.char_start]
        if between.strip() or label.heading_path != value.heading_path:
            return None
        label_text = text[label.char_start:label.char_end].rstrip()
        words = label_text.split()
        if (":" in label_text[:-1]  # "Issued by: X" states its own value
                or value.char_end - value.char_start > VALUE_MAX_CHARS
                or label.char_end - label.char_start > LABEL_MAX_CHARS
                or not words or len(words) > LABEL_MAX_WORDS
                or text[label.char_end - 1] in ".;!?"):
            return None
        return label

    def labels(self, pos: int) -> tuple[str, ...]:
        """Return the row labels of the value at `pos`: a cell's row path, else the label
        element before its element; () when it has none."""
        el = self.doc.element_at(pos)
        if el is not None and el.kind == "cell":
            return tuple(el.row_path) or self._left_cells(el)
        label = self.label_before(pos)
        if label is None:
            return ()
        return (self.doc.text[label.char_start:label.char_end],)

    def _left_cells(self, el: Element) -> tuple[str, ...]:
        """Return the texts of the cells left of `el` in its row: the labels of a key/value
        table whose first row the parser read as a header."""
        if self._rows is None:
            self._rows = {}
            for other in self.doc.loaded.layer.elements:
                if other.kind == "cell" and other.row is not None:
                    key = (other.locator.rsplit(" r", 1)[0], other.row)
                    self._rows.setdefault(key, []).append(other)
        if el.row is None:
            return ()
        row = self._rows.get((el.locator.rsplit(" r", 1)[0], el.row), [])
        text = self.doc.text
        return tuple(text[c.char_start:c.char_end] for c in sorted(row, key=lambda c: c.char_start)
                     if c.char_start < el.char_start)

    def label_span(self, pos: int) -> tuple[int, int] | None:
        """Return the span from a value element's label to its end (what a citation quotes)."""
        label = self.label_before(pos)
        i = self._leaf_at(pos)
        if label is None or i is None:
            return None
        return label.char_start, self.leaves[i].char_end

    def in_form(self, pos: int) -> bool:
        """Return True when `pos` sits under a heading naming a form the bidder fills in."""
        el = self.doc.element_at(pos)
        return el is not None and any(_FORM_HEADING.search(fold(h)) for h in el.heading_path)


def inline_label_end(folded: str, end: int) -> int | None:
    """Return where the value starts when a trigger ending at `end` is an inline label
    ("Órgano de contratación: …", "Plazo (días): …"), else None."""
    m = _INLINE_LABEL_END.match(folded, end, min(len(folded), end + 60))
    return m.end() if m else None


# ---- candidates read from positions ---------------------------------------------------------


def labelled_candidates(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure) -> list[Candidate]:
    """Text and entity values stated by position: after an inline label ("Objeto del
    contrato: …", to the end of its sentence), in the value element after a label element,
    or in a table cell whose row names the field (the whole element or cell)."""
    out: list[Candidate] = []
    text = doc.text
    if c.terms is not None:
        for m in c.terms.finditer(doc.folded):
            vs = inline_label_end(doc.folded, m.end())
            if vs is None:
                continue
            s, e = doc.sentence(m.start(), m.end())
            vs, ve = trim_value(text, vs, e)
            if ve - vs < 3:
                continue
            parts = sc.base(doc, s, e)
            parts.update({"term": 3.0, "shape": 1.0})
            out.append(Candidate(text[vs:ve], (doc.cite(s, ve),), sum(parts.values()), parts,
                                 "label", "inline", (doc.doc_id, vs, ve)))
    for el in doc.loaded.layer.elements:
        if el.kind == "cell":
            if el.col is None or el.col < 2:
                continue
            labels: tuple[str, ...] = st.labels(el.char_start)
            span = None
        elif el.kind in _LEAF:
            labels = st.labels(el.char_start)
            span = st.label_span(el.char_start)
        else:
            continue
        row = row_strength(c, labels)
        if not row:
            continue
        vs, ve = trim_value(text, el.char_start, el.char_end)
        if ve - vs < 3 or ve - vs > VALUE_MAX_CHARS:
            continue
        if span is not None:
            s, e = span
        else:
            s, e = row_start(doc, el), ve
        parts = sc.base(doc, vs, ve)
        parts.update({"row": row, "shape": 1.0})
        out.append(Candidate(text[vs:ve], (doc.cite(s, e),), sum(parts.values()), parts,
                             "label", el.locator, (doc.doc_id, vs, ve)))
    return out


def row_start(doc: CaseDoc, el: Element) -> int:
    """Return where the table row of cell `el` starts: its first cell's offset."""
    table_loc = el.locator.rsplit(" r", 1)[0]
    s = el.char_start
    for other in doc.loaded.layer.elements:
        if (other.kind == "cell" and other.row == el.row and other.char_start < s
                and other.locator.rsplit(" r", 1)[0] == table_loc):
            s = other.char_start
    return s


def blank_candidates(doc: CaseDoc, c: Compiled, sc: Scorer, st: Structure,
                     blanks: Sequence[Blank], value_starts: Sequence[int]) -> list[Candidate]:
    """Blanks that stand where a value of the field goes: tied to it like a value (a table
    row, a label element, a trigger in the sentence with no other value position between).
    `blanks` are the document's blanks that fit the field's type, outside forms."""
    out: list[Candidate] = []
    blockers = sorted([*value_starts, *(b.char_start for b in blanks)])
    for b in blanks:
        labels = st.labels(b.char_start)
        row = row_strength(c, labels)
        el = doc.element_at(b.char_start)
        s, e = doc.sentence(b.char_start, b.char_end)
        others = [x for x in blockers if x != b.char_start]
        term = sc.term(doc, s, e, b.char_start, b.char_end, others)
        if row and el is not None and el.kind == "cell":
            s, e = row_start(doc, el), max(el.char_end, b.char_end)
        elif row:
            span = st.label_span(b.char_start)
            if span is not None:
                s, e = span
        parts = sc.base(doc, s, e)
        if not row and term < 2.0 and not parts["pattern"]:
            continue  # a trigger somewhere in the sentence is not enough
        parts.update({"term": term, "row": row, "shape": 1.0 if b.kind != "any" else 0.8})
        out.append(Candidate(None, (doc.cite(s, e),), sum(parts.values()), parts, "blank",
                             b.text, (doc.doc_id, b.char_start, b.char_end)))
    return out
