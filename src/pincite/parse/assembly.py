"""The text of a layer as it is assembled: blocks joined in reading order, one geometry
entry per character, and the element list the builders append to.

`TextAssembly` is the state every builder shares (`parse.layout.LayerBuilder` for
headings, paragraphs and clauses; `parse.tables.grid_layer.add_table` for tables); it
knows nothing of clauses or tables itself.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..model import Box, Element

BLOCK_SEP = "\n\n"
CELL_SEP = "\t"
ROW_SEP = "\n"

# (page, box) for each character of a block; None for characters without geometry.
CharGeom = Sequence[tuple[int, Box] | None]

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def clean(text: str) -> str:
    """Return `text` in NFC with control characters replaced by spaces."""
    return _CONTROL_RE.sub(" ", unicodedata.normalize("NFC", text))


def clean_same_length(text: str) -> str:
    """Return `text` with control characters replaced by spaces, its length unchanged
    (geometry is per character)."""
    return _CONTROL_RE.sub(" ", text)


@dataclass
class TextAssembly:
    """Blocks joined in reading order with per-character geometry, and their elements."""

    parser: str
    version: str
    _parts: list[str] = field(default_factory=list)
    _len: int = 0
    _elements: list[Element] = field(default_factory=list)
    _geo_pages: list[int] = field(default_factory=list)
    _geo_boxes: list[Box] = field(default_factory=list)
    _has_geometry: bool = False
    _headings: list[tuple[int, str]] = field(default_factory=list)
    _clauses: list[Any] = field(default_factory=list)
    _tables: int = 0
    _page_sizes: dict[int, tuple[float, float]] = field(default_factory=dict)
    _flags: set[str] = field(default_factory=set)
    _used_locators: dict[str, int] = field(default_factory=dict)
    _last_block_end: int = 0
    _last_text: str | None = None  # the paragraph just before the next block

    # ---- low-level text assembly -------------------------------------------------

    def _append(self, text: str, geom: CharGeom | None) -> tuple[int, int]:
        if self._len:
            self._push(BLOCK_SEP, None)
        start = self._len
        self._push(text, geom)
        return start, self._len

    def _push(self, text: str, geom: CharGeom | None) -> None:
        self._parts.append(text)
        self._len += len(text)
        if geom is not None:
            self._has_geometry = True
        zero: Box = (0.0, 0.0, 0.0, 0.0)
        if geom is None:
            self._geo_pages.extend([0] * len(text))
            self._geo_boxes.extend([zero] * len(text))
        else:
            if len(geom) != len(text):
                raise ValueError("geometry must have one entry per character")
            for g in geom:
                if g is None:
                    self._geo_pages.append(0)
                    self._geo_boxes.append(zero)
                else:
                    self._geo_pages.append(g[0])
                    self._geo_boxes.append(g[1])

    def _where(self, start: int, end: int, page: int | None) -> tuple[int | None, Box | None]:
        if not self._has_geometry:
            return page, None
        pages = self._geo_pages[start:end]
        first = min((p for p in pages if p), default=0)
        if not first:
            return page, None
        boxes = [b for p, b in zip(pages, self._geo_boxes[start:end], strict=True) if p == first]
        return first, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                       max(b[2] for b in boxes), max(b[3] for b in boxes))

    def _unique(self, locator: str) -> str:
        n = self._used_locators.get(locator, 0) + 1
        self._used_locators[locator] = n
        return locator if n == 1 else f"{locator} #{n}"

    def _heading_path(self) -> tuple[str, ...]:
        return tuple(t for _, t in self._headings)

