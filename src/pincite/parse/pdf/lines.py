"""PDF pages → visual lines, read in bulk through pdfium's raw API (used by `pdf.py`).

Per page: the text in one call, the loose box of every character in one tight C-level
loop, the rest per line or per page object. A line keeps its characters' boxes (origin at
the top-left of the page as shown: crop box, /Rotate applied) and marks the characters
that are not glyphs (`holes`: spaces pdfium generated or this module inserted).

The boxes stay in bulk: one float64 array per page, turned to the page as shown with
array arithmetic; a line's boxes are rows of it (`CharBoxes`), read as tuples only where
table detection asks, and its extent comes from one reduction per page. The layer
builder takes the rows as they are.

Right-to-left runs are put in logical order first (`bidi`: letters of one glyph, marks,
spaces where Arabic meets Latin; letter-spaced CJK is not parted), and superscripts or
subscripts drawn apart from their line are put back on their word (`superscripts`).
"""

from __future__ import annotations

import ctypes
import re
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from ctypes import c_int
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

import numpy as np

from ...model import Box
from .bidi import cjk_pair, has_rtl, logical_order, script_meetings
from .frames import (
    HYPHEN_MARK,
    PDFBox,
    char_frames,
    frame_boxes,
    frame_rules,
    page_box,
    read_chars,
    transform,
)
from .nfc import compose
from .objects import Rule, page_objects
from .optional_content import DocumentLayers
from .superscripts import SCRIPT_SIZE, Spec, attach_scripts, union_box

GAP_SPACE = 0.25  # a gap wider than this × line height between two glyphs is a space,
GAP_TIGHT = 0.12  # … or wider than this one before a word that starts after a number
GAP_WIDE = 0.75  # a gap wider than this × line height may part two table cells
_CLOSERS = ".,;:)]}\u201d\""  # not apostrophes: "don't" is one word
HYPHENS = "-\u2010\u00ad" + HYPHEN_MARK
ZERO: Box = (0.0, 0.0, 0.0, 0.0)
ZERO_ROW = np.zeros((1, 4))  # ZERO as a row of boxes (shared: never written to)
_BREAK_RE = re.compile(r"[\r\n]+|" + HYPHEN_MARK)
_ENUM_RE = re.compile(r"[\s(\[]*(?:§\s*|section\s+|article\s+)?(?:\d{1,3}(?:\.\d{1,3})*|[a-z]|[ivxlc]{1,5})[.):\]]?\s*$",
                      re.IGNORECASE)
_BOLD_RE = re.compile(r"bold|black|heavy|semibold|demi", re.IGNORECASE)
NEW_LINE, SPACE, DROP = 0, 1, 2  # how a line is cut at a position

class CharBoxes(Sequence[Box]):
    """A line's character boxes as shown: `rows`, an (n, 4) float64 array (x0, top, x1,
    bottom per character; rows of the page's array, shared: never written to), read as
    tuples of floats."""

    __slots__ = ("rows",)

    def __init__(self, rows: np.ndarray) -> None:
        self.rows = rows

    @classmethod
    def of(cls, boxes: Iterable[Box]) -> CharBoxes:
        """Return the boxes of a list of tuples."""
        return cls(np.array(list(boxes), dtype=np.float64).reshape(-1, 4))

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return list(map(tuple, self.rows[i].tolist()))
        return tuple(self.rows[i].tolist())

    def __iter__(self) -> Iterator[Box]:
        return map(tuple, self.rows.tolist())  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, CharBoxes):
            return bool(np.array_equal(self.rows, other.rows))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


