"""Atomic facts: the smallest units that can support a written value.

`extract_facts(layer, doc_id)` returns, in text order:
- one fact per table cell with a value that is not a header cell (`origin_type`
  "table_cell"): typed when the whole cell is one value (`450.000 €` → money), else
  `text`; the typed values inside a text cell become facts of their own; the table's
  `scale` and `unit` (table element `meta`) apply to plain numbers and amounts (a unit
  inherited from the table, not written in the cell, is flagged `unit_from_table`);
- one fact per typed value in prose (headings, paragraphs, list items: "prose"), with
  `section_path` = the heading path plus the clause locator.

A fact's span `[char_start, char_end)` is exactly its `value` in the text layer, so
`pincite.verify.citation_for(rev, loaded, fact.char_start, fact.char_end)` cites it.
`fact_id` is stable for a revision and text layer: a hash of (doc_id, text layer, span,
value type).

Header cells: a cell whose `meta["header"]` is set; else, when the table's `meta` gives
`header_rows`/`header_cols`, the cells in those rows/columns; else, in a table of at least
2×2 cells, row 1 and column 1. When a cell carries no row/column path, one is taken from
those header cells.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from ..cite.compare import comparison_form
from ..cite.locate import LocatorIndex
from ..model import Box, Element, TextLayer
from ..parse.layout import clause_mark
from ..parse.tables.cues import DIMENSIONS
from ..values import (
    SCALES,
    Qualifier,
    Value,
    canonical,
    currency_code,
    date_order_of,
    find_values,
    guess_lang,
    parse_value,
)
from ..vocab import ComparisonForm, ElementKind

SCHEMA_NAME = "pincite.facts"
SCHEMA_VERSION = 1
PROSE_KINDS = (ElementKind.HEADING, ElementKind.PARAGRAPH, ElementKind.LIST_ITEM)
CONTEXT_CHARS = 48

_CLAUSE_PREFIX_RE = re.compile(
    r"\s{0,8}(?:(?:article|artículo|articulo|art\.|clause|cláusula|clausula|section|sección"
    r"|seccion|§)\s{0,3})?[0-9]{1,3}(?:\.[0-9]{1,3}){0,5}(?:\.[a-z])?[.)]?", re.I)


@dataclass(frozen=True, slots=True)
class AtomicFact:
    """One citable value: `value` is `text[char_start:char_end]` of its text layer."""

    fact_id: str
    doc_id: str
    text_layer: str
    origin_type: str
    value_type: str
    value: str
    normalized_value: str | None
    unit: str | None
    currency: str | None
    scale: str | None
    detail: str | None
    qualifier: str | None
    qualifier_start: int | None
    qualifier_end: int | None
    qualifiers: tuple[Qualifier, ...]
    negated: bool
    row_path: tuple[str, ...]
    column_path: tuple[str, ...]
    section_path: tuple[str, ...]
    locator: str
    page: int | None
    bbox: Box | None
    char_start: int
    char_end: int
    search_text: str
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the fact as a JSON object."""
        return {
            "fact_id": self.fact_id, "doc_id": self.doc_id, "text_layer": self.text_layer,
            "origin_type": self.origin_type, "value_type": self.value_type,
            "value": self.value, "normalized_value": self.normalized_value,
            "unit": self.unit, "currency": self.currency, "scale": self.scale,
            "detail": self.detail, "qualifier": self.qualifier,
            "qualifier_start": self.qualifier_start, "qualifier_end": self.qualifier_end,
            "qualifiers": [q.to_dict() for q in self.qualifiers], "negated": self.negated,
            "row_path": list(self.row_path), "column_path": list(self.column_path),
            "section_path": list(self.section_path), "locator": self.locator,
            "page": self.page, "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "char_start": self.char_start, "char_end": self.char_end,
            "search_text": self.search_text, "flags": list(self.flags),
        }


def facts_json(facts: Iterable[AtomicFact]) -> dict[str, Any]:
    """Return facts as the persisted JSON document (with `schema_name` and `version`)."""
    return {"schema_name": SCHEMA_NAME, "version": SCHEMA_VERSION,
            "facts": [f.to_dict() for f in facts]}


def fact_id(doc_id: str, text_layer: str, char_start: int, char_end: int,
            value_type: str) -> str:
    """Return the stable id of a fact."""
    key = f"{doc_id}\x00{text_layer}\x00{char_start}\x00{char_end}\x00{value_type}"
    return "fact_" + hashlib.blake2b(key.encode(), digest_size=8).hexdigest()


# ---- structure helpers ------------------------------------------------------------------

class _Clauses:
    """Innermost clause containing an offset, for offsets asked in increasing order."""

    def __init__(self, elements: Iterable[Element]) -> None:
        self._clauses = sorted((e for e in elements if e.kind == "clause"),
                               key=lambda e: (e.char_start, -e.char_end))
        self._i = 0
        self._stack: list[Element] = []

    def at(self, pos: int) -> Element | None:
        while self._i < len(self._clauses) and self._clauses[self._i].char_start <= pos:
            c = self._clauses[self._i]
            while self._stack and self._stack[-1].char_end <= c.char_start:
                self._stack.pop()
            self._stack.append(c)
            self._i += 1
        while self._stack and self._stack[-1].char_end <= pos:
            self._stack.pop()
        return self._stack[-1] if self._stack else None


