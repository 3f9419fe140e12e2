"""PDF pages whose text is turned, written with reportlab: a procurement price annex on a
landscape page (/Rotate 90 or 270 with the content turned back so it reads upright), upside
down (/Rotate 180), on a /Rotate page whose content is not turned back (the text runs down
the page as shown), and set sideways on a portrait page by its text matrix beside upright
text. Each comes with where its content sits on an upright reference page, so a test can
say where every box must land on the page as shown.

Reportlab writes a /Rotate 90 or 270 page with its media box turned: `pagesize` is the
page as shown, and the content is drawn in the media box (`pagesize` swapped).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass

from reportlab.pdfgen import canvas

HEADER = ["Item", "Qty", "Unit price", "Total"]
ROWS = [["Desk chair", "12", "145.00", "1,740.00"], ["Monitor arm", "30", "62.50", "1,875.00"],
        ["Laptop stand", "25", "39.90", "997.50"], ["Cable tray", "40", "18.20", "728.00"]]
COLS = [0, 150, 230, 330, 430]  # left edges of the columns and the table's right edge
PITCH = 18
INTRO = "The prices below are firm for the whole term of the framework contract."
CAPTION = "Annex B: Price schedule"
NOTE = "Prices are in euros and exclude VAT."
LETTER = (612.0, 792.0)
LANDSCAPE = (792.0, 612.0)

Matrix = tuple[float, float, float, float, float, float]  # PDF's a b c d e f
IDENTITY: Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def annex(c: canvas.Canvas) -> None:
    """Draw the caption, the ruled price table and the note under it, in [0, 430] × [0, 165]."""
    c.setFont("Helvetica-Bold", 10)
    c.drawString(0, 160, CAPTION)
    for k, row in enumerate([HEADER, *ROWS]):
        c.setFont("Helvetica-Bold" if k == 0 else "Helvetica", 10)
        for x, text in zip(COLS, row, strict=False):
            c.drawString(x + 4, 136 - k * PITCH, text)
    c.setLineWidth(0.6)
    top, bottom = 149, 149 - PITCH * (len(ROWS) + 1)
    for k in range(len(ROWS) + 2):
        c.line(0, top - k * PITCH, COLS[-1], top - k * PITCH)
    for x in COLS:
        c.line(x, top, x, bottom)
    c.setFont("Helvetica", 10)
    c.drawString(0, 40, NOTE)


@dataclass(frozen=True)
class Turned:
    """A page and where its content sits: `content` maps PDF points of the upright
    reference page (`reference`, drawn by `upright`) to this page's PDF points."""

    data: bytes
    rotate: int  # the page's /Rotate
    media: tuple[float, float]  # its media box
    reference: tuple[float, float]  # the upright page the content is drawn on
    content: Matrix


def _pdf(pagesize: tuple[float, float], rotate: int, draw: Callable[[canvas.Canvas], None]) -> bytes:
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=pagesize)
    if rotate:
        c.setPageRotation(rotate)
    draw(c)
    c.showPage()
    c.save()
    return buf.getvalue()


def upright(size: tuple[float, float]) -> Callable[[canvas.Canvas], None]:
    """Return the drawing of the reference page of `size`: intro, then the annex under it."""
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, size[1] - 72, INTRO)
        c.saveState()
        c.translate(72, size[1] - 280)
        annex(c)
        c.restoreState()
    return draw


def reference(size: tuple[float, float]) -> bytes:
    """Return the upright reference page of `size`."""
    return _pdf(size, 0, upright(size))


def landscape(rotate: int) -> Turned:
    """Return a landscape page stored portrait with /Rotate `rotate` (90, 270) or an upside
    down portrait page (180), its content turned back so that it reads upright as shown."""
    shown = LETTER if rotate == 180 else LANDSCAPE
    media = LETTER
    w, h = media
    m: Matrix = {90: (0.0, 1.0, -1.0, 0.0, w, 0.0), 270: (0.0, -1.0, 1.0, 0.0, 0.0, h),
                 180: (-1.0, 0.0, 0.0, -1.0, w, h)}[rotate]
    draw = upright(shown)

    def turned(c: canvas.Canvas) -> None:
        c.saveState()
        c.transform(*m)
        draw(c)
        c.restoreState()

    return Turned(_pdf(shown, rotate, turned), rotate, media, shown, m)


def sideways(rotate: int) -> Turned:
    """Return a portrait page with /Rotate `rotate` whose content is drawn upright in PDF
    space: as shown, the page is landscape and its text runs down (90) or up (270)."""
    shown = (LETTER[1], LETTER[0])
    return Turned(_pdf(shown, rotate, upright(LETTER)), rotate, LETTER, LETTER, IDENTITY)


TABLE_AT = (400.0, 150.0)  # where the sideways annex's origin sits on the portrait page
FOOTER = "Page 4"


def sideways_table() -> Turned:
    """Return a portrait page with the intro upright, the annex set sideways by its text
    matrix (reading bottom to top), and a page number upright at the foot."""
    def draw(c: canvas.Canvas) -> None:
        c.setFont("Helvetica", 10)
        c.drawString(72, LETTER[1] - 72, INTRO)
        c.saveState()
        c.translate(*TABLE_AT)
        c.rotate(90)
        annex(c)
        c.restoreState()
        c.setFont("Helvetica", 10)
        c.drawString(290, 40, FOOTER)

    # reference point (x, y) of the annex, drawn at (72, 792 - 280) upright → (u, v) in the
    # annex → (400 - v, 150 + u) here
    ox, oy = 72.0, LETTER[1] - 280
    tx, ty = TABLE_AT
    m: Matrix = (0.0, 1.0, -1.0, 0.0, tx + oy, ty - ox)
    return Turned(_pdf(LETTER, 0, draw), 0, LETTER, LETTER, m)


def apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    """Return the point (x, y) moved by `m`."""
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


def shown_box(t: Turned, box: tuple[float, float, float, float],
              content: Matrix | None = None) -> tuple[float, float, float, float]:
    """Return where a box of the upright reference page (as shown: x0, top, x1, bottom)
    lands on page `t` as shown, its content moved by `content` (default: `t.content`)."""
    x0, top, x1, bottom = box
    rh = t.reference[1]
    w, h = t.media
    pts = [apply(content or t.content, x, rh - y) for x in (x0, x1) for y in (top, bottom)]
    shown = []
    for x, y in pts:  # PDF space → the page turned `rotate` clockwise, origin top-left
        shown.append({0: (x, h - y), 90: (y, x), 180: (w - x, y), 270: (h - y, w - x)}[t.rotate])
    xs, ys = [p[0] for p in shown], [p[1] for p in shown]
    return min(xs), min(ys), max(xs), max(ys)
