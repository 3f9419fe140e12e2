"""A small PDF writer for documents whose every glyph, box and field is known in advance.

The strata eval and the parser tests need PDFs that a generator of a given kind would
write (right-to-left text drawn in visual order, a ligature glyph that stands for two
letters, superscripts drawn after their line, form fields, page images, /Rotate) and the
gold text and boxes of what they draw. `PdfWriter` writes PDF syntax directly, so nothing
is left to a layout engine or to a font on the machine: a glyph is a code of a Type3 font
(a filled block, 255 glyphs a font) whose ToUnicode CMap maps it to one or more
characters, its advance and box are the font's width and glyph box for it.

Boxes are returned as the parser reports them: (x0, top, x1, bottom) in points, origin at
the top-left of the page as shown (for an unrotated page).
"""

from __future__ import annotations

import unicodedata
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...model import Box

ASCENT, DESCENT = 800, -200  # every glyph's box, per 1000 units of size
LATIN_WIDTH, WIDE_WIDTH, SPACE_WIDTH = 550, 1000, 280  # advances: Latin, CJK, space
MARK_WIDTH = 150  # a combining mark's advance (drawn back over its base with a TJ move)
PER_FONT = 255  # glyphs of one Type3 font (one-byte codes 1…255)

Put = Callable[[bytes], int]


def _wide(s: str) -> bool:
    return any(0x2E80 <= ord(c) <= 0x9FFF or 0xAC00 <= ord(c) <= 0xD7AF
               or 0xF900 <= ord(c) <= 0xFAFF or 0xFF00 <= ord(c) <= 0xFFEF for c in s)


def pdf_string(s: str) -> bytes:
    """Return `s` as a PDF text string (UTF-16BE with its byte order mark, in hex)."""
    return b"<FEFF" + s.encode("utf-16-be").hex().upper().encode() + b">"


def _stream(head: str, data: bytes) -> bytes:
    return f"<< {head} /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


@dataclass(frozen=True)
class Glyph:
    """A glyph of the writer's fonts: font number, code, the characters it stands for."""

    font: int
    code: int
    text: str
    width: int  # font units


@dataclass(frozen=True)
class Field:
    """An AcroForm field with one widget: kind is "text", "check" or "choice"."""

    name: str
    kind: str
    value: str
    rect: tuple[float, float, float, float]  # PDF space: left, bottom, right, top
    options: tuple[str, ...] = ()


