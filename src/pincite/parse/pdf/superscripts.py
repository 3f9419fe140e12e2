"""Superscripts and subscripts drawn apart from their line, put back where they are read.

A generator may draw a line's superscripts after the line (or after the page), or pdfium
may break a line where a subscript drops below it: the ordinal "th" of "26th", the "2" of
"m2", a footnote marker, the "2" of "H2O" then read at the end of the line or on a line of
their own. The class of glyphs this module puts back:

- a **script run**: a short run of glyphs (at most `TOKEN` characters between spaces, in a
  line of at most `SHORT` characters that holds nothing else), whose glyphs are at most
  `SCRIPT_SIZE` × the height of a glyph of a host line;
- **within the host's vertical extent, its baseline shifted**: raised (its bottom at least
  `RAISED` × the host glyph's height above the host glyph's bottom) or lowered (its bottom
  below the host glyph's), and overlapping the host glyph's band;
- **adjacent to a word**: its left edge within `NEAR` × the host glyph's height of the
  right edge of a glyph that ends a word or is followed by room for it (a suffix: "26"+"th",
  "H"+"2"), or a raised run whose right edge meets the first glyph of a word (a prefix,
  "¹⁴C").

Such a run goes into its host line right after (or before) that glyph, with no space; the
host's next glyph follows it with no space unless `SCRIPT_GAP` or more stands between them
(a space pdfium made up for the room the run left goes), and a line that pdfium split off
at the run ("O" of "H2O") and that starts right after it on the host's band follows it. A line whose runs do not all find a host is
left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

Piece = tuple[int, int, bool]  # text[p:q]; True: joined to the piece before with no space
Spec = tuple[list[Piece], bool]  # a line's pieces, and whether it ends in pdfium's hyphen

SCRIPT_SIZE = 0.75  # a script glyph is at most this × its host glyph's height
TOKEN = 4  # a script run has at most this many characters …
SHORT = 24  # … on a line of at most this many
NEAR = 0.3  # × host glyph height: how close the script stands to its host glyph
RAISED = 0.15  # × host glyph height: how far a superscript's bottom is above the host's
SCRIPT_GAP = 0.1  # × host glyph height: a wider gap between a run and the word is a space
_TOKEN_RE = re.compile(r"\S+")


def _runs(text: str, pieces: list[Piece], a: int, b: int) -> list[tuple[int, int]] | None:
    """Return the runs between spaces of a short line, or None when one is too long."""
    out: list[tuple[int, int]] = []
    for p, q, _ in pieces:
        for m in _TOKEN_RE.finditer(text, max(p, a), min(q, b)):
            if m.end() - m.start() > TOKEN:
                return None
            out.append(m.span())
    return out


def _place(text: str, F: np.ndarray, run: tuple[int, int], host: range,
           ) -> tuple[float, int, bool] | None:
    """Return (distance, glyph, suffix) for the best glyph of `host` the run attaches to:
    after that glyph (suffix) or before it; None when it attaches to none."""
    s, e = run
    rows = F[s:e]
    tx0, tt, tx1, tb = rows[:, 0].min(), rows[:, 1].min(), rows[:, 2].max(), rows[:, 3].max()
    hs = float((rows[:, 3] - rows[:, 1]).max())
    if hs <= 0:
        return None
    g = np.arange(host.start, host.stop)
    H = F[host.start:host.stop]
    hg = H[:, 3] - H[:, 1]
    ok = (hg > 0) & (hs <= SCRIPT_SIZE * hg) & (H[:, 1] < tb) & (H[:, 3] > tt)
    ok &= (tt >= H[:, 1] - 0.5 * hg) & (tb <= H[:, 3] + 0.6 * hg)
    raised = H[:, 3] - tb >= RAISED * hg
    lowered = tb > H[:, 3]
    best: tuple[float, int, bool] | None = None
    after = tx0 - H[:, 2]  # suffix: the run starts where the glyph ends
    for k in np.flatnonzero(ok & (raised | lowered) & (after >= -0.2 * hg) & (after <= NEAR * hg)):
        i = int(g[k])
        if text[i].isspace():
            continue
        nxt = i + 1  # the glyph after it leaves room for the run
        if nxt < host.stop and not text[nxt].isspace() and F[nxt, 0] < tx1 - 0.2 * hg[k]:
            continue
        d = abs(float(after[k]))
        if best is None or d < best[0]:
            best = (d, i, True)
    before = H[:, 0] - tx1  # prefix: a raised run ends where a word's first glyph starts
    for k in np.flatnonzero(ok & raised & (before >= -0.2 * hg) & (before <= NEAR * hg)):
        i = int(g[k])
        if text[i].isspace() or i > host.start and not text[i - 1].isspace():
            continue
        d = abs(float(before[k]))
        if best is None or d < best[0]:
            best = (d, i, False)
    return best


def attach_scripts(text: str, F: np.ndarray, specs: list[Spec], spans: list[tuple[int, int]],
                   boxes: list[list[float]], groups: Sequence[object] | None) -> dict[int, Spec]:
    """Return the lines that change: {index: new spec}; a script line taken in by its host
    gets no pieces. `F` holds the page's character boxes in the text's frame (each glyph's
    own), `spans` each line's text less the spaces around it, `boxes` its box; `groups`, per
    character, what a run and its host must share (hidden or not, the frame it reads in)."""
    cands = [i for i, (a, b) in enumerate(spans) if b - a <= SHORT]
    if not cands:
        return {}
    B = np.array(boxes, dtype=np.float64).reshape(-1, 4)
    heights = B[:, 3] - B[:, 1]
    found: dict[int, list[tuple[int, bool, tuple[int, int], int]]] = {}  # script line → places
    for i in cands:
        a, b = spans[i]
        runs = _runs(text, specs[i][0], a, b)
        if not runs:
            continue
        x0, top, x1, bottom = boxes[i]
        h = bottom - top
        near = (B[:, 1] < bottom) & (B[:, 3] > top) & (B[:, 0] - h <= x1) & (B[:, 2] + h >= x0)
        near &= heights * SCRIPT_SIZE >= min(h, float((F[a:b, 3] - F[a:b, 1]).max()))
        near[i] = False
        hosts = np.flatnonzero(near).tolist()
        if not hosts:
            continue
        places = []
        for run in runs:
            best: tuple[float, int, bool, int] | None = None
            for j in hosts:
                if groups is not None and groups[run[0]] != groups[spans[j][0]]:
                    continue
                got = _place(text, F, run, range(*spans[j]))
                if got is not None and (best is None or got[0] < best[0]):
                    best = (*got, j)
            if best is None:
                break
            places.append((best[1], best[2], run, best[3]))
        else:
            found[i] = places
    for i in [i for i, places in found.items() if any(p[3] in found for p in places)]:
        del found[i]  # a host that is itself taken in elsewhere: leave both
    if not found:
        return {}
    inserts: dict[int, list[tuple[int, bool, tuple[int, int]]]] = {}
    for places in found.values():
        for glyph, suffix, run, j in places:
            inserts.setdefault(j, []).append((glyph, suffix, run))
    out: dict[int, Spec] = {i: ([], False) for i in found}
    for j, ins in inserts.items():
        out[j] = _merge(text, F, specs, spans, j, ins, out, set(inserts))
    return out


def _merge(text: str, F: np.ndarray, specs: list[Spec], spans: list[tuple[int, int]], j: int,
           ins: list[tuple[int, bool, tuple[int, int]]], out: dict[int, Spec], hosts: set[int],
           ) -> Spec:
    """Return host line `j` with the runs put in (after or before their glyphs), trimmed;
    a line split off right after a run at the host's end follows it (marked in `out`)."""
    a, b = spans[j]
    cut = sorted((g + 1 if suffix else g, F[run[0], 0], run, suffix, g)
                 for g, suffix, run in ins)
    pieces: list[Piece] = []
    k = 0
    for p, q, glue in specs[j][0]:
        p, q = max(p, a), min(q, b)
        if p >= q:
            continue
        while k < len(cut) and cut[k][0] <= q and (cut[k][0] < q or cut[k][3]):
            pos, _, (s, e), suffix, g = cut[k]
            k += 1
            if pos > p:
                pieces.append((p, pos, glue))
                glue = True
                p = pos
            pieces.append((s, e, glue))
            hg = F[g, 3] - F[g, 1]
            if not suffix:  # the word goes on right after the run, or after a space
                glue = F[g, 0] - F[e - 1, 2] <= SCRIPT_GAP * hg
                continue
            r = p  # spaces pdfium made up (no width) where the run was missing go
            while r < q - 1 and text[r].isspace() and F[r, 0] == F[r, 2]:
                r += 1
            if r < q:
                glue = text[r].isspace() or F[r, 0] - F[e - 1, 2] <= SCRIPT_GAP * hg
                p = r
        if p < q:
            pieces.append((p, q, glue))
    last = cut[-1]
    hyphen_join = specs[j][1]
    if last[3] and last[4] == b - 1:  # a run at the host's end: a line split off after it
        g, (s, e) = last[4], last[2]
        hg = F[g, 3] - F[g, 1]
        nxt = next((i for i in range(j + 1, len(specs)) if i not in out or out[i][0]), None)
        if nxt is not None and nxt not in out and nxt not in hosts:
            c, d = spans[nxt]
            gap = F[c, 0] - F[e - 1, 2]
            if (abs(F[c, 3] - F[g, 3]) <= 0.2 * hg and abs(F[c, 1] - F[g, 1]) <= 0.3 * hg
                    and -0.2 * hg <= gap <= SCRIPT_GAP * hg):
                for n, (p, q, glue) in enumerate(specs[nxt][0]):
                    p, q = max(p, c), min(q, d)
                    if p < q:
                        pieces.append((p, q, True if n == 0 else glue))
                hyphen_join = specs[nxt][1]
                out[nxt] = ([], False)
    return pieces, hyphen_join


def union_box(rows: np.ndarray, pieces: list[Piece]) -> list[float]:
    """Return the union box [x0, top, x1, bottom] of the rows of `pieces`."""
    part = np.concatenate([rows[p:q] for p, q, _ in pieces])
    lo, hi = part.min(axis=0), part.max(axis=0)
    return [float(lo[0]), float(lo[1]), float(hi[2]), float(hi[3])]
