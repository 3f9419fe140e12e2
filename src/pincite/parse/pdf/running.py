"""Running headers, footers and page numbers of a PDF: found and dropped from the flow.

Used by `pdf.py` on the pages' lines, so a paragraph that crosses a page break stays one
span.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right

from .lines import Line, Page

HEADER_ZONE = 0.2  # running headers/footers live in the top/bottom 20% of a page
_PAGE_NUM_RE = re.compile(
    r"^[\s\-–—(\[]*(?:page|p\.|pg\.?)?\s*"
    r"(?:\d{1,4}|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))"
    r"(?:\s*(?:of|/|de|von)\s*\d{1,4})?[\s\-–—)\]]*$",
    re.IGNORECASE,
)
_DIGITS_RE = re.compile(r"\d+")
_EDGE_NUM_RE = re.compile(r"^(?:page\s*)?\d{1,4}\s+|\s+(?:page\s*)?\d{1,4}$")  # "12 Source: …"


def _page_number(text: str) -> int | None:
    """Return the number a page-number line shows (0 for roman numerals), else None."""
    if not _PAGE_NUM_RE.match(text) or text.rstrip().endswith("."):
        return None
    m = _DIGITS_RE.search(text)
    return int(m.group()) if m else 0


def drop_running(pages: list[Page]) -> None:
    """Remove running headers/footers and page numbers from each page's lines.

    In the top/bottom margin of a page (of each frame its text reads in, `frames`):
    page-number lines, and lines that recur at the same
    height on enough pages, word for word (a page number at either end aside) or with a
    number that counts with the page. Anywhere on a page: page-number lines
    alone on their row that count up with the text (documents whose printed pages were
    run together, several to a PDF page).
    """
    counted = [p for p in pages if p.lines]
    if not counted:
        return
    drop: set[int] = set()
    running: set[int] = set()
    groups: dict[str, list[Line]] = {}
    for p in counted:
        edge: list[Line] = []
        for f in sorted({ln.frame for ln in p.lines}):  # each frame its text reads in
            height = p.frame_height if f == p.frame else p.size(f)[1]
            zone = HEADER_ZONE * height
            by_y = sorted((ln for ln in p.lines if ln.frame == f), key=lambda ln: ln.top)
            edge += [ln for ln in by_y[:3] if ln.bottom <= zone] + [
                ln for ln in by_y[-3:] if ln.top >= height - zone and ln.bottom > zone]
        for ln in edge:
            if _page_number(ln.text) is not None:
                drop.add(id(ln))
            text = " ".join(ln.text.split()).lower()
            groups.setdefault(_EDGE_NUM_RE.sub("", text) or text, []).append(ln)
            m = _DIGITS_RE.search(text)
            if m:  # "Contract 12-3 – page 7": the number goes with the page
                key = f"{_DIGITS_RE.sub('#', text)}|{int(m.group()) - p.number}"
                groups.setdefault(key, []).append(ln)
    need = max(2, int(0.25 * len(counted) + 0.999))
    for lines in groups.values():
        if len({ln.page for ln in lines}) < need:
            continue
        for ln in lines:
            if len({x.page for x in lines if abs(x.top - ln.top) <= 4.0}) >= need:
                running.add(id(ln))
    for p in counted:  # a page of nothing but "running" lines: the pages repeat, keep them
        if all(id(ln) in running or id(ln) in drop for ln in p.lines):
            running.difference_update(id(ln) for ln in p.lines)
    drop |= running
    # page numbers inside the body: a family ("-#-", "#", "page #") counting up
    families: dict[str, list[tuple[int, int, Line]]] = {}
    offset = 0
    for p in counted:
        tops: list[float] | None = None
        for ln in p.lines:
            offset += len(ln.text) + 1
            value = _page_number(ln.text)
            if not value or id(ln) in drop:
                continue
            tops = tops or sorted(o.top for o in p.lines)
            half = 0.5 * ln.height
            if bisect_left(tops, ln.top + half) - bisect_right(tops, ln.top - half) > 1:
                continue  # shares its row: a table cell, not a page number
            key = _DIGITS_RE.sub("#", " ".join(ln.text.split()).lower())
            families.setdefault(key, []).append((value, offset, ln))
    for cands in families.values():
        for k, (value, off, ln) in enumerate(cands):
            before = k and cands[k - 1][0] == value - 1 and off - cands[k - 1][1] >= 300
            after = k + 1 < len(cands) and cands[k + 1][0] == value + 1 and cands[k + 1][1] - off >= 300
            if before or after:
                drop.add(id(ln))
    if drop:
        for p in counted:
            kept: list[Line] = []
            pending = False
            for ln in p.lines:
                if id(ln) in drop:
                    pending = bool(kept)
                    continue
                ln.page_break = ln.page_break or pending
                pending = False
                kept.append(ln)
            p.lines = kept