@dataclass(slots=True)
class Line:
    """One visual line: text, one box per character (ZERO at `holes`), and its own box."""

    page: int
    text: str
    boxes: CharBoxes
    holes: list[int]
    x0: float
    top: float
    x1: float
    bottom: float
    height: float
    bold: bool
    hidden: bool
    dbox: Box  # the line's box as shown (x0 … bottom above are in the text's frame)
    hyphen_join: bool = False  # pdfium joined the next line after a hyphen (HYPHEN_MARK)
    wide: int = 0  # gaps wide enough to part table cells (a hint for table detection)
    page_break: bool = False  # a printed page ended just before this line
    frame: int = 0  # the frame it reads in (`frames`): x0 … bottom above are in it
    fboxes: CharBoxes | None = None  # the character boxes in that frame, if not as shown

    @property
    def own_boxes(self) -> CharBoxes:
        """Return the character boxes in the line's own frame (where it reads left to right)."""
        return self.boxes if self.fboxes is None else self.fboxes


@dataclass(slots=True)
class Page:
    """A page's size as shown, and its lines; line geometry (not the character boxes) is
    in the frame where each line reads left to right (`Line.frame`); most of the page reads
    in `frame`, `frame_height` high."""

    number: int
    width: float
    height: float
    lines: list[Line]
    chars: int
    frame_height: float = 0.0
    turned: bool = False  # most text reads in another frame than the page as shown
    rules: list[Rule] = field(default_factory=list)  # ruling lines in PDF space
    rot: int = 0  # the frame of the page as shown (its /Rotate in quarter turns)
    frame: int = 0  # the frame most of its text reads in
    box: PDFBox = (0.0, 0.0, 0.0, 0.0)  # its visible area in PDF space

    def rulings(self, frame: int | None = None
                ) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
        """Return the rulings in `frame` (default: the page as shown): horizontal
        (y, x0, x1), vertical (x, top, bottom)."""
        if not self.rules:
            return [], []
        return frame_rules(self.rules, transform(self.box, self.rot if frame is None else frame)[2])

    def size(self, frame: int) -> tuple[float, float]:
        """Return the page's width and height in `frame`."""
        return (self.width, self.height) if (frame - self.rot) % 2 == 0 else (self.height, self.width)


