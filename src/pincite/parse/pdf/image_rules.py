"""Ruling lines drawn in a page image: the table borders of a scanned page.

A born-digital page gives its rulings as vector paths (`objects`); a scanned page has
them only as pixels. Here a ruling is a straight run of dark pixels along a row (or a
column) at least `MIN_RULE_PT` long and at most `MAX_THICK_PT` thick — longer than any
glyph stroke, thinner than any filled area. Runs on neighbouring rows (columns) that
overlap are one ruling. A skewed scan's long lines break into pieces shorter than that
and are simply not found (the table is then read as unruled, from word alignment).
"""

from __future__ import annotations

from typing import Any

import numpy as np

MIN_RULE_PT = 24.0   # a third of an inch: longer than any glyph stroke at text sizes
MAX_THICK_PT = 3.0   # thicker runs are filled areas (shading, a black box), not rulings
DARK = 128           # grey level below which a pixel is ink
MAX_RULES = 2000

# rulings as shown: (x0, top, x1, bottom) in points
ShownRule = tuple[float, float, float, float]


def _runs(mask: np.ndarray, min_len: int) -> list[tuple[int, int, int]]:
    """Return (row, start, end) of every run of True at least `min_len` long, row by row."""
    padded = np.zeros((mask.shape[0], mask.shape[1] + 2), dtype=np.int8)
    padded[:, 1:-1] = mask
    d = np.diff(padded, axis=1)
    rows_s, cols_s = np.nonzero(d == 1)
    rows_e, cols_e = np.nonzero(d == -1)
    keep = (cols_e - cols_s) >= min_len
    return list(zip(rows_s[keep].tolist(), cols_s[keep].tolist(), cols_e[keep].tolist(),
                    strict=True))


def _merge(runs: list[tuple[int, int, int]], max_thick: int) -> list[tuple[int, int, int, int]]:
    """Return (first row, last row, start, end) of runs stacked on neighbouring rows."""
    open_: list[list[int]] = []  # [first, last, start, end]
    done: list[tuple[int, int, int, int]] = []
    for r, s, e in runs:
        for g in open_:
            if g[1] >= r - 1 and s < g[3] and g[2] < e:
                g[1], g[2], g[3] = r, min(g[2], s), max(g[3], e)
                break
        else:
            open_.append([r, r, s, e])
        still: list[list[int]] = []
        for g in open_:
            if g[1] >= r - 1:
                still.append(g)
            else:
                done.append((g[0], g[1], g[2], g[3]))
        open_ = still
    done.extend((g[0], g[1], g[2], g[3]) for g in open_)
    return [(a, b, s, e) for a, b, s, e in done if b - a + 1 <= max_thick]


def image_rules(image: Any, scale: float) -> list[ShownRule]:
    """Return the rulings of a grey page image drawn at `scale` pixels per point, in
    points as shown: horizontal ones (x0, y, x1, y), vertical ones (x, top, x, bottom)."""
    ink = np.asarray(image, dtype=np.uint8) < DARK
    min_len = max(2, int(MIN_RULE_PT * scale))
    thick = max(1, int(round(MAX_THICK_PT * scale)))
    out: list[ShownRule] = []
    for a, b, s, e in _merge(_runs(ink, min_len), thick):
        y = (a + b + 1) / 2 / scale
        out.append((s / scale, y, e / scale, y))
    for a, b, s, e in _merge(_runs(ink.T, min_len), thick):
        x = (a + b + 1) / 2 / scale
        out.append((x, s / scale, x, e / scale))
    return out[:MAX_RULES]


def to_pdf_space(rules: list[ShownRule], box: tuple[float, float, float, float],
                 rot: int) -> list[tuple[float, float, float, float]]:
    """Return rulings given as shown (a page of visible area `box` in PDF space, turned `rot`
    quarter turns clockwise) in PDF space, as `Page.rules` holds them: (x0, y0, x1, y1)."""
    L, B, R, T = box

    def point(x: float, y: float) -> tuple[float, float]:
        if rot % 4 == 0:
            return L + x, T - y
        if rot % 4 == 1:
            return L + y, B + x
        if rot % 4 == 2:
            return R - x, B + y
        return R - y, T - x

    out = []
    for x0, top, x1, bottom in rules:
        (a, b), (c, d) = point(x0, top), point(x1, bottom)
        out.append((a, b, c, d))
    return out
