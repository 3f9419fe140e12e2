"""A PDF page's words, text rows, chunks and rulings: what table detection reads.

- words: a line split at spaces, each with the box of its glyphs; dot leaders and typed
  rules ("-----") are fillers, not content;
- text rows: lines at one height, each joined to a row by its overlap with the row's
  first line (a value set midway beside a two-line label joins the first line's row);
- chunks: the words of a row that stand close together, parted at wide gaps (wider than
  `CHUNK_GAP` × the row height and than `SPACES` of the page's word gaps), at fillers and
  at vertical rulings;
- rulings: the page's horizontal and vertical strokes with collinear pieces joined.

Boxes are in the frame the lines read in (`Line.frame`, `frames`): (x0, top, x1,
bottom), origin top-left; on most pages that is the page as shown.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .lines import ZERO, Line, Page

CHUNK_GAP = 0.75  # × row height: a wider gap parts two chunks (maybe two cells) …
SPACES = 2.5  # … if it is also wider than this many of the page's word gaps
ROW_OVERLAP = 0.4  # lines overlapping by this share of the lower height are one row
RULE_TOL = 2.0  # points: rulings this close meet
_TOKEN_RE = re.compile(r"\S+")
_FILLER_RE = re.compile(r"^(?:[.·…]{3,}|[-_=–—]{3,}|[.\s]{5,})$")
_LEADER_RE = re.compile(r"[.·…]{3,}|_{3,}")


@dataclass(slots=True)
class Word:
    """A run of glyphs between spaces on one line: `line.text[a:b]`, its box in the line's
    frame."""

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


def _band(ln: Line) -> tuple[float, float]:
    """Return the line's top and bottom as most of its glyphs set them (a symbol font's
    bullet can have a box several lines tall); a sample of glyphs is enough."""
    boxes = ln.own_boxes
    step = max(1, len(boxes) // 9)
    sample = [b for b in boxes[::step] if b != ZERO]
    if not sample:
        return ln.top, ln.bottom
    tops = sorted(b[1] for b in sample)
    bottoms = sorted(b[3] for b in sample)
    return tops[len(tops) // 2], bottoms[len(bottoms) // 2]


def line_words(ln: Line, band: tuple[float, float] | None = None) -> list[Word]:
    """Return the words of a line (leaders split off and marked as fillers), each with
    the box of its first and last glyphs (the line's usual top and bottom for a glyph
    box taller than the line's)."""
    text, boxes = ln.text, list(ln.own_boxes)
    top, bottom = band or _band(ln)
    tall = 1.5 * (bottom - top)
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
            wt, wb = min(bi[1], bj[1]), max(bi[3], bj[3])
            if wb - wt > tall or wb <= wt:  # a symbol's box: the line's band instead
                wt, wb = top, bottom
            w = Word(ln, a, b, min(bi[0], bj[0]), wt, max(bi[2], bj[2]), wb)
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
            seed = r.words[0]  # overlap with the row's first line: no chaining through
            overlap = min(bottom, seed.bottom) - max(top, seed.top)  # a centred cell
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


def word_space(rows: list[Row]) -> float:
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


def merge_rules(page: Page, frame: int) -> Rules:
    """Return the page's rulings in `frame` with collinear pieces joined."""
    h, v = page.rulings(frame)
    return Rules(_merge(h), _merge(v))


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
