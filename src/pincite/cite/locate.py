"""Structural locators: which element an offset of a text layer belongs to.

The locator of an offset is the locator of the innermost structural element (any kind but
`page`) whose span contains it; an offset outside every element has the empty locator.
Elements nest (cells in tables, paragraphs in clauses, sub-clauses in clauses); among
identical spans the later element is the inner one.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass

from ..model import Element, TextLayer


@dataclass(frozen=True, slots=True)
class LocatorIndex:
    """Sorted interval starts and the innermost element index over each interval (-1: none)."""

    starts: tuple[int, ...]
    owners: tuple[int, ...]
    elements: tuple[Element, ...]

    @classmethod
    def build(cls, layer: TextLayer) -> LocatorIndex:
        """Return the index of `layer`'s structural elements."""
        order = sorted(
            (i for i, e in enumerate(layer.elements) if e.kind != "page" and e.char_end > e.char_start),
            key=lambda i: (layer.elements[i].char_start, -layer.elements[i].char_end, i),
        )
        els = layer.elements
        starts: list[int] = [0]
        owners: list[int] = [-1]
        stack: list[int] = []

        def emit(pos: int, owner: int) -> None:
            if starts[-1] == pos:
                owners[-1] = owner
            elif owners[-1] != owner:
                starts.append(pos)
                owners.append(owner)

        for i in order:
            e = els[i]
            # close every element that ends before this one starts
            while stack and els[stack[-1]].char_end <= e.char_start:
                done = stack.pop()
                emit(els[done].char_end, stack[-1] if stack else -1)
                _close_ended(stack, els, els[done].char_end, emit)
            stack.append(i)
            emit(e.char_start, i)
        while stack:
            done = stack.pop()
            emit(els[done].char_end, stack[-1] if stack else -1)
            _close_ended(stack, els, els[done].char_end, emit)
        return cls(tuple(starts), tuple(owners), els)

    def element_at(self, offset: int) -> Element | None:
        """Return the innermost structural element containing `offset`, if any."""
        k = bisect_right(self.starts, offset) - 1
        owner = self.owners[k] if k >= 0 else -1
        return self.elements[owner] if owner >= 0 else None

    def locator_at(self, offset: int) -> str:
        """Return the locator of `offset` (empty when no element contains it)."""
        el = self.element_at(offset)
        return el.locator if el is not None else ""


def _close_ended(stack: list[int], els: tuple[Element, ...], pos: int, emit) -> None:  # type: ignore[no-untyped-def]
    # parents that end at the same position close together
    while stack and els[stack[-1]].char_end <= pos:
        done = stack.pop()
        emit(els[done].char_end, stack[-1] if stack else -1)


def locator_at(layer: TextLayer, offset: int) -> str:
    """Return the locator of `offset` in `layer` by a direct scan (the reference definition)."""
    best: Element | None = None
    best_key: tuple[int, int] | None = None
    order = sorted(
        range(len(layer.elements)),
        key=lambda i: (layer.elements[i].char_start, -layer.elements[i].char_end, i),
    )
    for rank, i in enumerate(order):
        e = layer.elements[i]
        if e.kind == "page" or not (e.char_start <= offset < e.char_end):
            continue
        key = (-(e.char_end - e.char_start), rank)
        if best_key is None or key > best_key:
            best, best_key = e, key
    return best.locator if best is not None else ""


def strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    """Return `[start, end)` narrowed so it neither starts nor ends with whitespace."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
