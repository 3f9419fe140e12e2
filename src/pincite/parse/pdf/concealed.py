"""Text a page draws and then takes out of sight: painted over by an opaque fill drawn after
it, or outside its clip path.

`objects.page_objects` collects, in the one pass it makes over a page's objects, each text
object (its box, its clip paths) and each opaque fill (a filled path with no transparency:
no blend mode, soft mask or alpha). `conceal` then decides:

- a text object outside one of its clip paths is hidden whole; one the clip cuts through is
  judged per character (hidden where the centre of its box is outside);
- a fill drawn after a text object and over its box hides it: whole when the fill covers
  the object's box, per character otherwise (hidden where the fill covers the centre and
  the corners of the character's box brought in by a fifth, so an underline, a strike or a
  rule across a line hides nothing). The fill's own clip paths bound what it covers.

Judged per character, a word a clip or a fill cuts through counts as seen (a reader sees
part of it: a spreadsheet's label cut at its cell's edge, "Ubicació|n:"); only whole words
out of sight are flagged.

Text drawn over a fill (a white heading on a dark band) is not touched: only what is drawn
later covers. Paths are read as polygons (curves by four points each) under their fill
rule; a rectangle stays a rectangle. The pairs of text objects and later fills whose boxes
meet are found with one array comparison (a fill thinner than what it would have to cover
of a character is left out: a rule, an underline), at most `MAX_PAIRS` of them examined
(past it, the rest are left as they are).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

Box = tuple[float, float, float, float]  # x0, y0, x1, y1 in PDF space (y up)
Point = tuple[float, float]
Matrix = tuple[float, float, float, float, float, float]

MAX_PAIRS = 20_000  # (text object, later fill) pairs examined per page
MAX_POINTS = 2_000  # points read from one path
INSET = 0.2  # a character is covered when its box, brought in by this much, is
SLACK = 0.5  # points a covering box may fall short of the text's box


def apply(m: Matrix, x: float, y: float) -> Point:
    """Return the point (x, y) mapped by matrix `m` (PDF row-vector convention)."""
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


@dataclass(frozen=True, slots=True)
class Region:
    """An area of the page: a rectangle (`rings` empty) or polygons under a fill rule."""

    box: Box
    rings: tuple[tuple[Point, ...], ...] = ()
    even_odd: bool = False

    def contains(self, x: float, y: float) -> bool:
        """Return True when the point (x, y) is inside."""
        x0, y0, x1, y1 = self.box
        if not (x0 <= x <= x1 and y0 <= y <= y1):
            return False
        if not self.rings:
            return True
        winding = crossings = 0
        for ring in self.rings:
            n = len(ring)
            for k in range(n):
                (ax, ay), (bx, by) = ring[k], ring[(k + 1) % n]
                if (ay <= y) != (by <= y):
                    t = (y - ay) / (by - ay)
                    if ax + t * (bx - ax) > x:
                        crossings += 1
                        winding += 1 if by > ay else -1
        return crossings % 2 == 1 if self.even_odd else winding != 0

    def holds(self, box: Box, slack: float = 0.0) -> bool:
        """Return True when all of `box` (less `slack` on each side) is inside."""
        x0, y0, x1, y1 = box[0] + slack, box[1] + slack, box[2] - slack, box[3] - slack
        if x1 < x0:
            x0 = x1 = (box[0] + box[2]) / 2
        if y1 < y0:
            y0 = y1 = (box[1] + box[3]) / 2
        if not self.rings:
            b = self.box
            return b[0] <= x0 and b[1] <= y0 and x1 <= b[2] and y1 <= b[3]
        xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
        return all(self.contains(x, y) for x, y in ((x0, y0), (x1, y0), (x0, y1), (x1, y1),
                                                     (xm, ym), (xm, y0), (xm, y1), (x0, ym),
                                                     (x1, ym)))

    def misses(self, box: Box) -> bool:
        """Return True when `box` and this area do not meet (tested on the bounding boxes,
        then on the box's centre and corners for polygons)."""
        b = self.box
        if box[2] < b[0] or box[0] > b[2] or box[3] < b[1] or box[1] > b[3]:
            return True
        return bool(self.rings) and not any(
            self.contains(x, y) for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]),
                                             (box[2], box[3]),
                                             ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))) \
            and not any(box[0] <= x <= box[2] and box[1] <= y <= box[3]
                        for ring in self.rings for x, y in ring)


