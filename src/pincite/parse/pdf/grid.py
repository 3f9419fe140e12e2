"""A table region on a PDF page → a grid of cells with row and column spans.

`build_grid` takes the region's text rows (words, chunks) and the page's rulings:

- columns: `pdf_columns` (rulings, gaps down the rows, word gaps between numbers);
- rows: rulings part the text rows into bands; a band is one row of multi-line cells
  unless it holds records (text rows of values in two or more columns: two or more in a
  table ruled between its rows, or text rows in two or more columns in one that is not)
  or header levels (a label spanning columns over labels of those columns);
- cells: the words of a row by column, read line by line; a chunk whose words straddle a
  column gap is one cell spanning those columns unless a ruling or two numbers part it;
- spans and header rows: `spans`;
- rejection: regions that are no table — one column, two or more columns of running
  text, two long text columns with no value (a two-column page), numbered lines.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ...model import Box
from .columns import Sep, columns, data_row, is_value
from .page_words import chunk
from .spans import (
    Cell,
    cell_text,
    centred_rowspans,
    continuations,
    header_rowspans,
    header_spans,
    header_zone,
    lattice_rowspans,
    lattice_spans,
    merge_header,
    stacked_labels,
)

if TYPE_CHECKING:
    from .page_words import Row, Rules, Word

@dataclass(slots=True)
class Grid:
    """A table found on one page."""

    page: int
    box: Box
    n_rows: int
    n_cols: int
    cells: list[Cell]
    header_rows: int
    words: list[Word]  # every word the table takes from the page (fillers too)
    columns: list[tuple[float, float]]  # x extent of each column
    ruled: bool
    indents: dict[tuple[int, int], float] = field(default_factory=dict)
    frame: int = 0  # the frame its text reads in (`frames`); box and columns are in it


def _rule_between(hrules: list[tuple[float, float, float]], upper: Row, lower: Row,
                  x0: float, x1: float) -> float:
    """Return the widest share of [x0, x1] that a ruling between two rows covers (under
    the upper row's first line: a cell centred across two lines reaches lower)."""
    lo = min(w.bottom for w in upper.words) - 0.35 * upper.h
    hi = lower.top + 0.35 * lower.h
    best = 0.0
    for y, a, b in hrules:
        if lo <= y <= hi:
            best = max(best, (min(b, x1) - max(a, x0)) / max(x1 - x0, 1.0))
    return best


def _bands(rows: list[Row], hr: list[tuple[float, float, float]], seps: list[Sep], box: Box
           ) -> tuple[list[list[Row]], list[float]]:
    """Return the table's rows as groups of text rows, and the share of the width ruled
    below each group (see the module docstring)."""
    x0, x1 = box[0], box[2]
    xs = [s.x for s in seps]
    between = [_rule_between(hr, a, b, x0, x1) for a, b in zip(rows, rows[1:], strict=False)]
    bands: list[list[Row]] = [[rows[0]]]
    below: list[float] = []
    for r, v in zip(rows[1:], between, strict=True):
        if v >= 0.1:
            bands.append([r])
            below.append(v)
        else:
            bands[-1].append(r)
    below.append(0.0)
    row_ruled = sum(1 for v in below if v >= 0.4) >= 2
    groups: list[list[Row]] = []
    ruled: list[float] = []
    for band, v in zip(bands, below, strict=True):
        records = data = 0
        pieces: list[int] = []  # characters per (text row, column)
        for r in band:
            cols: dict[int, int] = {}
            for w in r.words:
                if not w.filler:
                    c = bisect_right(xs, (w.x0 + w.x1) / 2)
                    cols[c] = cols.get(c, 0) + w.b - w.a + 1
            records += len(cols) >= 2
            data += len(cols) >= 2 and data_row(r)
            pieces.extend(cols.values())
        if len(band) > 1 and (data >= 2 if row_ruled else records >= 2) or \
                records >= 2 and _levels(band, seps, xs):
            groups.extend([r] for r in band)
            ruled.extend([0.0] * (len(band) - 1) + [v])
        else:
            groups.append(band)
            ruled.append(v)
    return groups, ruled


def build_grid(page: int, rows: list[Row], box: Box, rules: Rules, *, ruled: bool) -> Grid | None:
    """Return the grid of a table region, or None when it is not a table."""
    x0, top, x1, bottom = box
    vr = [v for v in rules.v if x0 - 3 <= v[0] <= x1 + 3 and v[2] >= top - 2 and v[1] <= bottom + 2]
    hr = [h for h in rules.h if top - 3 <= h[0] <= bottom + 3 and h[2] >= x0 - 2 and h[1] <= x1 + 2]
    rows = sorted(rows, key=lambda r: r.top)
    words = [w for r in rows for w in r.words]  # typed rules too
    for r in rows:
        chunk(r, vr)
    rows = [r for r in rows if r.chunks]
    if len(rows) < 2:
        return None
    seps = columns(rows, box, vr)
    n_cols = len(seps) + 1
    if n_cols < 2:
        return None
    xs = [s.x for s in seps]
    groups, ruled_below = _bands(rows, hr, seps, box)
    cells = _cells(groups, seps, xs, n_cols)
    n_rows = len(groups)
    hz = header_zone(cells, n_rows, ruled_below)
    if ruled:
        lattice_spans(cells, seps, n_cols)
        lattice_rowspans(cells, groups, ruled_below, hr, _extents(cells, n_cols, xs, box))
    header_spans(cells, hz, seps, hr, groups, n_cols)
    hz = merge_header(cells, groups, hz, ruled_below)
    continuations(cells, groups, hz, ruled_below)
    n_rows = len(groups)
    stacked_labels(cells, hz, groups, hr, _extents(cells, n_cols, xs, box))
    header_rowspans(cells, hz, groups, hr, _extents(cells, n_cols, xs, box))
    centred_rowspans(cells, groups, ruled_below)
    extents = _extents(cells, n_cols, xs, box)
    grid = Grid(page, _bbox(words), n_rows, n_cols, cells, hz, words, extents, ruled)
    if not _plausible(grid):
        return None
    grid.indents = _indents(cells, hz)
    return grid


def _pieces(r: Row, seps: list[Sep], xs: list[float]) -> list[list]:
    """Return a text row's pieces: [first column, last column, words] per cell it fills."""
    pieces: list[list] = []
    for ch in r.chunks:
        c = bisect_right(xs, (ch[0].x0 + ch[0].x1) / 2)
        cur: list = [c, c, [ch[0]]]
        for prev, w in zip(ch, ch[1:], strict=False):
            c = bisect_right(xs, (w.x0 + w.x1) / 2)
            if c != cur[1] and _parted(prev, w, seps[cur[1]:c], r):
                pieces.append(cur)
                cur = [c, c, [w]]
            else:
                cur[1] = max(cur[1], c)
                cur[2].append(w)
        pieces.append(cur)
    return pieces


def _levels(band: list[Row], seps: list[Sep], xs: list[float]) -> bool:
    """Return True when a band's text rows are header levels: a label spanning columns
    over labels of those columns, one each."""
    rows = [_pieces(r, seps, xs) for r in band]
    for k, ps in enumerate(rows):
        for c0, c1, _ in ps:
            if c1 > c0 and any(sum(1 for a, b, _ in other if c0 <= a and b <= c1) >= 2
                               for j, other in enumerate(rows) if j != k):
                return True
    return False


def _cells(groups: list[list[Row]], seps: list[Sep], xs: list[float], n_cols: int
           ) -> list[Cell]:
    out: list[Cell] = []
    for gi, g in enumerate(groups):
        pieces = []
        order: dict[int, int] = {}  # word → its text row in the group: lines read in order
        for k, r in enumerate(g):
            for p in _pieces(r, seps, xs):
                pieces.append(p)
                order.update((id(w), k) for w in p[2])
        merged: list[list] = []
        for p in sorted(pieces, key=lambda p: p[0]):
            if merged and p[0] <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], p[1])
                merged[-1][2].extend(p[2])
            else:
                merged.append(p)
        for c0, c1, words in merged:
            _reading(words, order)
            out.append(Cell(gi, c0, gi, min(c1, n_cols - 1), words))
    return out