@dataclass
class Page:
    """A page being written: its content stream, images and fields."""

    writer: PdfWriter
    width: float
    height: float
    rotate: int = 0
    ops: list[bytes] = field(default_factory=list)
    images: list[tuple[int, int, bytes]] = field(default_factory=list)
    fields: list[Field] = field(default_factory=list)

    def box(self, x: float, y: float, advance: float, size: float) -> Box:
        """Return the box of a glyph drawn at (x, y) as shown on an unrotated page."""
        return (x, self.height - (y + ASCENT * size / 1000), x + advance,
                self.height - (y + DESCENT * size / 1000))

    def draw(self, x: float, y: float, size: float, glyphs: Sequence[str | float], *,
             rise: float = 0.0, mode: int = 0, gray: float = 0.0, spacing: float = 0.0,
             ) -> list[Box]:
        """Draw `glyphs` left to right from (x, y) in one text object (a string is one
        glyph that stands for its characters; a number moves back by that many thousandths
        of the size, as in a TJ array); return each glyph's box as shown."""
        ops = [f"BT {gray:g} g {mode} Tr {rise:g} Ts {spacing:g} Tc {x:.3f} {y:.3f} Td"]
        out: list[Box] = []
        font = -1
        tj: list[str] = []
        for g in glyphs:
            if isinstance(g, str):
                glyph = self.writer.glyph(g)
                if glyph.font != font:
                    if tj:
                        ops.append(f"[{' '.join(tj)}] TJ")
                        tj = []
                    font = glyph.font
                    ops.append(f"/T{font} {size:g} Tf")
                tj.append(f"<{glyph.code:02X}>")
                adv = glyph.width * size / 1000
                out.append(self.box(x, y + rise, adv, size))
                x += adv + spacing
            else:
                tj.append(f"{g:g}")
                x -= g * size / 1000
        if tj:
            ops.append(f"[{' '.join(tj)}] TJ")
        ops.append("ET")
        self.ops.append(" ".join(ops).encode())
        return out

    def text(self, x: float, y: float, size: float, s: str, *, rise: float = 0.0,
             mode: int = 0, gray: float = 0.0, spacing: float = 0.0) -> list[Box]:
        """Draw `s` one glyph per character, left to right; return the boxes."""
        return self.draw(x, y, size, list(s), rise=rise, mode=mode, gray=gray, spacing=spacing)

    def advance(self, s: str | Sequence[str], size: float) -> float:
        """Return the advance of `s` (characters or glyphs) at `size`."""
        return sum(self.writer.glyph(g).width for g in s) * size / 1000

    def rect(self, x: float, y: float, w: float, h: float, gray: float = 0.0,
             stroke: bool = False) -> None:
        """Fill (or stroke) a rectangle given in PDF space."""
        op, colour = ("S", "G") if stroke else ("f", "g")
        self.ops.append(f"q {gray:g} {colour} {x:.3f} {y:.3f} {w:.3f} {h:.3f} re {op} Q".encode())

    def line(self, x0: float, y0: float, x1: float, y1: float, width: float = 0.8) -> None:
        """Stroke a straight line given in PDF space."""
        self.ops.append(f"q {width:g} w {x0:.3f} {y0:.3f} m {x1:.3f} {y1:.3f} l S Q".encode())

    def image(self, pixels: np.ndarray, x: float, y: float, w: float, h: float) -> None:
        """Draw a greyscale image (uint8 rows, top to bottom) over (x, y, w, h) in PDF space."""
        rows, cols = pixels.shape
        self.images.append((cols, rows, pixels.astype(np.uint8).tobytes()))
        self.ops.append(f"q {w:.3f} 0 0 {h:.3f} {x:.3f} {y:.3f} cm /Im{len(self.images)} Do Q"
                        .encode())

    def add_field(self, f: Field) -> None:
        """Add a form field with its widget on this page."""
        self.fields.append(f)


