"""A PDF page's objects in one pass: text nobody can see, and the ruling lines of tables.

Used by `lines.read_page`. Hidden text: render mode invisible or clip-only, a fully
transparent fill, white text with no filled path, image or shading under its centre,
content of an optional-content group switched off (`optional_content`), text outside its
clip path or under an opaque fill drawn after it (`concealed`: whole objects, or per
character where the clip or the fill cuts through one).
Rulings: straight horizontal and vertical strokes — thin filled rectangles, stroked
lines, the edges of rectangles (a cell's border or its shading) — in PDF space, form
XObjects' matrices applied. Curves, diagonals and page-sized backgrounds are not rulings.
"""

from __future__ import annotations

import ctypes
from ctypes import c_float, c_int, c_uint
from typing import Any

from .concealed import Concealed, FillSeen, PathReader, Region, TextSeen, conceal
from .optional_content import DocumentLayers

MAX_OBJECTS = 50_000  # page objects inspected per page
MAX_RULINGS = 5_000  # rulings kept per page
MAX_SEGMENTS = 400  # segments read from one path (a grid drawn as one path)
THIN = 2.5  # a rectangle this thin (points) is a line
MIN_RULE = 4.0  # shorter strokes are tick marks or glyph parts

# (x0, y0, x1, y1) in PDF space: y0 == y1 for a horizontal rule, x0 == x1 for a vertical one
Rule = tuple[float, float, float, float]
_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _mul(m: _Matrix, n: _Matrix) -> _Matrix:
    """Return m then n (PDF row-vector convention)."""
    a, b, c, d, e, f = m
    A, B, C, D, E, F = n
    return (a * A + b * C, a * B + b * D, c * A + d * C, c * B + d * D,
            e * A + f * C + E, e * B + f * D + F)


def _apply(m: _Matrix, x: float, y: float) -> tuple[float, float]:
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