def _reading(words: list[Word], order: dict[int, int]) -> None:
    """Sort a cell's words as read: by text row, then by visual line (a word set lower on
    a text row: the end of a label that wraps), then left to right."""
    words.sort(key=lambda w: (order[id(w)], w.top))
    line = 0
    lines: dict[int, int] = {}
    top = None
    for w in words:
        if top is not None and w.top > top + 0.5 * (w.bottom - w.top):
            line += 1
            top = w.top
        top = w.top if top is None else top
        lines[id(w)] = line
    words.sort(key=lambda w: (order[id(w)], lines[id(w)], w.x0))


def _parted(prev: Word, w: Word, seps: list[Sep], r: Row) -> bool:
    """Return True when the separators between two words of one chunk part them."""
    for s in seps:
        if s.rule is not None and s.parts(r.top, r.bottom):
            return True
        if s.rule is None and is_value(prev.text) and is_value(w.text):
            return True
    return False


def _extents(cells: list[Cell], n_cols: int, xs: list[float], box: Box) -> list[tuple[float, float]]:
    bounds = [box[0]] + xs + [box[2]]
    return [(bounds[k], bounds[k + 1]) for k in range(n_cols)]


def _bbox(words: list[Word]) -> Box:
    ws = [w for w in words if not w.filler] or words
    return (min(w.x0 for w in ws), min(w.top for w in ws),
            max(w.x1 for w in ws), max(w.bottom for w in ws))


