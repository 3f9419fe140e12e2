"""The frames of a PDF page: the page as shown, and the frame each character reads in.

Boxes are reported on the page as shown (what a viewer displays): crop box, /Rotate
applied, origin at the top-left. Text is read, split into lines and cut into table cells
in its own frame, where it runs left to right: a quarter turn from the page as shown on a
/Rotate page whose content does not undo it, or where the text matrix is turned (a table
set sideways on a portrait page). A frame is named by the clockwise quarter turns that
bring PDF space to it (0: PDF space with the origin moved to the top-left; a page's
/Rotate 90 shows as frame 1).

`read_chars` reads a page's characters and their boxes in PDF space. Most pages read in
one frame (`lines._upright` picks it from the glyphs' positions); pdfium orders text into
lines as the page is shown, so a page whose text reads in another frame is read again with
its /Rotate set (in memory) to that frame. A page where a few pairs of neighbouring glyphs
run a quarter turn against its frame is read glyph by glyph (`char_frames`, from pdfium's
glyph angles), so a sideways table and the upright text around it each get their own frame.
"""

from __future__ import annotations

import ctypes
import math
import re
from collections.abc import Callable
from itertools import repeat
from typing import Any

import numpy as np

from .objects import Rule

PDFBox = tuple[float, float, float, float]  # left, bottom, right, top in PDF space
Transform = Callable[..., tuple[np.ndarray, ...]]
MIXED_PAIRS = 3  # neighbouring glyphs a quarter turn off the page's frame: read per glyph
SKEW = 0.2  # radians: a glyph further than this from a quarter turn is read in the page's frame
_DEFAULT: PDFBox = (0.0, 0.0, 612.0, 792.0)
HYPHEN_MARK = "\ufffe"  # pdfium's mark for a hyphen after which it joined the next line
_CONTROLS = {c: " " for c in [*range(0, 10), 11, 12, *range(14, 32), 127]}  # not \r \n
_CONTROL_RE = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]")


def page_box(fn: Any, page: int) -> PDFBox:
    """Return the page's visible area in PDF space (crop box within media box, inherited
    attributes resolved by pdfium): left, bottom, right, top."""
    rect = fn.rect_type()
    if not fn.bbox(page, ctypes.addressof(rect)):
        return _DEFAULT
    box = (min(rect.left, rect.right), min(rect.bottom, rect.top),
           max(rect.left, rect.right), max(rect.bottom, rect.top))
    if not all(math.isfinite(v) for v in box) or box[2] - box[0] < 1 or box[3] - box[1] < 1:
        return _DEFAULT
    return box


def transform(box: PDFBox, rot: int) -> tuple[float, float, Transform]:
    """Return (width, height, f) of frame `rot`: f maps PDF box columns (l, t, r, b),
    float64 arrays, to the columns (x0, top, x1, bottom) of the page turned `rot` quarter
    turns clockwise."""
    L, B, R, T = box

    def off(c: float, v: np.ndarray) -> np.ndarray:  # v - c
        return v if c == 0 else v - c

    def flip(c: float, v: np.ndarray) -> np.ndarray:  # c - v
        return c - v

    def f(x0: np.ndarray, y1: np.ndarray, x1: np.ndarray, y0: np.ndarray,
          ) -> tuple[np.ndarray, ...]:
        if rot == 0:
            return off(L, x0), flip(T, y1), off(L, x1), flip(T, y0)
        if rot == 1:
            return off(B, y0), off(L, x0), off(B, y1), off(L, x1)
        if rot == 2:
            return flip(R, x1), off(B, y0), flip(R, x0), off(B, y1)
        return flip(T, y1), flip(R, x1), flip(T, y0), flip(R, x0)

    return (T - B, R - L, f) if rot % 2 else (R - L, T - B, f)


def frame_rules(rules: list[Rule], f: Transform
                ) -> tuple[list[tuple[float, float, float]], list[tuple[float, float, float]]]:
    """Return PDF-space rulings in the frame of `f`: horizontal (y, x0, x1) and vertical
    (x, top, bottom)."""
    cols = np.array(rules, dtype=np.float64).reshape(-1, 4)
    x0, top, x1, bottom = (c.tolist() for c in f(cols[:, 0], cols[:, 3], cols[:, 2], cols[:, 1]))
    h: list[tuple[float, float, float]] = []
    v: list[tuple[float, float, float]] = []
    for a, t, b, u in zip(x0, top, x1, bottom, strict=True):
        if abs(u - t) <= abs(b - a):
            h.append(((t + u) / 2, min(a, b), max(a, b)))
        else:
            v.append(((a + b) / 2, min(t, u), max(t, u)))
    return h, v