class _Reader:
    """Scratch buffers for the pdfium calls (pdfium is single-threaded: so is this)."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.rgba = [c_uint() for _ in range(4)]
        self.prgba = [ctypes.addressof(v) for v in self.rgba]
        self.fl = [c_float() for _ in range(4)]
        self.pf = [ctypes.addressof(v) for v in self.fl]
        self.fillmode, self.stroke = c_int(), c_int()
        self.pfill, self.pstroke = ctypes.addressof(self.fillmode), ctypes.addressof(self.stroke)
        self.matrix = fn.matrix_type()
        self.pmatrix = ctypes.addressof(self.matrix)
        self.px, self.py = c_float(), c_float()
        self.ppx, self.ppy = ctypes.addressof(self.px), ctypes.addressof(self.py)
        self.buf = ctypes.create_string_buffer(512)  # UTF-16 names of marks and groups
        self.pbuf = ctypes.addressof(self.buf)
        self.out = ctypes.c_ulong()
        self.pout = ctypes.addressof(self.out)

    def white(self, get: Any, obj: int) -> bool:
        r, g, b, a = self.rgba
        return bool(get(obj, *self.prgba)) and (a.value == 0 or min(r.value, g.value, b.value) >= 250)

    def opaque(self, obj: int) -> bool:
        """Return True when an object paints its fill fully opaque (no alpha, blend mode or
        soft mask)."""
        fn = self.fn
        return (bool(fn.fill_color(obj, *self.prgba)) and self.rgba[3].value == 255
                and not fn.transparent(obj))

    def _utf16(self, filled: int) -> str:
        n = min(self.out.value, len(self.buf))
        return self.buf.raw[:max(0, n - 2)].decode("utf-16-le", "replace") if filled else ""

    def layer_off(self, obj: int, layers: DocumentLayers) -> bool:
        """Return True when `obj` is marked as content of an optional-content group (`/OC`)
        that the document switches off."""
        fn = self.fn
        for j in range(max(0, fn.count_marks(obj))):
            mark = fn.get_mark(obj, j)
            if not mark:
                continue
            got = fn.mark_name(mark, self.pbuf, len(self.buf), self.pout)
            if self._utf16(got) != "OC":
                continue
            got = fn.mark_string(mark, b"Name", self.pbuf, len(self.buf), self.pout)
            if got and self.out.value > len(self.buf):
                self.buf = ctypes.create_string_buffer(self.out.value)
                self.pbuf = ctypes.addressof(self.buf)
                got = fn.mark_string(mark, b"Name", self.pbuf, len(self.buf), self.pout)
            if layers.hides(self._utf16(got) if got else None):
                return True
        return False

    def bounds(self, obj: int) -> tuple[float, float, float, float] | None:
        if not self.fn.obj_bounds(obj, *self.pf):
            return None
        fl = self.fl
        return fl[0].value, fl[1].value, fl[2].value, fl[3].value

    def obj_matrix(self, obj: int) -> _Matrix:
        if not self.fn.get_matrix(obj, self.pmatrix):
            return _IDENTITY
        m = self.matrix
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def segments(self, obj: int, count: int, m: _Matrix) -> list[Rule]:
        """Return the straight axis-parallel pieces of a path, in page space."""
        fn = self.fn
        out: list[Rule] = []
        start = cur = None
        for k in range(count):
            seg = fn.path_segment(obj, k)
            if not seg or not fn.segment_point(seg, self.ppx, self.ppy):
                return out
            pt = _apply(m, self.px.value, self.py.value)
            kind = fn.segment_type(seg)
            if kind == 2:  # move to
                start = cur = pt
            elif kind == 0 and cur is not None:  # line to
                out.append((cur[0], cur[1], pt[0], pt[1]))
                cur = pt
            else:
                cur = pt
            if fn.segment_close(seg) and start is not None and cur is not None:
                out.append((cur[0], cur[1], start[0], start[1]))
                cur = start
        return out


def _axis(x0: float, y0: float, x1: float, y1: float, out: list[Rule]) -> None:
    """Keep a straight piece that runs along an axis, as a rule from low to high."""
    dx, dy = abs(x1 - x0), abs(y1 - y0)
    if dy <= 0.5 and dx >= MIN_RULE:
        y = (y0 + y1) / 2
        out.append((min(x0, x1), y, max(x0, x1), y))
    elif dx <= 0.5 and dy >= MIN_RULE:
        x = (x0 + x1) / 2
        out.append((x, min(y0, y1), x, max(y0, y1)))


def _box_rules(box: tuple[float, ...], out: list[Rule], edges: bool) -> None:
    """Add the rule a thin box draws, or the four edges of a wider one when `edges` (a
    stroked outline; the edges of a shaded area are no rulings: shaded cells touch)."""
    x0, y0, x1, y1 = min(box[0], box[2]), min(box[1], box[3]), max(box[0], box[2]), max(box[1], box[3])
    w, h = x1 - x0, y1 - y0
    if h <= THIN and w >= MIN_RULE:
        out.append((x0, (y0 + y1) / 2, x1, (y0 + y1) / 2))
    elif w <= THIN and h >= MIN_RULE:
        out.append(((x0 + x1) / 2, y0, (x0 + x1) / 2, y1))
    elif w > THIN and h > THIN and edges:
        out.extend([(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)])


def page_objects(fn: Any, page: int, frame: tuple[float, float, float, float],
                 layers: DocumentLayers | None = None) -> tuple[Concealed, list[Rule]]:
    """Return (the text objects out of sight, ruling lines) of a page.

    `frame` is the page's visible area in PDF space (left, bottom, right, top); boxes that
    cover nearly all of it are backgrounds, not cell borders. `layers`: the document's
    optional-content state, asked only when an object is marked `/OC`.
    """
    rd = _Reader(fn)
    paths = PathReader(fn, frame)
    hidden: set[int] = set()
    white: list[tuple[int, tuple[float, ...]]] = []
    painted: list[tuple[float, ...]] = []
    texts: list[TextSeen] = []
    fills: list[FillSeen] = []
    rules: list[Rule] = []
    big_w = 0.9 * (frame[2] - frame[0])
    big_h = 0.9 * (frame[3] - frame[1])
    # (parent, count, top level?, its matrix to page space, its paint order, the clip paths
    # it is drawn in, switched off by a layer?)
    stack: list[tuple[int, int, bool, _Matrix, tuple[int, ...], list[Region], bool]] = [
        (page, fn.count_objects(page), True, _IDENTITY, (), [], False)]
    seen = 0
    while stack and seen <= MAX_OBJECTS:
        parent, count, top, pm, order, inherited, off = stack.pop()
        for k in range(max(0, count)):
            seen += 1
            if seen > MAX_OBJECTS:
                break
            obj = fn.get_object(parent, k) if top else fn.form_object(parent, k)
            if not obj:
                continue
            kind = fn.obj_type(obj)
            if kind == 5 and len(stack) < 16:  # a form XObject: look inside
                shut = off or (layers is not None and fn.count_marks(obj) > 0
                               and rd.layer_off(obj, layers))
                stack.append((obj, fn.form_count(obj), False, _mul(rd.obj_matrix(obj), pm),
                              (*order, k), inherited + paths.clips(obj, pm), shut))
            elif kind == 1:
                mode = fn.render_mode(obj)
                if mode in (3, 7) or off or (layers is not None and fn.count_marks(obj) > 0
                                             and rd.layer_off(obj, layers)):
                    hidden.add(obj)
                    continue
                b = rd.bounds(obj)
                if rd.white(fn.stroke_color if mode in (1, 5) else fn.fill_color, obj):
                    if rd.rgba[3].value == 0:
                        hidden.add(obj)
                        continue
                    if b is not None:
                        white.append((obj, b))
                if b is not None:
                    clips = paths.clips(obj, pm)
                    texts.append(TextSeen(obj, (*order, k), b if top else _bounds(pm, b),
                                          inherited + clips if inherited else clips))
            elif kind == 2:
                filled = fn.draw_mode(obj, rd.pfill, rd.pstroke) and rd.fillmode.value
                stroked = bool(rd.stroke.value)
                fill_white = bool(filled) and rd.white(fn.fill_color, obj)
                b = rd.bounds(obj)
                if b is None:
                    continue
                if filled and rd.opaque(obj):
                    fills.append(FillSeen(obj, (*order, k), b if top else _bounds(pm, b),
                                          _mul(rd.obj_matrix(obj), pm), pm,
                                          rd.fillmode.value == 1, inherited))
                if filled and not fill_white:
                    painted.append(b)
                if len(rules) >= MAX_RULINGS or (fill_white and not stroked):
                    continue
                if stroked and rd.white(fn.stroke_color, obj) and not filled:
                    continue
                if b[2] - b[0] >= big_w and b[3] - b[1] >= big_h:
                    continue  # a page background or frame
                box = b if top else _bounds(pm, b)
                if min(box[2] - box[0], box[3] - box[1]) <= THIN:
                    _box_rules(box, rules, stroked)  # a line, however it is drawn
                    continue
                n = fn.path_count(obj)
                if n <= 5 or n > MAX_SEGMENTS:
                    _box_rules(box, rules, stroked)
                else:
                    m = _mul(rd.obj_matrix(obj), pm)
                    for seg in rd.segments(obj, n, m):
                        _axis(*seg, rules)
            elif kind in (3, 4) and (b := rd.bounds(obj)) is not None:
                painted.append(b)
    for obj, (x0, y0, x1, y1) in white:
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if not any(p[0] <= cx <= p[2] and p[1] <= cy <= p[3] for p in painted):
            hidden.add(obj)
    return conceal(paths, texts, fills, hidden), rules


def _bounds(m: _Matrix, b: tuple[float, ...]) -> tuple[float, float, float, float]:
    """Return the page-space bounds of a box given in a form's space."""
    a, _b, _c, d, e, f = m
    if not _b and not _c:  # scaled and moved only
        x0, x1, y0, y1 = a * b[0] + e, a * b[2] + e, d * b[1] + f, d * b[3] + f
        return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)
    pts = [_apply(m, x, y) for x in (b[0], b[2]) for y in (b[1], b[3])]
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    return min(xs), min(ys), max(xs), max(ys)