class PdfWriter:
    """Collects pages and the glyphs of its fonts, made as they are first drawn."""

    def __init__(self) -> None:
        self.pages: list[Page] = []
        self._glyphs: dict[str, Glyph] = {}

    def page(self, width: float = 612.0, height: float = 792.0, rotate: int = 0) -> Page:
        """Start a page and return it."""
        p = Page(self, width, height, rotate)
        self.pages.append(p)
        return p

    def glyph(self, text: str) -> Glyph:
        """Return the glyph that stands for `text` (one or more characters)."""
        g = self._glyphs.get(text)
        if g is None:
            n = len(self._glyphs)
            width = (WIDE_WIDTH if _wide(text) else SPACE_WIDTH if text == " " else
                     MARK_WIDTH if unicodedata.combining(text[0]) else LATIN_WIDTH)
            g = self._glyphs[text] = Glyph(n // PER_FONT, n % PER_FONT + 1, text, width)
        return g

    def tobytes(self) -> bytes:
        """Return the PDF file."""
        objs: list[bytes] = []

        def put(body: bytes) -> int:
            objs.append(body)
            return len(objs)

        catalog, pages_ref = put(b""), put(b"")
        fonts = self._fonts(put)
        helv = put(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
        font_res = " ".join(f"/T{k} {ref} 0 R" for k, ref in enumerate(fonts))
        kids: list[int] = []
        widgets: list[int] = []
        for p in self.pages:
            xobjects = [f"/Im{k} {put(_stream(f'/Type /XObject /Subtype /Image /Width {c} /Height {r} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode', zlib.compress(data)))} 0 R"
                        for k, (c, r, data) in enumerate(p.images, 1)]
            content = put(_stream("", b"\n".join(p.ops)))
            ref = put(b"")
            annots = [self._widget(put, f, ref) for f in p.fields]
            widgets.extend(annots)
            res = f"<< /Font << {font_res} >>" + (f" /XObject << {' '.join(xobjects)} >>" if xobjects else "") + " >>"
            extra = f" /Rotate {p.rotate}" if p.rotate else ""
            if annots:
                extra += " /Annots [" + " ".join(f"{a} 0 R" for a in annots) + "]"
            objs[ref - 1] = (f"<< /Type /Page /Parent {pages_ref} 0 R /MediaBox [0 0 {p.width:g} "
                             f"{p.height:g}] /Contents {content} 0 R{extra} /Resources {res} >>").encode()
            kids.append(ref)
        objs[pages_ref - 1] = (f"<< /Type /Pages /Count {len(kids)} /Kids ["
                               + " ".join(f"{k} 0 R" for k in kids) + "] >>").encode()
        form = ""
        if widgets:
            form = (f" /AcroForm << /Fields [{' '.join(f'{a} 0 R' for a in widgets)}]"
                    f" /DA (/Helv 10 Tf 0 g) /DR << /Font << /Helv {helv} 0 R >> >> >>")
        objs[catalog - 1] = f"<< /Type /Catalog /Pages {pages_ref} 0 R{form} >>".encode()
        out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for i, body in enumerate(objs, 1):
            offsets.append(len(out))
            out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
        xref = len(out)
        out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
        out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
        out += (f"trailer\n<< /Size {len(objs) + 1} /Root {catalog} 0 R >>\nstartxref\n{xref}\n"
                "%%EOF\n").encode()
        return bytes(out)

    def _fonts(self, put: Put) -> list[int]:
        """Write the Type3 fonts (glyph procedures, widths, ToUnicode); return their refs."""
        by_font: dict[int, list[Glyph]] = {}
        for g in self._glyphs.values():
            by_font.setdefault(g.font, []).append(g)
        refs = []
        for k in range(max(by_font, default=-1) + 1):
            glyphs = by_font.get(k, [])
            procs = []
            for g in glyphs:
                shape = "" if g.text.isspace() else f" {g.width * 0.1:.0f} 0 {g.width * 0.8:.0f} 600 re f"
                procs.append(put(_stream("", f"{g.width} 0 0 {DESCENT} {g.width} {ASCENT} d1{shape}".encode())))
            pairs = "\n".join(f"<{g.code:02X}> <{g.text.encode('utf-16-be').hex().upper()}>" for g in glyphs)
            cmap = ("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
                    "/CMapName /Pincite-UCS def\n/CMapType 2 def\n1 begincodespacerange\n<00> <FF>\n"
                    f"endcodespacerange\n{len(glyphs)} beginbfchar\n{pairs}\nendbfchar\nendcmap\n"
                    "CMapName currentdict /CMap defineresource pop\nend\nend").encode()
            to_unicode = put(_stream("", cmap))
            last = len(glyphs)
            widths = " ".join(str(g.width) for g in glyphs)
            names = " ".join(f"/g{g.code}" for g in glyphs)
            char_procs = " ".join(f"/g{g.code} {r} 0 R" for g, r in zip(glyphs, procs, strict=True))
            refs.append(put((f"<< /Type /Font /Subtype /Type3 /FontBBox [0 {DESCENT} 1000 {ASCENT}] "
                             f"/FontMatrix [0.001 0 0 0.001 0 0] /CharProcs << {char_procs} >> "
                             f"/Encoding << /Type /Encoding /Differences [1 {names}] >> /FirstChar 1 "
                             f"/LastChar {max(last, 1)} /Widths [{widths or '0'}] /ToUnicode "
                             f"{to_unicode} 0 R /Resources << >> >>").encode()))
        return refs

    def _widget(self, put: Put, f: Field, page_ref: int) -> int:
        """Write a field with its widget annotation; return its ref."""
        x0, y0, x1, y1 = f.rect
        common = (f"/Type /Annot /Subtype /Widget /Rect [{x0:g} {y0:g} {x1:g} {y1:g}] "
                  f"/P {page_ref} 0 R /F 4 /T ").encode() + pdf_string(f.name)
        if f.kind == "text":
            body = common + b" /FT /Tx /DA (/Helv 10 Tf 0 g) /V " + pdf_string(f.value)
        elif f.kind == "check":
            state = b"/Yes" if f.value == "Yes" else b"/Off"
            body = common + b" /FT /Btn /V " + state + b" /AS " + state
        else:
            opts = b" ".join(pdf_string(o) for o in f.options)
            body = (common + b" /FT /Ch /Ff 131072 /DA (/Helv 10 Tf 0 g) /Opt [" + opts
                    + b"] /V " + pdf_string(f.value))
        return put(b"<< " + body + b" >>")
