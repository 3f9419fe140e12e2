"""Page images of stored PDFs: `render_page_png(data, page, scale)` → PNG bytes.

Used by the dictamen report, the review page and `fill`'s report to show a cited box on
its page. The bytes were already accepted by ingest (parsed in the sandbox); rendering is
bounded by a page-size limit. Given an open file instead of bytes, PDFium reads only the
objects the page needs, so a page of a 200 MB PDF is drawn without holding the file. PNG encoding uses zlib only (no imaging library).
"""

from __future__ import annotations

import struct
import zlib
from typing import BinaryIO

from ...errors import UsageError

MAX_PIXELS = 4_000_000


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF))


def encode_png(rgb: bytes, width: int, height: int) -> bytes:
    """Return a PNG file of 8-bit RGB rows (`width * 3` bytes each)."""
    stride = width * 3
    raw = b"".join(b"\x00" + rgb[y * stride:(y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", zlib.compress(raw, 6))
            + _chunk(b"IEND", b""))


def render_page_png(data: bytes | BinaryIO, page: int, *, scale: float = 1.5,
                    password: str | None = None) -> tuple[bytes, float, float]:
    """Return (PNG bytes, page width pt, page height pt) of 1-based `page` of a PDF (its
    bytes, or a binary file open on it, which the caller closes)."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data, password=password)
    try:
        if not 1 <= page <= len(pdf):
            raise UsageError(f"page {page} is not in the document (1–{len(pdf)})")
        p = pdf[page - 1]
        width, height = p.get_size()
        if width * height * scale * scale > MAX_PIXELS:
            scale = (MAX_PIXELS / (width * height)) ** 0.5
        bitmap = p.render(scale=scale, rev_byteorder=True)
        arr = bitmap.to_numpy()
        rgb = arr[:, :, :3].tobytes() if arr.shape[2] >= 3 else arr.tobytes()
        png = encode_png(rgb, arr.shape[1], arr.shape[0])
        p.close()
        return png, float(width), float(height)
    finally:
        pdf.close()
