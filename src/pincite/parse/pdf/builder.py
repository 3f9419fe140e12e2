"""The text-layer builder for PDFs: per-character geometry handled in bulk.

A PDF layer has a box for nearly every character; `LayerBuilder`'s per-character loops
would cost about as much as reading the PDF. `Geo` holds a block's geometry as page
numbers and rows of boxes (the lines' float64 arrays, not copied), `GeometryBuilder`
appends them as they are, packs them into the layer's `Geometry` in one step and finds
the page spans from runs of page numbers (same layer out as the base class: a test
checks it).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import replace
from itertools import compress, groupby
from typing import Any

import numpy as np

from ...model import Box, Element, Geometry, TextLayer
from ..assembly import CharGeom
from ..layout import LayerBuilder
from .lines import ZERO, ZERO_ROW, Line


def _rows(boxes: Iterable[Box]) -> np.ndarray:
    return np.array(list(boxes), dtype=np.float64).reshape(-1, 4)


class Geo(Sequence[tuple[int, Box] | None]):
    """Per-character geometry of a block: page numbers (0: no box) and rows of boxes."""

    __slots__ = ("pages", "chunks", "first")

    def __init__(self) -> None:
        self.pages: list[int] = []
        self.chunks: list[np.ndarray] = []  # (k, 4) arrays of boxes, in order
        self.first: tuple[int, Box] | None = None  # union box on the first page, if known

    @property
    def boxes(self) -> list[Box]:
        """The boxes as tuples (ZERO where the page number is 0)."""
        return list(map(tuple, self._array().tolist()))

    @boxes.setter
    def boxes(self, value: Iterable[Box]) -> None:
        self.chunks = [_rows(value)]

    def _array(self) -> np.ndarray:
        if len(self.chunks) != 1:
            self.chunks = [np.concatenate(self.chunks) if self.chunks else _rows(())]
        return self.chunks[0]

    def __len__(self) -> int:
        return len(self.pages)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        p = self.pages[i]
        return (p, tuple(self._array()[i].tolist())) if p else None

    def add_line(self, ln: Line) -> None:
        start = len(self.pages)
        self.pages.extend([ln.page] * len(ln.text))
        for h in ln.holes:
            self.pages[start + h] = 0
        self.chunks.append(ln.boxes.rows)

    def add_gap(self) -> None:
        self.pages.append(0)
        self.chunks.append(ZERO_ROW)


class GeometryBuilder(LayerBuilder):
    """`LayerBuilder` with its per-character geometry steps done in bulk.

    Same results as the base class (a test checks it): a PDF layer has a box for nearly
    every character, and the base class's per-character loops would cost about as much as
    reading the PDF. The boxes are kept as float64 rows (`_chunks`, ending at
    `_chunk_ends`) instead of the base class's `_geo_boxes`, and become float32 once, in
    `build`.
    """

    _hint: tuple[int, int, tuple[int, Box] | None] | None = None  # the last block pushed

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._chunks: list[np.ndarray] = []
        self._chunk_ends: list[int] = []

    def _add_rows(self, rows: np.ndarray) -> None:
        if len(rows):
            self._chunks.append(rows)
            self._chunk_ends.append((self._chunk_ends[-1] if self._chunk_ends else 0) + len(rows))

    def _push(self, text: str, geom: CharGeom | None) -> None:
        self._parts.append(text)
        start = self._len
        self._len += len(text)
        if geom is None:
            self._geo_pages.extend([0] * len(text))
            self._add_rows(ZERO_ROW if len(text) == 1 else np.zeros((len(text), 4)))
            return
        if len(geom) != len(text):
            raise ValueError("geometry must have one entry per character")
        self._has_geometry = True
        if isinstance(geom, Geo):
            self._hint = (start, self._len, geom.first)
            self._geo_pages.extend(geom.pages)
            for rows in geom.chunks:
                self._add_rows(rows)
            return
        self._geo_pages.extend(g[0] if g is not None else 0 for g in geom)
        self._add_rows(_rows(g[1] if g is not None else ZERO for g in geom))

    def _boxes(self, start: int, end: int) -> list[Box]:
        """Return the boxes of the characters in [start, end) as tuples."""
        ends = self._chunk_ends
        k = bisect_right(ends, start)
        out: list[Box] = []
        while k < len(ends) and (base := ends[k] - len(self._chunks[k])) < end:
            part = self._chunks[k][max(0, start - base):end - base]
            out.extend(map(tuple, part.tolist()))  # type: ignore[arg-type]
            k += 1
        return out

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
        boxes = self._boxes(start, end)
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
        return replace(layer, elements=tuple(elements), geometry=self._geometry())

    def _geometry(self) -> Geometry:
        rows = np.concatenate(self._chunks) if self._chunks else np.zeros((0, 4))
        flat = array("f", bytes(4 * rows.size))
        with np.errstate(over="ignore"):  # as array('f') does: past float32, infinity
            np.frombuffer(flat, dtype=np.float32)[:] = rows.ravel()
        return Geometry(array("H", self._geo_pages), flat)
