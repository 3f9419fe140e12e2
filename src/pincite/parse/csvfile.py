"""CSV → text layer: one table.

Decoding is per line, so a file that mixes encodings loses nothing: a BOM decides for the
whole file (UTF-8, UTF-16, UTF-32); otherwise each line is read as UTF-8 and, where that
fails, as cp1252 (latin-1 for the five bytes cp1252 leaves undefined). NULs are removed.
The delimiter is sniffed among `,` `;` tab and `|`: the one that splits the first lines
into the most consistent number (> 1) of fields wins, ties going to that order.

Ragged rows are padded with empty cells. Header rows and the row-label column are
detected (`parse.tables`); cells get header-path locators (version 2). Bounds: `max_sheet_rows` rows, `max_sheet_cols`
columns and `max_table_cells` cells; what lies past them is dropped and the layer flagged
`truncated`.

Flags: `invalid_utf8` (a line was not UTF-8 and was decoded as cp1252/latin-1),
`hidden_text` (bidi controls or Unicode tag characters in a cell), `truncated`.
"""

from __future__ import annotations

import csv
import io
import sys
from collections import Counter

from ..errors import ParseFailure
from ..limits import Limits
from ..model import TextLayer
from .decoding import bom_encoding
from .hidden_chars import HIDDEN_CHARS_RE
from .layout import LayerBuilder

PARSER = "csv"
VERSION = "2"

DELIMITERS = (",", ";", "\t", "|")
_SNIFF_LINES = 50


def _utf16_without_bom(data: bytes) -> str | None:
    """Return the UTF-16 encoding of BOM-less `data` when its NULs say so."""
    sample = data[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) // 4:
        return None
    even = sample[0::2].count(0)
    odd = sample[1::2].count(0)
    if odd > 3 * max(even, 1):
        return "utf-16-le"
    if even > 3 * max(odd, 1):
        return "utf-16-be"
    return None


def decode_lines(data: bytes) -> tuple[str, set[str]]:
    """Return the text of `data` (line ends normalised, NULs removed) and its flags."""
    flags: set[str] = set()
    enc, skip = bom_encoding(data)
    if enc is None:
        enc = _utf16_without_bom(data)
    if enc is not None and enc != "utf-8":
        text = data[skip:].decode(enc, errors="replace")
        if "\ufffd" in text:
            flags.add("invalid_utf8")
    else:
        body = data[skip:].replace(b"\x00", b"")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            flags.add("invalid_utf8")
            parts = []
            for line in body.splitlines(keepends=True):
                try:
                    parts.append(line.decode("utf-8"))
                except UnicodeDecodeError:
                    try:
                        parts.append(line.decode("cp1252"))
                    except UnicodeDecodeError:
                        parts.append(line.decode("latin-1"))
            text = "".join(parts)
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    return text, flags


def sniff_delimiter(text: str) -> str:
    """Return the delimiter that splits the first lines most consistently."""
    sample_lines = [ln for ln in text.split("\n", _SNIFF_LINES * 4)[: _SNIFF_LINES * 4]
                    if ln.strip()][:_SNIFF_LINES]
    sample = "\n".join(sample_lines)
    best, best_key = ",", (0, 0)
    for d in DELIMITERS:
        try:
            counts = [len(r) for r in csv.reader(io.StringIO(sample), delimiter=d) if r]
        except csv.Error:
            continue
        if not counts:
            continue
        mode, freq = Counter(counts).most_common(1)[0]
        if mode < 2:
            continue
        key = (freq, mode)
        if key > best_key:
            best, best_key = d, key
    return best


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None) -> TextLayer:
    """Return the text layer of a CSV file: one table."""
    del password
    limits = limits or Limits()
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"{len(data)} bytes exceed the limit of {limits.max_bytes}")
    text, flags = decode_lines(data)
    if not text.strip():
        raise ParseFailure("empty", "the file holds no text")
    if len(text) > limits.max_text_chars:
        raise ParseFailure(
            "over_limit",
            f"text of {len(text)} characters exceeds the limit of {limits.max_text_chars}",
        )
    delim = sniff_delimiter(text)
    rows: list[list[str]] = []
    width = 0
    truncated = False
    old_limit = csv.field_size_limit()
    csv.field_size_limit(max(old_limit, min(limits.max_text_chars, sys.maxsize)))
    try:
        for row in csv.reader(io.StringIO(text), delimiter=delim):
            if not any(c.strip() for c in row):
                continue
            if len(row) > limits.max_sheet_cols:
                row = row[: limits.max_sheet_cols]
                truncated = True
            if len(rows) >= limits.max_sheet_rows:
                truncated = True
                break
            new_width = max(width, len(row))
            if (len(rows) + 1) * new_width > limits.max_table_cells:
                # a late wide row may not widen the padded table past the bound
                row, new_width = row[:width], width
                truncated = True
                if (len(rows) + 1) * new_width > limits.max_table_cells or not width:
                    break
            width = new_width
            rows.append(row)
    except csv.Error as exc:
        raise ParseFailure("malformed", f"unreadable CSV: {exc}") from exc
    finally:
        csv.field_size_limit(old_limit)
    for r in rows:
        if len(r) < width:
            r.extend([""] * (width - len(r)))
    b = LayerBuilder(PARSER, VERSION)
    for f in flags:
        b.flag(f)
    tflags: list[str] = []
    if any(HIDDEN_CHARS_RE.search(c) for r in rows for c in r):
        tflags.append("hidden_text")
    if truncated:
        tflags.append("truncated")
    b.table(rows, flags=tuple(tflags))
    layer = b.build()
    if not layer.text.strip():
        raise ParseFailure("empty", "the file holds no cell text")
    return layer
