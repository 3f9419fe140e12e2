"""More hidden carriers for INJECTION: the ways of keeping text from a reader's sight that
`builders` does not write (issue 25).

HTML: a paragraph moved off the screen (`position:absolute; left:-9999px`), clipped away
(`clip-path: inset(100%)`), all but transparent (`opacity:0.001`), white in the space
syntax (`color: rgb(255 255 255)`), black on the black its parent paints, and moved off
the screen by a rule of the page's own `<style>` sheet. PDF: a line under an opaque white
box drawn after it, a line outside its clip path, a line in an optional-content group the
document switches off. Each carrier is a style number from `VARIANT_BASE` up; `render`
writes those and hands every other spec to `builders.render`, so INJECTION registers them
beside its own carriers (`VARIANT_CARRIERS`) and renders every spec through this module.
"""

from __future__ import annotations

import html as html_lib
import textwrap

from . import builders
from .builders import Spec

VARIANT_BASE = 100
HTML_VARIANTS = {  # style → (carrier, what goes in the page's head, the hidden paragraph's tag)
    100: ("html off-screen (left:-9999px)", "", '<p style="position:absolute; left:-9999px">'),
    101: ("html clip-path: inset(100%)", "", '<p style="clip-path: inset(100%)">'),
    102: ("html opacity:0.001", "", '<p style="opacity:0.001">'),
    103: ("html color: rgb(255 255 255)", "", '<p style="color: rgb(255 255 255)">'),
    104: ("html black on black", "", '<div style="background-color:#000"><p style="color:rgb(0 0 0)">'),
    105: ("html <style> rule off-screen", "<style>.note{position:absolute;top:-10000px}</style>",
          '<p class="note">'),
}
PDF_VARIANTS = {  # style → carrier
    110: "pdf text under an opaque box",
    111: "pdf clipped text",
    112: "pdf layer switched off",
}
VARIANT_CARRIERS: dict[str, tuple[str, int | None]] = {
    **{name: ("html", style) for style, (name, _head, _tag) in HTML_VARIANTS.items()},
    **{name: ("pdf", style) for style, name in PDF_VARIANTS.items()},
}


def render(spec: Spec, kind: str) -> bytes:
    """Return the bytes of `spec` as `kind`: a carrier of this module when its hidden style is
    one, else what `builders.render` writes."""
    if spec.hidden_style in HTML_VARIANTS and kind == "html":
        return _html(spec)
    if spec.hidden_style in PDF_VARIANTS and kind == "pdf":
        return _pdf(spec)
    return builders.render(spec, kind)


def _html(spec: Spec) -> bytes:
    e = html_lib.escape
    _name, head, tag = HTML_VARIANTS[spec.hidden_style]
    close = "".join(f"</{t.split()[0]}>" for t in reversed(tag[1:].split("<")))
    shown = [f"<p>{e(p)}</p>" for p in spec.paragraphs]
    hidden = [f"{tag}{e(h)}{close}" for h in spec.hidden]
    body = [f"<h1>{e(spec.title)}</h1>", *(hidden + shown if spec.hidden_first else shown + hidden)]
    return (f'<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>{e(spec.meta)}</title>'
            f"{head}</head><body>\n" + "\n".join(body) + "\n</body></html>\n").encode("utf-8")


def _text(s: str) -> bytes:
    raw = s.encode("cp1252", errors="replace")
    return raw.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def _pdf(spec: Spec) -> bytes:
    """One page written by hand: the title, then the lines, hidden ones as the style says."""
    how = spec.hidden_style
    shown = [(w, False) for p in spec.paragraphs
             for w in [*textwrap.wrap(p, 90, break_on_hyphens=False), ""]]
    hidden = [(w, True) for h in spec.hidden for w in textwrap.wrap(h, 90, break_on_hyphens=False)]
    lines = [(spec.title, False), *(hidden + [("", False)] + shown if spec.hidden_first
                                    else shown + hidden)]
    ops, y = [], 740
    for text, secret in lines[:40]:
        if text:
            show = b"BT /F1 11 Tf 72 %d Td (" % y + _text(text) + b") Tj ET"
            if not secret:
                ops.append(show)
            elif how == 110:  # the line, then a white box over it
                ops.append(show + b"\nq 1 1 1 rg 66 %d 540 19 re f Q" % (y - 5))
            elif how == 111:  # a one-point clip far from the line
                ops.append(b"q 0 0 1 1 re W n " + show + b" Q")
            else:  # marked as content of the layer the document switches off
                ops.append(b"/OC /Off BDC " + show + b" EMC")
        y -= 18
    stream = b"\n".join(ops)
    layers = how == 112
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R"
        + (b" /OCProperties << /OCGs [5 0 R] /D << /OFF [5 0 R] >> >>" if layers else b"") + b" >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >>"
        + (b" /Properties << /Off 5 0 R >>" if layers else b"") + b" >> /Contents 6 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        b"<< /Type /OCG /Name (Reviewer notes) >>",
        b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream",
        b"<< /Title (" + _text(spec.meta) + b") >>",
    ]
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += (b"trailer\n<< /Size %d /Root 1 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n"
            % (len(objs) + 1, len(objs), xref))
    return bytes(out)