def region(points: Iterable[tuple[int, Point, bool]], even_odd: bool) -> Region | None:
    """Return the area a path encloses, from its segments as (type, point, closes): type 2
    moves, 0 draws a line, 1 a curve (three points in a row: two controls, the end)."""
    rings: list[list[Point]] = []
    ring: list[Point] = []
    curve: list[Point] = []
    for kind, pt, _closes in points:
        if kind == 2:
            if len(ring) > 2:
                rings.append(ring)
            ring, curve = [pt], []
        elif kind == 1 and ring:
            curve.append(pt)
            if len(curve) == 3:
                ring.extend(_bezier(ring[-1], *curve))
                curve = []
        else:
            ring.append(pt)
    if len(ring) > 2:
        rings.append(ring)
    pts = [p for r in rings for p in r]
    if not pts:
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    box = (min(xs), min(ys), max(xs), max(ys))
    if len(rings) == 1 and _is_rectangle(rings[0], box):
        return Region(box)
    return Region(box, tuple(tuple(r) for r in rings), even_odd)


def _bezier(p0: Point, c1: Point, c2: Point, p3: Point) -> list[Point]:
    out = []
    for t in (0.25, 0.5, 0.75, 1.0):
        u = 1 - t
        out.append((u ** 3 * p0[0] + 3 * u * u * t * c1[0] + 3 * u * t * t * c2[0] + t ** 3 * p3[0],
                    u ** 3 * p0[1] + 3 * u * u * t * c1[1] + 3 * u * t * t * c2[1] + t ** 3 * p3[1]))
    return out


def _is_rectangle(ring: list[Point], box: Box) -> bool:
    """Return True when the points of `ring` are the four corners of `box` (a rectangle
    along the axes, drawn in any order, closed or not)."""
    x0, y0, x1, y1 = box
    seen = set()
    for x, y in ring:
        cx = 0 if abs(x - x0) < 0.01 else 1 if abs(x - x1) < 0.01 else -1
        cy = 0 if abs(y - y0) < 0.01 else 1 if abs(y - y1) < 0.01 else -1
        if cx < 0 or cy < 0:
            return False
        seen.add((cx, cy))
    return len(seen) == 4


_UNREAD = object()  # a clip path not read yet


