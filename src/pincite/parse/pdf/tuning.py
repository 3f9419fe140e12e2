"""The PDF parser's tuned constants: each stated for a class of layouts, with the values an
evaluation may try in its place.

A constant here was set by measuring on dev data (ICDAR 2013 tables, CUAD contracts).
`pincite eval icdar2013 --folds K --refit` (table rules) and `pincite eval cuad-textlayer
--folds K --refit` (text rules) choose each one again from its `grid` on the fit folds
only and report the figure on the held-out fold (docs/evaluation.md). `tuned(values)` sets
them for the duration of a block: for evaluation in one process, never while another
thread parses.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from ...errors import UsageError
from ...limits import check_number


@dataclass(frozen=True, slots=True)
class Tuned:
    """A tuned constant: where it lives, what it says, and the values to try."""

    name: str
    modules: tuple[str, ...]  # the modules of `pincite.parse.pdf` that read it
    rule: str  # the rule it sets, for a class of layouts
    grid: tuple[float, ...]
    kind: str  # "table" (table structure) or "text" (the text layer)


TUNED: tuple[Tuned, ...] = (
    Tuned("CHUNK_GAP", ("page_words",), "a gap wider than this many row heights (and than "
          "SPACES word gaps) may part two cells of a row", (0.3, 0.5, 0.75, 1.1, 1.5, 2.5), "table"),
    Tuned("SPACES", ("page_words",), "a gap that parts two cells is wider than this many of "
          "the page's usual word gaps (justified text spreads its words)",
          (1.0, 1.5, 2.5, 4.0, 6.0, 10.0), "table"),
    Tuned("ROW_OVERLAP", ("page_words", "blocks", "table_detect"), "lines whose heights "
          "overlap by this share of the lower one sit on one row (a value set midway beside a "
          "two-line label)", (0.1, 0.2, 0.4, 0.6, 0.8, 0.95), "table"),
    Tuned("RULE_TOL", ("page_words", "table_detect"), "rulings this close (points) meet: a "
          "grid drawn as separate strokes is one frame", (0.5, 1.0, 2.0, 3.0, 6.0), "table"),
    Tuned("GAP_WIDE", ("lines",), "a gap between glyphs wider than this many line heights "
          "marks a line as maybe holding two cells (where to look for tables)",
          (0.35, 0.5, 0.75, 1.1, 1.5, 2.5), "table"),
    Tuned("MIN_BLOCK_ROWS", ("blocks", "table_detect"), "an unruled table has at least this "
          "many rows of two or more aligned chunks (fewer: a label and its value)",
          (2, 3, 4, 5, 8), "table"),
    Tuned("PROSE_WORDS", ("blocks",), "a row with this many words of letters spread over few "
          "chunks is running text, which ends an unruled table", (4, 6, 8, 12, 16), "table"),
    Tuned("MAX_HEADER_ROWS", ("blocks", "spans", "table_detect"), "a table's header is at "
          "most this many rows deep", (1, 2, 4, 6, 8, 12), "table"),
    Tuned("COLUMN_TOL", ("table_flow",), "a table that ends a page goes on at the top of the "
          "next when their columns line up within this many points", (3.0, 6.0, 12.0, 24.0, 48.0),
          "table"),
    Tuned("THIN", ("objects",), "a filled rectangle this thin (points) is a ruling, not a "
          "shaded area", (1.0, 1.5, 2.5, 3.5, 8.0, 15.0), "table"),
    Tuned("MIN_RULE", ("objects",), "a stroke shorter than this (points) is a tick mark or a "
          "glyph part, not a ruling", (1.0, 2.0, 4.0, 8.0, 12.0, 20.0), "table"),
    Tuned("MIXED_PAIRS", ("frames",), "a page is read glyph by glyph (text in several "
          "frames) when this many neighbouring glyphs run a quarter turn off its frame",
          (1, 2, 3, 5, 8, 20), "table"),
    Tuned("GAP_SPACE", ("lines",), "a gap between two glyphs wider than this many line "
          "heights is a space the PDF did not write", (0.1, 0.15, 0.25, 0.4, 0.6, 1.0), "text"),
    Tuned("GAP_TIGHT", ("lines",), "a narrower gap (this many line heights) is a space "
          "where a word starts after a number or a closing mark ('2.2Weekly')",
          (0.04, 0.08, 0.12, 0.2, 0.3), "text"),
    Tuned("HEADER_ZONE", ("running",), "running headers and footers sit in this share of "
          "the page's height at its top and bottom", (0.05, 0.1, 0.2, 0.3, 0.4), "text"),
)
BY_NAME = {t.name: t for t in TUNED}


def shipped(name: str) -> float:
    """Return the value the parser ships with for a tuned constant."""
    t = _known(name)
    return float(getattr(importlib.import_module(f"{__package__}.{t.modules[0]}"), name))


def _known(name: str) -> Tuned:
    t = BY_NAME.get(name)
    if t is None:
        raise UsageError(f"{name!r} is not a tuned constant of the PDF parser; "
                         f"known: {', '.join(BY_NAME)}")
    return t


@contextmanager
def tuned(values: Mapping[str, float]) -> Iterator[None]:
    """Set tuned constants to `values` inside the block (same type as shipped), then put
    the shipped values back."""
    saved: list[tuple[object, str, object]] = []
    try:
        for name, value in values.items():
            t = _known(name)
            check_number(name, value, 0, 1e6)
            for m in t.modules:
                mod = importlib.import_module(f"{__package__}.{m}")
                old = getattr(mod, name)
                saved.append((mod, name, old))
                setattr(mod, name, type(old)(value))
        yield
    finally:
        for holder, attr, old in reversed(saved):
            setattr(holder, attr, old)
