"""The text-layer builder for PDFs: per-character geometry handled in bulk.

A PDF layer has a box for nearly every character; `LayerBuilder`'s per-character loops
would cost about as much as reading the PDF. `Geo` holds a block's geometry as two
parallel lists, `GeometryBuilder` appends them as they are and finds the page spans from
runs of page numbers (same layer out as the base class: a test checks it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from itertools import compress, groupby
from typing import Any

from ..model import Box, Element, Geometry, TextLayer
from .layout import CharGeom, LayerBuilder
from .pdf_lines import ZERO, Line


class Geo(Sequence[tuple[int, Box] | None]):
    """Per-character geometry of a block as two parallel lists (page 0: no box)."""

    __slots__ = ("pages", "boxes", "first")

    def __init__(self) -> None:
        self.pages: list[int] = []
        self.boxes: list[Box] = []
        self.first: tuple[int, Box] | None = None  # union box on the first page, if known

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        p = self.pages[i]
        return (p, self.boxes[i]) if p else None

    def add_line(self, ln: Line) -> None:
        start = len(self.pages)
        self.pages.extend([ln.page] * len(ln.text))
        for h in ln.holes:
            self.pages[start + h] = 0
        self.boxes.extend(ln.boxes)

    def add_gap(self) -> None:
        self.pages.append(0)
        self.boxes.append(ZERO)



class GeometryBuilder(LayerBuilder):
    """`LayerBuilder` with its per-character geometry steps done in bulk.

    Same results as the base class (a test checks it): a PDF layer has a box for nearly
    every character, and the base class's per-character loops would cost about as much as
    reading the PDF.
    """

    _hint: tuple[int, int, tuple[int, Box] | None] | None = None  # the last block pushed

    def _push(self, text: str, geom: CharGeom | None) -> None:
        if not isinstance(geom, Geo):
            LayerBuilder._push(self, text, geom)
            return
        if len(geom) != len(text):
            raise ValueError("geometry must have one entry per character")
        self._parts.append(text)
        self._hint = (self._len, self._len + len(text), geom.first)
        self._len += len(text)
        self._has_geometry = True
        self._geo_pages.extend(geom.pages)
        self._geo_boxes.extend(geom.boxes)

    def _where(self, start: int, end: int, page: int | None) -> tuple[int | None, Box | None]:
        hint = self._hint
        if hint is not None and hint[2] is not None and hint[:2] == (start, end):
            return hint[2]  # the union of the block's line boxes on its first page
        if not self._has_geometry:
            return page, None
        pages = self._geo_pages[start:end]
        first = min((p for p in set(pages) if p), default=0)
        if not first:
            return page, None
        boxes = self._geo_boxes[start:end]
        keep = pages if len(set(pages) - {0}) == 1 else map(first.__eq__, pages)
        x0, top, x1, bottom = zip(*compress(boxes, keep), strict=True)
        return first, (min(x0), min(top), max(x1), max(bottom))

    def build(self) -> TextLayer:
        """Return the finished layer; the page elements come from runs of page numbers
        rather than a pass over every character."""
        has = self._has_geometry
        self._has_geometry = False  # the base class adds no geometry and no page elements
        try:
            layer = LayerBuilder.build(self)
        finally:
            self._has_geometry = has
        if not has:
            return layer
        spans: dict[int, list[int]] = {}
        pos = 0
        for p, run in groupby(self._geo_pages):
            n = len(list(run))
            if p:
                s = spans.get(p)
                if s is None:
                    spans[p] = [pos, pos + n]
                else:
                    s[1] = pos + n
            pos += n
        pages = []
        for p, (a, b) in sorted(spans.items()):
            w, h = self._page_sizes.get(p, (0.0, 0.0))
            pages.append(Element("page", a, b, f"page {p}", p, (0.0, 0.0, w, h)))
        elements = sorted(list(layer.elements) + pages, key=lambda e: (e.char_start, -e.char_end))
        return replace(layer, elements=tuple(elements),
                       geometry=Geometry.from_lists(self._geo_pages, self._geo_boxes))