class PathReader:
    """Reads path objects and clip paths into `Region`s through pdfium (scratch buffers
    shared: pdfium is single-threaded, so is this)."""

    def __init__(self, fn: Any, frame: Box | None = None) -> None:
        self.fn = fn
        self.frame = frame  # the page's visible area: a clip holding all of it clips nothing
        self.px, self.py = ctypes.c_float(), ctypes.c_float()
        self.ppx, self.ppy = ctypes.addressof(self.px), ctypes.addressof(self.py)
        self.seen: dict[tuple[int, Matrix], Region | None] = {}  # clip paths read

    def _points(self, segment: Callable[[int], int], count: int, m: Matrix
                ) -> Iterable[tuple[int, Point, bool]]:
        fn = self.fn
        for k in range(min(count, MAX_POINTS)):
            seg = segment(k)
            if not seg or not fn.segment_point(seg, self.ppx, self.ppy):
                return
            yield fn.segment_type(seg), apply(m, self.px.value, self.py.value), bool(
                fn.segment_close(seg))

    def path(self, obj: int, m: Matrix, even_odd: bool) -> Region | None:
        """Return the area a path object fills (`m`: its matrix to page space)."""
        fn = self.fn
        return region(self._points(lambda k: fn.path_segment(obj, k), fn.path_count(obj), m),
                      even_odd)

    def clips(self, obj: int, m: Matrix) -> list[Region]:
        """Return the clip paths of a page object (`m`: its parent's space to page space);
        the object shows only inside all of them."""
        fn = self.fn
        clip = fn.clip_path(obj)
        n = fn.clip_count(clip) if clip else 0
        if n <= 0:
            return []
        out: list[Region] = []
        seen = self.seen
        for i in range(n):
            # pdfium hands out a segment as its address in the path's own storage, which the
            # objects drawn under one clipping state share: the first one names the path
            first = fn.clip_segment(clip, i, 0)
            if not first:
                continue
            r = seen.get((first, m), _UNREAD)
            if r is _UNREAD:
                count = min(fn.clip_segments(clip, i), MAX_POINTS)
                r = seen[(first, m)] = self._clip_region(clip, i, count, m)
            if r is not None:
                out.append(r)  # type: ignore[arg-type]
        return out

    def _clip_region(self, clip: int, i: int, count: int, m: Matrix) -> Region | None:
        fn = self.fn
        get, point, px, py, ppx, ppy = (fn.clip_segment, fn.segment_point, self.px, self.py,
                                        self.ppx, self.ppy)
        raw: list[tuple[float, float]] = []
        for k in range(count):
            seg = get(clip, i, k)
            if not seg or not point(seg, ppx, ppy):
                break
            raw.append((px.value, py.value))
        pts = [apply(m, x, y) for x, y in raw]
        if 4 <= len(pts) <= 5:
            xs, ys = [p[0] for p in pts], [p[1] for p in pts]
            box = (min(xs), min(ys), max(xs), max(ys))
            if _is_rectangle(pts, box):
                f = self.frame
                if f is not None and box[0] <= f[0] + 1 and box[1] <= f[1] + 1 \
                        and f[2] - 1 <= box[2] and f[3] - 1 <= box[3]:
                    return None  # the whole page: what is off the page is judged elsewhere
                return Region(box)
        return region(self._points(lambda k: get(clip, i, k), len(raw), m), False)


@dataclass(slots=True)
class Partial:
    """How the characters of a text object drawn partly out of sight are judged."""

    clips: list[Region] = field(default_factory=list)  # hidden where the centre is outside
    covers: list[tuple[Region, list[Region]]] = field(default_factory=list)  # fill, its clips

    def hides(self, left: float, top: float, right: float, bottom: float) -> bool:
        """Return True when the character with this box (PDF space) is out of sight."""
        x0, x1 = min(left, right), max(left, right)
        y0, y1 = min(top, bottom), max(top, bottom)
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if any(not c.contains(cx, cy) for c in self.clips):
            return True
        dx, dy = (x1 - x0) * INSET, (y1 - y0) * INSET
        inner = (x0 + dx, y0 + dy, x1 - dx, y1 - dy)
        return any(fill.holds(inner) and all(c.holds(inner) for c in clips)
                   for fill, clips in self.covers)


@dataclass
class Concealed:
    """The text objects of a page out of sight: whole, or judged per character."""

    objects: set[int] = field(default_factory=set)
    partly: dict[int, Partial] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.objects or self.partly)

    def mask(self, owners: Sequence[int], boxes: np.ndarray, text: str) -> list[bool]:
        """Return, per character, whether it is out of sight (`owners`: each character's text
        object; `boxes`: its loose box, left, top, right, bottom in PDF space). A word a clip
        or a fill cuts through counts as seen: a reader sees part of it."""
        hidden, partly = self.objects, self.partly
        out = [o in hidden for o in owners]
        if not partly:
            return out
        cut = [False] * len(owners)
        for k, o in enumerate(owners):
            p = partly.get(o)
            if p is not None and not out[k] and p.hides(*boxes[k].tolist()):
                out[k] = cut[k] = True
        n = min(len(text), len(out))
        for k in range(n):  # the hidden end of a word seen in part
            if cut[k] and k and not out[k - 1] and _in_word(text, k - 1) and _in_word(text, k):
                j = k
                while j < n and cut[j] and _in_word(text, j):
                    out[j] = cut[j] = False
                    j += 1
        for k in range(n - 1, -1, -1):  # the hidden start of a word seen in part
            if cut[k] and k + 1 < n and not out[k + 1] and _in_word(text, k + 1) and _in_word(text, k):
                j = k
                while j >= 0 and cut[j] and _in_word(text, j):
                    out[j] = cut[j] = False
                    j -= 1
        return out


