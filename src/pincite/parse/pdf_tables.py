"""Where the tables are on a PDF page: ruled frames and blocks of aligned columns.

`find_tables(page)` runs only on pages whose geometry suggests a table (`worth_a_look`:
a vertical ruling beside horizontal ones, a stack of long horizontal rules, or several
lines with wide gaps), so prose pages cost nothing. Then:

- words: the page's visible lines split at spaces; dot leaders and typed rules ("-----")
  are fillers, not content;
- text rows: lines at one height (a value set between two label lines joins both);
- chunks: the words of a row that stand close together, parted at wide gaps and at
  vertical rulings;
- ruled frames: connected horizontal and vertical rulings (at least two and one) enclose
  a table;
- unruled blocks: consecutive rows of two or more chunks whose gaps line up, with single
  labels between them (section rows), grown upward over the header rows (to a top rule
  when there is one);
- each region becomes a grid in `pdf_grid`, which also rejects regions that are prose
  (two or more columns of running text).

Boxes are as shown: (x0, top, x1, bottom), origin top-left.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .pdf_grid import Grid, build_grid
from .pdf_lines import ZERO, Line, Page

CHUNK_GAP = 0.75  # × row height: a wider gap parts two chunks (maybe two cells) …
SPACES = 2.5  # … if it is also wider than this many of the page's word gaps
ROW_OVERLAP = 0.4  # lines overlapping by this share of the lower height are one row
MIN_BLOCK_ROWS = 3  # rows of two or more aligned chunks that make an unruled table
MAX_HEADER_ROWS = 6
RULE_TOL = 2.0  # points: rulings this close meet
PROSE_WORDS = 8  # a row with this many words of letters is running text
_WORD_RE = re.compile(r"^[(\"'“‘]?[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*[)\"'”’.,;:!?]*$")
_TOKEN_RE = re.compile(r"\S+")
_FILLER_RE = re.compile(r"^(?:[.·…]{3,}|[-_=–—]{3,}|[.\s]{5,})$")
_LEADER_RE = re.compile(r"[.·…]{3,}|_{3,}")
_CAPTION_RE = re.compile(
    r"^(?:table|tab\.|exhibit|figure|fig\.|chart|tabla|cuadro|tableau|tabelle|anexo|annex|schedule)"
    r"\s*[\w.\-–]*\s*[:.\-–—|]?", re.IGNORECASE)


@dataclass(slots=True)
class Word:
    """A run of glyphs between spaces on one line: `line.text[a:b]`, its box as shown."""

    line: Line
    a: int
    b: int
    x0: float
    top: float
    x1: float
    bottom: float
    filler: bool = False

    @property
    def text(self) -> str:
        return self.line.text[self.a:self.b]


@dataclass(slots=True)
class Row:
    """Words at one height, left to right; `chunks` are the runs of close words."""

    words: list[Word]
    top: float
    bottom: float
    h: float  # the height of its first line
    chunks: list[list[Word]] = field(default_factory=list)
    space: float = 0.0  # the page's usual gap between words

    @property
    def x0(self) -> float:
        return min(w.x0 for w in self.words)

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)


@dataclass(slots=True)
class Rules:
    """A page's rulings, merged: horizontal (y, x0, x1) and vertical (x, top, bottom)."""

    h: list[tuple[float, float, float]]
    v: list[tuple[float, float, float]]


# ---- the cheap look --------------------------------------------------------------------


def worth_a_look(page: Page) -> bool:
    """Return True when the page's geometry suggests a table (see the module docstring)."""
    if page.turned or not page.lines:
        return False
    long_h = [r for r in page.hrules if r[2] - r[1] >= 30]
    if page.vrules and len(long_h) >= 2 and any(r[2] - r[1] >= 8 for r in page.vrules):
        return True
    if len(long_h) >= 3:
        ys = {round(r[0]) for r in long_h}
        if len(ys) >= 3:
            return True
    wide = 0
    for ln in page.lines:
        if ln.wide and not ln.hidden:
            wide += 1
            if wide >= MIN_BLOCK_ROWS:
                return True
    return False


# ---- words, rows, chunks ---------------------------------------------------------------


