"""HTML → text layer, with lxml and nothing fetched.

Decoding: a BOM, else a `<meta charset>` in the first 4 KiB (ISO-8859-1 and ASCII read as
windows-1252, as browsers do), else UTF-8; undecodable bytes become U+FFFD (flag
`invalid_utf8`). libxml2's HTML parser then runs with network access off, comments and
processing instructions removed; it never fetches a DTD, an image or a stylesheet.

Reading order: `script`, `style`, `template`, `noscript`, `head` and embedded objects are
dropped; every block element (`p`, `div`, `li`, `h1`-`h6`, `pre`, `blockquote`,
`section`, …) closes the text before it; `h1`-`h6` become headings of that level, `li`
list items (a `p` inside an `li` stays part of the list item; an `ol` item carries the
number a browser shows, `start`, `type` and `value` honoured, so `<ol><li>` clauses get
clause locators), `pre` keeps its line
breaks and relative indentation, `br` is a line break. A table becomes one table: rows from `thead`/`tbody`/
`tfoot`/`tr`, `colspan`/`rowspan` expanded into the grid with the text in the top-left
cell and empty strings in the covered ones, passed to the builder as spans (columns left
empty in every row are dropped there, so spans cannot widen the text); `th` cells, cells
with a `scope` and cells in `thead` are header cells; CSS indentation and leading
no-break spaces of a cell are its indentation; a nested table's text is flattened into
its cell; a `caption` is a paragraph before the table and the table's caption. Version 2:
header-path cell locators (`parse.tables.grid_layer`). Version 3: text hidden by a
`<style>` rule is flagged.

Flags: `hidden_text` (text under a `hidden` attribute, `aria-hidden="true"`, or CSS that
keeps it from a reader whatever the colours — `display:none`, `visibility:hidden`, tiny or
zero `font-size`, `opacity` under 0.1, moved off the screen, clipped away, a 1px box with
`overflow:hidden`: `inline_style.hiding` — in an inline style or a top-level rule of the
document's own `<style>` (`parse.stylesheet`); text whose colour a reader cannot tell from
the ground under it — white, in any syntax, on the white page, black on black, any equal
pair, nearly transparent — the colours carried down the tree from inline styles, `<font
color>`, `bgcolor` and the sheets' cascade; or text with bidi controls / tag characters;
the text is kept), `external_ref` (a remote `src`, `href` of
`link`, `data`, `poster`, `srcset`, `background`, CSS `url()`/`@import`, or a meta
refresh; never fetched), `truncated` (nesting deeper than `limits.max_html_depth`, 512 by
default: the deeper text is left out and everything after it kept; a span clamped to 1000
columns / the sheet limits, a table past `max_table_cells`), `invalid_utf8`.

Depth: libxml2 runs with its large-document option, so it reads 2048 levels (without it,
it stops at 256 and drops the rest of the document); a document nested deeper than that
cannot be read past that point and is refused with the quarantine reason `too_deep`.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import lxml.etree
import lxml.html

from ..errors import ParseFailure
from ..limits import Limits
from ..model import TextLayer
from .css_colors import BLACK, RGBA, WHITE, indistinct
from .decoding import decode_text
from .hidden_chars import HIDDEN_CHARS_RE
from .html_inputs import has_external_refs as _has_external_refs
from .html_inputs import sniff_encoding as _sniff_encoding
from .html_inputs import tag_of as _tag
from .inline_style import (
    FAINT,
    UNSET,
    Colour,
    hides,
    indent_points,
    inline,
    own_background,
    own_color,
)
from .layout import LayerBuilder
from .numerals import letters, roman
from .stylesheet import SheetStyles, sheet_styles

PARSER = "html"
VERSION = "3"

MAX_COLSPAN = 1000  # the HTML standard's own clamp
MAX_ROWSPAN = 65534

SKIP_TAGS = frozenset({
    "script", "style", "template", "noscript", "head", "title", "meta", "link", "base",
    "iframe", "frame", "frameset", "object", "embed", "applet", "canvas", "svg", "select",
    "datalist", "param", "source", "track", "audio", "video", "map",
})
BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "center", "dd", "details",
    "dialog", "dir", "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer",
    "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "html", "legend",
    "li", "listing", "main", "menu", "nav", "ol", "p", "plaintext", "pre", "section",
    "summary", "ul", "xmp", "caption", "option", "optgroup", "tr", "td", "th", "tbody",
    "thead", "tfoot",
})
HEADINGS = {f"h{n}": n for n in range(1, 7)}
PRE_TAGS = frozenset({"pre", "listing", "xmp", "plaintext", "textarea"})

_WS_RE = re.compile(r"[ \t\n\r\f\v]+")
@dataclass
class _Ctx:
    hidden: bool  # a reader does not see the text this element holds itself
    depth: int
    pre: bool
    kind: str  # "paragraph" | "list_item" | "heading"
    level: int
    veiled: bool = False  # out of sight whatever the colours, and all it holds with it
    color: RGBA | None = BLACK  # the text colour (None: unknown)
    ground: RGBA | None = WHITE  # the background under the text (None: unknown, an image)
    faint: bool = False  # `color` cannot be read on `ground`


def _unreadable(color: RGBA | None, ground: RGBA | None) -> bool:
    """Return True when text in `color` cannot be read on `ground` (unknown: readable)."""
    if color is None:
        return False
    return color[3] < FAINT or (ground is not None and indistinct(color, ground))


@dataclass
class _Buffer:
    parts: list[str] = field(default_factory=list)
    hidden: bool = False
    pre: bool = False

    def add(self, text: str | None, ctx: _Ctx) -> None:
        if not text:
            return
        if not ctx.pre:
            text = _WS_RE.sub(" ", text)
        else:
            self.pre = True
        if ctx.hidden and text.strip():
            self.hidden = True
        self.parts.append(text)

    def take(self) -> tuple[str, bool]:
        raw = "".join(self.parts)
        hidden = self.hidden
        self.parts.clear()
        self.hidden = False
        if self.pre:
            self.pre = False
            return textwrap.dedent(raw.strip("\n")).strip(), hidden
        lines = [" ".join(ln.split()) for ln in raw.split("\n")]
        return "\n".join(ln for ln in lines if ln), hidden


class _Walker:
    """Walks the tree once, iteratively, feeding blocks to the builder in reading order."""

    def __init__(self, builder: LayerBuilder, limits: Limits,
                 sheets: SheetStyles | None = None) -> None:
        self.b = builder
        self.limits = limits
        self.sheets = sheets or SheetStyles()  # what the `<style>` rules do to elements
        self.truncated = False
        self.buf = _Buffer()
        self.lists: dict[lxml.etree._Element, list] = {}  # ol → [next number, type]

    def flush(self, ctx: _Ctx) -> None:
        text, hidden = self.buf.take()
        if not text.strip():
            return
        flags = ("hidden_text",) if hidden or HIDDEN_CHARS_RE.search(text) else ()
        if ctx.kind == "heading":
            self.b.heading(text, ctx.level, flags=flags)
        else:
            self.b.paragraph(text, kind=ctx.kind, flags=flags)

    def _colour(self, el: lxml.etree._Element, own: Colour,
                sheet: dict[lxml.etree._Element, tuple[Colour, bool]]) -> Colour:
        """Return the colour `el` sets: its own (inline, attribute) unless a sheet's
        `!important` rule overrides it, else the sheet's; UNSET when neither does."""
        ruled = sheet.get(el)
        if ruled is not None and (own == UNSET or ruled[1]):
            return ruled[0]
        return own

    def child_ctx(self, el: lxml.etree._Element, tag: str | None, ctx: _Ctx) -> _Ctx:
        style = inline(el)
        veiled = ctx.veiled or hides(el, self.sheets.hidden, style)
        color, ground, faint = ctx.color, ctx.ground, ctx.faint
        c = self._colour(el, own_color(el, style), self.sheets.color)
        g = self._colour(el, own_background(el, style), self.sheets.background)
        if c != UNSET or g != UNSET:  # else the colours and what they show are the parent's
            color = color if c == UNSET else c  # type: ignore[assignment]
            ground = ground if g == UNSET else g  # type: ignore[assignment]
            faint = _unreadable(color, ground)
        hidden = veiled or faint
        pre = ctx.pre or tag in PRE_TAGS
        kind, level = ctx.kind, ctx.level
        if tag in HEADINGS:
            kind, level = "heading", HEADINGS[tag]
        elif tag == "li":
            kind, level = "list_item", 0
        elif tag in ("ul", "ol", "dl", "blockquote", "table"):
            kind, level = "paragraph", 0
        return _Ctx(hidden, ctx.depth + 1, pre, kind, level, veiled, color, ground, faint)

    def walk(self, root: lxml.etree._Element) -> None:
        top = _Ctx(False, 0, False, "paragraph", 0)
        own = replace(self.child_ctx(root, _tag(root), top), depth=0)  # `<html>`'s own colours
        # frames: (element, context of the element, context of its parent, entering?)
        stack: list[tuple[lxml.etree._Element, _Ctx, _Ctx, bool]] = [(root, own, top, True)]
        while stack:
            el, ctx, parent, entering = stack.pop()
            tag = _tag(el)
            if not entering:
                if tag in BLOCK_TAGS:
                    self.flush(ctx)
                self.buf.add(el.tail, parent)
                continue
            if tag is None or tag in SKIP_TAGS:
                self.buf.add(el.tail, parent)
                continue
            if ctx.depth > self.limits.max_html_depth:
                self.truncated = True
                self.buf.add(el.tail, parent)
                continue
            if tag in BLOCK_TAGS:
                self.flush(parent)
            if tag == "table":
                self.table(el, ctx)
                self.buf.add(el.tail, parent)
                continue
            if tag == "br":
                self.buf.parts.append("\n")
                self.buf.add(el.tail, parent)
                continue
            if tag == "ol":
                self.start_list(el)
            elif tag == "li":
                label = self.item_label(el)
                if label:
                    self.buf.add(label + " ", ctx)
            self.buf.add(el.text, ctx)
            stack.append((el, ctx, parent, False))
            for child in reversed(el):
                ctag = _tag(child)
                cctx = self.child_ctx(child, ctag, ctx) if ctag else ctx
                stack.append((child, cctx, ctx, True))

    # ---- ordered lists ----------------------------------------------------------

    def start_list(self, ol: lxml.etree._Element) -> None:
        style = ol.get("style", "")
        if re.search(r"list-style(?:-type)?\s*:\s*none", style, re.I):
            return
        m = re.match(r"\s*(-?\d{1,9})", ol.get("start", ""))
        kind = ol.get("type", "1")
        self.lists[ol] = [int(m.group(1)) if m else 1, kind if kind in ("1", "a", "A", "i", "I") else "1"]

    def item_label(self, li: lxml.etree._Element) -> str:
        """Return the number a browser shows before an item of an `ol` (advancing it)."""
        state = self.lists.get(li.getparent())  # type: ignore[arg-type]
        if state is None:
            return ""
        m = re.match(r"\s*(-?\d{1,9})", li.get("value", ""))
        if m:
            state[0] = int(m.group(1))
        n, kind = state
        state[0] = n + 1
        if kind in ("a", "A"):
            text = letters(n)
        elif kind in ("i", "I"):
            text = roman(n)
        else:
            text = str(n)
        return (text.upper() if kind in ("A", "I") else text) + "."

    # ---- tables -----------------------------------------------------------------

    def flat_text(self, el: lxml.etree._Element, parent: _Ctx) -> tuple[str, bool]:
        """Return the text of a subtree on one line (block boundaries → spaces), and
        whether any of it is hidden; `parent` is the context `el` sits in."""
        parts: list[str] = []
        hidden = False
        # frames: (node, context of its parent, entering?)
        stack: list[tuple[lxml.etree._Element, _Ctx, bool]] = [(el, parent, True)]
        while stack:
            node, pctx, entering = stack.pop()
            tag = _tag(node)
            if entering and tag is not None and tag not in SKIP_TAGS:
                if pctx.depth + 1 > self.limits.max_html_depth:
                    self.truncated = True
                else:
                    ctx = self.child_ctx(node, tag, pctx)
                    if node.text:
                        parts.append(node.text)
                        hidden = hidden or (ctx.hidden and bool(node.text.strip()))
                    stack.append((node, pctx, False))
                    for child in reversed(node):
                        stack.append((child, ctx, True))
                    continue
            if not entering and (tag in BLOCK_TAGS or tag == "br"):
                parts.append(" ")
            if node is not el and node.tail:
                parts.append(node.tail)
                hidden = hidden or (pctx.hidden and bool(node.tail.strip()))
        return " ".join("".join(parts).split()), hidden

    def _rows(self, table: lxml.etree._Element) -> Iterator[lxml.etree._Element]:
        for child in table:
            tag = _tag(child)
            if tag == "tr":
                yield child
            elif tag in ("thead", "tbody", "tfoot"):
                for tr in child:
                    if _tag(tr) == "tr":
                        yield tr

    def table(self, table: lxml.etree._Element, ctx: _Ctx) -> None:
        limits = self.limits
        caption: str | None = None
        for child in table:
            if _tag(child) == "caption":
                text, hid = self.flat_text(child, ctx)
                if text:
                    cflags = ("hidden_text",) if hid or HIDDEN_CHARS_RE.search(text) else ()
                    self.b.paragraph(text, flags=cflags)
                    caption = text if caption is None else f"{caption} {text}"
        trs = list(self._rows(table))
        max_cols = limits.max_sheet_cols
        grid: list[list[str | None]] = []
        spans: dict[tuple[int, int], tuple[int, int]] = {}
        headers: set[tuple[int, int]] = set()
        indents: dict[tuple[int, int], float] = {}
        cell_flags: dict[tuple[int, int], tuple[str, ...]] = {}
        total = 0
        any_hidden = False
        truncated = False
        n_rows = min(len(trs), limits.max_sheet_rows)
        if len(trs) > n_rows:
            truncated = True
        for r in range(n_rows):
            tr = trs[r]
            tr_ctx = self.child_ctx(tr, "tr", ctx)
            in_head = _tag(tr.getparent()) == "thead"
            while len(grid) <= r:
                grid.append([])
            row = grid[r]
            c = 0
            for cell in tr:
                ctag = _tag(cell)
                if ctag not in ("td", "th"):
                    continue
                while c < len(row) and row[c] is not None:
                    c += 1
                if c >= max_cols:
                    truncated = True
                    break
                colspan = _span(cell.get("colspan"))
                rowspan = _span(cell.get("rowspan"), zero_means=n_rows - r)
                if colspan > MAX_COLSPAN or colspan > max_cols - c:
                    truncated = True
                    colspan = min(colspan, MAX_COLSPAN, max_cols - c)
                if rowspan > MAX_ROWSPAN:
                    truncated = True
                rowspan = max(1, min(rowspan, MAX_ROWSPAN, n_rows - r))
                if total + colspan * rowspan > limits.max_table_cells:
                    truncated = True
                    break
                text, hid = self.flat_text(cell, tr_ctx)
                hid = hid or bool(HIDDEN_CHARS_RE.search(text))
                any_hidden = any_hidden or hid
                if hid:
                    cell_flags[(r, c)] = ("hidden_text",)
                if ctag == "th" or in_head or cell.get("scope"):
                    headers.add((r, c))
                if rowspan > 1 or colspan > 1:
                    spans[(r, c)] = (rowspan, colspan)
                if text:
                    indent = indent_points(cell)
                    if indent:
                        indents[(r, c)] = indent
                for dr in range(rowspan):
                    while len(grid) <= r + dr:
                        grid.append([])
                    target = grid[r + dr]
                    if len(target) < c + colspan:
                        target.extend([None] * (c + colspan - len(target)))
                    for dc in range(colspan):
                        if target[c + dc] is None:
                            target[c + dc] = text if dr == 0 and dc == 0 else ""
                            total += 1
                c += colspan
            if truncated and total >= limits.max_table_cells:
                break
        width = max((len(row) for row in grid), default=0)
        rows = [[x or "" for x in row] + [""] * (width - len(row)) for row in grid]
        flags: list[str] = []
        if any_hidden:
            flags.append("hidden_text")
        if truncated:
            flags.append("truncated")
            self.truncated = True
        if any(x.strip() for row in rows for x in row):
            self.b.table(rows, flags=tuple(flags), spans=spans, header_cells=headers,
                         indents=indents, caption=caption, cell_flags=cell_flags)
        elif truncated:
            self.b.flag("truncated")


