"""Table analysis: which rows and columns are headers, and each cell's header paths.

`analyse(grid, …)` is pure and runs in time linear in the cells (spans are laid out only
over the header band and the stub columns, under a work budget). It decides:

Header rows, markup first: the leading rows whose non-empty cells the markup marks as
headers (`<th>`, `scope`, `<thead>`, DOCX `w:tblHeader`, a Markdown header row). Without
such markup, detection: the leading rows above the first row that holds a *value* (an
amount, count, percentage or placeholder such as `—`; years, `FY2024`, `Q3 2025` and
dates are labels, not values) outside the stub column; stub-only rows at the bottom of
that block are section rows, not headers. A block longer than `MAX_HEADER_ROWS`, or a
table with no value row at all, falls back to "row 0 is the header" when row 0 is short
text in every filled cell and the table has more rows, else no header row.

Header columns (the stub), markup first: the leading columns with marked header cells
among their body cells and no unmarked value. Otherwise column 0 is the stub unless every filled body cell in it
is a value (a one-column table has no stub).

Column path of a column: the texts of the header rows at that column, top to bottom, a
horizontally spanning header carried over its span, empty parts skipped
(`("FY2024", "Actual")`).

Row path of a body row: its label (the texts of its stub cells; a rowspan in the stub is
carried down, and in a multi-column stub an empty cell above a deeper label takes the
text above it) after the labels of its parents. Parents come from indentation (given
per cell, else leading spaces of the label) — a row is a child of the nearest row above
with less indentation — and from *section rows*: a row with a label and nothing else
groups the rows that follow it at its own indentation, until the next section row at
that level, an empty row, or, when the table shows no indentation, a row whose label
starts with "Total" (which still belongs to it). An unlabeled row has the empty path.
Paths are bounded: at most `HEADER_BAND_ROWS` marked header rows, `STUB_BAND_COLS` stub
columns and `MAX_ROW_DEPTH` levels of row nesting.

Table cues (`table_cues`): unit, scale, entity from the caption, then the header texts,
then the text before the table, then the title path; the unit may also come from the
value cells themselves; the period grain from the column paths, else the row labels.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from .cues import (
    cell_kind,
    find_dimension,
    find_entity,
    find_scale,
    find_unit,
    norm,
    path_grain,
    period_grain,
    value_unit,
)

MAX_HEADER_ROWS = 8
HEADER_BAND_ROWS = 12  # rows whose spans are laid out for header detection
STUB_BAND_COLS = 4
MAX_HEADER_TEXT = 80
MAX_ROW_DEPTH = 8  # row-path parents kept at most (deeper rows hang off the 7th)
MAX_UNIT_SAMPLE = 500  # value cells looked at for a unit written on the values


@dataclass(slots=True)
class _Label:
    parents: tuple[str, ...]
    parts: list[tuple[int, str]]  # (column, text)


@dataclass(slots=True)
class TableStructure:
    """The analysis of one grid (0-based rows and columns of that grid)."""

    n_rows: int
    n_cols: int
    header_rows: int
    header_cols: int
    section_rows: frozenset[int]
    header_parts: list[list[str]]  # [header row][col] → the header text at that position
    labels: dict[int, _Label]
    unit: str | None = None
    scale: str | None = None
    period_grain: str = "none"
    entity: str | None = None
    flags: tuple[str, ...] = ()
    column_units: dict[int, str] = field(default_factory=dict)
    column_scales: dict[int, str] = field(default_factory=dict)

    def header_kind(self, r: int, c: int) -> str | None:
        """Return "column" for a cell in a header row, "row" for a stub or section-row
        label, else None (a data cell)."""
        if r < self.header_rows:
            return "column"
        if c < self.header_cols or r in self.section_rows:
            return "row"
        return None

    def column_path(self, c: int, upto: int | None = None) -> tuple[str, ...]:
        """Return the header path of column `c` (through header row `upto` when given)."""
        last = self.header_rows if upto is None else min(upto + 1, self.header_rows)
        return tuple(p for p in (self.header_parts[h][c] for h in range(last)) if p)

    def row_path(self, r: int, upto_col: int | None = None) -> tuple[str, ...]:
        """Return the row path of body row `r` (through stub column `upto_col` when given)."""
        lab = self.labels.get(r)
        if lab is None:
            return ()
        parts = tuple(t for c, t in lab.parts if upto_col is None or c <= upto_col)
        if not parts:
            return ()
        return lab.parents + parts


def _covers(spans: Mapping[tuple[int, int], tuple[int, int]], n_rows: int, n_cols: int,
            band_rows: int, band_cols: int) -> tuple[dict[tuple[int, int], tuple[int, int]], bool]:
    """Return {covered cell: its span's top-left} over the header band and stub columns,
    and whether the work budget ran out (overlapping span storms)."""
    out: dict[tuple[int, int], tuple[int, int]] = {}
    budget = 4 * (band_rows * n_cols + band_cols * n_rows) + 10_000
    for (r0, c0), (rs, cs) in spans.items():
        if not (0 <= r0 < n_rows and 0 <= c0 < n_cols) or (rs <= 1 and cs <= 1):
            continue
        r1, c1 = min(n_rows, r0 + max(rs, 1)), min(n_cols, c0 + max(cs, 1))
        # header band: rows < band_rows, every column
        for r in range(r0, min(r1, band_rows)):
            budget -= c1 - c0
            if budget < 0:
                return out, True
            for c in range(c0, c1):
                if (r, c) != (r0, c0):
                    out.setdefault((r, c), (r0, c0))
        # stub band: columns < band_cols, rows below the header band
        if c0 < band_cols:
            for c in range(c0, min(c1, band_cols)):
                budget -= max(0, r1 - max(r0, band_rows))
                if budget < 0:
                    return out, True
                for r in range(max(r0, band_rows), r1):
                    if (r, c) != (r0, c0):
                        out.setdefault((r, c), (r0, c0))
    return out, False


def _leading_spaces(raw: str) -> int:
    n = 0
    for ch in raw:
        if ch in " \u00a0\u2002\u2003\u2007\u2009":
            n += 1
        elif ch == "\t":
            n += 4
        else:
            break
    return n


def analyse(grid: Sequence[Sequence[str]],
            spans: Mapping[tuple[int, int], tuple[int, int]] | None = None,
            header_cells: Collection[tuple[int, int]] | None = None,
            indents: Mapping[tuple[int, int], float] | None = None,
            caption: str | None = None,
            context_text: str | None = None,
            *,
            title: Sequence[str] = (),
            breaks: Collection[int] = ()) -> TableStructure:
    """Return the structure of a rectangular grid of cell texts (see the module docstring).

    `breaks` are rows that an empty row (dropped from the grid) preceded.
    """
    n_rows = len(grid)
    n_cols = max((len(r) for r in grid), default=0)
    texts = [[norm(row[c]) if c < len(row) else "" for c in range(n_cols)] for row in grid]
    kinds = _Kinds(texts)
    spans = spans or {}
    marked = set(header_cells or ())
    flags: list[str] = []
    band_rows = min(n_rows, HEADER_BAND_ROWS)
    cover, over = _covers(spans, n_rows, n_cols, band_rows, min(n_cols, STUB_BAND_COLS))
    if over:
        flags.append("truncated")

    def filled(r: int) -> list[int]:
        return [c for c in range(n_cols) if texts[r][c]]

    # ---- header rows --------------------------------------------------------------
    header_rows = 0
    if marked:
        for r in range(n_rows):
            cols = filled(r)
            if cols and not all((r, c) in marked for c in cols):
                break
            if cols:
                header_rows = r + 1
            if header_rows >= HEADER_BAND_ROWS:
                break  # a longer run of header rows is body text in disguise
        if header_rows >= n_rows > 1:
            header_rows = 1  # every row marked: only the first is a header
    stub = 1 if n_cols > 1 else 0
    # a first row that opens with a marked header followed by unmarked cells is a body row
    # with a row header (a key/value table of <th>/<td> pairs): the markup has spoken
    first = filled(0) if n_rows else []
    row_headed = bool(marked) and not header_rows and bool(first) and (0, first[0]) in marked
    if not header_rows and not row_headed:
        header_rows = _detect_header_rows(texts, kinds, stub)
        if stub and _col0_all_values(kinds, header_rows, n_rows):
            stub = 0
            header_rows = _detect_header_rows(texts, kinds, stub)

    # ---- stub columns ---------------------------------------------------------------
    body = range(header_rows, n_rows)
    header_cols = 0
    if marked:
        for c in range(min(n_cols, STUB_BAND_COLS)):
            cells = [r for r in body if texts[r][c]]
            if any((r, c) in marked for r in cells) and all(
                    (r, c) in marked or kinds(r, c) != "value" for r in cells):
                header_cols = c + 1
            else:
                break
        if header_cols >= n_cols:
            header_cols = max(0, n_cols - 1)
    if not header_cols:
        header_cols = stub if not _col0_all_values(kinds, header_rows, n_rows) else 0

    # ---- column paths ---------------------------------------------------------------
    header_parts: list[list[str]] = []
    for h in range(header_rows):
        row_parts = []
        for c in range(n_cols):
            t = texts[h][c]
            if not t:
                owner = cover.get((h, c))
                if owner is not None and owner[0] == h:
                    t = texts[owner[0]][owner[1]]
            row_parts.append(t)
        header_parts.append(row_parts)

    # ---- row paths --------------------------------------------------------------------
    sections: set[int] = set()
    labels: dict[int, _Label] = {}
    level_of: dict[int, float] = {}
    raw_label: dict[int, list[tuple[int, str]]] = {}
    above: dict[int, str] = {}  # stub column → last label text (multi-column stubs)
    for r in body:
        parts: list[tuple[int, str]] = []
        deepest = max((c for c in range(header_cols) if texts[r][c]), default=-1)
        for c in range(header_cols):
            t = texts[r][c]
            if not t:
                owner = cover.get((r, c))
                if owner is not None and owner[1] == c and owner[0] >= header_rows:
                    t = texts[owner[0]][owner[1]]
                elif header_cols > 1 and c < deepest:
                    t = above.get(c, "")
            if t:
                parts.append((c, t))
                above[c] = t
        if r in breaks:
            above.clear()
        raw_label[r] = parts
        if parts:
            c_lab = parts[-1][0]
            ind = indents.get((r, c_lab)) if indents else None
            if ind is None:
                ind = float(_leading_spaces(grid[r][c_lab]) if c_lab < len(grid[r]) else 0)
            level_of[r] = ind
            if header_cols and not any(texts[r][c] for c in range(header_cols, n_cols)):
                sections.add(r)
    has_indent = len(set(level_of.values())) > 1
    stack: list[tuple[float, tuple[str, ...], int]] = []  # (level, label texts, row)
    for r in body:
        if r in breaks and not has_indent:
            stack.clear()
        parts = raw_label[r]
        if not parts:
            continue
        level = level_of[r]
        eff = level - 0.5 if (r in sections and not has_indent) else level
        while stack and stack[-1][0] >= eff:
            stack.pop()
        if len(stack) >= MAX_ROW_DEPTH:
            del stack[MAX_ROW_DEPTH - 1:]  # a staircase of indents nests no deeper
        parents = tuple(t for _, lab, _ in stack for t in lab)
        labels[r] = _Label(parents, parts)
        stack.append((eff, tuple(t for _, t in parts), r))
        if not has_indent and r not in sections and parts[-1][1].lower().startswith("total"):
            stack.pop()
            if stack and stack[-1][2] in sections:
                stack.pop()

    structure = TableStructure(
        n_rows=n_rows, n_cols=n_cols, header_rows=header_rows, header_cols=header_cols,
        section_rows=frozenset(sections), header_parts=header_parts, labels=labels,
        flags=tuple(flags),
    )
    _cues(structure, texts, kinds, caption, context_text, title)
    return structure


class _Kinds:
    """`cell_kind` of each cell, computed on first use (most cells never need it)."""

    def __init__(self, texts: list[list[str]]) -> None:
        self.texts = texts
        self.cache: dict[tuple[int, int], str] = {}

    def __call__(self, r: int, c: int) -> str:
        k = self.cache.get((r, c))
        if k is None:
            k = self.cache[(r, c)] = cell_kind(self.texts[r][c])
        return k


def _detect_header_rows(texts: list[list[str]], kinds: _Kinds, stub: int) -> int:
    n_rows = len(texts)
    n_cols = len(texts[0]) if texts else 0
    first_value = next((r for r in range(n_rows)
                        if any(kinds(r, c) == "value" for c in range(stub, n_cols))), None)
    if first_value is not None and 0 < first_value <= MAX_HEADER_ROWS:
        k = first_value
        # stub-only rows at the bottom of the block are section rows
        while k and not any(texts[k - 1][stub:]):
            k -= 1
        return k
    if first_value == 0:
        return 0
    return 1 if n_rows > 1 and _looks_like_header(texts[0], [kinds(0, c) for c in range(n_cols)]) else 0


def _looks_like_header(texts: list[str], kinds: list[str]) -> bool:
    filled = [(t, k) for t, k in zip(texts, kinds, strict=False) if t]
    if len(filled) < max(1, len(texts) // 2) or len(filled) < min(2, len(texts)):
        return False
    return all(k != "value" and len(t) <= MAX_HEADER_TEXT for t, k in filled)


def _col0_all_values(kinds: _Kinds, header_rows: int, n_rows: int) -> bool:
    if not kinds.texts or not kinds.texts[0]:
        return False
    col = (kinds(r, 0) for r in range(header_rows, n_rows) if kinds.texts[r][0])
    seen = False
    for k in col:
        if k != "value":
            return False
        seen = True
    return seen


def _cues(s: TableStructure, texts: list[list[str]], kinds: _Kinds,
          caption: str | None, context_text: str | None, title: Sequence[str]) -> None:
    header_texts = [t for row in s.header_parts for t in dict.fromkeys(row) if t]
    header_texts += [texts[r][c] for r in range(s.header_rows) for c in range(s.header_cols)
                     if texts[r][c]]
    title_text = " ".join(title)
    sources = [caption or "", " ".join(header_texts)[:2000], context_text or "", title_text]
    s.scale = next((x for x in map(find_scale, sources) if x), None)
    s.unit = find_unit(sources[0]) or find_unit(sources[1])
    if s.unit is None:
        seen: set[str | None] = set()
        sampled = 0
        for r in range(s.header_rows, s.n_rows):
            for c in range(s.header_cols, s.n_cols):
                if texts[r][c] and kinds(r, c) == "value":
                    seen.add(value_unit(texts[r][c]))
                    sampled += 1
            if sampled >= MAX_UNIT_SAMPLE:
                break
        # financial statements write the currency only on the first and total rows;
        # facts whose unit comes from here are flagged `unit_from_table`
        seen.discard(None)
        if len(seen) == 1:
            s.unit = seen.pop()
    if s.unit is None:
        # the text around a table states its unit only together with a scale ("in
        # thousands of euros"); an amount merely mentioned there is not a statement
        s.unit = next((u for src in sources[2:] if find_scale(src)
                       for u in [find_unit(src)] if u and u != "%"), None)
    seen_paths: dict[str, tuple[str | None, str | None]] = {}
    for c in range(s.header_cols, s.n_cols):
        path = s.column_path(c)
        if path:
            joined = " ".join(path)
            if joined not in seen_paths:
                seen_paths[joined] = (find_unit(joined) or find_dimension(joined),
                                      find_scale(joined))
            u, sc = seen_paths[joined]
            if u:
                s.column_units[c] = u
            if sc:
                s.column_scales[c] = sc
    paths = [s.column_path(c) for c in range(s.header_cols, s.n_cols)]
    grain = period_grain(paths)
    if grain == "none":
        grain = period_grain([s.row_path(r)[-1:] for r in s.labels])
    if grain == "none":
        g = path_grain([caption or "", title_text])
        grain = g or "none"
    s.period_grain = grain
    s.entity = find_entity(caption) or find_entity(" ".join(
        texts[r][c] for r in range(s.header_rows) for c in range(s.header_cols) if texts[r][c]))