def _section(el: Element, clause: Element | None) -> tuple[str, ...]:
    path = tuple(el.heading_path)
    if clause is not None and clause.locator not in path:
        path += (clause.locator,)
    return path


def _where(layer: TextLayer, start: int, end: int, el: Element) -> tuple[int | None, Box | None]:
    if layer.geometry is not None:
        spans = layer.geometry.span_boxes(start, end)
        if spans:
            return spans[0]
    return el.page, None


def _words_around(text: str, start: int, end: int, lo: int, hi: int) -> str:
    a = max(lo, start - CONTEXT_CHARS)
    b = min(hi, end + CONTEXT_CHARS)
    before = text[a:start].split()
    after = text[end:b].split()
    if a > lo and before:
        before = before[1:]  # a cut word
    if b < hi and after:
        after = after[:-1]
    return " ".join(before + after)


@dataclass(slots=True)
class _Table:
    element: Element
    cells: list[Element]
    header: dict[tuple[int, int], bool]
    by_pos: dict[tuple[int, int], Element]


def _header_of(table: Element, cells: list[Element]) -> dict[tuple[int, int], bool]:
    meta = table.meta or {}
    cell_info = any((c.meta or {}).get("header") for c in cells)
    hr, hc = meta.get("header_rows"), meta.get("header_cols")
    n_rows = max((c.row or 0 for c in cells), default=0)
    n_cols = max((c.col or 0 for c in cells), default=0)
    out: dict[tuple[int, int], bool] = {}
    for c in cells:
        r, k = c.row or 0, c.col or 0
        if cell_info:
            h = bool((c.meta or {}).get("header"))
        elif isinstance(hr, int) or isinstance(hc, int):
            h = r <= (hr or 0) or k <= (hc or 0)
        else:
            h = n_rows >= 2 and n_cols >= 2 and (r == 1 or k == 1)
        out[(r, k)] = h
    return out


def _tables(layer: TextLayer) -> list[_Table]:
    tables: list[_Table] = []
    els = sorted(layer.elements, key=lambda e: (e.char_start, -e.char_end))
    current: _Table | None = None
    for e in els:
        if e.kind == "table":
            current = _Table(e, [], {}, {})
            tables.append(current)
        elif e.kind == "cell" and current is not None and (
                current.element.char_start <= e.char_start < current.element.char_end):
            current.cells.append(e)
    for t in tables:
        t.header = _header_of(t.element, t.cells)
        t.by_pos = {(c.row or 0, c.col or 0): c for c in t.cells}
    return tables


