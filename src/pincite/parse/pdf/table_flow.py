"""Tables in a PDF's reading flow: cut out of the lines, joined across pages, emitted.

`cut_tables` finds each page's tables (`table_detect.find_tables`) and takes their words
out of the page's lines (a line that also holds other text keeps that text), leaving a
`TableBlock` at the place of the table's first line in reading order. `place` puts the
blocks back among the lines that remain (after running headers are dropped) and joins a
table that ends its page to one that opens the next page when their columns line up:
one table, its header once (a repeated header row is dropped). `emit` hands a block to
`LayerBuilder.table` with per-character geometry, spans, header rows, row-label indents
and the caption just above it ("Table 3: Revenue (in millions)").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...model import Box
from ..layout import LayerBuilder
from .grid import Cell, Grid
from .lines import HYPHEN_MARK, CharBoxes, Line, Page
from .page_words import Word
from .table_detect import find_tables

CAPTION_RE = re.compile(
    r"^(?:table|tab\.|exhibit|schedule|annex|appendix|tabla|cuadro|tableau|tabelle|tabella|"
    r"anexo|anexe|tableau)\s*[\w.\-–]*\s*[:.\-–—|]?\s", re.IGNORECASE)
MAX_CAPTION = 600
COLUMN_TOL = 12.0  # points: columns of a continued table line up this closely


@dataclass(slots=True)
class TableBlock:
    """A table in the flow: one grid per page it runs over."""

    parts: list[Grid]
    order: float  # its place among the page's lines (their indices before the cut)
    top: float = 0.0
    caption: str | None = None
    dropped: list[int] = field(default_factory=list)  # header rows dropped per later part


def cut_tables(pages: list[Page]) -> tuple[dict[int, list[TableBlock]], dict[int, float]]:
    """Find the tables and take their words out of the pages' lines.

    Returns ({page number: blocks}, {id(line): its index on its page before the cut}) for
    the pages that hold tables; `place` puts the blocks back by those indices.
    """
    out: dict[int, list[TableBlock]] = {}
    order: dict[int, float] = {}
    for p in pages:
        grids = find_tables(p)
        if not grids:
            continue
        taken: dict[int, list[Word]] = {}
        for g in grids:
            for w in g.words:
                taken.setdefault(id(w.line), []).append(w)
        first: dict[int, float] = {}
        kept: list[Line] = []
        for i, ln in enumerate(p.lines):
            words = taken.get(id(ln))
            if not words:
                kept.append(ln)
                order[id(ln)] = i
                continue
            for g in grids:
                if id(g) not in first and any(w.line is ln for w in g.words):
                    first[id(g)] = i + 0.5
            for piece in _rest(ln, words):
                kept.append(piece)
                order[id(piece)] = i
        p.lines = kept
        out[p.number] = [TableBlock([g], first.get(id(g), float(len(kept))), g.box[1])
                         for g in grids]
    return out, order


def _rest(ln: Line, words: list[Word]) -> list[Line]:
    """Return what is left of a line once `words` are taken out (maybe nothing)."""
    spans = sorted((w.a, w.b) for w in words)
    pieces: list[tuple[int, int]] = []
    pos = 0
    for a, b in spans:
        if ln.text[pos:a].strip():
            pieces.append((pos, a))
        pos = max(pos, b)
    if ln.text[pos:].strip():
        pieces.append((pos, len(ln.text)))
    return [_slice(ln, a, b) for a, b in pieces]


def _slice(ln: Line, a: int, b: int) -> Line:
    """Return `ln.text[a:b]` (spaces trimmed) as a line of its own, its box in its frame
    and as shown."""
    text = ln.text
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    holes = [h - a for h in ln.holes if a <= h < b]
    part = CharBoxes(ln.boxes.rows[a:b])
    own = None if ln.fboxes is None else CharBoxes(ln.fboxes.rows[a:b])
    box = _union(own if own is not None else part, holes)
    dbox = box if own is None else _union(part, holes)
    return Line(ln.page, text[a:b], part, holes, *box, ln.height, ln.bold, ln.hidden, dbox,
                ln.hyphen_join and b == len(text), ln.page_break, frame=ln.frame, fboxes=own)


def _union(boxes: CharBoxes, holes: list[int]) -> Box:
    """Return the union of the boxes that are not holes (all of them if every one is)."""
    rows = boxes.rows
    if holes and len(holes) < len(rows):
        keep = np.ones(len(rows), dtype=bool)
        keep[holes] = False
        rows = rows[keep]
    lo, hi = rows.min(axis=0), rows.max(axis=0)
    return (float(lo[0]), float(lo[1]), float(hi[2]), float(hi[3]))


def place(pages: list[Page], blocks: dict[int, list[TableBlock]], order: dict[int, float]
          ) -> list[list[Line | TableBlock]]:
    """Return each page's flow: its lines with its tables in place; a table that opens a
    page and continues the one that ended the page before is joined to it (and left out
    of its own page's flow)."""
    flows: list[list[Line | TableBlock]] = []
    for p in pages:
        mine = blocks.get(p.number, [])
        if not mine:
            flows.append(list(p.lines))
            continue
        items: list[tuple[float, int, Line | TableBlock]] = [
            (order.get(id(ln), k), 0, ln) for k, ln in enumerate(p.lines)]
        items += [(b.order, 1, b) for b in mine]
        items.sort(key=lambda t: (t[0], t[1]))
        flows.append([it for _, _, it in items])
    open_block: TableBlock | None = None
    for flow in flows:
        first = flow[0] if flow else None
        if open_block is not None and isinstance(first, TableBlock) and _continues(open_block, first):
            open_block.dropped.append(_repeated_header(open_block.parts[0], first.parts[0]))
            open_block.parts.extend(first.parts)
            del flow[0]
            if not flow:
                continue  # the table fills the page: it may go on
        last = flow[-1] if flow else None
        open_block = last if isinstance(last, TableBlock) else None
    return flows


def _continues(a: TableBlock, b: TableBlock) -> bool:
    """Return True when table `b` (top of a page) continues table `a` (end of the last)."""
    ga, gb = a.parts[-1], b.parts[0]
    if ga.n_cols != gb.n_cols or ga.frame != gb.frame:
        return False
    return all(abs((p[0] + p[1]) / 2 - (q[0] + q[1]) / 2) <= COLUMN_TOL or
               abs(p[0] - q[0]) <= COLUMN_TOL or abs(p[1] - q[1]) <= COLUMN_TOL
               for p, q in zip(_content_columns(ga), _content_columns(gb), strict=True))


def _content_columns(g: Grid) -> list[tuple[float, float]]:
    out = []
    for k, (a, b) in enumerate(g.columns):
        ws = [w for c in g.cells if c.c0 == c.c1 == k and c.r0 >= g.header_rows for w in c.words]
        out.append((min(w.x0 for w in ws), max(w.x1 for w in ws)) if ws else (a, b))
    return out


def _repeated_header(a: Grid, b: Grid) -> int:
    """Return how many leading rows of `b` repeat the header rows of `a`."""
    if not a.header_rows:
        return 0
    want = _row_texts(a, a.header_rows)
    got = _row_texts(b, a.header_rows)
    return a.header_rows if want == got else 0


def _row_texts(g: Grid, n: int) -> list[list[str]]:
    rows: list[list[str]] = [[] for _ in range(n)]
    for c in sorted(g.cells, key=lambda c: (c.r0, c.c0)):
        if c.r0 < n:
            rows[c.r0].append("".join(_cell_text(c)[0].split()).casefold())
    return rows


# ---- emission --------------------------------------------------------------------------


def _cell_text(c: Cell) -> tuple[str, list[tuple[int, Box] | None]]:
    """Return a cell's text and per-character geometry (None for the joining spaces)."""
    parts: list[str] = []
    geo: list[tuple[int, Box] | None] = []
    prev: Word | None = None
    for w in c.words:
        if w.filler:
            continue
        if prev is not None:
            parts.append(" ")
            geo.append(None)
        text = w.line.text[w.a:w.b].replace(HYPHEN_MARK, "-")
        parts.append(text)
        page = w.line.page
        geo.extend((page, bx) for bx in w.line.boxes[w.a:w.b])
        prev = w
    return "".join(parts), geo


def emit(builder: LayerBuilder, block: TableBlock) -> None:
    """Add a table block to the layer."""
    rows: list[list[str]] = []
    chars: list[list[Any]] = []
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    header: set[tuple[int, int]] = set()
    indents: dict[tuple[int, int], float] = {}
    base = 0
    for k, g in enumerate(block.parts):
        skip = block.dropped[k - 1] if k else 0
        n = g.n_rows - skip
        grid = [[""] * g.n_cols for _ in range(n)]
        geo: list[list[Any]] = [[None] * g.n_cols for _ in range(n)]
        for c in g.cells:
            if c.r0 < skip:
                continue
            r = c.r0 - skip
            text, cg = _cell_text(c)
            grid[r][c.c0] = text
            geo[r][c.c0] = cg
            if c.r1 > c.r0 or c.c1 > c.c0:
                spans[(base + r, c.c0)] = (c.r1 - c.r0 + 1, c.c1 - c.c0 + 1)
            if k == 0 and c.r0 < g.header_rows:
                header.add((r, c.c0))
        for (r, col), v in g.indents.items():
            if r >= skip:
                indents[(base + r - skip, col)] = v
        rows.extend(grid)
        chars.extend(geo)
        base += n
    builder.table(rows, page=block.parts[0].page, cell_chars=chars, spans=spans,
                  header_cells=header, indents=indents or None, caption=block.caption)


def caption_of(text: str) -> str | None:
    """Return the caption a paragraph states ("Table 3: Revenue"), if it reads as one."""
    t = " ".join(text.split())
    if len(t) <= MAX_CAPTION and CAPTION_RE.match(t + " "):
        return t
    return None
