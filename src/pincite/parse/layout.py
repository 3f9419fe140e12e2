"""The text-layer builder every parser feeds: blocks in reading order → one text + elements.

A parser calls `heading`, `paragraph` and `table` in reading order; the builder joins the
blocks with blank lines, keeps every span exact, recognises numbered clauses and assigns
structural locators:

- a numbered clause (`12.1.a`, `Article 5`, `Cláusula 12`, `Section 4.2`) is an element
  spanning itself and everything up to the next clause of the same or a higher level;
  its locator is the clause path (`clause 12.1.a`, `Article 5 > 2`, `Cláusula 12`);
  paragraphs inside a clause carry the clause's locator;
- outside clauses, a paragraph's locator is its heading path and paragraph index
  (`Scope > Definitions ¶2`, or `¶3` before any heading);
- a table is `table N`; its data cells are `table N / ROW PATH / COLUMN PATH`
  (`table 3 / Revenue > Services / FY2024 > Actual`, `r{row}` or `c{col}` standing in for
  a missing side), its header cells `table N r{row}c{col}` (1-based), and spreadsheet
  cells their reference (`Sheet1!B4`, `'My Sheet'!B4`); see `parse.tables.grid_layer`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from ..errors import ParseFailure
from ..model import Box, Element, Geometry, TextLayer
from ..vocab import ElementKind
from .assembly import CharGeom, TextAssembly, clean, clean_same_length
from .tables.grid_layer import add_table

MAX_LOCATOR_TITLE = 60

_KEYWORDS = {
    "article": "Article", "artículo": "Artículo", "articulo": "Artículo", "art.": "Article",
    "clause": "Clause", "cláusula": "Cláusula", "clausula": "Cláusula",
    "section": "Section", "sección": "Sección", "seccion": "Sección", "§": "§",
}
_KEYWORD_RE = re.compile(
    r"^(?P<kw>article|artículo|articulo|art\.|clause|cláusula|clausula|section|sección|seccion|§)"
    r"\s*(?P<num>\d{1,3}(?:\.\d{1,3}){0,4})(?![\d,])\.?(?=\s|$|[:.\-–—)])",
    re.IGNORECASE,
)
_NUM_RE = re.compile(
    r"^(?P<num>\d{1,3}(?:\.\d{1,3}){0,5})(?:\.(?P<let>[a-z]))?(?P<term>[.)])?[ \t\u00a0]+(?P<next>\S)"
)
_LETTER_RE = re.compile(r"^\(?(?P<let>[a-z])[.)][ \t\u00a0]+\S")
_ROMAN_RE = re.compile(r"^\((?P<rom>i{1,3}|iv|v|vi{1,3}|ix|x)\)[ \t\u00a0]+\S")


@dataclass(slots=True)
class _Clause:
    depth: int
    label: str  # the path as shown in the locator, e.g. "clause 12.1.a"
    style: str  # "num" | "kw": how children extend the label
    mark: str  # "num" | "kw" | "letter" | "roman": how this clause was numbered
    element: int  # index into the element list
    heading_depth: int
    end: int = 0


@dataclass(slots=True)
class ClauseMark:
    """A clause number found at the start of a block."""

    style: str  # "num" | "kw" | "letter" | "roman"
    parts: tuple[str, ...]
    keyword: str = ""


def clause_mark(text: str) -> ClauseMark | None:
    """Return the clause number that opens `text`, if it opens with one."""
    s = text.lstrip()
    m = _KEYWORD_RE.match(s)
    if m:
        kw = _KEYWORDS[m.group("kw").lower()]
        return ClauseMark("kw", tuple(m.group("num").split(".")), kw)
    m = _NUM_RE.match(s)
    if m:
        num = m.group("num")
        parts = tuple(num.split("."))
        has_dot = len(parts) > 1
        nxt = m.group("next")
        if not (m.group("term") or has_dot):
            return None
        if not m.group("term") and not (nxt.isupper() or nxt in "(\"'«“"):
            return None  # "1.5 million" is a number, not a clause
        if any(len(p) > 1 and p.startswith("0") for p in parts):
            return None
        if m.group("let"):
            parts = parts + (m.group("let"),)
        return ClauseMark("num", parts)
    m = _LETTER_RE.match(s)
    if m:
        return ClauseMark("letter", (m.group("let"),))
    m = _ROMAN_RE.match(s)
    if m:
        return ClauseMark("roman", (m.group("rom"),))
    return None


@dataclass
class LayerBuilder(TextAssembly):
    """Accumulates blocks in reading order and builds a `TextLayer`."""

    _para_index: int = 0

    # ---- structure ----------------------------------------------------------------

    def _close_clauses(self, keep: int) -> None:
        """Close open clauses until `keep` remain; each clause ends at the last block end."""
        while len(self._clauses) > keep:
            c = self._clauses.pop()
            e = self._elements[c.element]
            self._elements[c.element] = replace(e, char_end=max(self._last_block_end, e.char_end))

    def _open_clause(self, mark: ClauseMark, start: int, end: int, page: int | None,
                     bbox: Box | None) -> _Clause | None:
        if mark.style == "letter":
            parent = next((c for c in reversed(self._clauses) if c.mark in ("num", "kw")), None)
        elif mark.style == "roman":
            parent = next((c for c in reversed(self._clauses) if c.mark != "roman"), None)
        else:
            parent = self._clauses[-1] if self._clauses else None
        if mark.style == "kw":
            depth = len(mark.parts) - 1
            label = f"{mark.keyword} {'.'.join(mark.parts)}"
            style = "kw"
        elif mark.style == "num":
            kw_parent = next((c for c in reversed(self._clauses) if c.style == "kw"), None)
            base = kw_parent.depth + 1 if kw_parent else 0
            depth = base + len(mark.parts)
            num = ".".join(mark.parts)
            label = f"{kw_parent.label} > {num}" if kw_parent else f"clause {num}"
            style = "num"
        else:
            if parent is None:
                return None  # a lettered item outside any clause is a plain list item
            depth = parent.depth + 1
            sep = "." if parent.style == "num" else " > "
            label = f"{parent.label}{sep}{mark.parts[0]}"
            style = parent.style
        keep = len(self._clauses)
        while keep and self._clauses[keep - 1].depth >= depth:
            keep -= 1
        self._close_clauses(keep)
        if mark.style in ("letter", "roman") and not self._clauses:
            return None
        locator = self._unique(label)
        self._elements.append(Element(
            "clause", start, end, locator, page, bbox, self._heading_path(), depth,
        ))
        clause = _Clause(depth, locator, style, mark.style, len(self._elements) - 1,
                         len(self._headings))
        self._clauses.append(clause)
        return clause

    def _plain_locator(self) -> str:
        self._para_index += 1
        path = " > ".join(t[:MAX_LOCATOR_TITLE] for t in self._heading_path())
        return f"{path} ¶{self._para_index}" if path else f"¶{self._para_index}"

    # ---- public API ---------------------------------------------------------------

    def page_size(self, page: int, width: float, height: float) -> None:
        """Record the size of a 1-based page in points."""
        self._page_sizes[page] = (float(width), float(height))

    def flag(self, name: str) -> None:
        """Add a flag to the whole text layer (e.g. `hidden_text`)."""
        self._flags.add(name)

    def heading(self, text: str, level: int, *, page: int | None = None,
                chars: CharGeom | None = None, flags: tuple[str, ...] = ()) -> None:
        """Add a heading of `level` (1 = top)."""
        text = clean(text) if chars is None else clean_same_length(text)
        if not text.strip():
            return
        start, end = self._append(text, chars)
        pg, bbox = self._where(start, end, page)
        title = " ".join(text.split())
        mark = clause_mark(text)
        # an unnumbered heading closes clauses opened at its depth or deeper
        while self._headings and self._headings[-1][0] >= level:
            self._headings.pop()
        if mark is None or mark.style in ("letter", "roman"):
            keep = len(self._clauses)
            while keep and self._clauses[keep - 1].heading_depth >= len(self._headings):
                keep -= 1
            self._close_clauses(keep)
        clause = self._open_clause(mark, start, end, pg, bbox) if mark else None
        self._last_block_end = end
        self._headings.append((level, title[:200]))
        self._para_index = 0
        locator = clause.label if clause else self._unique(
            " > ".join(t[:MAX_LOCATOR_TITLE] for t in self._heading_path()))
        self._elements.append(Element(
            "heading", start, end, locator, pg, bbox, self._heading_path()[:-1], level,
            flags=tuple(flags),
        ))
        self._flags.update(flags)
        self._last_text = None

    def paragraph(self, text: str, *, kind: str = "paragraph", page: int | None = None,
                  chars: CharGeom | None = None, flags: tuple[str, ...] = ()) -> None:
        """Add a paragraph or list item."""
        text = clean(text) if chars is None else clean_same_length(text)
        if not text.strip():
            return
        start, end = self._append(text, chars)
        pg, bbox = self._where(start, end, page)
        mark = clause_mark(text)
        clause = self._open_clause(mark, start, end, pg, bbox) if mark else None
        self._last_block_end = end
        if clause is not None:
            locator = clause.label
        elif self._clauses:
            locator = self._clauses[-1].label
        else:
            locator = self._plain_locator()
        self._elements.append(Element(
            kind, start, end, locator, pg, bbox, self._heading_path(), flags=tuple(flags),
        ))
        self._flags.update(flags)
        self._last_text = text

    def field(self, name: str, value: str, *, page: int | None = None, box: Box | None = None,
              flags: tuple[str, ...] = ()) -> None:
        """Add a form field's value as a block with the locator `field NAME`, every
        character on the widget's box."""
        text = clean(value)
        if not text.strip():
            return
        chars: CharGeom | None = [(page, box)] * len(text) if page and box else None
        start, end = self._append(text, chars)
        pg, bbox = self._where(start, end, page)
        self._elements.append(Element(
            ElementKind.FIELD.value, start, end, self._unique(f"field {name}"), pg, bbox,
            self._heading_path(), flags=tuple(flags),
        ))
        self._flags.update(flags)
        self._last_text = None

    def table(self, rows: Sequence[Sequence[str]], *, page: int | None = None,
              cell_chars: Sequence[Sequence[CharGeom | None]] | None = None,
              flags: tuple[str, ...] = (),
              spans: Mapping[tuple[int, int], tuple[int, int]] | None = None,
              header_cells: Collection[tuple[int, int]] | None = None,
              cell_flags: Mapping[tuple[int, int], tuple[str, ...]] | None = None,
              indents: Mapping[tuple[int, int], float] | None = None,
              refs: Sequence[Sequence[str | None]] | None = None,
              sheet: str | None = None,
              caption: str | None = None) -> None:
        """Add a table given as a grid of cell texts (see `parse.tables.grid_layer`).

        `rows`: the grid, merged cells empty except their top-left (ragged rows read as
        padded); `cell_chars`: per-character geometry of each cell (its text is then kept
        as is); `spans`: top-left (row, col) → (rowspan, colspan); `header_cells`: cells
        the markup marks as headers; `cell_flags`: per-cell flags (`formula`);
        `indents`: row-label indentation (points, or an indent level); `refs`:
        spreadsheet references per cell (`B4`), which become the cells' locators with
        `sheet`; `caption`: the table's caption. Positions are 0-based in `rows`.
        """

        add_table(self, rows, page=page, cell_chars=cell_chars, flags=flags, spans=spans,
                  header_cells=header_cells, cell_flags=cell_flags, indents=indents,
                  refs=refs, sheet=sheet, caption=caption)

    def finish(self, max_text_chars: int, empty_detail: str = "the document holds no text") -> TextLayer:
        """Return the built layer; raise ParseFailure `over_limit` past `max_text_chars`
        characters and `empty` when it holds no text."""
        layer = self.build()
        if len(layer.text) > max_text_chars:
            raise ParseFailure(
                "over_limit",
                f"text of {len(layer.text)} characters exceeds the limit of {max_text_chars}",
            )
        if not layer.text.strip():
            raise ParseFailure("empty", empty_detail)
        return layer

    def build(self) -> TextLayer:
        """Return the finished text layer (closing every open clause)."""
        self._close_clauses(0)
        text = "".join(self._parts)
        elements = list(self._elements)
        geometry = None
        page_count = max(self._page_sizes) if self._page_sizes else 0
        if self._has_geometry:
            geometry = Geometry.from_lists(self._geo_pages, self._geo_boxes)
            spans: dict[int, list[int]] = {}
            for i, p in enumerate(self._geo_pages):
                if p:
                    s = spans.get(p)
                    if s is None:
                        spans[p] = [i, i + 1]
                    else:
                        s[1] = i + 1
            for p, (a, b) in sorted(spans.items()):
                w, h = self._page_sizes.get(p, (0.0, 0.0))
                elements.append(Element("page", a, b, f"page {p}", p, (0.0, 0.0, w, h)))
        elements.sort(key=lambda e: (e.char_start, -e.char_end))
        return TextLayer(
            parser=self.parser, version=self.version, text=text, elements=tuple(elements),
            page_count=page_count,
            page_sizes=tuple(self._page_sizes.get(p, (0.0, 0.0)) for p in range(1, page_count + 1)),
            geometry=geometry, flags=tuple(sorted(self._flags)),
        )
