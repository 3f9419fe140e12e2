"""Where the tables are on a PDF page: ruled frames and blocks of aligned columns.

`find_tables(page)` looks only where the page's geometry suggests a table, so prose
pages cost next to nothing (`candidate_lines`): inside ruled frames (connected
horizontal and vertical rulings: at least two and one, with a ruling inside, not a plain
box around text), and in runs of rows (lines at one height) where three or more rows
hold two lines or a wide gap (`lines` marks gaps wide enough to part cells, not the
one after a list number), with the rows above them (headers) and two below. Those lines
are read word by word (`page_words`):

- each ruled frame becomes a grid (`pdf_grid`);
- the rows left over are searched for unruled blocks of aligned columns (`blocks`),
  one text column at a time on a page of two columns, and each block becomes a grid;
- `pdf_grid` rejects regions that are no table (one column, prose in columns, numbered
  transcript lines).

Each frame the page's text reads in (`frames`: a table set sideways beside upright text)
is searched on its own, its lines and rulings in that frame. Boxes are in that frame:
(x0, top, x1, bottom), origin top-left; the cells' characters keep their boxes as shown.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .blocks import MAX_HEADER_ROWS, MIN_BLOCK_ROWS, blocks, boxed, gutter, side
from .grid import Grid, build_grid
from .lines import Line, Page
from .page_words import ROW_OVERLAP, RULE_TOL, Row, Rules, chunk, merge_rules, text_rows, word_space

# ---- the cheap look --------------------------------------------------------------------


def candidate_lines(page_lines: list[Line], frames: list[tuple[float, float, float, float]]
                    ) -> list[Line]:
    """Return the lines worth reading word by word: those in ruled frames, and the runs of
    rows (lines at one height) where several rows hold two lines or a wide gap, with the
    rows just above them (headers). Prose pages have none: this costs next to nothing."""
    lines = sorted((ln for ln in page_lines if not ln.hidden), key=lambda ln: ln.top)
    rows: list[list[Line]] = []
    bounds: list[list[float]] = []  # top, bottom, height of each row
    for ln in lines:
        if bounds:
            t, b, h = bounds[-1]
            if min(b, ln.bottom) - max(t, ln.top) >= ROW_OVERLAP * max(min(h, ln.bottom - ln.top), 0.1):
                rows[-1].append(ln)
                bounds[-1][1] = max(b, ln.bottom)
                continue
        rows.append([ln])
        bounds.append([ln.top, ln.bottom, max(ln.bottom - ln.top, 1.0)])
    keep = [False] * len(rows)
    multi = [len(r) >= 2 or any(ln.wide for ln in r) for r in rows]
    k = 0
    while k < len(rows):
        if not multi[k]:
            k += 1
            continue
        run = [k]
        j = k + 1
        while j < len(rows) and j - run[-1] <= 3 and \
                bounds[j][0] - bounds[j - 1][1] <= 2.2 * max(bounds[j][2], bounds[j - 1][2]):
            if multi[j]:
                run.append(j)
            j += 1
        if len(run) >= MIN_BLOCK_ROWS:
            for i in range(max(0, k - MAX_HEADER_ROWS), min(len(rows), run[-1] + 3)):
                keep[i] = True
        k = run[-1] + 1
    out = [ln for r, kept in zip(rows, keep, strict=True) if kept for ln in r]
    if frames:
        seen = {id(ln) for ln in out}
        for ln in lines:
            cx, cy = (ln.x0 + ln.x1) / 2, (ln.top + ln.bottom) / 2
            if id(ln) not in seen and any(x0 <= cx <= x1 and t <= cy <= b for x0, t, x1, b in frames):
                out.append(ln)
    return out


def _frames(rules: Rules) -> list[tuple[tuple[float, float, float, float], Rules]]:
    """Return the boxes of connected rulings with two or more horizontal and one or more
    vertical lines (a ruled table, or a box), each with its rulings."""
    hs, vs = rules.h, rules.v
    if not hs or not vs:
        return []
    n = len(hs) + len(vs)
    parent = list(range(n))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    by_x = sorted(range(len(vs)), key=lambda j: vs[j][0])
    xs = [vs[j][0] for j in by_x]
    for i, (y, x0, x1) in enumerate(hs):
        for j in by_x[bisect_left(xs, x0 - RULE_TOL):bisect_right(xs, x1 + RULE_TOL)]:
            x, t, b = vs[j]
            if t - RULE_TOL <= y <= b + RULE_TOL:
                parent[find(i)] = find(len(hs) + j)
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(find(i), []).append(i)
    out = []
    for members in groups.values():
        h = [hs[i] for i in members if i < len(hs)]
        v = [vs[i - len(hs)] for i in members if i >= len(hs)]
        if len(h) < 2 or not v:
            continue
        x0 = min([r[1] for r in h] + [r[0] for r in v])
        x1 = max([r[2] for r in h] + [r[0] for r in v])
        top = min([r[0] for r in h] + [r[1] for r in v])
        bottom = max([r[0] for r in h] + [r[2] for r in v])
        if x1 - x0 >= 20 and bottom - top >= 8:
            out.append(((x0, top, x1, bottom), Rules(h, v)))
    return out


# ---- regions ---------------------------------------------------------------------------


def find_tables(page: Page) -> list[Grid]:
    """Return the tables on a page: those of the frame most of its text reads in, then
    those of each other frame, top to bottom in each."""
    turns = sorted({ln.frame for ln in page.lines if not ln.hidden}, key=lambda f: f != page.frame)
    out: list[Grid] = []
    for f in turns:
        lines = page.lines if len(turns) == 1 else [ln for ln in page.lines if ln.frame == f]
        for grid in _find(page, lines, f):
            grid.frame = f
            out.append(grid)
    return out


def _find(page: Page, page_lines: list[Line], frame: int) -> list[Grid]:
    """Return the tables of the lines that read in `frame`, top to bottom."""
    raw = page.rules  # a frame needs rulings both ways
    both = any(r[1] == r[3] for r in raw) and any(r[0] == r[2] for r in raw)
    rules = merge_rules(page, frame) if both else None
    frames = [(box, own) for box, own in _frames(rules) if _interior(own, box)] if rules else []
    lines = candidate_lines(page_lines, [box for box, _ in frames])
    if not lines:
        return []
    rules = rules or merge_rules(page, frame)
    rows = text_rows(lines)
    space = word_space(rows)
    for r in rows:
        r.space = space
        chunk(r, rules.v)
    grids: list[Grid] = []
    taken: set[int] = set()
    boxes = [box for box, own in _frames(rules) if not _interior(own, box)]  # no tables
    for box, _ in sorted(frames, key=lambda f: (f[0][1], f[0][0])):
        inside = _clip(rows, box)
        grid = build_grid(page.number, inside, box, rules, ruled=True) if inside else None
        if grid is None:
            boxes.append(box)
            continue
        grids.append(grid)
        taken.update(id(w) for r in inside for w in r.words)
    free = [f for f in (_without(r, taken) for r in rows) if f is not None]
    mid = gutter(free, page.size(frame)[0])
    halves = [free] if mid is None else [side(free, mid, left) for left in (True, False)]
    if mid is not None:
        for half in halves:
            for row in half:
                chunk(row, rules.v)
    for block in (b for half in halves for b in blocks(half, rules)):
        if boxed(block, boxes):
            continue
        box = (min(r.x0 for r in block), min(r.top for r in block),
               max(r.x1 for r in block), max(r.bottom for r in block))
        grid = build_grid(page.number, block, box, rules, ruled=False)
        if grid is not None:
            grids.append(grid)
    grids.sort(key=lambda g: g.box[1])
    return grids


def _interior(rules: Rules, box: tuple[float, float, float, float]) -> bool:
    """Return True when a ruling runs inside the frame (not a plain box around text)."""
    x0, top, x1, bottom = box
    return any(x0 + 3 < x < x1 - 3 and t < bottom - 3 and b > top + 3 for x, t, b in rules.v) or \
        any(top + 3 < y < bottom - 3 and a < x1 - 3 and b > x0 + 3 for y, a, b in rules.h)


def _clip(rows: list[Row], box: tuple[float, float, float, float]) -> list[Row]:
    """Return the rows' words whose centres lie in `box`, as rows."""
    x0, top, x1, bottom = box
    out = []
    for r in rows:
        words = [w for w in r.words if x0 - 1 <= (w.x0 + w.x1) / 2 <= x1 + 1
                 and top - 1 <= (w.top + w.bottom) / 2 <= bottom + 1]
        if words:
            out.append(Row(words, min(w.top for w in words), max(w.bottom for w in words), r.h,
                           space=r.space))
    return out


def _without(r: Row, taken: set[int]) -> Row | None:
    if not any(id(w) in taken for w in r.words):
        return r
    words = [w for w in r.words if id(w) not in taken]
    if not words:
        return None
    out = Row(words, min(w.top for w in words), max(w.bottom for w in words), r.h, space=r.space)
    out.chunks = [[w for w in c if id(w) not in taken] for c in r.chunks]
    out.chunks = [c for c in out.chunks if c]
    return out
