"""Turned copies of ICDAR 2013 documents, made at eval time, and where gold boxes land.

The competition's gold boxes are in each page's PDF space (origin bottom-left, /Rotate
not applied). Systems report boxes on the page as shown (crop box, /Rotate applied,
origin top-left), so `shown_boxes` maps a gold box to the page as shown, for the original
and for each copy:

- `rotate90`: /Rotate 90 set on a copy of every page, its content untouched: as shown the
  page is landscape and its text runs down the page (a scan or a document turned for
  display). Structure is the original's; boxes turn with the page.
- `rotate90_turned`: the content turned a quarter counter-clockwise inside a media box
  turned to match, and /Rotate 90 set: as shown the page is the original one, while the
  PDF stores it turned for display (how many generators write landscape pages). Gold
  boxes are where they were on the original as shown.

The copies are made with pypdfium2 (the parser's own engine): `FPDFPage_TransFormWithClip`
wraps the page's content in a `cm` operator; nothing is re-generated.
"""

from __future__ import annotations

import ctypes
import io
from collections.abc import Callable

import numpy as np

from ..model import Box
from ..parse.pdf.frames import transform

VARIANTS = ("rotate90", "rotate90_turned")
GoldBox = Callable[[float, float, float, float], Box]  # x1 y1 x2 y2 in PDF space → shown


def turned_copy(pdf: bytes, variant: str) -> bytes:
    """Return a copy of a PDF with every page turned as `variant` says (see the module
    docstring)."""
    import pypdfium2 as pdfium
    import pypdfium2.raw as R

    if variant not in VARIANTS:
        raise ValueError(f"unknown copy {variant!r}")
    doc = pdfium.PdfDocument(pdf)
    try:
        for i in range(len(doc)):
            page = doc[i]
            rot = page.get_rotation()
            if variant == "rotate90_turned":
                if rot:
                    page.close()
                    continue  # only upright pages are turned back (the dev pages all are)
                L, B, Rt, T = _page_box(page)
                m = R.FS_MATRIX(0.0, 1.0, -1.0, 0.0, T, -L)  # (x, y) → (T - y, x - L)
                if not R.FPDFPage_TransFormWithClip(page.raw, ctypes.byref(m), None):
                    raise RuntimeError("pdfium could not turn the page's content")
                page.set_mediabox(0.0, 0.0, T - B, Rt - L)
                page.set_cropbox(0.0, 0.0, T - B, Rt - L)
            page.set_rotation((rot + 90) % 360)
            page.close()
        buf = io.BytesIO()
        doc.save(buf)
        return buf.getvalue()
    finally:
        doc.close()


def _page_box(page: object) -> tuple[float, float, float, float]:
    """Return the page's crop box within its media box: left, bottom, right, top."""
    ml, mb, mr, mt = page.get_mediabox()  # type: ignore[attr-defined]
    cl, cb, cr, ct = page.get_cropbox()  # type: ignore[attr-defined]
    return max(ml, cl), max(mb, cb), min(mr, cr), min(mt, ct)


def shown_boxes(original: bytes, variant: str | None) -> list[GoldBox]:
    """Return, per page of the original PDF, the map of a gold box (PDF space of the
    original) to its box on the page as shown: of the original (`variant` None) or of its
    copy `variant`."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(original)
    try:
        out = []
        for i in range(len(doc)):
            page = doc[i]
            rot = page.get_rotation() // 90 % 4
            box = _page_box(page)
            page.close()
            if variant == "rotate90":
                out.append(_mapper(box, (rot + 1) % 4, None))
            elif variant == "rotate90_turned" and not rot:
                L, B, Rt, T = box
                out.append(_mapper((0.0, 0.0, T - B, Rt - L), 1, (T, -L)))
            else:
                out.append(_mapper(box, rot, None))
        return out
    finally:
        doc.close()


def _mapper(box: tuple[float, float, float, float], rot: int,
            turned: tuple[float, float] | None) -> GoldBox:
    """Return the map of a PDF-space box to frame `rot` of a page whose visible area is
    `box`, the content first turned a quarter counter-clockwise and moved by `turned`."""
    f = transform(box, rot)[2]

    def shown(x1: float, y1: float, x2: float, y2: float) -> Box:
        lo_x, hi_x, lo_y, hi_y = min(x1, x2), max(x1, x2), min(y1, y2), max(y1, y2)
        if turned is not None:  # (x, y) → (e - y, x + f)
            e, f_ = turned
            lo_x, hi_x, lo_y, hi_y = e - hi_y, e - lo_y, lo_x + f_, hi_x + f_
        cols = f(np.array([lo_x]), np.array([hi_y]), np.array([hi_x]), np.array([lo_y]))
        x0, top, x1_, bottom = (float(c[0]) for c in cols)
        return min(x0, x1_), min(top, bottom), max(x0, x1_), max(top, bottom)

    return shown
