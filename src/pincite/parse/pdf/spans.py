"""Which rows and columns each cell of a PDF table spans, and which rows head it.

Used by `grid.build_grid` once the words sit in rows and columns. Each rule is stated for
a class of layouts and tested on a document made for it (tests/parse/test_pdf_table_rules.py):

- ruled tables: a cell runs on into empty neighbours where the ruling between them is
  missing beside its lines, and down where the ruling under it is missing;
- the header: the rows above the first row of values, or above the first rule across the
  table (numbers can head columns: years or lot numbers under a spanning label), or above
  the first row label when text rows stand above the values; a lone header label spans
  the columns under the rule below it, or the columns it is centred over; header rows of
  one-column labels are one row of multi-line cells; in a header of several levels a
  label joins the one right under it ("Stock" / "level"); a header label with nothing
  above or below it spans those rows, not across a ruling;
- body rows of an unruled table: a label that wraps onto the next line is one cell;
- a cell set midway between two closely set rows spans both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from .columns import Sep, is_value

if TYPE_CHECKING:
    from .page_words import Row, Word

MAX_HEADER_ROWS = 6


@dataclass(slots=True)
class Cell:
    """A cell: rows r0..r1 and columns c0..c1 (0-based, inclusive), its words in order."""

    r0: int
    c0: int
    r1: int
    c1: int
    words: list[Word]


def lattice_spans(cells: list[Cell], seps: list[Sep], n_cols: int) -> None:
    """Run a ruled table's cells on into empty neighbours where the ruling between them
    is missing beside the cell's own lines."""
    taken = {(c.r0, k) for c in cells for k in range(c.c0, c.c1 + 1)}
    for c in cells:
        if not c.words:
            continue
        top, bottom = min(w.top for w in c.words), max(w.bottom for w in c.words)
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