def _plausible(g: Grid) -> bool:
    """Return False for a region that is not a table (one column, prose in columns)."""
    filled = [c for c in g.cells if c.words]
    if len(filled) < 4 or g.n_rows < 2:
        return False
    used = {k for c in filled for k in range(c.c0, c.c1 + 1)}
    if len(used) < 2:
        return False
    if g.ruled:
        return True
    wordy: dict[int, list[int]] = {}
    chars: dict[int, list[int]] = {}
    values = 0
    for c in filled:
        if c.r0 >= g.header_rows and c.c0 == c.c1:
            wordy.setdefault(c.c0, []).append(len(c.words))
            chars.setdefault(c.c0, []).append(len(cell_text(c)))
            values += is_value(cell_text(c))
    prose = sum(1 for ns in wordy.values() if ns and sum(ns) / len(ns) > 6)
    if prose >= 2:
        return False
    long = sum(1 for ns in chars.values() if sum(ns) / len(ns) >= 18)
    if len(used) == 2 and long == 2 and not values:
        return False  # two columns of running text (a two-column page), not a table
    if _line_numbers(g):
        return False
    multi = {c.r0 for c in filled if c.r0 >= g.header_rows}
    rows_two = sum(1 for r in multi if sum(1 for c in filled if c.r0 == r) >= 2)
    return rows_two >= 2


def _line_numbers(g: Grid) -> bool:
    """Return True for numbered lines (a transcript, a pleading): the first column counts
    1, 2, 3 … down the rows and the text beside it runs on."""
    first = sorted((c.r0, cell_text(c)) for c in g.cells if c.c0 == 0 and c.c1 == 0 and c.words)
    nums = [int(t) for _, t in first if t.isdigit() and len(t) <= 3]
    if len(nums) < 3 or len(nums) < 0.8 * g.n_rows:
        return False
    if any(is_value(cell_text(c)) for c in g.cells if c.c0 > 0 and c.words):
        return False  # numbered items with amounts: a table
    steps = sum(1 for a, b in zip(nums, nums[1:], strict=False) if b == a + 1)
    return steps >= 0.8 * (len(nums) - 1)


def _indents(cells: list[Cell], hz: int) -> dict[tuple[int, int], float]:
    stub = [c for c in cells if c.c0 == 0 and c.r0 >= hz and c.words]
    if not stub:
        return {}
    left = min(c.words[0].x0 for c in stub)
    out = {(c.r0, 0): round(c.words[0].x0 - left, 1) for c in stub if c.words[0].x0 - left > 1.5}
    return out
