"""Lay text out with `PdfWriter` and keep the gold: the text in reading order, the box of
every character, the cells of every table.

`Typesetter` flows paragraphs into columns and pages; `GoldDoc` is one generated (or
shared) document with what a reader of it would take as its text, its spans with the page
and box a citation of them must open at, and its tables.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from ...model import Box
from ..icdar import Cell
from .writer import Page, PdfWriter

CharBox = tuple[int, Box] | None  # (page, box as shown) of a character; None: not drawn


@dataclass(frozen=True)
class GoldSpan:
    """A passage of a reference and where its citation must open: page and box as shown."""

    quote: str
    page: int
    box: Box
    occurrence: int = 1  # the quote's k-th occurrence in the reference text
    within: bool = False  # the box is that of an item holding the quote (not the quote's)


@dataclass
class GoldDoc:
    """One document of a stratum and its reference."""

    name: str
    stratum: str
    reference: str  # what the reference is ("drawn text", "docling groundtruth", …)
    pdf: bytes
    text: str | None = None  # the reference text in reading order (None: none)
    spans: list[GoldSpan] = field(default_factory=list)
    tables: list[list[Cell]] | None = None
    covered: list[str] = field(default_factory=list)  # text a reader cannot see
    failure_ok: bool = False  # a clean refusal is the right outcome


@dataclass
class Laid:
    """A paragraph as laid out: its text and each character's page and box."""

    text: str
    chars: list[CharBox]

    def span(self, quote: str) -> GoldSpan:
        """Return the gold span of `quote` in this paragraph (the union of its drawn
        characters' boxes on the page it starts on)."""
        k = self.text.index(quote)
        drawn = [c for c in self.chars[k:k + len(quote)] if c is not None]
        page = drawn[0][0]
        boxes = [b for p, b in drawn if p == page]
        return GoldSpan(quote, page, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                      max(b[2] for b in boxes), max(b[3] for b in boxes)))


def turn(box: Box, rotate: int, width: float, height: float) -> Box:
    """Return a box of an unrotated page (width × height) as shown after `/Rotate`."""
    x0, top, x1, bottom = box
    if rotate == 90:
        return (height - bottom, x0, height - top, x1)
    if rotate == 180:
        return (width - x1, height - bottom, width - x0, height - top)
    if rotate == 270:
        return (top, width - x1, bottom, width - x0)
    return box


class Typesetter:
    """Flows paragraphs left-aligned into columns, top to bottom, page after page."""

    def __init__(self, writer: PdfWriter, *, size: float = 11.0, leading: float = 14.0,
                 columns: tuple[tuple[float, float], ...] = ((72.0, 540.0),),
                 top: float = 720.0, bottom: float = 72.0, rotate: int = 0) -> None:
        self.w, self.size, self.leading = writer, size, leading
        self.columns, self.top, self.bottom, self.rotate = columns, top, bottom, rotate
        self.page: Page = writer.page(rotate=rotate)
        self.number = len(writer.pages)
        self.col = 0
        self.y = top

    def _next_column(self) -> None:
        self.col += 1
        if self.col == len(self.columns):
            self.page = self.w.page(rotate=self.rotate)
            self.number = len(self.w.pages)
            self.col = 0
        self.y = self.top

    def paragraph(self, text: str, *, mode: int = 0, gray: float = 0.0, gap: float = 8.0
                  ) -> Laid:
        """Lay out one paragraph; return it with its characters' pages and boxes."""
        x0, x1 = self.columns[self.col]
        lines: list[str] = []
        cur = ""
        for word in text.split(" "):
            trial = f"{cur} {word}" if cur else word
            if cur and self.page.advance(trial, self.size) > x1 - x0:
                lines.append(cur)
                cur = word
            else:
                cur = trial
        lines.append(cur)
        chars: list[CharBox] = []
        for i, line in enumerate(lines):
            if self.y < self.bottom:
                self._next_column()
                x0, x1 = self.columns[self.col]
            if i:
                chars.append(None)  # the line break: a space not drawn
            boxes = self.page.text(x0, self.y, self.size, line, mode=mode, gray=gray)
            chars.extend((self.number, self._shown(b)) for b in boxes)
            self.y -= self.leading
        self.y -= gap
        return Laid(text, chars)

    def _shown(self, box: Box) -> Box:
        return turn(box, self.rotate, self.page.width, self.page.height)


# ---- text to lay out: numbered clauses from a small vocabulary (no dataset text) --------

_SUBJECTS = ["The Supplier", "The Buyer", "Each party", "The Contractor", "The Authority",
             "The Licensee", "The Tenant", "The Agent"]
_VERBS = ["shall deliver", "shall pay", "may terminate", "shall notify", "must keep",
          "shall inspect", "may assign", "shall insure"]
_OBJECTS = ["the goods", "each invoice", "this agreement", "the other party", "all records",
            "the premises", "the equipment", "the deposit"]
_TAILS = ["within thirty days", "at its own cost", "in writing", "before the due date",
          "without undue delay", "by registered mail", "on each anniversary", "under clause 9"]


def clauses(seed: int, n: int, per: int = 3) -> list[str]:
    """Return `n` numbered paragraphs of `per` sentences each, the same for the same seed."""
    rng = random.Random(seed)
    out = []
    for i in range(1, n + 1):
        sentences = []
        for j in range(1, per + 1):
            sentences.append(f"{rng.choice(_SUBJECTS)} {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} "
                             f"{rng.choice(_TAILS)} as item {seed}.{i}.{j} states.")
        out.append(f"{i}. " + " ".join(sentences))
    return out


def sentence_spans(laid: Laid) -> list[GoldSpan]:
    """Return a gold span for each sentence of a laid-out paragraph."""
    out = []
    start = 0
    text = laid.text
    while start < len(text):
        end = text.find(". ", start)
        end = len(text) if end < 0 else end + 1
        quote = text[start:end].strip()
        if len(quote) > 12:
            out.append(laid.span(quote))
        start = end + 1
    return out