def _band(ln: Line) -> tuple[float, float]:
    """Return the line's top and bottom as most of its glyphs set them (a symbol font's
    bullet can have a box several lines tall); a sample of glyphs is enough."""
    boxes = ln.boxes
    step = max(1, len(boxes) // 9)
    sample = [b for b in boxes[::step] if b != ZERO]
    if not sample:
        return ln.dbox[1], ln.dbox[3]
    tops = sorted(b[1] for b in sample)
    bottoms = sorted(b[3] for b in sample)
    return tops[len(tops) // 2], bottoms[len(bottoms) // 2]


def line_words(ln: Line, band: tuple[float, float] | None = None) -> list[Word]:
    """Return the words of a line (leaders split off and marked as fillers), each with
    the x extent of its glyphs and the line's usual top and bottom."""
    text, boxes = ln.text, ln.boxes
    top, bottom = band or _band(ln)
    out: list[Word] = []
    for m in _TOKEN_RE.finditer(text):
        k, e = m.span()
        token = m.group()
        pieces = [(k, e, False)]
        lm = _LEADER_RE.search(token)
        if lm is not None and (lm.start() or lm.end() < len(token)):
            pieces = [(k + a, k + b, f) for a, b, f in (
                (0, lm.start(), False), (lm.start(), lm.end(), True),
                (lm.end(), len(token), False)) if b > a]
        for a, b, filler in pieces:
            i, j = a, b - 1
            while i <= j and boxes[i] == ZERO:
                i += 1
            while j >= i and boxes[j] == ZERO:
                j -= 1
            if i > j:
                continue
            bi, bj = boxes[i], boxes[j]
            w = Word(ln, a, b, min(bi[0], bj[0]), top, max(bi[2], bj[2]), bottom)
            w.filler = filler or bool(_FILLER_RE.match(text[a:b]))
            out.append(w)
    return out


def text_rows(lines: list[Line]) -> list[Row]:
    """Return the rows of `lines`, top to bottom, each with its words left to right."""
    rows: list[Row] = []
    banded = sorted(((_band(ln), ln) for ln in lines), key=lambda t: t[0][0])
    for band, ln in banded:
        top, bottom = band
        words = line_words(ln, band)
        if not words:
            continue
        if rows:
            r = rows[-1]
            overlap = min(bottom, r.bottom) - max(top, r.top)
            if overlap >= ROW_OVERLAP * max(min(bottom - top, r.h), 0.1):
                r.words.extend(words)
                r.top, r.bottom = min(r.top, top), max(r.bottom, bottom)
                continue
        rows.append(Row(words, top, bottom, max(bottom - top, 1.0)))
    for r in rows:
        r.words.sort(key=lambda w: w.x0)
        if all(w.filler or _is_dash(w) for w in r.words):
            for w in r.words:
                w.filler = True
    return rows


def _word_space(rows: list[Row]) -> float:
    """Return the page's usual gap between two words of a line."""
    gaps: list[float] = []
    for r in rows:
        for a, b in zip(r.words, r.words[1:], strict=False):
            if a.line is b.line and 0 < b.x0 - a.x1 < 3 * r.h:
                gaps.append(b.x0 - a.x1)
    gaps.sort()
    return gaps[len(gaps) // 4] if gaps else 0.0


def _is_dash(w: Word) -> bool:
    return all(c in "-_=–—" for c in w.text)


def chunk(row: Row, vrules: list[tuple[float, float, float]]) -> None:
    """Set `row.chunks`: close words together, parted at wide gaps (wider than CHUNK_GAP ×
    the row height and than SPACES × the page's usual word gap), fillers and rulings."""
    chunks: list[list[Word]] = []
    cur: list[Word] = []
    limit = max(CHUNK_GAP * row.h, SPACES * row.space)
    mid = (row.top + row.bottom) / 2
    for w in row.words:
        if w.filler:
            if cur:
                chunks.append(cur)
            cur = []
            continue
        if cur:
            prev = cur[-1]
            ruled = any(prev.x1 - 1 <= x <= w.x0 + 1 and t <= mid <= b for x, t, b in vrules)
            if w.x0 - prev.x1 > limit or ruled:
                chunks.append(cur)
                cur = []
        cur.append(w)
    if cur:
        chunks.append(cur)
    row.chunks = chunks


# ---- rulings ---------------------------------------------------------------------------


def merge_rules(page: Page) -> Rules:
    """Return the page's rulings with collinear pieces joined."""
    return Rules(_merge(page.hrules), _merge(page.vrules))


def _merge(rules: list[tuple[float, float, float]]) -> list[tuple[float, float, float]]:
    out: list[list[float]] = []
    for pos, a, b in sorted(rules):
        for r in reversed(out[-8:]):
            if abs(r[0] - pos) <= 1.0 and a <= r[2] + RULE_TOL and b >= r[1] - RULE_TOL:
                r[1], r[2] = min(r[1], a), max(r[2], b)
                break
        else:
            out.append([pos, a, b])
    return [(r[0], r[1], r[2]) for r in out if r[2] - r[1] >= 6]


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

    for i, (y, x0, x1) in enumerate(hs):
        for j, (x, t, b) in enumerate(vs):
            if x0 - RULE_TOL <= x <= x1 + RULE_TOL and t - RULE_TOL <= y <= b + RULE_TOL:
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
    """Return the tables on a page, top to bottom."""
    if not worth_a_look(page):
        return []
    rules = merge_rules(page)
    lines = [ln for ln in page.lines if not ln.hidden]
    rows = text_rows(lines)
    space = _word_space(rows)
    for r in rows:
        r.space = space
        chunk(r, rules.v)
    grids: list[Grid] = []
    taken: set[int] = set()
    boxes: list[tuple[float, float, float, float]] = []  # frames that hold no table
    for box, own in sorted(_frames(rules), key=lambda f: (f[0][1], f[0][0])):
        inside = _clip(rows, box)
        grid = None
        if inside and _interior(own, box):
            grid = build_grid(page.number, inside, box, rules, ruled=True)
        if grid is None:
            boxes.append(box)
            continue
        grids.append(grid)
        taken.update(id(w) for r in inside for w in r.words)
    free = [_without(r, taken) for r in rows]
    free = [r for r in free if r is not None]
    for block in _blocks(free, rules):
        if _boxed(block, boxes):
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


def _boxed(block: list[Row], boxes: list[tuple[float, float, float, float]]) -> bool:
    """Return True when most of a block's chunks sit in boxes of their own (a diagram)."""
    chunks = [c for r in block for c in r.chunks]
    if not boxes or not chunks:
        return False
    held: dict[int, int] = {}
    for c in chunks:
        cx, cy = (c[0].x0 + c[-1].x1) / 2, (c[0].top + c[0].bottom) / 2
        for k, (x0, top, x1, bottom) in enumerate(boxes):
            if x0 <= cx <= x1 and top <= cy <= bottom:
                held[k] = held.get(k, 0) + 1
                break
    small = sum(n for n in held.values() if n <= 3)
    return small >= 0.4 * len(chunks)


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


def _spans(row: Row) -> list[tuple[float, float]]:
    return [(c[0].x0, c[-1].x1) for c in row.chunks]


def _gaps(spans: list[tuple[float, float]], min_width: float) -> list[tuple[float, float]]:
    """Return the interior gaps (≥ min_width) in the union of intervals."""
    out = []
    spans = sorted(spans)
    if not spans:
        return out
    end = spans[0][1]
    for a, b in spans[1:]:
        if a - end >= min_width:
            out.append((end, a))
        end = max(end, b)
    return out


def _aligned(block: list[Row], row: Row) -> bool:
    """Return True when the row's chunk gaps line up with the block's column gaps."""
    h = min(row.h, block[-1].h)
    spans = [s for r in block if len(r.chunks) >= 2 for s in _spans(r)]
    own = _gaps(_spans(row), 0.5 * h)
    both = _gaps(spans + _spans(row), 0.3 * h)
    if not own or not both:
        return False
    bx0, bx1 = min(s[0] for s in spans), max(s[1] for s in spans)
    if row.x1 < bx0 or row.x0 > bx1:
        return False
    return any(a < gb and b > ga for a, b in own for ga, gb in both)


def _blocks(rows: list[Row], rules: Rules) -> list[list[Row]]:
    """Return the runs of rows that form unruled tables, header rows included."""
    out: list[list[Row]] = []
    used: set[int] = set()
    i = 0
    while i < len(rows):
        if len(rows[i].chunks) < 2 or _prose_row(rows[i]):
            i += 1
            continue
        block = [rows[i]]
        pending: list[Row] = []
        j = i + 1
        while j < len(rows):
            r = rows[j]
            prev = (pending or block)[-1]
            if r.top - prev.bottom > 2.2 * max(prev.h, r.h):
                break
            if len(r.chunks) >= 2 and _chunk_text(r.chunks[0]) == _chunk_text(block[0].chunks[0]):
                break  # the header again: the next table
            if len(r.chunks) >= 2 and not _prose_row(r) and _aligned(block, r):
                block.extend(pending)
                pending = []
                block.append(r)
            elif not r.chunks or len(r.chunks) == 1 and _inside(r, block) and sum(
                    1 for p in pending if p.chunks) < 2:
                pending.append(r)  # a section label, or a typed rule
            else:
                break
            j += 1
        multi = sum(1 for r in block if len(r.chunks) >= 2)
        if multi >= MIN_BLOCK_ROWS:
            start = i
            head = _header_rows(rows, start, block, rules, used)
            for r in head:
                used.add(id(r))
            for r in block:
                used.add(id(r))
            out.append(head + block)
            i = j - len(pending)
        else:
            i += 1
    return out


def _chunk_text(c: list[Word]) -> str:
    return " ".join(w.text for w in c)


def _prose_row(r: Row) -> bool:
    """Return True for a row of running text: a chunk of many words, or many words in
    small letters (justified fixed-pitch text has wide gaps everywhere)."""
    if max((len(c) for c in r.chunks), default=0) >= 9:
        return True
    words = [w for w in r.words if not w.filler]
    small = sum(1 for w in words if w.text[:1].islower())
    if len(words) >= 7 and small >= 0.6 * len(words):
        return True
    return sum(1 for w in words if _WORD_RE.match(w.text)) >= PROSE_WORDS and \
        len(words) >= 2.5 * len(r.chunks)


def _inside(r: Row, block: list[Row]) -> bool:
    x0 = min(b.x0 for b in block)
    x1 = max(b.x1 for b in block)
    return r.x0 >= x0 - 2 * r.h and r.x1 <= x1 + 2 * r.h and not _CAPTION_RE.match(_row_text(r))


def _row_text(r: Row) -> str:
    return " ".join(w.text for w in r.words)


def _header_like(r: Row, block: list[Row], x0: float) -> bool:
    """Return True for a row that can head an unruled table: labels in the block's
    columns, or one short label set in from the left (over the columns it heads)."""
    if not r.chunks or _prose_row(r):
        return False
    if len(r.chunks) >= 2:
        return _aligned(block, r)
    return r.x0 > x0 + 2 * r.h and len(r.words) <= 6


def _header_rows(rows: list[Row], start: int, block: list[Row], rules: Rules,
                 used: set[int]) -> list[Row]:
    """Return the rows just above a block that belong to its header, top to bottom."""
    x0 = min(b.x0 for b in block)
    x1 = max(b.x1 for b in block)
    width = x1 - x0
    first = block[0]
    # a top rule across the block, a few rows up: everything below it is header
    tops = [y for y, a, b in rules.h if a <= x0 + 0.1 * width and b >= x1 - 0.1 * width
            and first.top - MAX_HEADER_ROWS * 1.6 * first.h <= y <= first.top + 1]
    head: list[Row] = []
    k = start - 1
    below = first
    while k >= 0 and len(head) < MAX_HEADER_ROWS:
        r = rows[k]
        gap = below.top - r.bottom
        if id(r) in used or gap > (1.8 if tops else 1.2) * max(r.h, below.h):
            break
        if tops and r.bottom <= max(tops) + 1:
            break
        if r.x0 < x0 - 3 * r.h or r.x1 > x1 + 3 * r.h or _CAPTION_RE.match(_row_text(r)):
            break
        if not tops and not _header_like(r, block, x0):
            break
        head.insert(0, r)
        below = r
        k -= 1
    return head
