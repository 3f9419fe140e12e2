"""A page's lines in reading order: each run of lines that read in one frame in the order
the page draws them, a one-column run top to bottom (used by `reading`)."""

from __future__ import annotations

from itertools import pairwise

from .lines import Line


def reading_order(lines: list[Line]) -> list[Line]:
    """Return the lines of a page in reading order: each run of lines that read in one
    frame (`frames`: a table set sideways between upright paragraphs) in the order the page
    draws them, and the lines of each run by `_column_order`."""
    if all(ln.frame == lines[0].frame for ln in lines):
        return _column_order(lines)
    out: list[Line] = []
    start = 0
    for k in range(1, len(lines) + 1):
        if k == len(lines) or lines[k].frame != lines[start].frame:
            out.extend(_column_order(lines[start:k]))
            start = k
    return out


def _column_order(lines: list[Line]) -> list[Line]:
    """Return lines of one frame top to bottom when they are one column of text.

    Some generators write a page's text out of order (headings first, then the lists
    under them). On a page where most lines span most of the text width, rows of lines
    are ordered by height; lines on the same row keep pdfium's order. Pages with several
    columns keep pdfium's order, which follows the content stream.
    """
    body = [ln for ln in lines if not ln.hidden]
    if len(body) < 3:
        return lines
    left = min(ln.x0 for ln in body)
    right = max(ln.x1 for ln in body)
    wide = sum(1 for ln in body if ln.x1 - ln.x0 >= 0.6 * (right - left))
    if wide < 0.4 * len(body):
        return lines
    if all(a.top <= b.top + 0.3 * a.height for a, b in pairwise(lines)):
        return lines  # already top to bottom
    order = sorted(range(len(lines)), key=lambda i: lines[i].top)
    row = [0] * len(lines)
    r, row_top, row_h = 0, lines[order[0]].top, lines[order[0]].height
    for i in order:
        ln = lines[i]
        if ln.top > row_top + 0.5 * max(row_h, 1.0):
            r, row_top, row_h = r + 1, ln.top, ln.height
        row[i] = r
    return [lines[i] for i in sorted(range(len(lines)), key=lambda i: (row[i], i))]