def _paths(t: _Table, cell: Element, text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    if cell.row_path or cell.column_path:
        return tuple(cell.row_path), tuple(cell.column_path)
    r, k = cell.row or 0, cell.col or 0

    def label(pos: tuple[int, int]) -> str | None:
        el = t.by_pos.get(pos)
        return " ".join(text[el.char_start:el.char_end].split()) if el else None

    row = tuple(x for kk in range(1, k) if t.header.get((r, kk))
                and (x := label((r, kk))))
    col = tuple(x for rr in range(1, r) if t.header.get((rr, k))
                and (x := label((rr, k))))
    return row, col


# ---- extraction --------------------------------------------------------------------------

@dataclass(slots=True)
class _Builder:
    layer: TextLayer
    doc_id: str
    index: LocatorIndex
    out: list[AtomicFact]

    def add(self, v: Value, origin: str, el: Element, section: tuple[str, ...],
            row: tuple[str, ...] = (), col: tuple[str, ...] = (), extra: Iterable[str] = (),
            lo: int = 0, hi: int = 0, *, normalized: str | None = None,
            scale: str | None = None, unit: str | None = None,
            currency: str | None = None, value_type: str | None = None,
            flags: tuple[str, ...] = ()) -> None:
        text = self.layer.text
        vt = value_type or v.value_type
        q = v.qualifiers[0] if v.qualifiers else None
        page, bbox = _where(self.layer, v.char_start, v.char_end, el)
        parts = [v.text, *(x.text for x in v.qualifiers), *row, *col, *section, *extra,
                 _words_around(text, v.char_start, v.char_end, lo, hi) if hi > lo else ""]
        self.out.append(AtomicFact(
            fact_id=fact_id(self.doc_id, self.layer.layer_id, v.char_start, v.char_end, vt),
            doc_id=self.doc_id, text_layer=self.layer.layer_id, origin_type=origin,
            value_type=vt, value=text[v.char_start:v.char_end],
            normalized_value=normalized if normalized is not None else v.normalized,
            unit=unit or v.unit, currency=currency or v.currency, scale=scale or v.scale,
            detail=v.detail, qualifier=q.text if q else None,
            qualifier_start=q.char_start if q else None,
            qualifier_end=q.char_end if q else None, qualifiers=v.qualifiers,
            negated=any(x.negated for x in v.qualifiers), row_path=row, column_path=col,
            section_path=section, locator=self.index.locator_at(v.char_start), page=page,
            bbox=bbox, char_start=v.char_start, char_end=v.char_end,
            search_text=" ".join(" ".join(p for p in parts if p).split()),
            flags=v.flags + flags,
        ))


def _cell_facts(b: _Builder, t: _Table, clauses: _Clauses, lang: str | None,
                date_order: str) -> None:
    text = b.layer.text
    meta = t.element.meta or {}
    factor = SCALES.get(str(meta.get("scale") or "units"), 1)
    table_scale = meta.get("scale") if factor != 1 else None
    table_unit = meta.get("unit") or None
    table_cur = currency_code(str(table_unit)) if table_unit else None
    if table_unit == "%":
        table_cur = None
    clause = clauses.at(t.element.char_start)
    section = _section(t.element, clause)
    extra = [str(x) for x in (meta.get("caption"), meta.get("entity")) if x]
    extra += [str(x) for x in meta.get("title_path") or ()]
    for cell in t.cells:
        if t.header.get((cell.row or 0, cell.col or 0)):
            continue
        a, z = cell.char_start, cell.char_end
        while a < z and text[a].isspace():
            a += 1
        while z > a and text[z - 1].isspace():
            z -= 1
        if z <= a:
            continue
        row, col = _paths(t, cell, text)
        v = parse_value(text, a, z, lang=lang, date_order=date_order)
        if v is None:
            # a text cell's key stays in cmp-1 (case folded) as before cmp-2: the
            # comparison form of citations changed, the grouping of cell texts did not
            whole = Value("text", a, z, text[a:z], comparison_form(text[a:z], ComparisonForm.CMP_1))
            b.add(whole, "table_cell", cell, section, row, col, extra)
            for inner in find_values(text, a, z, lang=lang, date_order=date_order):
                b.add(inner, "table_cell", cell, section, row, col, extra, a, z)
            continue
        kw: dict[str, Any] = {}
        # the cell's own unit (written on it, or named by its column header) wins over the
        # table's: "Minimum hours" in a sheet priced in euros holds hours, not euros
        cell_unit = (cell.meta or {}).get("unit")
        unit = cell_unit or table_unit
        cur = None if unit in DIMENSIONS or unit == "%" else (
            currency_code(str(cell_unit)) if cell_unit else table_cur)
        if v.value_type in ("number", "money") and v.amount is not None:
            if v.scale is None and factor != 1 and cell_unit not in DIMENSIONS:
                kw["normalized"] = canonical(v.amount * Decimal(factor))
                kw["scale"] = table_scale
            if unit and not v.unit and not v.currency:
                kw["flags"] = ("unit_from_table",)
            if unit and not (v.value_type == "money" and unit in DIMENSIONS):
                kw["unit"] = str(unit)
                if v.value_type == "number" and cur:
                    kw["currency"], kw["value_type"] = cur, "money"
                elif v.value_type == "number" and unit == "%":
                    kw["value_type"], kw["normalized"] = "percent", canonical(v.amount)
                    kw.pop("scale", None)
        b.add(v, "table_cell", cell, section, row, col, extra, **kw)


def extract_facts(layer: TextLayer, doc_id: str, *, lang: str | None = None,
                  types: Iterable[str] | None = None) -> list[AtomicFact]:
    """Return the atomic facts of a text layer in text order (see the module docstring).

    `lang` ("en" or "es") settles ambiguous separators; None guesses it from stop words.
    `types` keeps only facts of those value types (`money`, `date`, …).
    """
    text = layer.text
    if lang is None:
        lang = guess_lang(text)
    date_order = "dmy" if lang == "es" else date_order_of(text)
    b = _Builder(layer, doc_id, LocatorIndex.build(layer), [])
    tables = _tables(layer)
    clauses = _Clauses(layer.elements)
    prose = sorted((e for e in layer.elements if e.kind in PROSE_KINDS),
                   key=lambda e: (e.char_start, -e.char_end))
    ti = 0
    seen_end = 0
    for el in prose:
        while ti < len(tables) and tables[ti].element.char_start <= el.char_start:
            _cell_facts(b, tables[ti], clauses, lang, date_order)
            ti += 1
        lo, hi = max(el.char_start, seen_end), el.char_end
        if lo >= hi:
            continue
        seen_end = hi
        clause = clauses.at(el.char_start)
        section = _section(el, clause)
        start = lo
        if clause_mark(text[lo:min(hi, lo + 40)]) is not None:
            m = _CLAUSE_PREFIX_RE.match(text, lo, hi)
            start = m.end() if m else lo
        for v in find_values(text, start, hi, lang=lang, date_order=date_order):
            b.add(v, "prose", el, section, lo=lo, hi=hi)
    while ti < len(tables):
        _cell_facts(b, tables[ti], clauses, lang, date_order)
        ti += 1
    facts = b.out
    if types is not None:
        keep = set(types)
        facts = [f for f in facts if f.value_type in keep]
    facts.sort(key=lambda f: (f.char_start, f.char_end))
    return facts
