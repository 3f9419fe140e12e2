"""A table region on a PDF page → a grid of cells with row and column spans.

`build_grid` takes the region's text rows (words, chunks) and the page's rulings:

- columns: vertical rulings inside the region, gaps that run down the rows of two or
  more chunks (a header spanning two columns may bridge one), and, inside a column,
  word gaps that part numbers on every row (fixed-pitch tables set one space apart);
- rows: when rulings part most text rows, each band between rulings is one row (its
  cells hold several lines); otherwise each text row is a row;
- cells: the words of a row by column; a chunk whose words straddle a column gap is one
  cell spanning those columns unless a ruling or two numbers part it; in a ruled table a
  cell runs on into empty neighbours where the ruling between them is missing;
- the header: the rows above the first row of values (or above the first rule across the
  table); a lone header label spans the columns under the rule below it or the columns it
  is centred over; header rows of single-column labels are one row of multi-line cells;
  a header label with nothing above or below it in the header spans those rows;
- rejection: regions with two or more columns of running text (prose in columns).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..model import Box

if TYPE_CHECKING:
    from .pdf_tables import Row, Rules, Word

MAX_HEADER_ROWS = 6
_VALUE_RE = re.compile(
    r"^[(\[+\-–−$€£¥]*\s*(?:\d[\d\s.,'’]*\d|\d)(?:\s*%|[)\]*]|[a-z]{0,2})*$|^(?:n/?a|–|—|-|\.\.|x)$",
    re.IGNORECASE)
_BULLETS = frozenset("•◦▪▫●○■□‣⁃∙·*–—-o")


@dataclass(slots=True)
class Cell:
    """A cell: rows r0..r1 and columns c0..c1 (0-based, inclusive), its words in order."""

    r0: int
    c0: int
    r1: int
    c1: int
    words: list[Word]


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


@dataclass(slots=True)
class _Sep:
    x: float
    rule: list[tuple[float, float]] | None  # (top, bottom) pieces of a vertical ruling
    fine: bool = False  # a word gap inside a column (numbers set one space apart)

    def parts(self, top: float, bottom: float) -> bool:
        """Return True when this separator parts the text between top and bottom."""
        if self.rule is None:
            return True
        mid = (top + bottom) / 2
        return any(t - 1 <= mid <= b + 1 for t, b in self.rule)


def is_value(text: str) -> bool:
    """Return True for a number, amount, percentage or placeholder."""
    return bool(_VALUE_RE.match(text.strip()))


def _union_gaps(spans: list[tuple[float, float]], allowed: int, min_w: float
                ) -> list[tuple[float, float]]:
    """Return the interior x-intervals (≥ min_w) covered by at most `allowed` spans."""
    events = sorted([(a, 1) for a, b in spans] + [(b, -1) for a, b in spans],
                    key=lambda e: (e[0], e[1]))
    out: list[tuple[float, float]] = []
    depth = 0
    start: float | None = None
    seen = False
    for x, d in events:
        before = depth
        depth += d
        if before > allowed >= depth:
            start = x
        elif before <= allowed < depth:
            if seen and start is not None and x - start >= min_w:
                out.append((start, x))
            seen = True
            start = None
    return out


def _columns(rows: list[Row], box: Box, vrules: list[tuple[float, float, float]]) -> list[_Sep]:
    x0, top, x1, bottom = box
    seps: list[_Sep] = []
    for x, t, b in sorted(vrules):
        if not (x0 + 3 < x < x1 - 3) or b < top - 2 or t > bottom + 2:
            continue
        if seps and abs(seps[-1].x - x) <= 2.0 and seps[-1].rule is not None:
            seps[-1].rule.append((t, b))
        else:
            seps.append(_Sep(x, [(t, b)]))
    multi = [r for r in rows if len(r.chunks) >= 2] or rows
    spans = [(c[0].x0, c[-1].x1) for r in multi for c in r.chunks]
    h = sorted(r.h for r in rows)[len(rows) // 2]
    for a, b in _union_gaps(spans, len(multi) // 5, 0.3 * h):
        if any(a - 2 <= s.x <= b + 2 for s in seps if s.rule is not None):
            continue
        seps.append(_Sep((a + b) / 2, None))
    seps.sort(key=lambda s: s.x)
    return _fine_columns(rows, _no_bullets(rows, seps), h)


def _no_bullets(rows: list[Row], seps: list[_Sep]) -> list[_Sep]:
    """Drop the gaps after a column of nothing but bullets (a list inside a cell)."""
    out: list[_Sep] = []
    for k, s in enumerate(seps):
        if s.rule is None:
            lo = out[-1].x if out else float("-inf")
            hi = seps[k + 1].x if k + 1 < len(seps) else float("inf")
            left = [w.text for r in rows for w in r.words
                    if not w.filler and lo < (w.x0 + w.x1) / 2 < s.x]
            right = [w for r in rows for w in r.words if s.x < (w.x0 + w.x1) / 2 < hi]
            if left and right and all(len(t) == 1 and t in _BULLETS for t in left):
                continue
        out.append(s)
    return out


def _fine_columns(rows: list[Row], seps: list[_Sep], h: float) -> list[_Sep]:
    """Add the word gaps that part numbers on every row inside a column."""
    xs = [s.x for s in seps]
    out = list(seps)
    by_col: dict[int, list[list[Word]]] = {}
    for r in rows:
        cols: dict[int, list[Word]] = {}
        for w in r.words:
            if not w.filler:
                cols.setdefault(bisect_right(xs, (w.x0 + w.x1) / 2), []).append(w)
        for c, ws in cols.items():
            by_col.setdefault(c, []).append(ws)
    for lines in by_col.values():
        if len(lines) < 3:
            continue
        spans = [(w.x0, w.x1) for ws in lines for w in ws]
        for a, b in _union_gaps(spans, len(lines) // 5, 0.25 * h):
            both = [ws for ws in lines if ws[0].x1 <= a and ws[-1].x0 >= b]
            if len(both) < max(3, 0.6 * len(lines)):
                continue
            near = [(max((w for w in ws if w.x1 <= a), key=lambda w: w.x1),
                     min((w for w in ws if w.x0 >= b), key=lambda w: w.x0)) for ws in both]
            if sum(1 for p, q in near if is_value(p.text) and is_value(q.text)) >= 0.8 * len(near):
                out.append(_Sep((a + b) / 2, None, fine=True))
    out.sort(key=lambda s: s.x)
    return out


def _rule_between(hrules: list[tuple[float, float, float]], upper: Row, lower: Row,
                  x0: float, x1: float) -> float:
    """Return the widest share of [x0, x1] that a ruling between two rows covers."""
    lo = upper.bottom - 0.35 * upper.h
    hi = lower.top + 0.35 * lower.h
    best = 0.0
    for y, a, b in hrules:
        if lo <= y <= hi:
            best = max(best, (min(b, x1) - max(a, x0)) / max(x1 - x0, 1.0))
    return best


def _bands(rows: list[Row], hr: list[tuple[float, float, float]], seps: list[_Sep], box: Box
           ) -> tuple[list[list[Row]], list[float]]:
    """Return the table's rows as groups of text rows, and the share of the width ruled
    below each group.

    Rulings part the text rows into bands. A band is one row of multi-line cells unless
    it holds several records (text rows with words in two or more columns): three or more
    in a table ruled between its rows, two or more in one that is not.
    """
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
        records = 0
        pieces: list[int] = []
        for r in band:
            cols: dict[int, int] = {}
            for w in r.words:
                if not w.filler:
                    c = bisect_right(xs, (w.x0 + w.x1) / 2)
                    cols[c] = cols.get(c, 0) + 1
            records += len(cols) >= 2
            pieces.extend(cols.values())
        short = sum(pieces) <= 3 * len(pieces)
        if len(band) > 1 and (records >= 3 and short if row_ruled else records >= 2) or \
                records >= 2 and _levels(band, seps, xs):
            groups.extend([r] for r in band)
            ruled.extend([0.0] * (len(band) - 1) + [v])
        else:
            groups.append(band)
            ruled.append(v)
    return groups, ruled


def build_grid(page: int, rows: list[Row], box: Box, rules: Rules, *, ruled: bool) -> Grid | None:
    """Return the grid of a table region, or None when it is not a table."""
    from .pdf_tables import chunk

    x0, top, x1, bottom = box
    vr = [v for v in rules.v if x0 - 3 <= v[0] <= x1 + 3 and v[2] >= top - 2 and v[1] <= bottom + 2]
    hr = [h for h in rules.h if top - 3 <= h[0] <= bottom + 3 and h[2] >= x0 - 2 and h[1] <= x1 + 2]
    rows = sorted(rows, key=lambda r: r.top)
    for r in rows:
        chunk(r, vr)
    rows = [r for r in rows if r.chunks]
    if len(rows) < 2:
        return None
    seps = _columns(rows, box, vr)
    n_cols = len(seps) + 1
    if n_cols < 2:
        return None
    xs = [s.x for s in seps]
    groups, ruled_below = _bands(rows, hr, seps, box)
    cells = _cells(groups, seps, xs, n_cols)
    n_rows = len(groups)
    hz = _header_zone(cells, n_rows, ruled_below)
    if ruled:
        _lattice_spans(cells, groups, seps, n_cols, hz)
        _lattice_rowspans(cells, groups, ruled_below, hr, _extents(cells, n_cols, xs, box))
    _header_spans(cells, hz, seps, hr, groups, n_cols)
    cells, n_rows, hz = _merge_header(cells, n_rows, hz, ruled_below)
    _stacked_labels(cells, hz, groups, hr, _extents(cells, n_cols, xs, box))
    _header_rowspans(cells, hz)
    words = [w for r in rows for w in r.words]
    columns = _extents(cells, n_cols, xs, box)
    grid = Grid(page, _bbox(words), n_rows, n_cols, cells, hz, words, columns, ruled)
    if not _plausible(grid):
        return None
    grid.indents = _indents(cells, hz)
    return grid


def _pieces(r: Row, seps: list[_Sep], xs: list[float]) -> list[list]:
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


def _levels(band: list[Row], seps: list[_Sep], xs: list[float]) -> bool:
    """Return True when a band's text rows are header levels: a label spanning columns
    over labels of those columns, one each."""
    rows = [_pieces(r, seps, xs) for r in band]
    for k, ps in enumerate(rows):
        for c0, c1, _ in ps:
            if c1 > c0 and any(sum(1 for a, b, _ in other if c0 <= a and b <= c1) >= 2
                               for j, other in enumerate(rows) if j != k):
                return True
    return False


def _cells(groups: list[list[Row]], seps: list[_Sep], xs: list[float], n_cols: int
           ) -> list[Cell]:
    out: list[Cell] = []
    for gi, g in enumerate(groups):
        pieces = [p for r in g for p in _pieces(r, seps, xs)]
        merged: list[list] = []
        for p in sorted(pieces, key=lambda p: p[0]):
            if merged and p[0] <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], p[1])
                merged[-1][2].extend(p[2])
            else:
                merged.append(p)
        for c0, c1, words in merged:
            words.sort(key=lambda w: (w.line.dbox[1], w.x0))
            out.append(Cell(gi, c0, gi, min(c1, n_cols - 1), words))
    return out


def _parted(prev: Word, w: Word, seps: list[_Sep], r: Row) -> bool:
    """Return True when the separators between two words of one chunk part them."""
    for s in seps:
        if s.rule is not None and s.parts(r.top, r.bottom):
            return True
        if s.rule is None and is_value(prev.text) and is_value(w.text):
            return True
    return False


def _lattice_spans(cells: list[Cell], groups: list[list[Row]], seps: list[_Sep], n_cols: int,
                   hz: int) -> None:
    """Run a ruled table's header cells, and the lone cells of section rows, on into
    empty neighbours where the ruling between them is missing."""
    taken = {(c.r0, k) for c in cells for k in range(c.c0, c.c1 + 1)}
    per_row: dict[int, int] = {}
    for c in cells:
        per_row[c.r0] = per_row.get(c.r0, 0) + 1
    for c in cells:
        if c.r0 >= hz and per_row[c.r0] > 1:
            continue
        g = groups[c.r0]
        top, bottom = min(r.top for r in g), max(r.bottom for r in g)
        while c.c1 + 1 < n_cols and (c.r0, c.c1 + 1) not in taken:
            s = seps[c.c1]
            if s.rule is None or s.parts(top, bottom):
                break
            c.c1 += 1
            taken.add((c.r0, c.c1))
        while c.c0 > 0 and (c.r0, c.c0 - 1) not in taken:
            s = seps[c.c0 - 1]
            if s.rule is None or s.parts(top, bottom):
                break
            c.c0 -= 1
            taken.add((c.r0, c.c0))


def _lattice_rowspans(cells: list[Cell], groups: list[list[Row]], ruled_below: list[float],
                      hr: list[tuple[float, float, float]], cols: list[tuple[float, float]]) -> None:
    """Run a ruled table's cells down into empty cells where the ruling under them is
    missing (and the boundary is ruled elsewhere)."""
    taken = {(c.r0, k) for c in cells for k in range(c.c0, c.c1 + 1)}
    for c in sorted(cells, key=lambda c: c.r0):
        a, b = cols[c.c0][0], cols[c.c1][1]
        while c.r1 + 1 < len(groups) and ruled_below[c.r1] >= 0.1:
            if any((c.r1 + 1, k) in taken for k in range(c.c0, c.c1 + 1)):
                break
            lo = max(r.bottom for r in groups[c.r1]) - 0.35 * groups[c.r1][-1].h
            hi = min(r.top for r in groups[c.r1 + 1]) + 0.35 * groups[c.r1 + 1][0].h
            if any(lo <= y <= hi and min(x1, b) - max(x0, a) >= 0.5 * (b - a) for y, x0, x1 in hr):
                break
            c.r1 += 1
            taken.update((c.r1, k) for k in range(c.c0, c.c1 + 1))


def _header_zone(cells: list[Cell], n_rows: int, ruled_below: list[float]) -> int:
    """Return the number of header rows."""
    by_row: dict[int, list[Cell]] = {}
    for c in cells:
        by_row.setdefault(c.r0, []).append(c)
    first_values = None
    for r in range(min(n_rows, MAX_HEADER_ROWS + 1)):
        data = [c for c in by_row.get(r, []) if c.c0 >= 1]
        vals = [c for c in data if is_value(_text(c))]
        if vals and len(vals) >= 0.5 * len(data):
            first_values = r
            break
    full = [i for i, v in enumerate(ruled_below) if v >= 0.9]
    rule_at = full[0] + 1 if full and full[0] < MAX_HEADER_ROWS and len(full) <= 3 else None
    if first_values is None:
        return min(1, n_rows - 1) if rule_at is None else min(rule_at, n_rows - 1)
    if rule_at is not None and rule_at <= first_values + 1:
        return rule_at  # numbers can head columns ("Grade 1 2 3")
    while first_values > 1 and all(c.c0 == 0 for c in by_row.get(first_values - 1, [])):
        first_values -= 1  # a section label, not a header
    return first_values


def _text(c: Cell) -> str:
    return " ".join(w.text for w in c.words)


def _header_spans(cells: list[Cell], hz: int, seps: list[_Sep],
                  hr: list[tuple[float, float, float]], groups: list[list[Row]],
                  n_cols: int) -> None:
    """Spread a lone header label over the columns it heads."""
    if n_cols < 3:
        return
    ext: dict[int, tuple[float, float]] = {}
    for c in cells:
        if c.r0 >= hz and c.c0 == c.c1 and c.words:
            a, b = ext.get(c.c0, (1e9, -1e9))
            ext[c.c0] = (min(a, min(w.x0 for w in c.words)), max(b, max(w.x1 for w in c.words)))
    for c in cells:
        if c.r0 >= hz or c.c1 > c.c0 or c.c0 == 0:
            continue
        row = [o for o in cells if o.r0 == c.r0 and o is not c]
        x0 = min(w.x0 for w in c.words)
        x1 = max(w.x1 for w in c.words)
        lo = max([o.c1 for o in row if o.c1 < c.c0], default=0) + 1
        hi = min([o.c0 for o in row if o.c0 > c.c1], default=n_cols) - 1
        g = groups[c.r0]
        below = max(r.bottom for r in g)
        rule = [h for h in hr if below - 0.2 * g[0].h <= h[0] <= below + 1.0 * g[0].h
                and h[1] <= x0 + 2 and h[2] >= x1 - 2]
        if rule:
            a, b = min(rule, key=lambda h: h[2] - h[1])[1:]
            cols = [k for k in range(lo, hi + 1)
                    if k in ext and ext[k][0] >= a - 3 and ext[k][1] <= b + 3]
            if cols and min(cols) <= c.c0 and max(cols) >= c.c1:
                c.c0, c.c1 = min(cols), max(cols)
            continue
        centre = (x0 + x1) / 2
        best = None
        for a in range(max(lo, 1), c.c0 + 1):
            for b in range(c.c1, hi + 1):
                if b == a or a not in ext or b not in ext:
                    continue
                left, right = ext[a][0], ext[b][1]
                if left <= x0 + 2 and right >= x1 - 2 and \
                        abs((left + right) / 2 - centre) <= 0.05 * (right - left):
                    if best is None or b - a > best[1] - best[0]:
                        best = (a, b)
        if best is not None:
            c.c0, c.c1 = best


def _merge_header(cells: list[Cell], n_rows: int, hz: int, ruled_below: list[float]
                  ) -> tuple[list[Cell], int, int]:
    """Join header rows of single-column labels (multi-line header cells)."""
    r = 0
    while r + 1 < hz:
        row_a = [c for c in cells if c.r0 == r]
        row_b = [c for c in cells if c.r0 == r + 1]
        spans = any(c.c1 > c.c0 for c in row_a + row_b)
        if spans or ruled_below[r] > 0.1:
            r += 1
            continue
        for c in row_b:
            same = next((a for a in row_a if a.c0 == c.c0 and a.c1 == c.c1), None)
            if same is not None:
                same.words.extend(c.words)
                cells.remove(c)
            else:
                c.r0 = c.r1 = r
        for c in cells:
            if c.r0 > r + 1:
                c.r0 -= 1
                c.r1 -= 1
        del ruled_below[r]
        n_rows -= 1
        hz -= 1
    return cells, n_rows, hz


def _stacked_labels(cells: list[Cell], hz: int, groups: list[list[Row]],
                    hr: list[tuple[float, float, float]], cols: list[tuple[float, float]]) -> None:
    """In a header of several levels, join a one-column label to the one right under it
    when no ruling parts them ("Elementary" over "ungraded"): one label of two lines."""
    if hz < 2:
        return
    for r in range(hz - 1):
        upper = [c for c in cells if c.r1 == r]
        lower = [c for c in cells if c.r0 == r + 1]
        if not any(c.c1 > c.c0 for c in upper + lower):
            continue
        lo = max(row.bottom for row in groups[r]) - 0.35 * groups[r][-1].h
        hi = min(row.top for row in groups[r + 1]) + 0.35 * groups[r + 1][0].h
        for a in upper:
            if a.c1 > a.c0:
                continue
            b = next((c for c in lower if c.c0 == a.c0 and c.c1 == a.c1), None)
            x0, x1 = cols[a.c0]
            if b is None or any(lo <= y <= hi and min(e, x1) - max(s, x0) > 0.3 * (x1 - x0)
                                for y, s, e in hr):
                continue
            a.words.extend(b.words)
            a.r1 = b.r1
            cells.remove(b)
            lower.remove(b)


def _header_rowspans(cells: list[Cell], hz: int) -> None:
    """Stretch a header label over the header rows that are empty above and below it."""
    if hz < 2:
        return
    taken = {(r, k) for c in cells for r in range(c.r0, c.r1 + 1) for k in range(c.c0, c.c1 + 1)}
    for c in cells:
        if c.r0 >= hz:
            continue
        cols = range(c.c0, c.c1 + 1)
        while c.r0 > 0 and not any((c.r0 - 1, k) in taken for k in cols):
            c.r0 -= 1
            taken.update((c.r0, k) for k in cols)
        while c.r1 + 1 < hz and not any((c.r1 + 1, k) in taken for k in cols):
            c.r1 += 1
            taken.update((c.r1, k) for k in cols)


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
    for c in filled:
        if c.r0 >= g.header_rows and c.c0 == c.c1:
            wordy.setdefault(c.c0, []).append(len(c.words))
    prose = sum(1 for ns in wordy.values() if ns and sum(ns) / len(ns) > 6)
    if prose >= 2:
        return False
    multi = {c.r0 for c in filled if c.r0 >= g.header_rows}
    rows_two = sum(1 for r in multi if sum(1 for c in filled if c.r0 == r) >= 2)
    return rows_two >= 2


def _indents(cells: list[Cell], hz: int) -> dict[tuple[int, int], float]:
    stub = [c for c in cells if c.c0 == 0 and c.r0 >= hz and c.words]
    if not stub:
        return {}
    left = min(c.words[0].x0 for c in stub)
    out = {(c.r0, 0): round(c.words[0].x0 - left, 1) for c in stub if c.words[0].x0 - left > 1.5}
    return out
