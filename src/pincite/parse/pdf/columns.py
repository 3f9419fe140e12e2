"""The columns of a PDF table region: where rulings and gaps part its text.

Used by `pdf_grid`. Columns come from vertical rulings inside the region, from gaps that
run down the rows of two or more chunks (rows of values set the columns when there are
enough of them; labels above may straddle their gaps; otherwise a header spanning two
columns may bridge one), and, inside a column, from word gaps that part numbers on every
row (fixed-pitch tables set one space apart). A gap after a column of bullets is no
column; in a ruled table a gap counts only where rows hold text on both sides of it.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...model import Box

if TYPE_CHECKING:
    from .page_words import Row, Word


_VALUE_RE = re.compile(
    r"^[(\[+\-–−$€£¥]*\s*(?:\d[\d\s.,'’]*\d|\d)(?:\s*%|[)\]*]|[a-z]{0,2})*$"
    r"|^(?:n/?a|n\.a\.?|n\.s\.?|–|—|-|\.\.\.?|…|:|x|\*{1,3})$",  # placeholders (":" for not available in statistical tables)
    re.IGNORECASE)
_BULLETS = frozenset("•◦▪▫●○■□‣⁃∙·*–—-o")


@dataclass(slots=True)
class Sep:
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


def union_gaps(spans: list[tuple[float, float]], allowed: int, min_w: float
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


def columns(rows: list[Row], box: Box, vrules: list[tuple[float, float, float]]) -> list[Sep]:
    x0, top, x1, bottom = box
    seps: list[Sep] = []
    for x, t, b in sorted(vrules):
        if not (x0 + 3 < x < x1 - 3) or b < top - 2 or t > bottom + 2:
            continue
        if seps and abs(seps[-1].x - x) <= 2.0 and seps[-1].rule is not None:
            seps[-1].rule.append((t, b))
        else:
            seps.append(Sep(x, [(t, b)]))
    multi = [r for r in rows if len(r.chunks) >= 2] or rows
    data = [r for r in multi if data_row(r)]
    if len(data) >= 3:  # rows of values set the columns; labels above may straddle them
        multi, allowed = data, len(data) // 10
    else:
        allowed = len(multi) // 5
    spans = [(c[0].x0, c[-1].x1) for r in multi for c in r.chunks]
    h = sorted(r.h for r in rows)[len(rows) // 2]
    ruled = [s.x for s in seps if s.rule is not None]
    for a, b in union_gaps(spans, allowed, 0.3 * h):
        if any(a - 2 <= x <= b + 2 for x in ruled):
            continue
        if ruled and not _both_sides(rows, a, b, ruled, box):
            continue  # inside a ruled column, text set left and right on different rows
        seps.append(Sep((a + b) / 2, None))
    seps.sort(key=lambda s: s.x)
    return _fine_columns(rows, _no_bullets(rows, seps), h)


def _both_sides(rows: list[Row], a: float, b: float, ruled: list[float], box: Box) -> bool:
    """Return True when many rows hold words on both sides of the gap [a, b] within the
    ruled column around it (two columns the rulings do not part)."""
    left = max([x for x in ruled if x <= a] + [box[0] - 1])
    right = min([x for x in ruled if x >= b] + [box[2] + 1])
    filled = both = 0
    for r in rows:
        ws = [w for w in r.words if not w.filler and left < (w.x0 + w.x1) / 2 < right]
        if ws:
            filled += 1
            both += any(w.x1 <= a + 1 for w in ws) and any(w.x0 >= b - 1 for w in ws)
    return both >= 2 and both >= 0.3 * filled


def data_row(r: Row) -> bool:
    """Return True for a row whose chunks after the first are mostly values."""
    rest = r.chunks[1:]
    vals = sum(1 for c in rest if all(is_value(w.text) for w in c))
    return bool(rest) and vals >= 0.5 * len(rest)


def _no_bullets(rows: list[Row], seps: list[Sep]) -> list[Sep]:
    """Drop the gaps after a column of nothing but bullets (a list inside a cell)."""
    out: list[Sep] = []
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


def _fine_columns(rows: list[Row], seps: list[Sep], h: float) -> list[Sep]:
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
        for a, b in union_gaps(spans, len(lines) // 5, 0.25 * h):
            both = [ws for ws in lines if ws[0].x1 <= a and ws[-1].x0 >= b]
            if len(both) < max(3, 0.6 * len(lines)):
                continue
            near = [(max((w for w in ws if w.x1 <= a), key=lambda w: w.x1),
                     min((w for w in ws if w.x0 >= b), key=lambda w: w.x0)) for ws in both]
            if sum(1 for p, q in near if is_value(p.text) and is_value(q.text)) >= 0.8 * len(near):
                out.append(Sep((a + b) / 2, None, fine=True))
    out.sort(key=lambda s: s.x)
    return out
