"""Pages without a usable text layer, read from their images (OCR), page by page.

`read_scans` runs after `lines.read_page` has read every page and before the layer is
built. A page is read from its image when what its text layer offers a reader is not
usable (`OcrReason`), a rule stated for the classes of PDF that produce such pages:

- **no_text**: no characters at all, and the page draws something (an image, paths);
- **hidden_text**: only text nobody sees (a scanner's invisible layer under the image);
- **garbage**: half or more of its visible characters mean nothing (U+FFFD, private-use
  code points: fonts without a ToUnicode map);
- **sparse_text**: fewer than `MIN_TEXT` visible characters while images cover at least
  `IMAGE_COVER` of the page (a scanned page with a stamp or page number set on it).

The page is drawn at `OcrSettings.dpi` with pypdfium2 (the page as shown: crop box,
/Rotate applied) and read by Tesseract (`parse.ocr`). Each text line becomes a `Line`
like pdfium's, so reading order, paragraphs, clause numbers and tables are found the
same way on both kinds of page; word boxes are converted to points in the page's
displayed frame and each word's characters share its box in proportion. Visible
born-digital lines of the page stay (a stamp, a page number) and OCR words on top of
them are dropped; hidden and garbage lines go: the page says what its image says. Lone
dark pixels (no ink among their eight neighbours: the speckle of a worn copy or a dirty
glass, never part of a glyph at the resolutions read) are cleared before reading.

Limits (`OcrSettings`): a page whose image would exceed `max_pixels` is not read, nor a
page past the first `max_pages` that need reading; recognition over `page_seconds` is
given up. Table rulings are found in the image (`image_rules`) and words that are only a
ruling read as text (`|`) are dropped. Each such page is recorded with its `OcrStatus` and the layer is flagged
`ocr_incomplete`. A hook (`set_page_hook`) is called after every page read: the sandbox
worker uses it to tell the parent that it is alive and to renew its time budget.

`ocr_marks.mark_layer` then finishes the built layer.
"""

from __future__ import annotations

import ctypes
import math
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors import ParseFailure, PinciteError
from ...limits import Limits, OcrSettings
from ...model.progress_report import Report, report_to
from ...vocab import OcrReason, OcrStatus, ProgressUnit
from ..ocr import EngineInfo, OcrLine, Tesseract
from .image_rules import image_rules, to_pdf_space
from .lines import GAP_WIDE, ZERO_ROW, CharBoxes, Line, Page

MIN_TEXT = 200      # visible characters a page with a page-sized image must have to be trusted
IMAGE_COVER = 0.5   # share of the page images must cover for `sparse_text`
GARBAGE_SHARE = 0.5  # share of meaningless visible characters that makes a page `garbage`
_BARS = frozenset("|¦‖")  # a "word" of these alone is a table's ruling read as text

_ENGINES: dict[tuple[str, ...], Tesseract] = {}
_page_hook: Callable[[], None] | None = None

CharKey = tuple[int, float, float, float, float]  # page and a character's float32 box


def set_page_hook(hook: Callable[[], None] | None) -> None:
    """Call `hook` after each page read from its image (the sandbox worker's heartbeat)."""
    global _page_hook
    _page_hook = hook


@dataclass(slots=True)
class PageRead:
    """What happened to one page that needed reading: why, and how it ended."""

    page: int
    reason: OcrReason
    status: OcrStatus
    dpi: int = 0
    words: int = 0
    mean_confidence: float | None = None
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        """Return the page's entry in the layer's OCR record."""
        d: dict[str, Any] = {"page": self.page, "reason": str(self.reason),
                             "status": str(self.status)}
        if self.status == OcrStatus.READ:
            d.update(dpi=self.dpi, words=self.words, mean_confidence=self.mean_confidence)
        if self.detail:
            d["detail"] = self.detail
        return d


@dataclass(slots=True)
class OcrPass:
    """The pages read from their images in one document, and each OCR character's word."""

    settings: OcrSettings
    info: EngineInfo | None = None
    pages: list[PageRead] = field(default_factory=list)
    char_word: dict[CharKey, int] = field(default_factory=dict)
    confidence: list[float] = field(default_factory=list)  # per word id


# ---- which pages -------------------------------------------------------------------------


def _meaningless(ch: str) -> bool:
    return ch == "\ufffd" or unicodedata.category(ch) in ("Co", "Cn", "Cs")


def _text_state(page: Page) -> tuple[int, int]:
    """Return (visible characters, meaningless ones among them), spaces not counted."""
    visible = bad = 0
    for ln in page.lines:
        if ln.hidden:
            continue
        for ch in ln.text:
            if not ch.isspace():
                visible += 1
                bad += _meaningless(ch)
    return visible, bad


