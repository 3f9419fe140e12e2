"""Plain text and Markdown → text layer.

Plain text: paragraphs split on blank lines; a line that opens with a clause number or a
list marker starts a new block; the other lines of a block are joined with a space when
they look like prose wrapped at a fixed width (the line reaches 60% of the block's longest
line, which is at least 40 characters), otherwise the line break is kept.

Markdown (`markdown=True`): ATX and setext headings with their level, `-`/`*`/`+` and
`1.`/`1)` list items (ordered items keep their number), pipe tables (the row above the
delimiter row is the header row), fenced and indented
code blocks as paragraphs; inline emphasis, code ticks and link syntax are dropped
(`[text](url)` → `text`).

Version 2: header-path table-cell locators (`parse.tables.grid_layer`).

Flags: `invalid_utf8` (bytes that are not UTF-8, replaced by U+FFFD), `hidden_text`
(bidi controls or Unicode tag characters, or an HTML comment in Markdown — text a reader
does not see), `external_ref` (a Markdown image with a remote URL: a renderer would fetch
it).
"""

from __future__ import annotations

import re
import textwrap

from ..errors import ParseFailure
from ..limits import Limits
from ..model import TextLayer
from .decoding import decode_text
from .hidden_chars import HIDDEN_CHARS_RE, hidden_char_flags
from .layout import LayerBuilder, clause_mark

PARSER = "text"
MARKDOWN_PARSER = "markdown"
VERSION = "2"


def _check_size(text: str, limits: Limits) -> None:
    if len(text) > limits.max_text_chars:
        raise ParseFailure(
            "over_limit",
            f"text of {len(text)} characters exceeds the limit of {limits.max_text_chars}",
        )


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None,
          markdown: bool = False) -> TextLayer:
    """Return the text layer of plain text (or Markdown when `markdown`)."""
    del password  # text has no protection
    limits = limits or Limits()
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"{len(data)} bytes exceed the limit of {limits.max_bytes}")
    text, flags = decode_text(data)
    _check_size(text, limits)
    if not text.strip():
        raise ParseFailure("empty", "the file holds no text")
    b = LayerBuilder(MARKDOWN_PARSER if markdown else PARSER, VERSION)
    for f in flags:
        b.flag(f)
    if markdown:
        _markdown(text, b)
    else:
        _plain(text, b)
    layer = b.build()
    if not layer.text.strip():
        raise ParseFailure("empty", "the file holds no text")
    return layer


# ---- plain text -------------------------------------------------------------------

_BULLET_RE = re.compile(r"^\s*(?:[-*+•·‣◦▪–]|\d{1,3}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\))\s+\S")


def _starts_block(line: str) -> bool:
    return bool(_BULLET_RE.match(line)) or clause_mark(line) is not None


def _join_wrapped(lines: list[str]) -> str:
    """Join the lines of one block: a space where the text was wrapped, else a newline."""
    lines = [ln.rstrip() for ln in lines]
    if len(lines) == 1:
        return lines[0].strip()
    widest = max(len(ln) for ln in lines)
    out = [lines[0]]
    for prev, ln in zip(lines, lines[1:], strict=False):
        wrapped = widest >= 40 and len(prev) >= 0.6 * widest
        out.append((" " if wrapped else "\n") + (ln.strip() if wrapped else ln))
    return "".join(out).strip()


def _plain(text: str, b: LayerBuilder) -> None:
    block: list[str] = []

    def flush() -> None:
        if block:
            joined = _join_wrapped(block)
            b.paragraph(joined, flags=hidden_char_flags(joined))
            block.clear()

    for line in text.split("\n"):
        if not line.strip():
            flush()
            continue
        if block and _starts_block(line):
            flush()
        block.append(line)
    flush()


# ---- markdown ---------------------------------------------------------------------

_ATX_RE = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
_SETEXT_RE = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_HR_RE = re.compile(r"^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$")
_FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ITEM_RE = re.compile(r"^(?P<indent>[ \t]*)(?P<marker>[-*+]|\d{1,9}[.)])(?:[ \t]+(?P<text>.*)|$)")
_QUOTE_RE = re.compile(r"^ {0,3}> ?")
_TABLE_DELIM_RE = re.compile(r"^\s*\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_IMAGE_RE = re.compile(r"!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+[\"'][^)]*[\"'])?\s*\)")
_LINK_RE = re.compile(r"(?<!!)\[([^\]]+)\]\(\s*<?[^)\s>]*>?(?:\s+[\"'][^)]*[\"'])?\s*\)")
_AUTOLINK_RE = re.compile(r"<((?:https?|ftp|mailto):[^>\s]+)>")
_STRONG_RE = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EM_RE = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?![\w*])|(?<![\w_])_(?=\S)([^_\n]+?)(?<=\S)_(?![\w_])")
_CODE_RE = re.compile(r"(`+)(.+?)\1")
_REMOTE_RE = re.compile(r"^(?:https?:|ftp:|//)", re.IGNORECASE)


