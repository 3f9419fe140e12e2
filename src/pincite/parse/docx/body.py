"""DOCX → text layer, with python-docx opening the package and a walk over the body XML.

Reading order is the body's: paragraphs and tables interleaved, content controls
(`w:sdt`) and custom XML unwrapped, text boxes read after the paragraph that anchors them.
Headers, footers, footnotes and comments are not body text and are left out.

- A paragraph whose style (or its `basedOn` chain) is `Heading N`, has outline level
  N-1, or is `Title` becomes a heading of level N (Title: 1).
- Automatic numbering is rendered as Word shows it (`12.1`, `(a)`, `iv.`), so numbered
  clauses get clause locators; a numbered or bulleted paragraph (or a `List…` style) is a
  list item. Bullet glyphs are not added to the text.
- Tables: `gridSpan`, `vMerge` and `gridBefore` are laid onto the grid, the text in the
  top-left cell of a merge and empty strings in the cells it covers, the merges passed
  to the builder as spans (columns empty in every row are dropped there, so a huge
  `gridSpan` cannot widen the text); rows marked `w:tblHeader` are header rows; the
  first paragraph's left indentation is a label's indentation; a paragraph in the
  `Caption` style (or opening "Table N") just before a table is its caption; a nested
  table's text is flattened into its cell, row by row. Version 2: header-path cell
  locators (`parse.tables.grid_layer`).
- Tracked deletions, field codes and `mc:Fallback` duplicates are skipped; insertions
  and field results are read.

Flags: `hidden_text` (runs with `w:vanish` directly or through their style, 1-pt-or-smaller
text, white text outside tables and shading, bidi controls or tag characters; the text is
kept and its paragraph or table flagged too), `has_comments` (the document carries
comments, which are skipped), `external_ref` (a relationship with
`TargetMode="External"` or an INCLUDEPICTURE/INCLUDETEXT/LINK field: recorded, never
followed), `active_content` (a VBA project or ActiveX controls in the package),
`embedded_file` (embedded OLE objects or packages), `truncated` (tables or nesting past
the limits).

The package is checked first (`parse.ooxml`: encrypted packages, legacy binary files, zip
bombs and XML parts with a DTD are refused before any XML is parsed); styles and
numbering live in `docx_styles`.
"""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ...errors import ParseFailure
from ...limits import Limits
from ...model import TextLayer
from ..hidden_chars import HIDDEN_CHARS_RE
from ..layout import LayerBuilder
from ..ooxml import check_package
from .styles import Numbering, Styles, read_numbering, read_styles
from .xml_parts import MC, M, W, is_on, local_name, namespace, to_int, val, w

PARSER = "docx"
VERSION = "2"

MAX_NESTING = 32

_CAPTION_RE = re.compile(r"^(?:table|tabla|tableau|tabelle|tabella|cuadro)\s+[\dIVXivx]", re.I)
_EXTERNAL_FIELD_RE = re.compile(r"\b(?:INCLUDEPICTURE|INCLUDETEXT|LINK|DDEAUTO|DDE)\b", re.I)


# ---- the body ------------------------------------------------------------------------

# paragraph-level wrappers whose children are read; everything else that is not text is skipped
_SKIP_IN_PARA = frozenset({
    "pPr", "rPr", "del", "moveFrom", "delText", "instrText", "delInstrText", "Fallback",
    "commentReference", "footnoteReference", "endnoteReference", "annotationRef",
    "bookmarkStart", "bookmarkEnd", "proofErr", "lastRenderedPageBreak", "sectPr",
    "tblPr", "sdtPr", "sdtEndPr", "fldData", "fldChar", "rubyPr", "rt",
})
_BLOCK_WRAPPERS = frozenset({"sdt", "sdtContent", "customXml", "ins", "moveTo", "smartTag"})


@dataclass
class _Para:
    text: str
    hidden: bool
    boxes: list[object]  # w:txbxContent elements anchored in the paragraph