def _span(value: str | None, zero_means: int = 1) -> int:
    if not value:
        return 1
    m = re.match(r"\s*(\d{1,12})", value)
    if not m:
        return 1
    n = int(m.group(1))
    if n == 0:
        return max(1, zero_means)
    return n


def _refuse_too_deep(parser: lxml.html.HTMLParser) -> None:
    """Raise ParseFailure(too_deep) when libxml2 stopped at its nesting bound: what follows
    the point it stopped at was never read, so a partial layer would drop it silently."""
    for e in parser.error_log:
        if "depth" in e.message.lower():
            raise ParseFailure("too_deep", f"the HTML nests elements deeper than the parser reads "
                               f"(line {e.line}: {e.message.strip()}); flatten the markup")


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None) -> TextLayer:
    """Return the text layer of an HTML document."""
    del password
    limits = limits or Limits()
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"{len(data)} bytes exceed the limit of {limits.max_bytes}")
    if not data.strip():
        raise ParseFailure("empty", "the file holds no text")
    text, flags = decode_text(data, _sniff_encoding(data))
    text = re.sub(r"^\s*<\?xml[^>]*\?>", "", text)
    if not text.strip():
        raise ParseFailure("empty", "the file holds no text")
    parser = lxml.html.HTMLParser(
        no_network=True, remove_comments=True, remove_pis=True, huge_tree=True,
        encoding="utf-8", default_doctype=False,
    )
    try:
        root = lxml.html.document_fromstring(text.encode("utf-8"), parser=parser)
    except (lxml.etree.ParserError, lxml.etree.XMLSyntaxError, ValueError) as exc:
        _refuse_too_deep(parser)
        if "empty" in str(exc).lower():
            raise ParseFailure("empty", "the document holds no elements") from exc
        raise ParseFailure("malformed", f"unreadable HTML: {exc}") from exc
    b = LayerBuilder(PARSER, VERSION)
    for f in flags:
        b.flag(f)
    _refuse_too_deep(parser)
    if _has_external_refs(root):
        b.flag("external_ref")
    walker = _Walker(b, limits, sheet_styles(root))
    walker.walk(root)
    walker.flush(_Ctx(False, 0, False, "paragraph", 0))
    if walker.truncated:
        b.flag("truncated")
    try:
        return b.finish(limits.max_text_chars, "the document holds no text")
    except ParseFailure as exc:
        if walker.truncated and exc.reason == "empty":  # all its text was past the limit
            raise ParseFailure("too_deep", f"all the text of the HTML nests deeper than "
                               f"{limits.max_html_depth} levels (the limit); flatten the "
                               "markup") from None
        raise
