"""Inspection: what the bytes are, decided before any parser sees them.

The media kind comes from the bytes, never from the name. The name's extension (or a
`declared` kind) is only checked against what the bytes are: a contradiction between
families (`pdf`, `docx`, `xlsx`, `html`, text) is quarantined as `type_mismatch`, and so
are polyglots — bytes that read as two formats (a PDF with a ZIP appended, a ZIP behind a
`%PDF` header, HTML that is also a PDF). Within the text family (`.txt`, `.md`,
`.markdown`, `.csv`, `.tsv`) the extension breaks the tie between text, Markdown and CSV.

Order of checks: size (`over_limit`), emptiness (`empty`), polyglots and sniffing,
unsupported formats (`unsupported_type`, also for an executable named `.pdf`), the
family contradiction (`type_mismatch`), then the format's own checks — ZIP structure and
OOXML parts, OLE2 encryption (both `pincite.containers`, whose refusals are
`ParseFailure`s too), PDF active content.

Decisions:
- Text that is not valid UTF-8 is accepted when it reads as cp1252 text (fewer than 5%
  control characters): it gets the flag `invalid_utf8`, the same flag the text and CSV
  parsers set when they decode it (U+FFFD / per-line cp1252). Bytes that read as neither
  are binary and quarantined as `unsupported_type`. UTF-16/32 text with a BOM, and UTF-16
  without one (told by its NULs), is text.
- Generic XML (not XHTML) is `unsupported_type`. A file that opens with a few block tags
  (`<div>`) but has Markdown structure, or is named `.md`/`.txt`, is Markdown/text:
  Markdown allows inline HTML. A full HTML document (doctype, `<html>`, `<head>`,
  `<body>`) named `.txt` is a `type_mismatch`; plain text named `.html` is HTML.
- Flags: `active_content` (PDF JavaScript/launch actions/embedded files/forms; OOXML
  macros or ActiveX — recorded, never run), `external_ref` (external OOXML
  relationships, inert), `embedded_file`, `invalid_utf8`. `/Encrypt` in a PDF is left to
  the PDF parser, which knows about passwords.
- PDF checks read the raw bytes only: names inside compressed object streams are not
  seen here; the PDF parser must not run actions either way.
"""

from __future__ import annotations

import codecs
import csv
import re
from dataclasses import dataclass

from ..errors import ParseFailure
from ..limits import Limits
from ..model import MEDIA_TYPES
from ..parse import containers
from ..parse.containers import ByteView
from .active_content import pdf_flags

__all__ = ["Inspection", "inspect"]

_FAMILY = {"pdf": "pdf", "docx": "docx", "xlsx": "xlsx", "html": "html",
           "markdown": "text", "text": "text", "csv": "text"}