class _Reader:
    def __init__(self, builder: LayerBuilder, styles: Styles, numbering: Numbering,
                 limits: Limits) -> None:
        self.b = builder
        self.styles = styles
        self.numbering = numbering
        self.limits = limits
        self.truncated = False
        self.external = False
        self.cells = 0

    # blocks -------------------------------------------------------------------------

    def blocks(self, container: object) -> Iterator[object]:
        """Yield the `w:p` and `w:tbl` elements of a container in order, unwrapping
        content controls and custom XML."""
        stack = [iter(container)]  # type: ignore[call-overload]
        while stack:
            try:
                el = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            name = local_name(el)
            if namespace(el) == MC and name == "AlternateContent":
                choice = next((c for c in el if local_name(c) == "Choice"), None)  # type: ignore[attr-defined]
                if choice is not None and len(stack) < MAX_NESTING:
                    stack.append(iter(choice))
                continue
            if namespace(el) != W:
                continue
            if name in ("p", "tbl"):
                yield el
            elif name in _BLOCK_WRAPPERS and len(stack) < MAX_NESTING:
                stack.append(iter(el))  # type: ignore[call-overload]

    def read_body(self, container: object, depth: int = 0) -> None:
        caption: str | None = None  # a caption paragraph just before a table
        for el in self.blocks(container):
            if local_name(el) == "tbl":
                only = self.single_cell(el)
                if only is not None and depth + 1 < MAX_NESTING:
                    self.read_body(only, depth + 1)  # a 1×1 table is a layout box
                else:
                    self.table(el, depth, caption)
                caption = None
                continue
            kind, level, para = self.paragraph(el)
            caption = None
            if para.text and kind != "heading" and (
                    self.styles.is_caption(self.style_id(el)) or _CAPTION_RE.match(para.text)):
                caption = para.text
            flags = ("hidden_text",) if para.hidden or HIDDEN_CHARS_RE.search(para.text) else ()
            if kind == "heading":
                self.b.heading(para.text, level, flags=flags)
            else:
                self.b.paragraph(para.text, kind=kind, flags=flags)
            for box in para.boxes:
                if depth + 1 >= MAX_NESTING:
                    self.truncated = True
                    continue
                self.read_body(box, depth + 1)

    # paragraphs ---------------------------------------------------------------------

    def style_id(self, p: object) -> str | None:
        ppr = p.find(w("pPr"))  # type: ignore[attr-defined]
        return val(ppr.find(w("pStyle"))) if ppr is not None else None

    def paragraph(self, p: object, in_table: bool = False) -> tuple[str, int, _Para]:
        ppr = p.find(w("pPr"))  # type: ignore[attr-defined]
        style_id = val(ppr.find(w("pStyle"))) if ppr is not None else None
        num_id = ilvl = None
        if ppr is not None:
            numpr = ppr.find(w("numPr"))
            if numpr is not None:
                num_id = val(numpr.find(w("numId")))
                lv = val(numpr.find(w("ilvl")))
                ilvl = to_int(lv, 0) if lv is not None else None
        if num_id is None:
            num_id, style_ilvl = self.styles.numbering(style_id)
            ilvl = ilvl if ilvl is not None else style_ilvl
        para = self.runs(p, self.styles.vanish(style_id), in_table)
        label, is_list = ("", False)
        if num_id is not None:
            label, is_list = self.numbering.label(num_id, ilvl or 0)
        text = para.text.strip()
        if label and text:
            text = f"{label} {text}"
        para.text = text
        level = self.styles.heading_level(style_id)
        outline = val(ppr.find(w("outlineLvl"))) if ppr is not None else None
        if level is None and outline is not None and outline.isdigit() and int(outline) < 9:
            level = int(outline) + 1
        if level is not None:
            return "heading", level, para
        if is_list or (num_id != "0" and self.styles.is_list(style_id)):
            # numId 0 switches numbering off; "List Paragraph" alone is just indented
            return "list_item", 0, para
        return "paragraph", 0, para

    def runs(self, p: object, para_vanish: bool, in_table: bool = False) -> _Para:
        """Return the text of a paragraph, whether any of it is hidden, and its text boxes."""
        parts: list[str] = []
        hidden = False
        boxes: list[object] = []
        shaded = p.find(f"{w('pPr')}/{w('shd')}") is not None  # type: ignore[attr-defined]
        # frames: (element, hidden state inherited from its run)
        stack: list[tuple[object, bool]] = [(c, False) for c in reversed(list(p))]  # type: ignore[call-overload]
        while stack:
            el, run_hidden = stack.pop()
            name = local_name(el)
            ns = namespace(el)
            if name is None:
                continue
            if ns == MC:
                if name == "AlternateContent":
                    choice = next((c for c in el if local_name(c) == "Choice"), None)  # type: ignore[attr-defined]
                    if choice is not None:
                        stack.extend((c, run_hidden) for c in reversed(list(choice)))  # type: ignore[call-overload]
                continue
            if name == "txbxContent":
                boxes.append(el)
                continue
            if ns == W and name in ("instrText",) and el.text:  # type: ignore[attr-defined]
                if _EXTERNAL_FIELD_RE.search(el.text):  # type: ignore[attr-defined]
                    self.external = True
                continue
            if name in _SKIP_IN_PARA:
                continue
            if ns == W and name == "fldSimple":
                if _EXTERNAL_FIELD_RE.search(el.get(w("instr"), "")):  # type: ignore[attr-defined]
                    self.external = True
            if ns == W and name == "r":
                run_hidden = self.run_hidden(el, para_vanish, shaded or in_table)
            if name == "t" and ns in (W, M):
                t = el.text or ""  # type: ignore[attr-defined]
                parts.append(t)
                hidden = hidden or (run_hidden and bool(t.strip()))
                continue
            if ns == W:
                if name in ("tab", "ptab"):
                    parts.append("\t")
                    continue
                if name in ("br", "cr"):
                    parts.append("\n")
                    continue
                if name == "noBreakHyphen":
                    parts.append("-")
                    continue
            stack.extend((c, run_hidden) for c in reversed(list(el)))  # type: ignore[call-overload]
        text = "".join(parts)
        text = re.sub(r"\n[ \t]*(?=\n)", "", text)  # one line break at a time
        return _Para(text, hidden, boxes)

    def run_hidden(self, r: object, para_vanish: bool, shaded: bool) -> bool:
        rpr = r.find(w("rPr"))  # type: ignore[attr-defined]
        if rpr is None:
            return para_vanish
        v = rpr.find(w("vanish"))
        if v is not None:
            if is_on(v):
                return True
        elif para_vanish or self.styles.vanish(val(rpr.find(w("rStyle")))):
            return True
        sz = val(rpr.find(w("sz")))
        if sz and sz.isdigit() and int(sz) <= 2:
            return True
        color = (val(rpr.find(w("color"))) or "").upper()
        if color == "FFFFFF" and not shaded and rpr.find(w("shd")) is None \
                and rpr.find(w("highlight")) is None:
            return True
        return False

    # tables -------------------------------------------------------------------------

    def table(self, tbl: object, depth: int, caption: str | None = None) -> None:
        g = self.grid(tbl, depth)
        flags = []
        if g.hidden:
            flags.append("hidden_text")
        if g.truncated:
            flags.append("truncated")
            self.truncated = True
        self.b.table(g.rows, flags=tuple(flags), spans=g.spans, header_cells=g.headers,
                     indents=g.indents, caption=caption)

    def single_cell(self, tbl: object) -> object | None:
        """Return the only cell of a one-row, one-cell table, else None."""
        rows = list(itertools.islice(self.rows_of(tbl), 2))
        if len(rows) != 1:
            return None
        cells = list(itertools.islice(self.blocks_like(rows[0], "tc"), 2))
        return cells[0] if len(cells) == 1 else None

    def rows_of(self, tbl: object) -> Iterator[object]:
        yield from self.blocks_like(tbl, "tr")

    def blocks_like(self, parent: object, want: str) -> Iterator[object]:
        stack = [iter(parent)]  # type: ignore[call-overload]
        while stack:
            try:
                el = next(stack[-1])
            except StopIteration:
                stack.pop()
                continue
            if namespace(el) != W:
                continue
            name = local_name(el)
            if name == want:
                yield el
            elif name in _BLOCK_WRAPPERS and len(stack) < MAX_NESTING:
                stack.append(iter(el))  # type: ignore[call-overload]

    def grid(self, tbl: object, depth: int) -> _Grid:
        limits = self.limits
        g = _Grid()
        grid = g.rows
        # grid column → top-left (row, col) of the vertical merge open there
        open_v: dict[int, tuple[int, int]] = {}
        for tr in self.rows_of(tbl):
            if len(grid) >= limits.max_sheet_rows or self.cells >= limits.max_table_cells:
                g.truncated = True
                break
            r = len(grid)
            row: list[str] = []
            trpr = tr.find(w("trPr"))  # type: ignore[attr-defined]
            before = to_int(val(trpr.find(w("gridBefore"))), 0) if trpr is not None else 0
            is_header = trpr is not None and is_on(trpr.find(w("tblHeader")))
            row.extend([""] * min(max(before, 0), limits.max_sheet_cols))
            last: tuple[int, int] | None = None
            for tc in self.blocks_like(tr, "tc"):
                tcpr = tc.find(w("tcPr"))  # type: ignore[attr-defined]
                span = 1
                merge = None
                if tcpr is not None:
                    span = max(1, to_int(val(tcpr.find(w("gridSpan"))), 1))
                    vm = tcpr.find(w("vMerge"))
                    if vm is not None:
                        merge = val(vm) or "continue"
                    hm = tcpr.find(w("hMerge"))  # legacy horizontal merge
                    if hm is not None and (val(hm) or "continue") == "continue":
                        span, merge = span, "hcontinue"
                room = limits.max_sheet_cols - len(row)
                if room <= 0:
                    g.truncated = True
                    break
                if span > room:
                    span = room
                    g.truncated = True
                c = len(row)
                if merge == "continue":
                    text = ""
                    top = open_v.get(c)
                    if top is not None:
                        rs, cs = g.spans.get(top, (1, span))
                        g.spans[top] = (r - top[0] + 1, cs)
                elif merge == "hcontinue":
                    text = ""
                    if last is not None:
                        rs, cs = g.spans.get(last, (1, 1))
                        g.spans[last] = (rs, cs + span)
                else:
                    text, h, indent = self.cell_text(tc, depth)
                    g.hidden = g.hidden or h
                    if span > 1:
                        g.spans[(r, c)] = (1, span)
                    if indent:
                        g.indents[(r, c)] = indent
                    if is_header:
                        g.headers.add((r, c))
                    last = (r, c)
                    if merge == "restart":
                        open_v[c] = (r, c)
                    else:
                        open_v.pop(c, None)
                row.append(text)
                row.extend([""] * (span - 1))
            self.cells += len(row)
            grid.append(row)
        return g  # ragged rows: the builder reads missing cells as empty

    def cell_text(self, tc: object, depth: int) -> tuple[str, bool, float]:
        """Return a cell's text on one line, whether any of it is hidden, and the
        indentation of its first paragraph in points."""
        parts: list[str] = []
        hidden = False
        indent = 0.0
        if depth + 1 >= MAX_NESTING:
            self.truncated = True
            return "", False, 0.0
        for el in self.blocks(tc):
            if local_name(el) == "tbl":
                g = self.grid(el, depth + 1)
                hidden = hidden or g.hidden
                self.truncated = self.truncated or g.truncated
                parts.extend(" ".join(c for c in r if c.strip()) for r in g.rows)
                continue
            if not parts:
                indent = _indent_points(el)
            _kind, _level, para = self.paragraph(el, in_table=True)
            parts.append(para.text)
            hidden = hidden or para.hidden or bool(HIDDEN_CHARS_RE.search(para.text))
            for box in para.boxes:
                for inner in self.blocks(box):
                    if local_name(inner) == "p":
                        sub = self.runs(inner, False, in_table=True)
                        parts.append(sub.text)
                        hidden = hidden or sub.hidden
        return " ".join(" ".join(p.split()) for p in parts if p.strip()), hidden, indent


