"""A table in the text layer: grid in, text plus a canonical table element and cell elements.

`LayerBuilder.table` calls `add_table`. The grid is what the parser saw (merged cells
empty except their top-left, ragged rows padded or not). Text: the rows that hold text,
their cells joined by a tab, rows by a newline, the table set off from other blocks by a
blank line; columns empty in every row are left out (so spans cannot widen the text).
Cells are whitespace-collapsed unless the parser gives per-character geometry.

Elements:
- the table: `table N`, meta `caption`, `title_path` (heading path + caption), `intro`
  (the innermost open clause, else the heading path), `unit`, `scale`, `period_grain`,
  `entity`, `header_rows`, `header_cols`, `n_rows`, `n_cols` (of the text's grid),
  `sheet`, `pages` (with geometry);
- one cell per non-empty cell, `row`/`col` its 1-based place in the text's grid;
  `row_path`/`column_path` from `tables.analyse`; meta `grid_row`/`grid_col` (0-based
  place in the grid the parser passed), `header` ("row" | "column") on header cells,
  `ref` (spreadsheets), `row_span`/`col_span` (> 1), `unit`/`scale` where the cell or its
  column header states one; flags from the parser (`formula`, `hidden_text`).

Locators: data cells `table N / Revenue > Services / FY2024 > Actual` (`r{row}` / `c{col}`
for a missing side, `table N r{row}c{col}` when both are missing), header cells
`table N r{row}c{col}`, spreadsheet cells `Sheet1!B4` (`'My Sheet'!B4`, quoted as Excel
does). Path parts are cut to 60 characters in locators; repeats get ` #2`, ` #3`.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ...model import Element
from ..assembly import (
    BLOCK_SEP,
    CELL_SEP,
    ROW_SEP,
    CharGeom,
    TextAssembly,
    clean,
    clean_same_length,
)
from .cues import value_unit
from .structure import TableStructure, analyse

MAX_GRID_CELLS = 4_000_000
MAX_PART = 60
_PLAIN_SHEET_RE = re.compile(r"^[^\W\d][\w.]*$")
_REFLIKE_RE = re.compile(r"^(?:[A-Za-z]{1,3}\d+|[Rr]\d*[Cc]\d*|TRUE|FALSE)$", re.I)


def sheet_ref(sheet: str | None, ref: str) -> str:
    """Return `Sheet!B4`, the sheet name quoted as Excel writes it when it needs quotes."""
    if not sheet:
        return ref
    if _PLAIN_SHEET_RE.match(sheet) and not _REFLIKE_RE.match(sheet):
        return f"{sheet}!{ref}"
    return "'" + sheet.replace("'", "''") + f"'!{ref}"


def _part(p: str) -> str:
    p = " ".join(p.split())
    return p if len(p) <= MAX_PART else p[: MAX_PART - 1] + "…"


def _kept(flags_by_pos: list[bool]) -> tuple[list[int], list[int]]:
    """Return (kept positions, prefix counts) of a keep mask."""
    kept = [i for i, k in enumerate(flags_by_pos) if k]
    prefix = [0]
    for k in flags_by_pos:
        prefix.append(prefix[-1] + (1 if k else 0))
    return kept, prefix


def add_table(b: TextAssembly, rows: Sequence[Sequence[str]], *, page: int | None,
              cell_chars: Sequence[Sequence[CharGeom | None]] | None,
              flags: tuple[str, ...],
              spans: Mapping[tuple[int, int], tuple[int, int]] | None,
              header_cells: Collection[tuple[int, int]] | None,
              cell_flags: Mapping[tuple[int, int], tuple[str, ...]] | None,
              indents: Mapping[tuple[int, int], float] | None,
              refs: Sequence[Sequence[str | None]] | None,
              sheet: str | None,
              caption: str | None) -> None:
    """Add a table to the builder `b` (see the module docstring)."""
    same_len = cell_chars is not None
    tflags = set(flags)
    width = max((len(r) for r in rows), default=0)
    if width > MAX_GRID_CELLS:
        width = MAX_GRID_CELLS
        tflags.add("truncated")
    n_in = len(rows)
    if n_in * max(width, 1) > MAX_GRID_CELLS:
        n_in = max(1, MAX_GRID_CELLS // max(width, 1))
        tflags.add("truncated")
    tidy = clean_same_length if same_len else clean
    grid = [[tidy(c) for c in r[:width]] for r in rows[:n_in]]
    row_keep = [any(c.strip() for c in r) for r in grid]
    col_keep = [False] * width
    for cells_in_row, keep in zip(grid, row_keep, strict=True):
        if keep:
            for c, text in enumerate(cells_in_row):
                if not col_keep[c] and text.strip():
                    col_keep[c] = True
    kr, rpre = _kept(row_keep)
    kc, cpre = _kept(col_keep)
    if not kr:
        if "truncated" in tflags:
            b._flags.add("truncated")
        return
    rmap = {r: i for i, r in enumerate(kr)}
    cmap = {c: i for i, c in enumerate(kc)}
    compact = [[grid[r][c] if c < len(grid[r]) else "" for c in kc] for r in kr]
    cspans: dict[tuple[int, int], tuple[int, int]] = {}
    for (r, c), (rs, cs) in (spans or {}).items():
        if r in rmap and c in cmap and (rs > 1 or cs > 1):
            r1 = min(len(grid), r + max(rs, 1))
            c1 = min(width, c + max(cs, 1))
            nrs, ncs = rpre[r1] - rpre[r], cpre[c1] - cpre[c]
            if nrs > 1 or ncs > 1:
                cspans[(rmap[r], cmap[c])] = (max(nrs, 1), max(ncs, 1))
    cheaders = {(rmap[r], cmap[c]) for r, c in (header_cells or ())
                if r in rmap and c in cmap}
    cindents = {(rmap[r], cmap[c]): v for (r, c), v in (indents or {}).items()
                if r in rmap and c in cmap}
    breaks = {i for i, r in enumerate(kr) if i and kr[i - 1] != r - 1}

    hp = b._heading_path()
    st = analyse(compact, cspans, cheaders, cindents, caption, b._last_text,
                 title=hp, breaks=breaks)
    tflags.update(st.flags)
    b._tables += 1
    n = b._tables
    if b._len:
        b._push(BLOCK_SEP, None)
    tstart = b._len
    paths = _Paths(st, n, len(kc))
    cells: list[Element] = []
    for ri, r in enumerate(kr):
        if ri:
            b._push(ROW_SEP, None)
        grow = grid[r]
        for ci, c in enumerate(kc):
            if ci:
                b._push(CELL_SEP, None)
            raw = grow[c] if c < len(grow) else ""
            text = raw if same_len else " ".join(raw.split())
            geom = None
            if cell_chars is not None and r < len(cell_chars) and c < len(cell_chars[r]):
                geom = cell_chars[r][c]
            cs = b._len
            b._push(text, geom)
            if not text.strip():
                continue
            cells.append(_cell(b, st, paths, ri, ci, r, c, cs, page, hp, text, cspans,
                               refs, sheet, cell_flags))
    tend = b._len
    pg, bbox = b._where(tstart, tend, page)
    intro = b._clauses[-1].label if b._clauses else (" > ".join(hp) or None)
    meta: dict[str, Any] = {
        "caption": caption, "title_path": list(hp) + ([caption] if caption else []),
        "intro": intro, "unit": st.unit, "scale": st.scale,
        "period_grain": st.period_grain, "entity": st.entity,
        "header_rows": st.header_rows, "header_cols": st.header_cols,
        "n_rows": len(kr), "n_cols": len(kc), "sheet": sheet,
    }
    if b._has_geometry:
        pages = sorted({p for p in b._geo_pages[tstart:tend] if p})
        if pages:
            meta["pages"] = pages
    b._elements.append(Element("table", tstart, tend, f"table {n}", pg, bbox, hp,
                               flags=tuple(sorted(tflags)), meta=meta))
    b._elements.extend(cells)
    b._last_block_end = tend
    b._last_text = None
    b._flags.update(tflags)


class _Paths:
    """Each column's and each row's path and locator part, made once per table."""

    def __init__(self, st: TableStructure, n: int, n_cols: int) -> None:
        self.st = st
        self.n = n
        self.cols = [st.column_path(c) for c in range(n_cols)]
        self.col_parts = [" > ".join(_part(p) for p in path) for path in self.cols]
        self.row: tuple[int, tuple[str, ...], str] = (-1, (), "")

    def row_of(self, ri: int) -> tuple[tuple[str, ...], str]:
        if self.row[0] != ri:
            path = self.st.row_path(ri)
            self.row = (ri, path, " > ".join(_part(p) for p in path))
        return self.row[1], self.row[2]

    def locator(self, ri: int, ci: int) -> str:
        row_path, rp = self.row_of(ri)
        cp = self.col_parts[ci]
        if not row_path and not cp:
            return f"table {self.n} r{ri + 1}c{ci + 1}"
        return f"table {self.n} / {rp or f'r{ri + 1}'} / {cp or f'c{ci + 1}'}"


def _cell(b: TextAssembly, st: TableStructure, paths: _Paths, ri: int, ci: int, r: int,
          c: int, cs: int, page: int | None, hp: tuple[str, ...], text: str,
          cspans: Mapping[tuple[int, int], tuple[int, int]],
          refs: Sequence[Sequence[str | None]] | None, sheet: str | None,
          cell_flags: Mapping[tuple[int, int], tuple[str, ...]] | None) -> Element:
    pg, bbox = b._where(cs, b._len, page) if b._has_geometry else (page, None)
    kind = st.header_kind(ri, ci)
    meta: dict[str, Any] = {"grid_row": r, "grid_col": c}
    if kind == "column":
        row_path: tuple[str, ...] = ()
        column_path = st.column_path(ci, upto=ri)
    elif kind == "row":
        row_path = st.row_path(ri, upto_col=ci)
        column_path = paths.cols[ci] if ci < st.header_cols else ()
    else:
        row_path = paths.row_of(ri)[0]
        column_path = paths.cols[ci]
    if kind:
        meta["header"] = kind
    else:
        unit = value_unit(text) or st.column_units.get(ci)
        if unit:
            meta["unit"] = unit
        scale = st.column_scales.get(ci)
        if scale:
            meta["scale"] = scale
    if cspans:
        span = cspans.get((ri, ci))
        if span:
            if span[0] > 1:
                meta["row_span"] = span[0]
            if span[1] > 1:
                meta["col_span"] = span[1]
    ref = None
    if refs is not None and r < len(refs) and c < len(refs[r]):
        ref = refs[r][c]
    if ref:
        meta["ref"] = ref
        locator = sheet_ref(sheet, ref)
    elif kind:
        locator = f"table {paths.n} r{ri + 1}c{ci + 1}"
    else:
        locator = paths.locator(ri, ci)
    cflags = tuple(sorted(set(cell_flags.get((r, c), ())))) if cell_flags else ()
    return Element("cell", cs, b._len, b._unique(locator), pg, bbox, hp, row=ri + 1,
                   col=ci + 1, flags=cflags, row_path=row_path, column_path=column_path,
                   meta=meta)
