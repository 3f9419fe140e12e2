"""PDF parser: pdfium's characters → lines → paragraphs in reading order → a text layer.

`lines` reads each page into visual lines (spaces inserted where glyphs stand apart,
per-character boxes). This module then

- puts the lines of a one-column page top to bottom (`line_order`: some generators write
  a page out of order),
- takes the tables out of the lines (`table_detect`: ruled and unruled, a table continued
  on the next page joined into one) and puts each back in the reading flow as a table
  block, with the caption stated just above it (`pdf_table_flow`),
- drops running headers/footers (the same text at the same height on many pages) and page
  numbers from the reading flow, so a paragraph that crosses a page break stays one span,
- groups lines into paragraphs by vertical gaps, short lines and clause numbers, and joins
  a line ending in a hyphen to the next: a compound keeps its hyphen and the line break (a
  space), a word split for the line end gets a soft hyphen and no space (the comparison
  form ignores soft hyphens),
- keeps text nobody can see (invisible render mode, white on nothing, off the page) in its
  own paragraphs flagged `hidden_text`,
- marks short lines set larger, or bold among non-bold body text, as headings.

Pages without a usable text layer are read from their images first (`scanned`), their
lines then go the same way; such a layer is `pdf+ocr` (`ocr_marks`).

Form fields (`fields`) follow the text of their page, each a block with the locator
`field NAME` and its widget's box.

Version 2 adds the tables (version 1 read them as paragraphs); version 3 the form fields,
right-to-left runs in logical order and superscripts back on their word; version 4 reads
text in its own frame (`frames`: a page turned against its /Rotate, a table set sideways).

Boxes are `(x0, top, x1, bottom)` in points, origin at the top-left of the page as shown.
"""

from __future__ import annotations

import ctypes
import re
import threading
import time
from collections import Counter
from ctypes import c_void_p
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

from ...errors import ParseFailure
from ...limits import Limits
from ...model import TextLayer
from ...model.progress_report import Report, report_to
from ...vocab import ProgressUnit
from ..layout import ClauseMark, clause_mark
from .bidi import cjk_pair
from .builder import Geo, GeometryBuilder
from .fields import REFUSED, FormField, emit_fields, has_form, read_fields
from .line_order import reading_order
from .lines import HYPHEN_MARK, HYPHENS, Line, Page, read_page
from .ocr_marks import mark_layer
from .optional_content import DocumentLayers
from .pdfium_api import pdfium_fns
from .running import drop_running
from .scanned import OcrPass, read_scans
from .table_flow import TableBlock, caption_of, cut_tables, emit, place

PARSER = "pdf"
VERSION = "4"

_PDFIUM_LOCK = threading.Lock()
_TERMINAL = ".:;!?"
_COMPOUND_PREFIXES = frozenset(
    "non pre post co self multi anti cross well ex semi sub inter intra extra e x "
    "mid over under out counter long short full part".split()
)
_WORD_RE = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
_BULLET_RE = re.compile(r"^[•◦▪▫●○■□‣⁃∙·*–—-]\s")


@dataclass(slots=True)
class _Para:
    lines: list[Line]
    text: str = ""
    geo: Geo = field(default_factory=Geo)


# ---- paragraphs ------------------------------------------------------------------------