def lattice_rowspans(cells: list[Cell], groups: list[list[Row]], ruled_below: list[float],
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


def header_zone(cells: list[Cell], n_rows: int, ruled_below: list[float]) -> int:
    """Return the number of header rows."""
    by_row: dict[int, list[Cell]] = {}
    for c in cells:
        by_row.setdefault(c.r0, []).append(c)
    first_values = None
    for r in range(min(n_rows, MAX_HEADER_ROWS + 1)):
        data = [c for c in by_row.get(r, []) if c.c0 >= 1]
        vals = [c for c in data if is_value(cell_text(c))]
        if vals and len(vals) >= 0.5 * len(data):
            first_values = r
            break
    full = [i for i, v in enumerate(ruled_below) if v >= 0.9]
    rule_at = full[0] + 1 if full and full[0] < MAX_HEADER_ROWS and len(full) <= 3 else None
    if first_values is None:
        return min(1, n_rows - 1) if rule_at is None else min(rule_at, n_rows - 1)
    if rule_at is not None and rule_at <= first_values + 1:
        return rule_at  # numbers can head columns ("2023 2024 2025")
    while first_values > 1 and all(c.c0 == 0 for c in by_row.get(first_values - 1, [])):
        first_values -= 1  # a section label, not a header
    if first_values >= 3:  # rows of text above the values: the header ends where the
        for r in range(1, first_values):  # row labels (the stub) begin
            if any(c.c0 == 0 for c in by_row.get(r, [])):
                if not any(c.c0 == 0 for k in range(r) for c in by_row.get(k, [])):
                    return r
                break
    return first_values


def cell_text(c: Cell) -> str:
    return " ".join(w.text for w in c.words)


def header_spans(cells: list[Cell], hz: int, seps: list[Sep],
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
        left = seps[lo - 1].x if lo > 0 else float("-inf")
        right = seps[hi].x if hi < len(seps) else float("inf")
        rule = [h for h in hr if below - 0.2 * g[0].h <= h[0] <= below + 1.0 * g[0].h
                and h[1] <= x0 + 2 and h[2] >= x1 - 2 and h[1] >= left - 3 and h[2] <= right + 3]
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


def _join_rows(cells: list[Cell], groups: list[list[Row]], ruled_below: list[float], r: int) -> None:
    """Join row r + 1 into row r: a cell under one of the same columns joins it."""
    row_a = [c for c in cells if c.r0 == r]
    for c in [c for c in cells if c.r0 == r + 1]:
        same = next((a for a in row_a if a.c0 == c.c0 and a.c1 == c.c1), None)
        if same is not None:
            same.words.extend(c.words)
            same.r1 = max(same.r1, c.r1 - 1)
            cells.remove(c)
        else:
            c.r0 = r
            c.r1 = max(r, c.r1 - 1)
    for c in cells:
        if c.r0 > r + 1:
            c.r0 -= 1
            c.r1 -= 1
        elif c.r0 <= r and c.r1 > r:
            c.r1 -= 1
    groups[r].extend(groups[r + 1])
    del groups[r + 1]
    del ruled_below[r]


def merge_header(cells: list[Cell], groups: list[list[Row]], hz: int, ruled_below: list[float]
                  ) -> int:
    """Join header rows of single-column labels (multi-line header cells); return the
    number of header rows left."""
    r = 0
    while r + 1 < hz:
        rows2 = [c for c in cells if c.r0 in (r, r + 1)]
        if any(c.c1 > c.c0 for c in rows2) or ruled_below[r] > 0.1:
            r += 1
            continue
        _join_rows(cells, groups, ruled_below, r)
        hz -= 1
    return hz


_CONNECTORS = frozenset("and or of the for in to with by on at from a an as de del la las los "
                        "el y e et und der die des du le".split())


def _open_end(text: str) -> bool:
    """Return True when a label's line stops mid-phrase ("Removal of waste from the", "non-")."""
    t = text.rstrip()
    return t[-1:] in ",-(/&–" or t.rsplit(" ", 1)[-1].lower() in _CONNECTORS


def continuations(cells: list[Cell], groups: list[list[Row]], hz: int,
                   ruled_below: list[float]) -> None:
    """Join the lines of a body row whose label (or text) wraps onto the next line, in an
    unruled table: a line holding only words that go on from the line above (it starts in
    small letters, or the line above stops mid-phrase), with no rule and no blank between."""
    pitches = sorted(groups[k + 1][0].top - groups[k][-1].top for k in range(len(groups) - 1))
    pitch = pitches[len(pitches) // 2] if pitches else 0.0
    r = hz
    while r + 1 < len(groups):
        upper = [c for c in cells if c.r0 == r and c.r1 == r]
        lower = [c for c in cells if c.r0 == r + 1 and c.r1 == r + 1]
        gap = groups[r + 1][0].top - groups[r][-1].top
        join = False
        if upper and lower and ruled_below[r] < 0.1 and gap <= 1.15 * pitch and \
                len(upper) == len([c for c in cells if c.r0 == r]):
            above = {c.c0: c for c in upper if c.c0 == c.c1}
            texts = {c.c0: cell_text(c) for c in lower}
            if all(c.c0 == c.c1 and c.c0 in above and not is_value(texts[c.c0]) for c in lower):
                # the lower line only goes on with cells of the upper one
                join = all(texts[c.c0][:1].islower() or _open_end(cell_text(above[c.c0])) for c in lower)
            elif [c.c0 for c in upper] == [0] and upper[0].c1 == 0:
                # a label whose values sit on its last line
                stub = next((c for c in lower if c.c0 == 0 and c.c1 == 0), None)
                join = stub is not None and len(lower) > 1 and (
                    cell_text(stub)[:1].islower() or _open_end(cell_text(upper[0])))
        if join:
            _join_rows(cells, groups, ruled_below, r)
        else:
            r += 1


def stacked_labels(cells: list[Cell], hz: int, groups: list[list[Row]],
                    hr: list[tuple[float, float, float]], cols: list[tuple[float, float]]) -> None:
    """In a header of several levels, join a one-column label to the one right under it
    when no ruling parts them ("Stock" over "level"): one label of two lines."""
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


def _ruled_under(hr: list[tuple[float, float, float]], groups: list[list[Row]], r: int,
                 x0: float, x1: float) -> bool:
    """Return True when a ruling between rows r and r + 1 runs under most of [x0, x1]."""
    lo = min(w.bottom for row in groups[r] for w in row.words) - 0.35 * groups[r][-1].h
    hi = min(row.top for row in groups[r + 1]) + 0.35 * groups[r + 1][0].h
    return any(lo <= y <= hi and min(b, x1) - max(a, x0) >= 0.5 * (x1 - x0) for y, a, b in hr)


def header_rowspans(cells: list[Cell], hz: int, groups: list[list[Row]],
                     hr: list[tuple[float, float, float]], cols: list[tuple[float, float]]) -> None:
    """Stretch a header label over the header rows that are empty above and below it
    (not across a ruling under its columns)."""
    if hz < 2:
        return
    taken = {(r, k) for c in cells for r in range(c.r0, c.r1 + 1) for k in range(c.c0, c.c1 + 1)}
    for c in cells:
        if c.r0 >= hz:
            continue
        span = range(c.c0, c.c1 + 1)
        x0, x1 = cols[c.c0][0], cols[c.c1][1]
        while c.r0 > 0 and not any((c.r0 - 1, k) in taken for k in span) and \
                not _ruled_under(hr, groups, c.r0 - 1, x0, x1):
            c.r0 -= 1
            taken.update((c.r0, k) for k in span)
        while c.r1 + 1 < hz and not any((c.r1 + 1, k) in taken for k in span) and \
                not _ruled_under(hr, groups, c.r1, x0, x1):
            c.r1 += 1
            taken.update((c.r1, k) for k in span)


def centred_rowspans(cells: list[Cell], groups: list[list[Row]], ruled_below: list[float]) -> None:
    """Stretch a cell set midway between its row and the next (no rule between, nothing
    under it) over both rows: a lot letter set beside the two items of its lot."""
    taken = {(r, k) for c in cells for r in range(c.r0, c.r1 + 1) for k in range(c.c0, c.c1 + 1)}
    for c in cells:
        r = c.r1
        if r + 1 >= len(groups) or ruled_below[r] >= 0.1 or not c.words:
            continue
        if any((r + 1, k) in taken for k in range(c.c0, c.c1 + 1)):
            continue
        ws = [w for row in groups[r] for w in row.words]
        line_mid = (min(w.top for w in ws) + min(w.bottom for w in ws)) / 2
        next_top = min(w.top for row in groups[r + 1] for w in row.words)
        mid = sum(w.top + w.bottom for w in c.words) / (2 * len(c.words))
        h = groups[r][0].h
        if mid > line_mid + 0.3 * h and mid > next_top - 0.2 * h:
            c.r1 = r + 1
            taken.update((r + 1, k) for k in range(c.c0, c.c1 + 1))