def _drawing(fn: Any, handle: int, index: int) -> tuple[float, bool]:
    """Return (share of the page images cover, whether the page draws anything else)."""
    page = fn.load_page(handle, index)
    if not page:
        return 0.0, False
    try:
        rect = fn.rect_type()
        if not fn.bbox(page, ctypes.addressof(rect)):
            return 0.0, False
        L, B = min(rect.left, rect.right), min(rect.bottom, rect.top)
        R, T = max(rect.left, rect.right), max(rect.bottom, rect.top)
        area = (R - L) * (T - B)
        if not (math.isfinite(area) and area > 1):
            return 0.0, False
        fl = [ctypes.c_float() for _ in range(4)]
        pf = [ctypes.addressof(v) for v in fl]
        covered, drawn = 0.0, False
        for k in range(min(max(0, fn.count_objects(page)), 10_000)):
            obj = fn.get_object(page, k)
            kind = fn.obj_type(obj) if obj else 0
            if kind in (2, 4):  # path, shading
                drawn = True
            elif kind in (3, 5) and fn.obj_bounds(obj, *pf):  # image, form (may hold one)
                x0, y0, x1, y1 = (v.value for v in fl)
                w = min(max(x0, x1), R) - max(min(x0, x1), L)
                h = min(max(y0, y1), T) - max(min(y0, y1), B)
                if kind == 3 or _holds_image(fn, obj):
                    covered += max(0.0, w) * max(0.0, h)
                drawn = True
        return min(1.0, covered / area), drawn
    finally:
        fn.close_page(page)


def _holds_image(fn: Any, form: int, depth: int = 0) -> bool:
    for k in range(min(max(0, fn.form_count(form)), 1000)):
        obj = fn.form_object(form, k)
        kind = fn.obj_type(obj) if obj else 0
        if kind == 3 or kind == 5 and depth < 8 and _holds_image(fn, obj, depth + 1):
            return True
    return False


def needs_reading(fn: Any, handle: int, page: Page) -> OcrReason | None:
    """Return why a page must be read from its image, or None when its text will do."""
    visible, bad = _text_state(page)
    if visible and bad >= GARBAGE_SHARE * visible:
        return OcrReason.GARBAGE
    if visible >= MIN_TEXT:
        return None
    cover, drawn = _drawing(fn, handle, page.number - 1)
    if visible == 0 and (drawn or cover > 0):
        return OcrReason.HIDDEN_TEXT if page.lines else OcrReason.NO_TEXT
    if cover >= IMAGE_COVER:
        return OcrReason.SPARSE_TEXT
    return None


# ---- reading -----------------------------------------------------------------------------


def _engine(settings: OcrSettings) -> Tesseract:
    langs = settings.language_list()
    engine = _ENGINES.get(langs)
    if engine is None:
        engine = _ENGINES[langs] = Tesseract(langs)
    return engine


def read_scans(doc: Any, fn: Any, handle: int, pages: list[Page], limits: Limits,
               report: Report | None = None) -> OcrPass | None:
    """Read the pages that need it from their images, replacing their lines in `pages`;
    return what was done (None when no page needed reading). Each page tried is reported
    to `report` (`ProgressUnit.OCR_PAGE`, out of the pages the settings let OCR read)."""
    settings = limits.ocr
    todo = [(p, r) for p in pages if (r := needs_reading(fn, handle, p)) is not None]
    if not todo:
        return None
    scan = OcrPass(settings)
    engine: Tesseract | None = None
    why = ""
    if settings.enabled:
        try:
            engine = _engine(settings)
            scan.info = engine.info
        except PinciteError as exc:  # no tesserocr, no pack: the pages stay unread, flagged
            why = exc.message
    else:
        why = "OCR is turned off"
    total = sum(p.chars for p in pages)
    tried = min(len(todo), settings.max_pages) if engine is not None else 0
    for k, (page, reason) in enumerate(todo):
        entry = PageRead(page.number, reason, OcrStatus.UNAVAILABLE, detail=why)
        scan.pages.append(entry)
        if engine is None:
            continue
        if k >= settings.max_pages:
            entry.status, entry.detail = OcrStatus.PAGE_LIMIT, (
                f"only the first {settings.max_pages} pages that need OCR are read")
            continue
        report_to(report, ProgressUnit.OCR_PAGE, k, tried, f"page {page.number}")
        scale = settings.dpi / 72.0
        pixels = math.ceil(page.width * scale) * math.ceil(page.height * scale)
        if pixels > settings.max_pixels:
            entry.status, entry.detail = OcrStatus.OVER_PIXELS, (
                f"{pixels} pixels at {settings.dpi} dpi, over the {settings.max_pixels} limit")
            continue
        image = despeckle(doc[page.number - 1].render(scale=scale, grayscale=True).to_pil())
        lines = engine.read(image, dpi=settings.dpi, seconds=settings.page_seconds)
        if lines is None:
            entry.status, entry.detail = OcrStatus.TIMEOUT, (
                f"recognition took over {settings.page_seconds:g} s")
            continue
        entry.status, entry.dpi, entry.detail = OcrStatus.READ, settings.dpi, ""
        found = _replace_lines(page, lines, scale, scan)
        if not page.rules:
            page.rules = to_pdf_space(image_rules(image, scale), page.box, page.rot)
        entry.words = len(found)
        entry.mean_confidence = round(sum(found) / len(found), 2) if found else None
        total += page.chars
        if total > limits.max_text_chars:
            raise ParseFailure("over_limit", f"more than {limits.max_text_chars} characters of text")
        if _page_hook is not None:
            _page_hook()
    if tried:
        report_to(report, ProgressUnit.OCR_PAGE, tried, tried)
    return scan