def _pitch(lines: list[Line]) -> float:
    """Return the line spacing inside the page's paragraphs: the lower quartile of the
    steps between lines (a page of one-line paragraphs has mostly paragraph gaps)."""
    steps = sorted(b.top - a.top for a, b in pairwise(lines)
                   if 0.5 * a.height < b.top - a.top < 4 * a.height)
    return steps[len(steps) // 4] if steps else 0.0


def _first_word_width(ln: Line) -> float:
    k = ln.text.find(" ")
    k = len(ln.text) if k < 0 else k
    return max(0.0, ln.own_boxes[k - 1][2] - ln.x0) if k > 0 else 0.0


def _ends_sentence(text: str) -> bool:
    """Return True when a line ends where a clause or list item may end ("…;", "…; and")."""
    t = text.rstrip("\"')”’ ")
    head, _, last = t.rpartition(" ")
    if last.lower() in ("and", "or"):
        return head.rstrip()[-1:] in ",;"
    return t[-1:] in _TERMINAL


def _breaks(prev: Line, ln: Line, pitch: float, right: float) -> bool:
    """Return True when `ln` starts a new paragraph after `prev` (same page)."""
    if prev.frame != ln.frame:
        return True  # the text turns: a table set sideways, a note along the margin
    if prev.hyphen_join:
        return False
    h = max(prev.height, 1.0)
    dy = ln.top - prev.top
    if dy < -0.5 * h:  # back up the page: the next column, or a displaced block
        return ln.x0 < prev.x1 - h or not _continues(prev, ln)
    if abs(dy) <= 0.3 * h:
        return False  # the same visual line, split by pdfium
    if ln.page_break:
        return not _continues(prev, ln)
    if pitch and dy > 1.35 * pitch + 0.1 * h or not pitch and dy > 1.8 * h:
        return True
    if abs(ln.height - prev.height) > 0.2 * h or prev.bold != ln.bold:
        return True
    if prev.text[-1] in HYPHENS and ln.text[0].islower():
        return False
    short = prev.x1 + _first_word_width(ln) + 0.5 * h < right
    mark = _mark(ln)
    if mark is not None:
        return (_ends_sentence(prev.text) or short
                or mark.style in ("num", "kw") and abs(ln.x0 - prev.x0) > h)
    return short and not ln.text[0].islower()


def _mark(ln: Line) -> ClauseMark | None:
    """Return the clause number a line opens with ("Section 4.2", "12.1", "(a)"), if any.

    "section 4.2" in small letters is a reference wrapped onto a new line, not a heading.
    """
    mark = clause_mark(ln.text)
    if mark is not None and mark.style == "kw" and not ln.text[0].isupper():
        return None
    return mark


def _continues(prev: Line, ln: Line) -> bool:
    """Return True when the first line of a page continues the last paragraph of the last."""
    if prev.hyphen_join:
        return True
    if prev.hidden != ln.hidden or _mark(ln) is not None:
        return False
    if abs(ln.height - prev.height) > 0.2 * max(prev.height, 1.0) or prev.bold != ln.bold:
        return False
    return prev.text[-1] not in _TERMINAL or ln.text[:1].islower()


def _paragraphs(pages: list[Page], flows: list[list[Line | TableBlock]]
                ) -> list[_Para | TableBlock]:
    """Return the pages' paragraphs with the tables between them, in reading order."""
    out: list[_Para | TableBlock] = []
    cur: _Para | None = None
    for p, flow in zip(pages, flows, strict=True):
        lines = p.lines
        if not flow:
            continue
        pitch = right = 0.0
        if lines:
            pitch = _pitch([ln for ln in lines if not ln.hidden])
            body = [ln for ln in lines if not ln.hidden] or lines
            xs = sorted(ln.x1 for ln in body)
            right = xs[int(0.9 * (len(xs) - 1))]
        for i, ln in enumerate(flow):
            if isinstance(ln, TableBlock):
                if cur is not None:
                    out.append(cur)
                out.append(ln)
                cur = None
                continue
            if cur is None:
                cur = _Para([ln])
                continue
            prev = cur.lines[-1]
            if i == 0:
                new = not _continues(prev, ln)
            else:
                new = prev.hidden != ln.hidden or _breaks(prev, ln, pitch, right)
            if new:
                out.append(cur)
                cur = _Para([ln])
            else:
                cur.lines.append(ln)
    if cur is not None:
        out.append(cur)
    return out


class _Vocabulary:
    """How the document hyphenates: tells a compound broken after its hyphen from a word
    split for the line end, by the words of the document.

    Evidence first: the same pair hyphenated elsewhere ("out-of-pocket"), the joined word
    elsewhere ("agreement"), a prefix that takes a hyphen ("non-"), a capital after the
    break. A break with no evidence is a split after a one- or two-letter fragment, else
    follows the document's majority (contracts rarely hyphenate words; typeset papers
    often do), a compound when there is none.
    """

    def __init__(self, pages: list[Page], paras: list[_Para]) -> None:
        self.words: Counter[str] = Counter()
        self.pairs: set[tuple[str, str]] = set()
        self.default = True
        breaks = [b for para in paras for b in _hyphen_breaks(para)]
        if not breaks:
            return
        # the halves of words broken at a line end are not words
        parts: list[str] = []
        cut = False
        for p in pages:
            for ln in p.lines:
                t = ln.text.split(" ", 1)[-1] if cut else ln.text
                cut = t[-1:] in HYPHENS
                parts.append(t.rsplit(" ", 1)[0] if cut else t)
        for w in _WORD_RE.findall(" ".join(parts).lower()):
            if "-" in w:
                halves = w.split("-")
                self.pairs.update(pairwise(halves))
            else:
                self.words[w] += 1
        votes = Counter(self._evidence(left, right) for left, right in breaks)
        self.default = votes[True] >= votes[False]

    def _evidence(self, left: str, right: str) -> bool | None:
        lo, ro = left.lower(), right.lower()
        if (lo, ro) in self.pairs:
            return True
        if self.words.get(lo + ro):
            return False
        if lo in _COMPOUND_PREFIXES or right[:1].isupper():
            return True
        return None

    def compound(self, left: str, right: str) -> bool:
        """Return True when `left-right`, broken after the hyphen, is a hyphenated word."""
        found = self._evidence(left, right)
        if found is None and len(left) <= 2:
            return False  # "Ef-fects": a compound starts with a word or a known prefix
        return self.default if found is None else found


def _hyphen_break(prev: Line, last: str, text: str) -> tuple[str, str] | None:
    """Return the halves of a word broken at a hyphen between `last` and `text`, if any."""
    if last[-1:] not in "-\u2010" + HYPHEN_MARK:
        return None
    left, right = _word_before(last, len(last) - 1), _word_after(text)
    if left and right and (prev.hyphen_join or right[0].islower()):
        return left, right
    return None


def _hyphen_breaks(para: _Para) -> list[tuple[str, str]]:
    lines = para.lines
    return [b for prev, ln in pairwise(lines)
            if (b := _hyphen_break(prev, prev.text, ln.text)) is not None]


def _word_before(s: str, end: int) -> str:
    k = end
    while k > 0 and s[k - 1].isalpha():
        k -= 1
    return s[k:end]


def _word_after(s: str) -> str:
    k = 0
    while k < len(s) and s[k].isalpha():
        k += 1
    return s[:k]


def _join(para: _Para, vocab: _Vocabulary) -> None:
    """Set the paragraph's text and geometry from its lines.

    Lines are joined with a space (none at a line end between two CJK characters: Chinese
    and Japanese put no spaces between words). A line ending in a hyphen between letters is a compound
    broken after its hyphen (the hyphen stays, and so does the line break, as a space) or a
    word split for the line end (the hyphen becomes a soft hyphen, no space).
    """
    parts: list[str] = []
    geo = para.geo
    prev: Line | None = None
    for ln in para.lines:
        text = ln.text
        if prev is not None:
            last = parts[-1]
            end = last[-1]
            if end == HYPHEN_MARK:
                last = parts[-1] = last[:-1] + "-"
            split = _hyphen_break(prev, prev.text, text)
            if end == "\u00ad" and _word_before(last, len(last) - 1) and _word_after(text):
                pass  # a soft hyphen: the PDF says the word was split
            elif split is not None and not vocab.compound(*split):
                parts[-1] = last[:-1] + "\u00ad"
            elif cjk_pair(end, text[0]) and ln.top - prev.top > 0.5 * prev.height:
                pass  # Chinese and Japanese are written without spaces: nor is a line end
            else:
                parts.append(" ")
                geo.add_gap()
        parts.append(text)
        geo.add_line(ln)
        prev = ln
    last = parts[-1]
    if last.endswith(HYPHEN_MARK):
        parts[-1] = last[:-1] + "-"
    para.text = "".join(parts)
    page = min(ln.page for ln in para.lines)
    x0, top, x1, bottom = zip(*(ln.dbox for ln in para.lines if ln.page == page), strict=True)
    geo.first = (page, (min(x0), min(top), max(x1), max(bottom)))


# ---- headings ------------------------------------------------------------------------


def _heading_levels(paras: list[_Para]) -> dict[int, int]:
    """Return {paragraph index: heading level} for the paragraphs that look like headings."""
    sizes: Counter[float] = Counter()
    bold_chars = chars = 0
    for para in paras:
        for ln in para.lines:
            if not ln.hidden:
                sizes[round(ln.height * 4) / 4] += len(ln.text)
                chars += len(ln.text)
                bold_chars += len(ln.text) if ln.bold else 0
    if not sizes:
        return {}
    body = sizes.most_common(1)[0][0]
    body_bold = bold_chars > 0.3 * chars
    found: dict[int, float] = {}
    for i, para in enumerate(paras):
        lines = para.lines
        text = para.text.strip()
        words = len(text.split())
        if (len(lines) > 2 or words > 20 or lines[0].hidden or text[-1] in ",;"
                or not any(c.isalpha() for c in text)):
            continue
        size = min(ln.height for ln in lines)
        if size >= 1.2 * body:
            found[i] = round(size)
        elif (not body_bold and all(ln.bold for ln in lines) and words <= 12
              and (text[-1] != "." or words <= 8)):
            found[i] = 0.0
    ranks = sorted({s for s in found.values() if s}, reverse=True)
    level = {s: k + 1 for k, s in enumerate(ranks)}
    return {i: level.get(s, len(ranks) + 1) for i, s in found.items()}


# ---- the parser -------------------------------------------------------------------------


def _open(data: bytes, password: str | None) -> Any:
    import pypdfium2 as pdfium

    if not data:
        raise ParseFailure("malformed", "the file is empty")
    try:
        return pdfium.PdfDocument(data, password=password)
    except pdfium.PdfiumError as exc:
        code = getattr(exc, "err_code", None)
        if code in (4, 6):  # FPDF_ERR_PASSWORD, FPDF_ERR_SECURITY
            detail = ("the password is wrong" if password else
                      "the PDF is encrypted; supply the password or remove the protection")
            raise ParseFailure("encrypted", detail) from None
        raise ParseFailure("malformed", f"pdfium cannot open the file ({exc})") from None


def parse(data: bytes, *, password: str | None, limits: Limits,
          report: Report | None = None) -> TextLayer:
    """Return the text layer of a PDF; each page read is reported to `report`."""
    with _PDFIUM_LOCK:  # pdfium is not thread-safe
        pages, fields, refused, scan = _read(data, password, limits, report)
    layer = _layer(pages, fields, refused)
    return layer if scan is None else mark_layer(layer, scan)


def _read(data: bytes, password: str | None, limits: Limits, report: Report | None = None,
          ) -> tuple[list[Page], list[FormField], int, OcrPass | None]:
    fn = pdfium_fns()
    doc = _open(data, password)
    deadline = time.monotonic() + limits.parse_seconds
    pages: list[Page] = []
    fields: list[FormField] = []
    refused = 0
    try:
        count = len(doc)
        if count > limits.max_pages:
            raise ParseFailure("over_limit", f"{count} pages, over the limit of {limits.max_pages}")
        form = has_form(doc)
        if form:
            doc.init_forms()  # before any page is loaded
        handle = ctypes.cast(doc.raw, c_void_p).value or 0
        total = 0
        layers = DocumentLayers.of(data)  # read only if a page has /OC content
        for i in range(count):
            page = read_page(fn, handle, i, layers)
            total += page.chars
            if total > limits.max_text_chars:
                raise ParseFailure("over_limit", f"more than {limits.max_text_chars} characters of text")
            if time.monotonic() > deadline:
                raise ParseFailure("timeout", f"parsing took over {limits.parse_seconds:g} s")
            pages.append(page)
            report_to(report, ProgressUnit.PAGE, i + 1, count)
        if form:
            fields, refused = read_fields(doc, limits)
        scan = read_scans(doc, fn, handle, pages, limits, report)
    finally:
        doc.close()
    return pages, fields, refused, scan


def _layer(pages: list[Page], fields: list[FormField] | None = None, refused: int = 0,
           ) -> TextLayer:
    builder = GeometryBuilder(PARSER, VERSION)
    fields = list(fields or ())
    for p in pages:
        builder.page_size(p.number, p.width, p.height)
    if refused:
        builder.flag(REFUSED)
    if not any(p.lines for p in pages):
        builder.flag("no_text_layer")
        emit_fields(builder, fields, len(pages) + 1)
        return builder.build()
    for p in pages:
        p.lines = reading_order(p.lines)
    blocks, order = cut_tables(pages)
    drop_running(pages)
    items = _paragraphs(pages, place(pages, blocks, order))
    paras = [x for x in items if isinstance(x, _Para)]
    vocab = _Vocabulary(pages, paras)
    for para in paras:
        _join(para, vocab)
    headings = {id(paras[i]): level for i, level in _heading_levels(paras).items()}
    before: list[_Para] = []  # the paragraphs since the last table, latest last
    for item in items:
        if fields:  # a page's form fields follow its text
            emit_fields(builder, fields, item.parts[0].page if isinstance(item, TableBlock)
                         else item.lines[0].page)
        if isinstance(item, TableBlock):
            item.caption = _caption(before[-2:], item)
            emit(builder, item)
            before = []
            continue
        para = item
        flags = ("hidden_text",) if para.lines[0].hidden else ()
        if flags:
            builder.flag("hidden_text")
        if id(para) in headings:
            builder.heading(para.text, headings[id(para)], chars=para.geo, flags=flags)
        else:
            kind = "list_item" if _BULLET_RE.match(para.text) else "paragraph"
            builder.paragraph(para.text, kind=kind, chars=para.geo, flags=flags)
        before.append(para)
    emit_fields(builder, fields, len(pages) + 1)
    return builder.build()


def _caption(paras: list[_Para], table: TableBlock) -> str | None:
    """Return the caption stated just above a table: by the paragraph before it, or by
    the one before that (a note or unit line between)."""
    top, first = table.top, table.parts[0]
    for para in reversed(paras):
        last = para.lines[-1]
        if last.page != first.page or last.frame != first.frame or \
                not -2 <= top - last.bottom <= 3 * last.height:
            return None
        found = caption_of(para.text)
        if found:
            return found
        top = para.lines[0].top
    return None