def _upright(text: str, left: np.ndarray, bottom: np.ndarray, default: int) -> int:
    """Return the quarter turns that make most of the page's text read left to right (a
    pair of right-to-left letters counts reversed: pdfium gives them in logical order)."""
    n = len(text)
    step = max(1, n // 200)
    ks = np.arange(0, n - 1, step)  # a sample of pairs of letters or digits
    ok = np.array([c0.isalnum() and c1.isalnum()
                   for c0, c1 in zip(text[0:n - 1:step], text[1:n:step], strict=True)], dtype=bool)
    dx, dy = left[ks + 1] - left[ks], bottom[ks + 1] - bottom[ks]
    if has_rtl(text):  # two right-to-left letters run backwards: their pair votes reversed
        r0, r1 = (np.array([unicodedata.bidirectional(c) in ("R", "AL") for c in text[i:n - 1 + i:step]],
                           dtype=bool) for i in (0, 1))
        ok &= r0 == r1  # (not where a right-to-left run meets another)
        dx, dy = np.where(r0, -dx, dx), np.where(r0, -dy, dy)
    across = ok & (np.abs(dx) > 2 * np.abs(dy))
    down = ok & ~across & (np.abs(dy) > 2 * np.abs(dx))
    votes = [int(np.count_nonzero(across & (dx > 0))), int(np.count_nonzero(down & (dy > 0))),
             int(np.count_nonzero(across & ~(dx > 0))), int(np.count_nonzero(down & ~(dy > 0)))]
    best = max(range(4), key=votes.__getitem__)
    return best if votes[best] > 2 * votes[default] + 3 else default


def read_page(fn: Any, doc: int, index: int, layers: DocumentLayers | None = None) -> Page:
    """Return the lines of page `index` (0-based) of the document handle, in pdfium's order."""
    number = index + 1
    page = fn.load_page(doc, index)
    if not page:
        return Page(number, 0.0, 0.0, [], 0)
    textpage, rot, up = None, 0, 0
    try:
        box = page_box(fn, page)
        rot = up = fn.rotation(page) % 4
        width, height, shown_f = transform(box, rot)
        textpage = fn.load_text(page)
        text, raw = read_chars(fn, textpage)
        n = len(text)
        if n <= 0:
            return Page(number, width, height, [], 0, height, rot=rot, frame=rot, box=box)
        ltrb = raw[:, 0], raw[:, 1], raw[:, 2], raw[:, 3]
        up = _upright(text, ltrb[0], ltrb[3], rot)
        if up != rot:  # pdfium orders text into lines as the page is shown: turn the page
            fn.close_text(textpage)  # (in memory) the way its text reads, and read it again
            textpage = None
            fn.set_rotation(page, up)
            textpage = fn.load_text(page)
            text, raw = read_chars(fn, textpage)
            n = len(text)
            ltrb = raw[:, 0], raw[:, 1], raw[:, 2], raw[:, 3]
        shown = np.stack(shown_f(*ltrb), axis=1)
        _, fh, turn = (width, height, None) if up == rot else transform(box, up)
        frame = shown if turn is None else np.stack(turn(*ltrb), axis=1)
        flat = shown[:, 0] == shown[:, 2]
        generated = [k for k in np.flatnonzero(flat).tolist()
                     if text[k] == " " and fn.generated(textpage, k)]  # no box: made up
        frames = char_frames(fn, textpage, text, ltrb, flat, up)
        if frames is not None:  # text in several frames: each glyph in its own
            frame = frame_boxes(box, ltrb, frames)
        hidden_mask: list[bool] | None = None
        concealed, rules = page_objects(fn, page, box, layers)
        if concealed:
            owners = list(map(fn.text_object, repeat(textpage, n), range(n)))
            hidden_mask = concealed.mask(owners, raw, text)
        drops: list[int] = []
        if has_rtl(text):  # right-to-left runs: letters of one glyph and marks in order
            text, perm, drops = logical_order(text, frame)
            if perm is not None:  # every per-glyph array follows its glyph
                same, shown = frame is shown, shown[perm]
                frame = shown if same else frame[perm]
                frames = None if frames is None else frames[perm]
                hidden_mask = None if hidden_mask is None else [hidden_mask[k] for k in perm.tolist()]
                generated = sorted(np.argsort(perm)[generated].tolist())
        boxes = shown
        if generated:
            boxes = shown.copy()
            boxes[generated] = 0.0
        ctx = _PageText(fn, textpage, number, width, height, rot, up, text, boxes, shown, frame,
                        generated, hidden_mask, drops, frames)
        return Page(number, width, height, ctx.lines(), n, fh, turned=turn is not None,
                    rules=rules, rot=rot, frame=up, box=box)
    finally:
        if textpage:
            fn.close_text(textpage)
        if rot != up:  # the document as it was: form fields are placed by its /Rotate
            fn.set_rotation(page, rot)
        fn.close_page(page)


def _extents(rows: np.ndarray, spans: list[tuple[int, int]]) -> list[list[float]]:
    """Return the union box [x0, top, x1, bottom] of `rows[a:b]` for each span: spans are
    non-empty, in order and disjoint."""
    if not spans:
        return []
    idx = [i for span in spans for i in span]
    if idx[-1] == len(rows):
        idx.pop()  # the last span runs to the end
    lo = np.minimum.reduceat(rows, idx, axis=0)[0::2]
    hi = np.maximum.reduceat(rows, idx, axis=0)[0::2]
    out: list[list[float]] = np.concatenate((lo[:, :2], hi[:, 2:]), axis=1).tolist()
    return out


@dataclass(slots=True)
class _PageText:
    fn: Any
    textpage: int
    number: int
    width: float  # as shown
    height: float
    rot: int  # the frame of the page as shown
    up: int  # the frame most of the text reads in
    text: str
    boxes: np.ndarray  # as shown, (n, 4), ZERO at the spaces pdfium made up
    shown: np.ndarray  # the same with every box
    frame: np.ndarray  # the same in the text's frame (each glyph's own, with `frames`)
    generated: list[int]
    hidden_mask: list[bool] | None
    drops: list[int]  # spaces pdfium made up inside a word (see `bidi`)
    frames: np.ndarray | None = None  # each glyph's frame, where the page has several
    wide: list[int] = field(default_factory=list)  # glyphs after a wide gap (GAP_WIDE)
    fgrid: np.ndarray | None = None  # `frame`, ZERO at the spaces pdfium made up

    def lines(self) -> list[Line]:
        """Split pdfium's lines where it joined two visual lines or hidden and visible text;
        note where glyphs stand apart with no space between them."""
        text, n = self.text, len(self.text)
        F = self.frame
        item = F.item  # (k, column): x0 0, top 1, x1 2, bottom 3
        # candidates: a visible gap after char k, or a jump backwards (a new line)
        gaps = F[1:, 0] - F[:-1, 2]
        cands: list[int] = np.flatnonzero((gaps > 0.5) | (gaps < -2.0)).tolist()
        cgaps: list[float] = gaps[cands].tolist()  # the gap after each candidate
        runs: list[tuple[int, int, bool]] = []
        pos = 0
        for m in _BREAK_RE.finditer(text):
            if m.group() == HYPHEN_MARK:  # keep the mark: it is the hyphen glyph
                runs.append((pos, m.end(), True))
            else:
                runs.append((pos, m.start(), False))
            pos = m.end()
        runs.append((pos, n, False))
        # runs of text set vertically (three times taller than wide): one line as they are
        long = [(a, b) for a, b, _ in runs if b - a > 2]
        vertical = {span for span, (x0, top, x1, bottom) in zip(long, _extents(F, long), strict=True)
                    if bottom - top > 3 * (x1 - x0)}
        specs: list[Spec] = []  # (pieces, hyphen_join)
        ci = 0
        wide = self.wide
        rtl = has_rtl(text)
        fr = self.frames
        turns: list[int] = [] if fr is None else (np.flatnonzero(fr[1:] != fr[:-1]) + 1).tolist()
        for a, b, hy in runs:
            cuts: list[tuple[int, int]] = []  # (position, NEW_LINE / SPACE / DROP)
            ci = bisect_left(cands, a, ci)
            if (a, b) in vertical:
                ci = bisect_left(cands, b - 1, ci)
            while ci < len(cands) and cands[ci] < b - 1:
                k, gap = cands[ci], cgaps[ci]
                ci += 1
                p, q = k, k + 1  # the glyphs on either side, spaces skipped
                while p > a and text[p].isspace():
                    p -= 1
                while q < b - 1 and text[q].isspace():
                    q += 1
                h = item(p, 3) - item(p, 1)
                if h <= 0 or text[p].isspace() or text[q].isspace():
                    continue
                if abs(item(q, 1) - item(p, 1)) > 0.6 * h and abs(item(q, 3) - item(p, 3)) > 0.6 * h:
                    cuts.append((q, NEW_LINE))
                    continue
                if item(q, 0) < item(p, 0) - 0.5 and not rtl and not (
                        SCRIPT_SIZE * h <= item(q, 3) - item(q, 1) <= h / SCRIPT_SIZE):
                    cuts.append((q, NEW_LINE))  # back along the line at another size: a
                    continue  # superscript drawn after its line (`superscripts`)
                if item(q, 0) - item(p, 2) > GAP_WIDE * h and not (
                        p - a < 12 and _ENUM_RE.match(text, a, p + 1)):
                    wide.append(q)  # not the gap after a list number ("(a)   The …")
                if p == k and q == k + 1 and gap > GAP_TIGHT * h and text[k] not in HYPHENS:
                    c0, c1 = text[k], text[q]
                    # a narrower gap is a space where a word starts after a number or a
                    # closing mark, or a capital after a small letter ("2.2Weekly")
                    if (gap > GAP_SPACE * h or c1.isalpha() and (
                            c0.isdigit() or c0 in _CLOSERS or c0.islower() and c1.isupper())
                            ) and not (cjk_pair(c0, c1) and gap <= GAP_WIDE * h):
                        cuts.append((q, SPACE))
            mask = self.hidden_mask
            extra = [(k + 1, NEW_LINE) for k in range(a, b - 1) if mask[k] != mask[k + 1]
                     ] if mask is not None else []
            if rtl:
                extra += [(q, SPACE) for q in script_meetings(text, a, b)]
                extra += [(k, DROP) for k in self.drops if a < k < b - 1]
            if turns:  # the text turns: a new line
                extra += [(k, NEW_LINE) for k in turns[bisect_left(turns, a + 1):bisect_left(turns, b)]]
            if extra:
                cuts = sorted(set(cuts + extra))
            start = a
            pieces: list[tuple[int, int, bool]] = []
            glue = False
            for k, cut in cuts + [(b, NEW_LINE)]:
                pieces.append((start, k, glue))
                start, glue = (k + 1, True) if cut == DROP else (k, False)
                if cut == NEW_LINE:
                    specs.append((pieces, hy and k == b))
                    pieces = []
        return self._lines(specs)

    def _lines(self, specs: list[Spec]) -> list[Line]:
        """Return the lines of (pieces, hyphen_join), spaces around them trimmed, with
        superscripts and subscripts drawn apart put in their place (`superscripts`)."""
        text = self.text
        spans: list[tuple[int, int]] = []
        kept: list[Spec] = []
        for pieces, hyphen_join in specs:
            a, b = pieces[0][0], pieces[-1][1]
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if a < b:
                spans.append((a, b))
                kept.append((pieces, hyphen_join))
        boxes = _extents(self.frame, spans)
        shown = boxes if self.frame is self.shown else _extents(self.shown, spans)
        groups: list[bool] | list[int] | list[tuple[bool, int]] | None = self.hidden_mask
        if self.frames is not None:  # a run and its host read in one frame
            fr = self.frames.tolist()
            groups = fr if self.hidden_mask is None else list(zip(self.hidden_mask, fr, strict=True))
        merged = attach_scripts(text, self.frame, kept, spans, boxes, groups)
        trimmed = [False] * len(kept)
        if merged:
            shown = list(shown)
            for i, spec in merged.items():  # a host takes in pieces from elsewhere (trimmed)
                kept[i] = spec
                trimmed[i] = bool(spec[0])
                if spec[0]:
                    boxes[i] = union_box(self.frame, spec[0])
                    shown[i] = boxes[i] if self.frame is self.shown else union_box(self.shown, spec[0])
            for i in reversed([i for i, spec in enumerate(kept) if not spec[0]]):
                del kept[i], spans[i], boxes[i], shown[i], trimmed[i]  # taken in by a host
        return [self._line(pieces, hyphen_join, a, b, box, dbox, cut)
                for (pieces, hyphen_join), (a, b), box, dbox, cut
                in zip(kept, spans, boxes, shown, trimmed, strict=True)]

    def _line(self, pieces: list[tuple[int, int, bool]], hyphen_join: bool, a: int, b: int,
              box: list[float], shown: list[float], trimmed: bool = False) -> Line:
        """Return the line of `pieces` (text[a:b] is its text less the spaces around it;
        `trimmed`: the pieces are the line as they are, text[a:b] the host's own text, for
        a line that took in a superscript; `box` its union box in the text's frame,
        `shown` as shown)."""
        text = self.text
        parts: list[str] = []
        rows: list[np.ndarray] = []
        holes: list[int] = []
        size = 0
        gen = self.generated
        lf = self.up if self.frames is None else int(self.frames[a])
        fgrid = None
        if lf != self.rot:  # the line reads in another frame than the page as shown
            if self.fgrid is None:
                self.fgrid = self.frame
                if gen:
                    self.fgrid = self.frame.copy()
                    self.fgrid[gen] = 0.0
            fgrid = self.fgrid
        frows: list[np.ndarray] = []
        for p, q, glue in pieces:
            if not trimmed:
                p, q = max(p, a), min(q, b)
            if p >= q:
                continue
            if parts and not glue and not parts[-1][-1].isspace() and not text[p].isspace():
                holes.append(size)
                parts.append(" ")
                rows.append(ZERO_ROW)
                frows.append(ZERO_ROW)
                size += 1
            i = bisect_left(gen, p)
            while i < len(gen) and gen[i] < q:
                holes.append(size + gen[i] - p)
                i += 1
            parts.append(text[p:q])
            rows.append(self.boxes[p:q])
            if fgrid is not None:
                frows.append(fgrid[p:q])
            size += q - p
        s = "".join(parts)
        boxes = CharBoxes(rows[0] if len(rows) == 1 else np.concatenate(rows))
        fboxes = None if fgrid is None else CharBoxes(
            frows[0] if len(frows) == 1 else np.concatenate(frows))
        fwidth, fheight = (self.width, self.height) if (lf - self.rot) % 2 == 0 else (
            self.height, self.width)
        x0, top, x1, bottom = box
        m = (a + b) // 2
        h = self.frame.item(m, 3) - self.frame.item(m, 1)
        if h <= 0:
            h = bottom - top
        hidden = bool(self.hidden_mask and self.hidden_mask[a])
        if x1 < 0 or x0 > fwidth or bottom < 0 or top > fheight or 0 < bottom - top < 1:
            hidden = True  # outside the page or too small to read
        clamp = x0 < 0 or top < 0 or x1 > fwidth or bottom > fheight
        if clamp:
            w, ht = self.width, self.height
            boxes = CharBoxes.of([(min(max(c[0], 0.0), w), min(max(c[1], 0.0), ht),
                                   min(max(c[2], 0.0), w), min(max(c[3], 0.0), ht))
                                  for c in boxes])
        bold = self._bold(a) and self._bold(b - 1)
        dbox = (shown[0], shown[1], shown[2], shown[3])
        if clamp:
            w, ht = self.width, self.height
            dbox = (min(max(dbox[0], 0.0), w), min(max(dbox[1], 0.0), ht),
                    min(max(dbox[2], 0.0), w), min(max(dbox[3], 0.0), ht))
        line = Line(self.number, s, boxes, holes, x0, top, x1, bottom, h, bold, hidden,
                    dbox, hyphen_join, frame=lf, fboxes=fboxes)
        wide = self.wide
        if wide and wide[-1] > a:
            line.wide = bisect_left(wide, b) - bisect_left(wide, a + 1)
        if "   " in s:  # spaces set out a column in a fixed-pitch layout
            line.wide += 1
        if not s.isascii() and not unicodedata.is_normalized("NFC", s):
            line.text, composed, holes, fcomposed = compose(line.text, line.boxes, line.holes,
                                                            line.fboxes)
            if composed is not None:
                line.boxes, line.holes = CharBoxes.of(composed), holes
            if fcomposed is not None:
                line.fboxes = CharBoxes.of(fcomposed)
        return line

    def _bold(self, k: int) -> bool:
        if self.fn.weight(self.textpage, k) >= 600:
            return True
        name = _NAME_BUF
        self.fn.font_info(self.textpage, k, _NAME_ADDR, len(name), _FLAGS_ADDR)
        key = name.value
        found = _BOLD_NAMES.get(key)
        if found is None:
            found = _BOLD_NAMES[key] = _BOLD_RE.search(key.decode("latin-1")) is not None
            if len(_BOLD_NAMES) > 4096:
                _BOLD_NAMES.clear()
        return found


# one buffer for font names (pdfium is single-threaded: so is this module)
_NAME_BUF = ctypes.create_string_buffer(256)
_NAME_ADDR = ctypes.addressof(_NAME_BUF)
_FLAGS = c_int()
_FLAGS_ADDR = ctypes.addressof(_FLAGS)
_BOLD_NAMES: dict[bytes, bool] = {}  # font name → whether it names a bold face
