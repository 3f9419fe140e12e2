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
  top-left cell of a merge and empty strings in the cells it covers (columns empty in
  every row are dropped, so a huge `gridSpan` cannot widen the text); a nested table's
  text is flattened into its cell, row by row.
- Tracked deletions, field codes and `mc:Fallback` duplicates are skipped; insertions
  and field results are read.

Flags: `hidden_text` (runs with `w:vanish` directly or through their style, 1-pt-or-smaller
text, white text outside tables and shading, bidi controls or tag characters; the text is
kept and its paragraph or table flagged too), `has_comments` (the document carries
comments, which are skipped), `external_ref` (a relationship with
`TargetMode="External"` or an INCLUDEPICTURE/INCLUDETEXT/LINK field: recorded, never
followed), `active_content` (a VBA project in the package), `truncated` (tables or
nesting past the limits).

`inspect_ooxml` (the package checks shared with the XLSX parser) refuses encrypted
packages, legacy binary files, zip bombs and XML parts with a DTD before any XML is
parsed.
"""

from __future__ import annotations

import io
import itertools
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import ParseFailure
from ..limits import Limits
from ..model import TextLayer
from .layout import LayerBuilder
from .text import HIDDEN_CHARS_RE, drop_empty_columns

PARSER = "docx"
VERSION = "1"

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"
MAX_NESTING = 32

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTION_STREAMS = ("EncryptionInfo".encode("utf-16-le"), "EncryptedPackage".encode("utf-16-le"))
_DTD_MARKS = tuple(m.encode(enc) for m in ("<!DOCTYPE", "<!ENTITY") for enc in ("utf-8", "utf-16-le", "utf-16-be"))
_EXTERNAL_RE = re.compile(rb"TargetMode\s*=\s*[\"']External[\"']")
_EXTERNAL_FIELD_RE = re.compile(r"\b(?:INCLUDEPICTURE|INCLUDETEXT|LINK|DDEAUTO|DDE)\b", re.I)
_FALSE = ("0", "false", "off")


def w(tag: str) -> str:
    return f"{{{W}}}{tag}"


def _local(el: object) -> str | None:
    tag = getattr(el, "tag", None)
    if not isinstance(tag, str):
        return None
    return tag.rsplit("}", 1)[-1]


def _ns(el: object) -> str:
    tag = getattr(el, "tag", "")
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else ""


# ---- the package --------------------------------------------------------------------


def inspect_ooxml(data: bytes, limits: Limits, what: str) -> set[str]:
    """Check an OOXML package before it is parsed; return the flags it earns.

    Raises `ParseFailure` for empty, encrypted, legacy-binary, non-zip, over-limit or
    DTD-carrying input. `what` names the format in messages ("DOCX", "XLSX").
    """
    if not data:
        raise ParseFailure("empty", f"the {what} file has no bytes")
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"{len(data)} bytes exceed the limit of {limits.max_bytes}")
    if data.startswith(OLE_MAGIC):
        if any(s in data for s in _ENCRYPTION_STREAMS):
            raise ParseFailure(
                "encrypted",
                f"the {what} file is password-protected; remove the protection and ingest it again",
            )
        raise ParseFailure(
            "malformed", f"a legacy binary Office file, not {what}; save it as {what} first")
    try:
        zf = zipfile.ZipFile(io.BytesIO(data))
        infos = zf.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError, EOFError) as exc:
        raise ParseFailure("malformed", f"not a {what} package (bad zip: {exc})") from exc
    if len(infos) > limits.max_zip_entries:
        raise ParseFailure("zip_bomb", f"{len(infos)} zip entries exceed the limit of {limits.max_zip_entries}")
    inflated = 0
    for info in infos:
        inflated += info.file_size
        if inflated > limits.max_zip_inflated:
            raise ParseFailure("zip_bomb", f"the package inflates past {limits.max_zip_inflated} bytes")
        if info.file_size > 1_000_000 and info.file_size > limits.max_zip_ratio * max(info.compress_size, 1):
            raise ParseFailure("zip_bomb", f"{info.filename} inflates {info.file_size // max(info.compress_size, 1)}-fold")
    flags: set[str] = set()
    try:
        for info in infos:
            name = info.filename.lower()
            if name.endswith("vbaproject.bin"):
                flags.add("active_content")
            if not (name.endswith(".xml") or name.endswith(".rels")):
                continue
            if info.file_size > limits.max_xml_part_bytes:
                raise ParseFailure("over_limit", f"{info.filename} is larger than {limits.max_xml_part_bytes} bytes")
            with zf.open(info) as fh:
                body = fh.read(limits.max_xml_part_bytes + 1)
            if len(body) > limits.max_xml_part_bytes:
                raise ParseFailure("over_limit", f"{info.filename} is larger than {limits.max_xml_part_bytes} bytes")
            if any(m in body for m in _DTD_MARKS):
                raise ParseFailure("xml_entities", f"{info.filename} declares a DTD or entities")
            if name.endswith(".rels") and _EXTERNAL_RE.search(body):
                flags.add("external_ref")
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, NotImplementedError) as exc:
        # RuntimeError: an encrypted zip entry; NotImplementedError: an unknown compression
        raise ParseFailure("malformed", f"unreadable {what} package: {exc}") from exc
    return flags


# ---- styles and numbering -------------------------------------------------------------


def _val(el: object, default: str | None = None) -> str | None:
    if el is None:
        return default
    return el.get(w("val"), default)  # type: ignore[attr-defined]


def _on(el: object) -> bool:
    """Return whether a toggle property (`<w:vanish/>`, `<w:vanish w:val="1"/>`) is on."""
    if el is None:
        return False
    v = _val(el)
    return v is None or v.lower() not in _FALSE


@dataclass
class _Style:
    name: str
    based_on: str | None
    outline: int | None
    num_id: str | None
    ilvl: int | None
    vanish: bool | None


@dataclass
class _Styles:
    by_id: dict[str, _Style] = field(default_factory=dict)
    default_para: str | None = None

    def chain(self, style_id: str | None) -> Iterator[_Style]:
        seen: set[str] = set()
        sid = style_id or self.default_para
        while sid and sid not in seen and len(seen) < 50:
            seen.add(sid)
            st = self.by_id.get(sid)
            if st is None:
                return
            yield st
            sid = st.based_on

    def heading_level(self, style_id: str | None) -> int | None:
        for st in self.chain(style_id):
            name = st.name.lower()
            m = re.fullmatch(r"heading\s*([1-9])", name)
            if m:
                return int(m.group(1))
            if name == "title":
                return 1
            if st.outline is not None and 0 <= st.outline < 9:
                return st.outline + 1
        return None

    def is_list(self, style_id: str | None) -> bool:
        return any(st.name.lower().startswith("list") and st.name.lower() != "list paragraph"
                   for st in self.chain(style_id))

    def numbering(self, style_id: str | None) -> tuple[str | None, int | None]:
        for st in self.chain(style_id):
            if st.num_id is not None:
                return st.num_id, st.ilvl
        return None, None

    def vanish(self, style_id: str | None) -> bool:
        for st in self.chain(style_id):
            if st.vanish is not None:
                return st.vanish
        return False


def _read_styles(root: object) -> _Styles:
    styles = _Styles()
    if root is None:
        return styles
    for st in root.iterchildren(w("style")):  # type: ignore[attr-defined]
        sid = st.get(w("styleId"))
        if not sid:
            continue
        name = _val(st.find(w("name")), sid) or sid
        ppr = st.find(w("pPr"))
        rpr = st.find(w("rPr"))
        outline = num_id = ilvl = None
        if ppr is not None:
            o = _val(ppr.find(w("outlineLvl")))
            outline = int(o) if o and o.isdigit() else None
            numpr = ppr.find(w("numPr"))
            if numpr is not None:
                num_id = _val(numpr.find(w("numId")))
                lv = _val(numpr.find(w("ilvl")))
                ilvl = int(lv) if lv and lv.isdigit() else None
        vanish = None
        if rpr is not None and rpr.find(w("vanish")) is not None:
            vanish = _on(rpr.find(w("vanish")))
        styles.by_id[sid] = _Style(name, _val(st.find(w("basedOn"))), outline, num_id, ilvl, vanish)
        if st.get(w("type")) == "paragraph" and st.get(w("default")) in ("1", "true", "on"):
            styles.default_para = sid
    return styles


@dataclass
class _Level:
    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."
    is_lgl: bool = False


@dataclass
class _Numbering:
    abstract: dict[str, dict[int, _Level]] = field(default_factory=dict)
    nums: dict[str, tuple[str, dict[int, int]]] = field(default_factory=dict)  # numId → (abstractId, startOverrides)
    counters: dict[str, dict[int, int]] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)

    def label(self, num_id: str, ilvl: int) -> tuple[str, bool]:
        """Advance the list and return (label text, is a list at all)."""
        if num_id == "0" or num_id not in self.nums:
            return "", False
        abs_id, overrides = self.nums[num_id]
        levels = self.abstract.get(abs_id, {})
        ilvl = max(0, min(ilvl, 8))
        counters = self.counters.setdefault(abs_id, {})
        if num_id not in self.started:
            self.started.add(num_id)
            for lv, start in overrides.items():
                counters[lv] = start - 1
                for deeper in [k for k in counters if k > lv]:
                    del counters[deeper]
        level = levels.get(ilvl, _Level())
        counters[ilvl] = counters.get(ilvl, level.start - 1) + 1
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]
        if level.fmt in ("bullet", "none"):
            return "", True

        def render(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            lv = levels.get(k, _Level())
            n = counters.get(k, lv.start)
            fmt = "decimal" if level.is_lgl else lv.fmt
            return _format_number(n, fmt)

        return re.sub(r"%([1-9])", render, level.text).strip(), True


def _format_number(n: int, fmt: str) -> str:
    if fmt in ("lowerLetter", "upperLetter"):
        s = _letters(n)
        return s.upper() if fmt == "upperLetter" else s
    if fmt in ("lowerRoman", "upperRoman"):
        s = _roman(n)
        return s.upper() if fmt == "upperRoman" else s
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def _letters(n: int) -> str:
    if n <= 0:
        return str(n)
    # Word repeats the letter: a … z, aa … zz
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def _roman(n: int) -> str:
    if not 0 < n < 4000:
        return str(n)
    out = []
    for value, sym in ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
                       (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i")):
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)


def _int(v: str | None, default: int) -> int:
    try:
        return int(v) if v is not None else default
    except ValueError:
        return default


def _read_numbering(root: object) -> _Numbering:
    num = _Numbering()
    if root is None:
        return num
    for a in root.iterchildren(w("abstractNum")):  # type: ignore[attr-defined]
        levels: dict[int, _Level] = {}
        for lvl in a.iterchildren(w("lvl")):
            ilvl = _int(lvl.get(w("ilvl")), 0)
            levels[ilvl] = _Level(
                start=_int(_val(lvl.find(w("start"))), 1),
                fmt=_val(lvl.find(w("numFmt")), "decimal") or "decimal",
                text=_val(lvl.find(w("lvlText")), "") or "",
                is_lgl=_on(lvl.find(w("isLgl"))),
            )
        num.abstract[a.get(w("abstractNumId"), "")] = levels
    for n in root.iterchildren(w("num")):  # type: ignore[attr-defined]
        overrides: dict[int, int] = {}
        for o in n.iterchildren(w("lvlOverride")):
            so = o.find(w("startOverride"))
            if so is not None:
                overrides[_int(o.get(w("ilvl")), 0)] = _int(_val(so), 1)
        num.nums[n.get(w("numId"), "")] = (_val(n.find(w("abstractNumId")), "") or "", overrides)
    return num


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
    def __init__(self, builder: LayerBuilder, styles: _Styles, numbering: _Numbering,
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
            name = _local(el)
            if _ns(el) == MC and name == "AlternateContent":
                choice = next((c for c in el if _local(c) == "Choice"), None)  # type: ignore[attr-defined]
                if choice is not None and len(stack) < MAX_NESTING:
                    stack.append(iter(choice))
                continue
            if _ns(el) != W:
                continue
            if name in ("p", "tbl"):
                yield el
            elif name in _BLOCK_WRAPPERS and len(stack) < MAX_NESTING:
                stack.append(iter(el))  # type: ignore[call-overload]

    def read_body(self, container: object, depth: int = 0) -> None:
        for el in self.blocks(container):
            if _local(el) == "tbl":
                only = self.single_cell(el)
                if only is not None and depth + 1 < MAX_NESTING:
                    self.read_body(only, depth + 1)  # a 1×1 table is a layout box
                else:
                    self.table(el, depth)
                continue
            kind, level, para = self.paragraph(el)
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

    def paragraph(self, p: object, in_table: bool = False) -> tuple[str, int, _Para]:
        ppr = p.find(w("pPr"))  # type: ignore[attr-defined]
        style_id = _val(ppr.find(w("pStyle"))) if ppr is not None else None
        num_id = ilvl = None
        if ppr is not None:
            numpr = ppr.find(w("numPr"))
            if numpr is not None:
                num_id = _val(numpr.find(w("numId")))
                lv = _val(numpr.find(w("ilvl")))
                ilvl = _int(lv, 0) if lv is not None else None
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
        outline = _val(ppr.find(w("outlineLvl"))) if ppr is not None else None
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
            name = _local(el)
            ns = _ns(el)
            if name is None:
                continue
            if ns == MC:
                if name == "AlternateContent":
                    choice = next((c for c in el if _local(c) == "Choice"), None)  # type: ignore[attr-defined]
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
            if _on(v):
                return True
        elif para_vanish or self.styles.vanish(_val(rpr.find(w("rStyle")))):
            return True
        sz = _val(rpr.find(w("sz")))
        if sz and sz.isdigit() and int(sz) <= 2:
            return True
        color = (_val(rpr.find(w("color"))) or "").upper()
        if color == "FFFFFF" and not shaded and rpr.find(w("shd")) is None \
                and rpr.find(w("highlight")) is None:
            return True
        return False

    # tables -------------------------------------------------------------------------

    def table(self, tbl: object, depth: int) -> None:
        rows, hidden, truncated = self.grid(tbl, depth)
        flags = []
        if hidden:
            flags.append("hidden_text")
        if truncated:
            flags.append("truncated")
            self.truncated = True
        self.b.table(rows, flags=tuple(flags))

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
            if _ns(el) != W:
                continue
            name = _local(el)
            if name == want:
                yield el
            elif name in _BLOCK_WRAPPERS and len(stack) < MAX_NESTING:
                stack.append(iter(el))  # type: ignore[call-overload]

    def grid(self, tbl: object, depth: int) -> tuple[list[list[str]], bool, bool]:
        limits = self.limits
        grid: list[list[str]] = []
        hidden = False
        truncated = False
        # column → row index of the open vertical merge's top cell
        for tr in self.rows_of(tbl):
            if len(grid) >= limits.max_sheet_rows or self.cells >= limits.max_table_cells:
                truncated = True
                break
            row: list[str] = []
            trpr = tr.find(w("trPr"))  # type: ignore[attr-defined]
            before = _int(_val(trpr.find(w("gridBefore"))), 0) if trpr is not None else 0
            row.extend([""] * min(max(before, 0), limits.max_sheet_cols))
            for tc in self.blocks_like(tr, "tc"):
                tcpr = tc.find(w("tcPr"))  # type: ignore[attr-defined]
                span = 1
                merge = None
                if tcpr is not None:
                    span = max(1, _int(_val(tcpr.find(w("gridSpan"))), 1))
                    vm = tcpr.find(w("vMerge"))
                    if vm is not None:
                        merge = _val(vm) or "continue"
                    hm = tcpr.find(w("hMerge"))  # legacy horizontal merge
                    if hm is not None and (_val(hm) or "continue") == "continue":
                        span, merge = span, "hcontinue"
                room = limits.max_sheet_cols - len(row)
                if room <= 0:
                    truncated = True
                    break
                if span > room:
                    span = room
                    truncated = True
                if merge in ("continue", "hcontinue"):
                    text = ""
                else:
                    text, h = self.cell_text(tc, depth)
                    hidden = hidden or h
                row.append(text)
                row.extend([""] * (span - 1))
            self.cells += len(row)
            grid.append(row)
        return drop_empty_columns(grid), hidden, truncated

    def cell_text(self, tc: object, depth: int) -> tuple[str, bool]:
        parts: list[str] = []
        hidden = False
        if depth + 1 >= MAX_NESTING:
            self.truncated = True
            return "", False
        for el in self.blocks(tc):
            if _local(el) == "tbl":
                rows, h, trunc = self.grid(el, depth + 1)
                hidden = hidden or h
                self.truncated = self.truncated or trunc
                parts.extend(" ".join(c for c in r if c.strip()) for r in rows)
                continue
            _kind, _level, para = self.paragraph(el, in_table=True)
            parts.append(para.text)
            hidden = hidden or para.hidden or bool(HIDDEN_CHARS_RE.search(para.text))
            for box in para.boxes:
                for inner in self.blocks(box):
                    if _local(inner) == "p":
                        sub = self.runs(inner, False, in_table=True)
                        parts.append(sub.text)
                        hidden = hidden or sub.hidden
        return " ".join(" ".join(p.split()) for p in parts if p.strip()), hidden


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
    flags = inspect_ooxml(data, limits, "DOCX")
    del password  # an unencrypted package needs none; encrypted ones are refused above
    try:
        import docx
        from docx.opc.constants import RELATIONSHIP_TYPE as RT
        from docx.opc.exceptions import PackageNotFoundError
    except ImportError as exc:  # pragma: no cover - a core dependency
        from ..errors import MissingExtra

        raise MissingExtra("python-docx", "docx") from exc
    try:
        doc = docx.Document(io.BytesIO(data))
        body = doc.element.body
        styles = _read_styles(_part_element(doc, RT.STYLES))
        numbering = _read_numbering(_part_element(doc, RT.NUMBERING))
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
    layer = b.build()
    if len(layer.text) > limits.max_text_chars:
        raise ParseFailure(
            "over_limit",
            f"text of {len(layer.text)} characters exceeds the limit of {limits.max_text_chars}",
        )
    if not layer.text.strip():
        raise ParseFailure("empty", "the document holds no text")
    return layer