def despeckle(image: Any) -> Any:
    """Return a grey PIL image with its lone dark pixels (no dark neighbour) made white."""
    from PIL import Image

    grey = np.asarray(image)
    dark = grey < 128
    padded = np.pad(dark, 1)
    h, w = dark.shape
    neighbours = np.zeros(dark.shape, dtype=np.uint8)
    for dy in (0, 1, 2):
        for dx in (0, 1, 2):
            if dy != 1 or dx != 1:
                neighbours += padded[dy:dy + h, dx:dx + w]
    lone = dark & (neighbours == 0)
    if not lone.any():
        return image
    out = grey.copy()
    out[lone] = 255
    return Image.fromarray(out)


def _replace_lines(page: Page, lines: list[OcrLine], scale: float, scan: OcrPass) -> list[float]:
    """Put the OCR lines in place of the page's unusable ones; return the confidences of
    the words kept."""
    kept = [ln for ln in page.lines if not ln.hidden and ln.frame == page.rot
            and sum(map(_meaningless, ln.text)) * 2 < len(ln.text.replace(" ", "")) + 1]
    taken = [ln.dbox for ln in kept]
    out: list[Line] = []
    confidences: list[float] = []
    for ocr in lines:
        words: list[_Word] = []
        for w in ocr.words:
            if set(w.text) <= _BARS:
                continue
            box = _points(w.box, scale, page)
            cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
            if any(b[0] <= cx <= b[2] and b[1] <= cy <= b[3] for b in taken):
                continue  # the page's own text says it already
            words.append((w.text, box, w.confidence,
                          None if w.upright is None else _points(w.upright, scale, page)))
        if words:
            out.append(_line(page, words, ocr.height / scale, scan))
            confidences.extend(c for _, _, c, _ in words)
    page.lines = kept + out
    page.chars = sum(len(ln.text) for ln in page.lines)
    page.frame, page.turned, page.frame_height = page.rot, False, page.height
    return confidences


Box4 = tuple[float, float, float, float]
_Word = tuple[str, Box4, float, Box4 | None]  # text, box as shown, confidence, box upright


def _points(px: tuple[int, int, int, int], scale: float, page: Page) -> Box4:
    """Return a pixel box in points, inside the page."""
    x0, top, x1, bottom = (v / scale for v in px)
    return (min(max(x0, 0.0), page.width), min(max(top, 0.0), page.height),
            min(max(x1, 0.0), page.width), min(max(bottom, 0.0), page.height))


def _char_rows(box: Box4, n: int) -> np.ndarray:
    edges = np.linspace(box[0], box[2], n + 1)
    return np.column_stack((edges[:-1], np.full(n, box[1]), edges[1:], np.full(n, box[3])))


def _line(page: Page, words: list[_Word], height: float, scan: OcrPass) -> Line:
    """Return one `Line` of OCR words: characters share their word's box in proportion.

    On a page read upright (a skewed scan), the line's geometry (x0 … bottom, the boxes
    its words are ordered and grouped by) is upright, as Tesseract read it, while the
    character boxes a citation shows are on the page as it is (`fboxes` holds the upright
    ones)."""
    parts: list[str] = []
    rows: list[np.ndarray] = []
    frows: list[np.ndarray] = []
    holes: list[int] = []
    size = 0
    wide = 0
    prev_x1: float | None = None
    for text, box, conf, upright in words:
        own = box if upright is None else upright
        if parts:
            holes.append(size)
            parts.append(" ")
            rows.append(ZERO_ROW)
            frows.append(ZERO_ROW)
            size += 1
            if prev_x1 is not None and own[0] - prev_x1 > GAP_WIDE * max(height, 1.0):
                wide += 1
        n = len(text)
        box_rows = _char_rows(box, n)
        word_id = len(scan.confidence)
        scan.confidence.append(conf)
        for r in box_rows.astype(np.float32).tolist():
            scan.char_word[(page.number, r[0], r[1], r[2], r[3])] = word_id
        parts.append(text)
        rows.append(box_rows)
        frows.append(box_rows if upright is None else _char_rows(upright, n))
        size += n
        prev_x1 = own[2]
    shown = [b for _, b, _, _ in words]
    geom = [b if u is None else u for _, b, _, u in words]
    x0, top = min(b[0] for b in geom), min(b[1] for b in geom)
    x1, bottom = max(b[2] for b in geom), max(b[3] for b in geom)
    dbox = (min(b[0] for b in shown), min(b[1] for b in shown),
            max(b[2] for b in shown), max(b[3] for b in shown))
    h = height if height > 0 else bottom - top
    skewed = any(u is not None for _, _, _, u in words)
    return Line(page.number, "".join(parts), CharBoxes(np.concatenate(rows)), holes,
                x0, top, x1, bottom, h, False, False, dbox, wide=wide, frame=page.rot,
                fboxes=CharBoxes(np.concatenate(frows)) if skewed else None)
