"""Unruled tables on a PDF page: runs of rows whose chunks line up in columns.

A block starts at a row of two or more chunks and takes the rows below whose gaps line up
with its own, with up to two single labels between them (section rows) and typed rules;
a row that repeats the block's first label (the same header again) starts the next table,
and running text (many words of letters in long chunks) ends it. A block needs
`MIN_BLOCK_ROWS` such rows. It then grows upward over its header rows: to a rule across it
a few rows up, else over rows of labels in its columns or one short label set in from the
left, never over a caption ("Table 3: …"). On a page of two columns of running text the
columns are searched one at a time; blocks whose chunks sit in boxes of their own are
diagrams. Each rule is tested on a document made for its class of layouts
(tests/parse/test_pdf_table_rules.py); the tuned constants (`tuning`) carry their
held-out figures in docs/evaluation.md.
"""

from __future__ import annotations

import re

from .columns import union_gaps
from .page_words import ROW_OVERLAP, Row, Rules, Word

MIN_BLOCK_ROWS = 3  # rows of two or more aligned chunks that make an unruled table
MAX_HEADER_ROWS = 6
PROSE_WORDS = 8  # a row with this many words of letters is running text
_WORD_RE = re.compile(r"^[(\"'“‘]?[^\W\d_]{2,}(?:[-'’][^\W\d_]+)*[)\"'”’.,;:!?]*$")
_CAPTION_RE = re.compile(
    r"^(?:table|tab\.|exhibit|figure|fig\.|chart|tabla|cuadro|tableau|tabelle|anexo|annex|schedule)"
    r"\s*[\w.\-–]*\s*[:.\-–—|]?", re.IGNORECASE)


def gutter(rows: list[Row], width: float) -> float | None:
    """Return the x of the gutter between two columns of running text, if the page has
    one: an empty strip down the middle third with prose beside it on many rows."""
    if len(rows) < 6:
        return None
    spans = [(w.x0, w.x1) for r in rows for w in r.words if not w.filler]
    h = sorted(r.h for r in rows)[len(rows) // 2]
    best = None
    for a, b in union_gaps(spans, max(1, len(rows) // 20), 0.6 * h):
        mid = (a + b) / 2
        if 0.3 * width <= mid <= 0.7 * width and (best is None or b - a > best[1] - best[0]):
            best = (a, b)
    if best is None:
        return None
    mid = (best[0] + best[1]) / 2
    prose = 0
    for r in rows:
        left = sum(1 for w in r.words if w.x1 <= mid)
        prose += left >= 5 and len(r.words) - left >= 5
    return mid if prose >= 0.3 * len(rows) else None


def side(rows: list[Row], x: float, left: bool) -> list[Row]:
    """Return the rows of one column of the page: the words on one side of x, their
    rows formed again (a row beside a taller line of the other column stands alone)."""
    lines: dict[int, list[Word]] = {}
    for r in rows:
        for w in r.words:
            if ((w.x0 + w.x1) / 2 < x) == left:
                lines.setdefault(id(w.line), []).append(w)
    out: list[Row] = []
    for words in sorted(lines.values(), key=lambda ws: ws[0].top):
        top, bottom = words[0].top, words[0].bottom
        if out:
            r = out[-1]
            if min(bottom, r.bottom) - max(top, r.top) >= ROW_OVERLAP * max(min(bottom - top, r.h), 0.1):
                r.words.extend(words)
                r.top, r.bottom = min(r.top, top), max(r.bottom, bottom)
                continue
        out.append(Row(list(words), top, bottom, max(bottom - top, 1.0), space=rows[0].space))
    for r in out:
        r.words.sort(key=lambda w: w.x0)
    return out


def boxed(block: list[Row], boxes: list[tuple[float, float, float, float]]) -> bool:
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


def _spans(row: Row) -> list[tuple[float, float]]:
    return [(c[0].x0, c[-1].x1) for c in row.chunks]


def _gaps(spans: list[tuple[float, float]], min_width: float) -> list[tuple[float, float]]:
    """Return the interior gaps (≥ min_width) in the union of intervals."""
    out: list[tuple[float, float]] = []
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


def blocks(rows: list[Row], rules: Rules) -> list[list[Row]]:
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
            rule_rows = 0
            while rule_rows < len(pending) and not pending[rule_rows].chunks:
                rule_rows += 1  # typed rules under the last row close the table
            block.extend(pending[:rule_rows])
            pending = pending[rule_rows:]
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
        if not r.chunks:  # a typed rule over the table: its top
            head.insert(0, r)
            break
        if not tops and not _header_like(r, block, x0):
            break
        head.insert(0, r)
        below = r
        k -= 1
    return head