@dataclass
class _Grid:
    """A table laid onto its grid: texts, spans, header cells, label indentation."""

    rows: list[list[str]] = field(default_factory=list)
    spans: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    headers: set[tuple[int, int]] = field(default_factory=set)
    indents: dict[tuple[int, int], float] = field(default_factory=dict)
    hidden: bool = False
    truncated: bool = False


def _indent_points(p: object) -> float:
    """Return the left indentation of a paragraph (`w:ind w:left`/`w:start`) in points."""
    ind = p.find(f"{w('pPr')}/{w('ind')}")  # type: ignore[attr-defined]
    if ind is None:
        return 0.0
    twips = to_int(ind.get(w("left")) or ind.get(w("start")), 0)
    return max(0.0, twips / 20.0)


# ---- entry point ----------------------------------------------------------------------


def _part_element(doc: object, reltype: str) -> object | None:
    try:
        part = doc.part.part_related_by(reltype)  # type: ignore[attr-defined]
    except (KeyError, ValueError):
        return None
    element = getattr(part, "element", None)
    if element is not None:
        return element
    from docx.oxml.parser import parse_xml

    try:
        return parse_xml(part.blob)
    except Exception:  # noqa: BLE001 - an unreadable side part only loses its features
        return None


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None) -> TextLayer:
    """Return the text layer of a DOCX file."""
    limits = limits or Limits()
    flags = check_package(data, limits, "DOCX")
    del password  # an unencrypted package needs none; encrypted ones are refused above
    try:
        import docx
        from docx.opc.constants import RELATIONSHIP_TYPE as RT
        from docx.opc.exceptions import PackageNotFoundError
    except ImportError as exc:  # pragma: no cover - a core dependency
        from ...errors import MissingExtra

        raise MissingExtra("python-docx", "docx") from exc
    try:
        doc = docx.Document(io.BytesIO(data))
        body = doc.element.body
        styles = read_styles(_part_element(doc, RT.STYLES))
        numbering = read_numbering(_part_element(doc, RT.NUMBERING))
        comments = _part_element(doc, RT.COMMENTS)
        b = LayerBuilder(PARSER, VERSION)
        reader = _Reader(b, styles, numbering, limits)
        reader.read_body(body)
    except ParseFailure:
        raise
    except PackageNotFoundError as exc:
        raise ParseFailure("malformed", f"not a DOCX package: {exc}") from exc
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure("over_limit", f"the document is too large or too deep ({type(exc).__name__})") from exc
    except Exception as exc:  # noqa: BLE001 - bad bytes may break python-docx anywhere
        # lxml's XMLSyntaxError, python-docx's KeyError/ValueError for missing parts and
        # wrong content types, and whatever else a damaged package provokes
        raise ParseFailure("malformed", f"unreadable DOCX: {type(exc).__name__}: {exc}") from exc
    for f in flags:
        b.flag(f)
    if reader.external:
        b.flag("external_ref")
    if reader.truncated:
        b.flag("truncated")
    if comments is not None and comments.find(w("comment")) is not None:  # type: ignore[attr-defined]
        b.flag("has_comments")
    return b.finish(limits.max_text_chars, "the document holds no text")