def _in_word(text: str, k: int) -> bool:
    return not text[k].isspace()


@dataclass(slots=True)
class TextSeen:
    """A text object met in the pass over a page, in paint order."""

    obj: int
    order: tuple[int, ...]
    box: Box  # page space
    clips: list[Region]


@dataclass(slots=True)
class FillSeen:
    """An opaque fill met in the pass over a page; its area is read only when it meets text."""

    obj: int
    order: tuple[int, ...]
    box: Box  # page space
    matrix: Matrix  # the path's points to page space
    parent: Matrix  # its parent's space to page space (for its clip paths)
    even_odd: bool
    inherited: list[Region]  # clip paths of the forms it is drawn in


def conceal(paths: PathReader, texts: list[TextSeen], fills: list[FillSeen],
            hidden: set[int]) -> Concealed:
    """Return the text objects out of sight (`hidden`, already decided, included)."""
    out = Concealed(set(hidden))
    for t in texts:
        if not t.clips or t.obj in out.objects:
            continue
        x0, y0, x1, y1 = t.box
        for c in t.clips:
            b = c.box
            if not c.rings and b[0] <= x0 + 1 and b[1] <= y0 + 1 and x1 - 1 <= b[2] and y1 - 1 <= b[3]:
                continue  # inside a clipping rectangle: the common case
            if c.misses(t.box):
                out.objects.add(t.obj)
                break
            if not c.holds(t.box, 1.0):  # a point over the edge is no cut
                out.partly.setdefault(t.obj, Partial()).clips.append(c)
    live = [t for t in texts if t.obj not in out.objects]
    if not live or not fills:
        return out
    order = {key: k for k, key in enumerate(sorted([t.order for t in live] + [f.order for f in fills]))}
    tb = np.array([t.box for t in live], dtype=np.float64)
    fb = np.array([f.box for f in fills], dtype=np.float64)
    to = np.array([order[t.order] for t in live])
    fo = np.array([order[f.order] for f in fills])
    thick = np.minimum(fb[:, 2] - fb[:, 0], fb[:, 3] - fb[:, 1])
    tall = np.minimum(tb[:, 2] - tb[:, 0], tb[:, 3] - tb[:, 1])
    meet = ((to[:, None] < fo[None, :]) & (tb[:, None, 0] < fb[None, :, 2])
            & (fb[None, :, 0] < tb[:, None, 2]) & (tb[:, None, 1] < fb[None, :, 3])
            & (fb[None, :, 1] < tb[:, None, 3])
            # a fill thinner than half the text's height covers no character of it (a rule)
            & (thick[None, :] >= (1 - 2 * INSET) * tall[:, None] - SLACK))
    pairs = np.argwhere(meet)[:MAX_PAIRS]
    areas: dict[int, tuple[Region, list[Region]] | None] = {}
    for i, j in pairs.tolist():
        t = live[i]
        if t.obj in out.objects:
            continue
        if j not in areas:
            f = fills[j]
            area = paths.path(f.obj, f.matrix, f.even_odd)
            areas[j] = None if area is None else (area, f.inherited + paths.clips(f.obj, f.parent))
        found = areas[j]
        if found is None:
            continue
        area, clips = found
        if area.misses(t.box) or any(c.misses(t.box) for c in clips):
            continue
        if area.holds(t.box, SLACK) and all(c.holds(t.box, SLACK) for c in clips):
            out.objects.add(t.obj)
            out.partly.pop(t.obj, None)
        else:
            out.partly.setdefault(t.obj, Partial()).covers.append(found)
    return out