class _Inline:
    """Strips inline Markdown syntax and records what it saw."""

    def __init__(self) -> None:
        self.external = False

    def __call__(self, s: str) -> str:
        def image(m: re.Match[str]) -> str:
            if _REMOTE_RE.match(m.group(2)):
                self.external = True
            return m.group(1)

        s = _IMAGE_RE.sub(image, s)
        s = _LINK_RE.sub(r"\1", s)
        s = _AUTOLINK_RE.sub(r"\1", s)
        s = _CODE_RE.sub(lambda m: m.group(2).strip() or m.group(2), s)
        s = _STRONG_RE.sub(r"\2", s)
        s = _EM_RE.sub(lambda m: m.group(1) or m.group(2) or "", s)
        return s


def _md_flags(raw: str) -> tuple[str, ...]:
    if HIDDEN_CHARS_RE.search(raw) or "<!--" in raw:
        return ("hidden_text",)
    return ()


def _split_row(line: str) -> list[str]:
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    cells: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\" and i + 1 < len(s) and s[i + 1] == "|":
            cur.append("|")
            i += 2
            continue
        if ch == "|":
            cells.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
        i += 1
    cells.append("".join(cur).strip())
    return cells


def _markdown(text: str, b: LayerBuilder) -> None:  # noqa: C901 - one linear scanner
    inline = _Inline()
    lines = text.split("\n")
    n = len(lines)
    i = 0
    para: list[str] = []
    item: list[str] | None = None

    def flush_para() -> None:
        if para:
            raw = " ".join(ln.strip() for ln in para)
            b.paragraph(inline(raw), flags=_md_flags(raw))
            para.clear()

    def flush_item() -> None:
        nonlocal item
        if item:
            raw = " ".join(ln.strip() for ln in item)
            b.paragraph(inline(raw), kind="list_item", flags=_md_flags(raw))
        item = None

    def flush() -> None:
        flush_para()
        flush_item()

    while i < n:
        line = lines[i]
        if not line.strip():
            flush()
            i += 1
            continue
        fence = _FENCE_RE.match(line)
        if fence:
            flush()
            mark = fence.group(1)
            body: list[str] = []
            i += 1
            while i < n and not lines[i].lstrip().startswith(mark):
                body.append(lines[i])
                i += 1
            i += 1  # the closing fence (or the end)
            code = textwrap.dedent("\n".join(body)).strip()
            b.paragraph(code, flags=_md_flags(code))
            continue
        atx = _ATX_RE.match(line)
        if atx:
            flush()
            raw = atx.group(2) or ""
            b.heading(inline(raw), len(atx.group(1)), flags=_md_flags(raw))
            i += 1
            continue
        if para and item is None and _SETEXT_RE.match(line):
            raw = " ".join(ln.strip() for ln in para)
            para.clear()
            b.heading(inline(raw), 1 if line.strip().startswith("=") else 2,
                      flags=_md_flags(raw))
            i += 1
            continue
        if _HR_RE.match(line):
            flush()
            i += 1
            continue
        if ("|" in line and i + 1 < n and _TABLE_DELIM_RE.match(lines[i + 1])
                and "|" in lines[i + 1] and not para):
            flush()
            rows = [_split_row(line)]
            i += 2
            while i < n and lines[i].strip() and "|" in lines[i]:
                rows.append(_split_row(lines[i]))
                i += 1
            raw = "\n".join("\t".join(r) for r in rows)
            width = max(len(r) for r in rows)
            cells = [[inline(c) for c in r] + [""] * (width - len(r)) for r in rows]
            b.table(cells, flags=_md_flags(raw), header_cells={(0, c) for c in range(width)})
            continue
        m = _ITEM_RE.match(line)
        if m and (m.group("text") or "").strip():
            flush()
            marker = m.group("marker")
            body_text = m.group("text").strip()
            item = [f"{marker} {body_text}" if marker[0].isdigit() else body_text]
            i += 1
            continue
        if item is not None and (line[:1] in (" ", "\t")):
            item.append(line)  # a continuation line of the list item
            i += 1
            continue
        if not para and item is None and (line.startswith("    ") or line.startswith("\t")):
            body = []
            while i < n and (lines[i].startswith("    ") or lines[i].startswith("\t")
                             or not lines[i].strip()):
                body.append(lines[i][4:] if lines[i].startswith("    ") else lines[i][1:])
                i += 1
            code = textwrap.dedent("\n".join(body)).strip()
            b.paragraph(code, flags=_md_flags(code))
            continue
        q = _QUOTE_RE.match(line)
        if q:
            line = line[q.end():]
            if not line.strip():
                flush()
                i += 1
                continue
        flush_item()
        if para and clause_mark(line) is not None:
            flush_para()  # a numbered clause starts its own block
        para.append(line)
        i += 1
    flush()
    if inline.external:
        b.flag("external_ref")
