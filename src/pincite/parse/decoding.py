"""Bytes → text for the text-based parsers (plain text, Markdown, CSV, HTML): byte-order
marks, decoding with U+FFFD for invalid bytes, and control characters cleaned away."""

from __future__ import annotations

import codecs
import re

# C0 controls but tab and line feed (carriage returns are gone by then), and DEL
CONTROL_RE = re.compile(r"[\x01-\x08\x0b-\x1f\x7f]")

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def bom_encoding(data: bytes) -> tuple[str | None, int]:
    """Return (encoding, BOM length) of a byte-order mark at the start of `data`."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            return enc, len(bom)
    return None, 0


def decode_text(data: bytes, default: str = "utf-8") -> tuple[str, set[str]]:
    """Return `data` decoded (BOM first, else `default`, invalid bytes → U+FFFD), with
    NULs removed, other control characters (but tab) turned into spaces and line ends
    normalised to `\\n`, plus the flags it earned (`invalid_utf8`)."""
    flags: set[str] = set()
    enc, skip = bom_encoding(data)
    body = data[skip:]
    enc = enc or default
    try:
        text = body.decode(enc)
    except (UnicodeDecodeError, LookupError):
        try:
            text = body.decode(enc, errors="replace")
        except LookupError:
            text = body.decode("utf-8", errors="replace")
        flags.add("invalid_utf8")
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    return CONTROL_RE.sub(" ", text), flags