_EXTENSIONS = {
    "pdf": "pdf",
    "docx": "docx", "docm": "docx", "dotx": "docx", "dotm": "docx",
    "xlsx": "xlsx", "xlsm": "xlsx", "xltx": "xlsx", "xltm": "xlsx",
    "html": "html", "htm": "html", "xhtml": "html",
    "txt": "text", "text": "text", "md": "markdown", "markdown": "markdown",
    "csv": "csv", "tsv": "csv",
}
_MAGIC = (
    (b"\x7fELF", "an ELF executable"),
    (b"\xca\xfe\xba\xbe", "a Mach-O or Java class file"),
    (b"\xfe\xed\xfa\xce", "a Mach-O executable"), (b"\xfe\xed\xfa\xcf", "a Mach-O executable"),
    (b"\xce\xfa\xed\xfe", "a Mach-O executable"), (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (b"\x00asm", "a WebAssembly module"),
    (b"\x1f\x8b", "gzip-compressed data"), (b"\xfd7zXZ\x00", "xz-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"), (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"), (b"BZh", "bzip2-compressed data"),
    (b"\x89PNG\r\n\x1a\n", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"),
    (b"GIF87a", "a GIF image"), (b"GIF89a", "a GIF image"),
    (b"II*\x00", "a TIFF image"), (b"MM\x00*", "a TIFF image"),
    (b"RIFF", "a RIFF media file"), (b"OggS", "an Ogg media file"),
    (b"ID3", "an MP3 file"), (b"fLaC", "a FLAC file"),
    (b"SQLite format 3\x00", "an SQLite database"),
    (b"%!PS", "a PostScript file"), (b"{\\rtf", "an RTF document (save it as DOCX or PDF)"),
)
_WS = b" \t\r\n\x0b\x0c\x00"
_PDF_BODY_RE = re.compile(rb"\d+\s+\d+\s+obj\b")
_PDF_HEADER_RE = re.compile(rb"%PDF-\d\.\d")
_HTML_IN_PDF_RE = re.compile(rb"<(?:html|script|body|iframe)[\s>/]", re.I)
_HTML_STRONG_RE = re.compile(rb"<(?:!doctype\s+html|html|head|body)(?=[\s>/])", re.I)
_HTML_WEAK_RE = re.compile(
    rb"<(?:script|iframe|h[1-6]|div|font|table|a|style|title|b|br|p|meta|link|section|"
    rb"article|main|header|footer|nav|ul|ol|form|span|pre|center|base|noscript)(?=[\s>/])",
    re.I,
)
_CONTROL_RE = re.compile("[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f\ufffd]")
_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"),
         (codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
         (codecs.BOM_UTF16_BE, "utf-16-be"))
_SAMPLE = 64 * 1024
_HEAD = 8192  # the bytes every sniffing step looks at (the rest is read in chunks)
_CHUNK = 1 << 20
_MAX_CONTROL = 0.05

_MD_HEADING_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+\S", re.M)
_MD_FENCE_RE = re.compile(r"^ {0,3}(?:```|~~~)", re.M)
_MD_TABLE_SEP_RE = re.compile(r"^ {0,3}\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$",
                              re.M)
_MD_LIST_RE = re.compile(r"^ {0,3}(?:[-*+]|\d{1,9}[.)])[ \t]+\S", re.M)
_MD_SETEXT_RE = re.compile(r"^\S.*\n {0,3}(?:=+|-{2,})[ \t]*$", re.M)
_MD_LINK_RE = re.compile(r"\[[^\]\n]+\]\([^)\s]+\)")
_CSV_DELIMITERS = (",", ";", "\t", "|")


@dataclass(frozen=True, slots=True)
class Inspection:
    """What inspection decided: the media kind, its media type and the flags found."""

    kind: str
    media_type: str
    flags: tuple[str, ...] = ()


def inspect(data: ByteView, *, name: str | None, limits: Limits,
            declared: str | None = None) -> Inspection:
    """Return what `data` is; raise `ParseFailure` when it must not reach a parser.

    `data` is `bytes`, or a file read on demand (`FileView`): every check reads the head,
    the tail, or the whole in bounded chunks, so a large file is never held whole.
    `name` (a file name) and `declared` (a media kind or media type) are claims checked
    against the bytes; they never decide the format on their own.
    """
    return _inspect(data, name, limits, declared)


def _inspect(data: ByteView, name: str | None, limits: Limits,
             declared: str | None) -> Inspection:
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"the file is {len(data)} bytes, over the "
                           f"{limits.max_bytes}-byte limit")
    head = data[:_HEAD]
    if _blank(data, len(codecs.BOM_UTF8) if head.startswith(codecs.BOM_UTF8) else 0):
        raise ParseFailure("empty", "the file is empty or holds only whitespace")
    claims = _claims(name, declared)
    if head.startswith(containers.OLE_MAGIC) and head.find(b"%PDF-", 0, 1024) < 0:
        return _ole(data)
    loc = containers.locate(data)
    pdf = _pdf_view(data, head, loc)
    if pdf:
        return _finish("pdf", claims, pdf_flags(data))
    if loc is not None or head.startswith(containers.LOCAL_SIG):
        return _zip(data, loc, claims, limits)
    for magic, what in _MAGIC:
        if head.startswith(magic):
            raise ParseFailure("unsupported_type", f"the file is {what}, not a format "
                               "pincite reads (PDF, DOCX, XLSX, HTML, Markdown, text, CSV)")
    if head.startswith(b"MZ") and b"\x00" in head[:64]:
        raise ParseFailure("unsupported_type", "the file is a Windows executable")
    return _textual(data, head, claims)


def _blank(data: ByteView, start: int) -> bool:
    """Return True when every byte from `start` on is whitespace or NUL (read in chunks)."""
    for pos in range(start, len(data), _CHUNK):
        if data[pos:pos + _CHUNK].strip(_WS):
            return False
    return True


def _claims(name: str | None, declared: str | None) -> list[tuple[str, str]]:
    """Return (kind, what claimed it) for the extension and the declared kind."""
    out = []
    base = (name or "").replace("\\", "/").rsplit("/", 1)[-1]
    if "." in base.strip("."):
        ext = base.rsplit(".", 1)[1].lower()
        if ext in _EXTENSIONS:
            out.append((_EXTENSIONS[ext], f"the name {base!r}"))
    if declared:
        kind = declared if declared in MEDIA_TYPES else next(
            (k for k, v in MEDIA_TYPES.items() if v == declared.split(";")[0].strip().lower()),
            None)
        if kind is not None:
            out.append((kind, f"the declared type {declared!r}"))
    return out


def _finish(kind: str, claims: list[tuple[str, str]], flags: tuple[str, ...] = (),
            *, check: bool = True) -> Inspection:
    if check:
        for claimed, who in claims:
            if _FAMILY[claimed] != _FAMILY[kind]:
                raise ParseFailure("type_mismatch", f"{who} says {claimed} but the bytes are "
                                   f"{kind}; rename the file or check where it came from")
    return Inspection(kind, MEDIA_TYPES[kind], tuple(sorted(set(flags))))


# --- PDF --------------------------------------------------------------------------------

def _pdf_view(data: ByteView, head: bytes, loc: containers.ZipLocation | None) -> bool:
    """Return True when the bytes are a PDF; raise for a PDF that is also something else."""
    at = head.find(b"%PDF-", 0, 1024)
    if at < 0:
        return False
    prefix = head[:at]
    if prefix.strip(_WS) not in (b"", codecs.BOM_UTF8) and not (
            _PDF_HEADER_RE.match(head, at) and (b"startxref" in data or b"%%EOF" in data)):
        return False  # "%PDF-" mentioned in text, not a PDF
    other = None
    if loc is not None:
        other = "a ZIP archive"
    elif head.startswith(containers.OLE_MAGIC):
        other = "an OLE2 compound file"
    elif at and (_HTML_STRONG_RE.search(prefix) or _HTML_WEAK_RE.search(prefix)):
        other = "HTML"
    elif _HTML_IN_PDF_RE.search(head, 0, 1024):
        other = "HTML"
    elif at and any(head.startswith(m) for m, _ in _MAGIC):
        other = next(w for m, w in _MAGIC if head.startswith(m))
    if other:
        raise ParseFailure("type_mismatch", f"the bytes are both a PDF and {other} (a polyglot "
                           "file); pincite reads files that are one format only")
    return True


# --- ZIP / OOXML --------------------------------------------------------------------------

def _zip(data: ByteView, loc: containers.ZipLocation | None, claims: list[tuple[str, str]],
         limits: Limits) -> Inspection:
    if loc is None:
        raise ParseFailure("malformed", "the ZIP archive has no end-of-directory record; it "
                           "is truncated or damaged")
    containers.check_bounds(data, loc)
    entries = containers.read_directory(data, loc, limits)
    names = {e.name for e in entries}
    kinds = [k for k, part in (("docx", "word/document.xml"), ("xlsx", "xl/workbook.xml"))
             if part in names]
    if len(kinds) == 2:
        raise ParseFailure("type_mismatch", "the archive holds both a Word document and an "
                           "Excel workbook")
    if not kinds:
        raise ParseFailure("unsupported_type", f"the file is {_zip_what(names)}, not a DOCX "
                           "or XLSX document")
    _finish(kinds[0], claims)
    flags = containers.scan_entries(data, entries, limits, loc.cd_start)
    return _finish(kinds[0], claims, flags, check=False)


def _zip_what(names: set[str]) -> str:
    if "ppt/presentation.xml" in names:
        return "a PowerPoint presentation"
    if "mimetype" in names and "content.xml" in names:
        return "an OpenDocument file (save it as DOCX or XLSX)"
    if "[Content_Types].xml" in names:
        return "an Office package of another kind"
    return "a ZIP archive"


# --- OLE2 ---------------------------------------------------------------------------------

def _ole(data: ByteView) -> Inspection:
    containers.check_ole(data)
    raise ParseFailure("unsupported_type", "the file is a legacy Office document (.doc/.xls) "
                       "or another OLE2 file; save it as DOCX or XLSX")


# --- HTML and text ----------------------------------------------------------------------

def _html_strength(head: bytes) -> int:
    """Return 2 for a full HTML document, 1 for a fragment opening with a tag, 0 otherwise;
    raise `unsupported_type` for XML that is not XHTML."""
    s = head[3:] if head.startswith(codecs.BOM_UTF8) else head
    s = s.lstrip(_WS)
    for _ in range(16):
        if s.startswith(b"<!--"):
            end = s.find(b"-->")
            if end < 0:
                return 0
            s = s[end + 3:].lstrip(_WS)
        elif s[:5].lower() == b"<?xml":
            end = s.find(b"?>")
            rest = s[end + 2:] if end >= 0 else b""
            if not re.search(rb"<(?:!doctype\s+html|html)[\s>/]", rest[:2048], re.I):
                raise ParseFailure("unsupported_type", "the file is XML, not a format pincite "
                                   "reads (PDF, DOCX, XLSX, HTML, Markdown, text, CSV)")
            s = rest.lstrip(_WS)
        else:
            break
    if _HTML_STRONG_RE.match(s):
        return 2
    return 1 if _HTML_WEAK_RE.match(s) else 0


def _decode(data: ByteView, head: bytes) -> tuple[str, bool]:
    """Return (a decoded sample, whether the whole file decodes strictly) for text bytes."""
    bom = next(((b, e) for b, e in _BOMS if head.startswith(b)), None)
    if bom is not None:
        start, enc = len(bom[0]), bom[1]
    else:
        start, enc = 0, _utf16_without_bom(head) or "utf-8"
    valid = _decodes(data, start, enc)
    n = _SAMPLE * (2 if enc.startswith("utf-16") else 4 if enc != "utf-8" else 1)
    first = data[start:start + n]
    sample = first.decode(enc, errors="replace")
    if not valid and enc == "utf-8":
        # Invalid UTF-8: judge it by whichever reading (UTF-8 or cp1252) is cleaner.
        cp = first.decode("cp1252", errors="replace")
        sample = min(sample, cp, key=lambda t: len(_CONTROL_RE.findall(t)))
    return sample, valid


def _decodes(data: ByteView, start: int, enc: str) -> bool:
    """Return True when `data[start:]` decodes strictly as `enc` (in chunks: bounded memory)."""
    dec = codecs.getincrementaldecoder(enc)("strict")
    try:
        for i in range(start, len(data), _CHUNK):
            dec.decode(data[i:i + _CHUNK])
        dec.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


def _utf16_without_bom(data: bytes) -> str | None:
    sample = data[:4096]
    if len(sample) < 4 or sample.count(0) < len(sample) // 4:
        return None
    even, odd = sample[0::2].count(0), sample[1::2].count(0)
    if odd > 3 * max(even, 1) and odd > len(sample) // 3:
        return "utf-16-le"
    if even > 3 * max(odd, 1) and even > len(sample) // 3:
        return "utf-16-be"
    return None


def _textual(data: ByteView, head: bytes, claims: list[tuple[str, str]]) -> Inspection:
    strength = _html_strength(head[:8192])
    sample, valid = _decode(data, head)
    if sample and len(_CONTROL_RE.findall(sample)) > _MAX_CONTROL * len(sample):
        if _PDF_BODY_RE.search(head, 0, 4096) and b"endobj" in data:
            raise ParseFailure("malformed", "the bytes look like a PDF body but lack the "
                               "'%PDF-' header; the file is damaged")
        raise ParseFailure("unsupported_type", "the file is binary data, not text in UTF-8 "
                           "or Windows-1252, nor a format pincite reads")
    flags = () if valid else ("invalid_utf8",)
    claimed = [k for k, _ in claims]
    text_claim = next((k for k in claimed if _FAMILY[k] == "text"), None)
    if strength == 2 or (strength == 1 and text_claim is None and not _is_markdown(sample)):
        return _finish("html", claims, flags)
    if "html" in claimed and text_claim is None:
        return _finish("html", claims, flags)
    if text_claim in ("markdown", "csv"):
        kind = text_claim
    elif text_claim == "text" and any(k in ("markdown", "csv") for k in claimed):
        kind = next(k for k in claimed if k in ("markdown", "csv"))
    else:
        kind = "markdown" if strength or _is_markdown(sample) else (
            "csv" if _is_csv(sample) else "text")
    return _finish(kind, claims, flags)


def _is_markdown(text: str) -> bool:
    """Return True when the text carries Markdown structure."""
    if _MD_HEADING_RE.search(text) or _MD_TABLE_SEP_RE.search(text):
        return True
    if len(_MD_FENCE_RE.findall(text)) >= 2:
        return True
    signals = sum(bool(r.search(text)) for r in (_MD_LIST_RE, _MD_SETEXT_RE, _MD_LINK_RE))
    return signals >= 2


def _is_csv(text: str) -> bool:
    """Return True when the first lines split on one delimiter into a consistent number
    (≥ 2) of fields."""
    lines = text.splitlines()
    if len(text) >= _SAMPLE and len(lines) > 1:
        lines = lines[:-1]  # the sample may cut the last line
    lines = [ln for ln in lines[:50] if ln.strip()]
    if len(lines) < 2:
        return False
    for delim in _CSV_DELIMITERS:
        try:
            counts = [len(row) for row in csv.reader(lines, delimiter=delim)]
        except csv.Error:
            continue
        if len(counts) < 2:
            continue
        mode = max(set(counts), key=counts.count)
        agree = counts.count(mode) / len(counts)
        if mode >= 2 and (agree == 1.0 or (len(counts) >= 5 and agree >= 0.9)):
            if delim == "," and mode == 2 and len(counts) < 3:
                continue  # two lines of prose with one comma each
            return True
    return False