def read_chars(fn: Any, textpage: int) -> tuple[str, np.ndarray]:
    """Return a text page's characters and their loose boxes in PDF space, (n, 4):
    left, bottom, right, top."""
    n = fn.count_chars(textpage) if textpage else 0
    if n <= 0:
        return "", np.zeros((0, 4))
    buf = (ctypes.c_ushort * (n + 1))()
    got = fn.get_text(textpage, 0, n, ctypes.addressof(buf))
    text = bytes(buf)[: max(0, got - 1) * 2].decode("utf-16-le", "replace")
    if len(text) != n:  # surrogate pairs or excluded chars: one call per char
        text = "".join(
            HYPHEN_MARK if u == 2 else  # GetUnicode's code for the joined hyphen
            chr(u) if u < 0x110000 and not 0xD800 <= u < 0xE000 else "\ufffd"
            for u in map(fn.unicode, repeat(textpage, n), range(n)))
    if _CONTROL_RE.search(text):
        text = text.translate(_CONTROLS)
    rects = (fn.rect_type * n)()
    base = ctypes.addressof(rects)
    list(map(fn.loose_box, repeat(textpage, n), range(n), range(base, base + 16 * n, 16)))
    raw = np.frombuffer(rects, dtype=np.float32).astype(np.float64).reshape(n, 4)
    if not np.isfinite(raw).all():  # a damaged font or matrix: no box for those
        raw[~(np.abs(raw) < 1e7)] = 0.0
    return text, raw


def _quarter_pairs(text: str, ltrb: tuple[np.ndarray, ...], up: int) -> int:
    """Return how many pairs of neighbouring glyphs (spaces aside) run a quarter turn off
    frame `up`."""
    left, bottom, right, top = ltrb
    if len(left) < 2:
        return 0
    dx, dy = left[1:] - left[:-1], bottom[1:] - bottom[:-1]
    size = np.maximum(right - left, top - bottom)
    near = np.abs(dx) + np.abs(dy) <= 1.5 * np.maximum(size[1:], size[:-1])
    if up % 2:
        turned = near & (np.abs(dx) > 2 * np.abs(dy))  # frames 0 (dx > 0) and 2 (dx < 0)
    else:
        turned = near & (np.abs(dy) > 2 * np.abs(dx))  # frames 1 (dy > 0) and 3 (dy < 0)
    if np.count_nonzero(turned) < MIXED_PAIRS:
        return 0
    glyph = _codes(text) > 32
    return int(np.count_nonzero(turned & glyph[1:] & glyph[:-1]))


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype="<u4")


def char_frames(fn: Any, textpage: int, text: str, ltrb: tuple[np.ndarray, ...],
                blank: np.ndarray, up: int) -> np.ndarray | None:
    """Return each character's frame when some of the page's text runs a quarter turn off
    frame `up` (from pdfium's glyph angles), else None (the page reads in `up`).

    `blank` marks the characters whose angle says nothing (line breaks and spaces pdfium
    made up): they take the frame of the glyph before them. A glyph set at a slant (more
    than SKEW from a quarter turn) reads in `up`.
    """
    n = len(text)
    if _quarter_pairs(text, ltrb, up) < MIXED_PAIRS:
        return None
    angles = np.fromiter(map(fn.char_angle, repeat(textpage, n), range(n)), dtype=np.float64, count=n)
    quarters = np.rint(angles / (math.pi / 2))
    frames = ((4 - quarters.astype(np.int64)) % 4).astype(np.int8)
    frames[(np.abs(angles - quarters * (math.pi / 2)) > SKEW) | (angles < 0)] = up
    blank = blank | (_codes(text) == 10) | (_codes(text) == 13)
    if blank.any():  # forward fill from the last glyph that has an angle
        idx = np.where(blank, 0, np.arange(n))
        np.maximum.accumulate(idx, out=idx)
        first = int(np.argmax(~blank)) if not blank.all() else n
        frames = frames[idx]
        frames[:first] = frames[first] if first < n else up
    if not np.any(frames != up):
        return None
    return frames


def frame_boxes(box: PDFBox, ltrb: tuple[np.ndarray, ...], frames: np.ndarray) -> np.ndarray:
    """Return each character's box in its own frame, (n, 4)."""
    out = np.empty((len(frames), 4), dtype=np.float64)
    for k in np.unique(frames).tolist():
        rows = frames == k
        out[rows] = np.stack(transform(box, k)[2](*ltrb), axis=1)[rows]
    return out
