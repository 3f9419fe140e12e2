"""docling's DoclingDocument JSON → text layer: the tree docling built, read in its order.

docling parses PDF, DOCX, HTML, XLSX… with its own layout and table models; it exports
the result as a `DoclingDocument` (`parse.docling_schema`). This parser turns that tree
into a pincite text layer through the same `LayerBuilder` as every other parser, so
citations into it are made and verified like any other:

- the `body` tree is walked in order, each item once (a second reference to an item, or a
  cycle, is not followed again); items whose `content_layer` is not `body` (page
  headers and footers, `furniture`; comments, `notes`) are left out with their subtrees;
- `title` is a heading of level 1, `section_header` of level 1 + its `level`, so
  paragraph locators are heading paths (`Results > Tables ¶2`) and numbered clauses are
  recognised as in other formats; `list_item` is a list item (an enumerated one opens
  with its marker, `3.`); every other text label (`text`, `paragraph`, `caption`,
  `footnote`, `code`, `formula`, `reference`, field keys and values…) is a paragraph;
- an `inline` group (a paragraph docling split at formatting) and a `field_item` (a
  form's marker, key and value) are one paragraph, their texts joined by a space;
- a table is `table N` with its cells placed by docling's grid offsets (spans, header
  cells from `column_header`/`row_header`); its captions are a paragraph before it and
  its caption, its footnotes paragraphs after it; a picture gives its captions and the
  texts docling found in it;
- `prov` gives geometry: each character of an item gets the page and box of the
  provenance entry whose `charspan` holds it (the first entry's when none does), boxes
  turned to pincite's top-left origin with the page height from `pages`; table cells
  get their own `bbox` on the table's page. Items without `prov` (DOCX, HTML) have none.

The layer id is `docling@<VERSION>+<first 12 hex digits of the JSON's sha256>`: a
citation names the very export it rests on, and another export of the same source is
another layer. Refused (`ParseFailure`): bytes past `Limits.max_bytes`, more JSON
containers than `MAX_CONTAINERS` (`over_limit`); not UTF-8 JSON (`malformed`); nested
deeper than `MAX_JSON_DEPTH` or a tree deeper than `MAX_TREE_DEPTH` (`too_deep`); not a
DoclingDocument, or one of another major version (`unsupported_type`); a field that does
not match the schema, a reference to an item that does not exist, a cell outside its
table (`malformed`); pages past `Limits.max_pages`, table cells past
`Limits.max_table_cells` (`over_limit`); no text (`empty`).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from ..errors import ParseFailure, UsageError
from ..limits import Limits, load_guarded
from ..model import Box, TextLayer
from ..vocab import ElementKind
from .assembly import CharGeom
from .docling_schema import (
    COLLECTIONS,
    READ_MAJOR,
    SCHEMA_NAME,
    DoclingDocumentIn,
    Node,
    Prov,
    TableNode,
    TextNode,
)
from .docling_schema import Box as DoclingBox
from .layout import LayerBuilder

PARSER = "docling"
VERSION = "1"
MAX_CONTAINERS = 5_000_000  # `{` and `[` in the file: objects and arrays before any is built
MAX_JSON_DEPTH = 64  # DoclingDocument nests about 8 levels; its tree is in references
MAX_TREE_DEPTH = 256  # body → group → … → text, followed through references
_HEADINGS = {"title", "section_header"}
_JOINED = {"inline", "field_item"}  # groups read as one paragraph
_SPACES = re.compile(r"[\t\n\r\x0b\x0c]")
# inline pieces are joined by a space, except before closing punctuation and after an
# opening bracket or quote, or where a piece already ends or starts with a space
_TIGHT_BEFORE = re.compile(r"[\s,.;:!?%)\]}»”’]")
_TIGHT_AFTER = re.compile(r"[\s(\[{«“‘]$")
Where = tuple[int, Box]


def layer_version(data: bytes) -> str:
    """Return the layer version of a DoclingDocument's bytes: `VERSION+<sha256[:12]>`."""
    return f"{VERSION}+{hashlib.sha256(data).hexdigest()[:12]}"


def read_document(data: bytes, limits: Limits) -> DoclingDocumentIn:
    """Return the DoclingDocument in `data`, checked (see the module docstring), else raise
    ParseFailure."""
    if len(data) > limits.max_bytes:
        raise ParseFailure("over_limit", f"the JSON is {len(data)} bytes, over the "
                           f"{limits.max_bytes}-byte limit")
    if not data.strip():
        raise ParseFailure("empty", "the file holds nothing")
    containers = data.count(b"{") + data.count(b"[")
    if containers > MAX_CONTAINERS:
        raise ParseFailure("over_limit", f"the JSON holds {containers} objects and arrays, "
                           f"over the {MAX_CONTAINERS} a DoclingDocument is read with")
    try:
        value = load_guarded(data, "the file", refuse=UsageError, max_bytes=limits.max_bytes,
                             max_depth=MAX_JSON_DEPTH, syntax="json")
    except UsageError as exc:
        reason = "too_deep" if "deeper" in exc.message else "malformed"
        raise ParseFailure(reason, f"{exc.message}; give the JSON that docling's "
                           "export_to_dict / save_as_json wrote") from None
    if not isinstance(value, dict) or value.get("schema_name") != SCHEMA_NAME:
        raise ParseFailure("unsupported_type", "the JSON is not a DoclingDocument (no "
                           f"\"schema_name\": \"{SCHEMA_NAME}\"); export the document "
                           "with docling's save_as_json")
    version = value.get("version")
    if not isinstance(version, str) or version.split(".")[0] != str(READ_MAJOR):
        raise ParseFailure("unsupported_type", f"DoclingDocument version {str(version)[:20]!r}"
                           f" is not one pincite reads ({READ_MAJOR}.x); export it with a "
                           "docling release that writes schema 1.x")
    try:
        doc = DoclingDocumentIn.model_validate(value)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = "/".join(str(p) for p in err["loc"])[:120]
        raise ParseFailure("malformed", f"the DoclingDocument does not match its schema at "
                           f"{where}: {err['msg'][:160]}") from None
    too_far = [p.page_no for p in doc.pages.values() if p.page_no > limits.max_pages]
    if too_far:
        raise ParseFailure("over_limit", f"page {too_far[0]} is past the "
                           f"{limits.max_pages}-page limit")
    cells = sum(max(len(t.data.table_cells), t.data.num_rows * t.data.num_cols)
                for t in doc.tables)
    if cells > limits.max_table_cells:
        raise ParseFailure("over_limit", f"the tables hold {cells} cells, over the "
                           f"{limits.max_table_cells}-cell limit")
    return doc


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None) -> TextLayer:
    """Return the text layer of a DoclingDocument JSON export."""
    del password
    limits = limits or Limits()
    doc = read_document(data, limits)
    b = LayerBuilder(PARSER, layer_version(data))
    tree = _Tree(doc, b, limits)
    tree.walk()
    layer = b.finish(limits.max_text_chars, "the DoclingDocument holds no text in its body")
    meta: dict[str, Any] = {"schema_version": doc.version, "name": doc.name[:200]}
    if doc.origin is not None:
        meta["origin"] = {"mimetype": doc.origin.mimetype[:100],
                          "filename": doc.origin.filename[:200]}
    if tree.skipped:
        meta["skipped"] = dict(sorted(tree.skipped.items()))
    return replace(layer, meta={"docling": meta})


class _Tree:
    """One walk of a document's tree into a builder."""

    def __init__(self, doc: DoclingDocumentIn, b: LayerBuilder, limits: Limits) -> None:
        self.doc = doc
        self.b = b
        self.limits = limits
        self.seen: set[str] = set()
        self.skipped: dict[str, int] = {}
        self.numbers: dict[str, int] = {}  # enumerated list items read per list
        self.heights: dict[int, float] = {}
        for page in doc.pages.values():
            b.page_size(page.page_no, page.size.width, page.size.height)
            self.heights[page.page_no] = page.size.height

    # ---- the tree --------------------------------------------------------------------

    def node(self, ref: str) -> Node | None:
        """Return the item `ref` names (None for a collection pincite does not read)."""
        if ref == "#/body":
            return self.doc.body
        if ref == "#/furniture":
            return None
        coll, index = ref[2:].split("/")
        if coll not in COLLECTIONS:
            self.skipped[coll] = self.skipped.get(coll, 0) + 1
            return None
        items: list[Any] = getattr(self.doc, coll)
        if int(index) >= len(items):
            raise ParseFailure("malformed", f"the DoclingDocument refers to {ref}, which it "
                               f"does not hold ({len(items)} {coll})")
        return items[int(index)]

    def walk(self) -> None:
        """Read the body tree in order into the builder."""
        stack: list[tuple[str, int]] = [("#/body", 0)]
        while stack:
            ref, depth = stack.pop()
            if ref in self.seen:
                continue
            self.seen.add(ref)
            if depth > MAX_TREE_DEPTH:
                raise ParseFailure("too_deep", f"the DoclingDocument's tree is deeper than "
                                   f"{MAX_TREE_DEPTH} levels at {ref}")
            n = self.node(ref)
            if n is None:
                continue
            if n.content_layer != "body":
                self.skipped[n.content_layer[:40]] = self.skipped.get(n.content_layer[:40], 0) + 1
                continue
            after = self.read(n)
            stack.extend((r, depth + 1) for r in reversed(after))

    def read(self, n: Node) -> list[str]:
        """Add item `n` to the builder; return the references to walk after it, in order."""
        kids = [c.ref for c in n.children]
        if isinstance(n, TableNode):
            self.table(n)
            held = " ".join(" ".join(c.text.split()) for c in n.data.table_cells)
            return [c.ref for c in n.footnotes] + [
                r for r in self.tables_under(n) if _cells_text(self.node(r)) not in held]
        if isinstance(n, TextNode):
            self.text(n)
            return kids
        if n.label in _JOINED:
            return self.joined(n)
        return [c.ref for c in n.captions] + kids + [c.ref for c in n.footnotes]

    def tables_under(self, n: Node) -> list[str]:
        """Return the tables nested in a table's rich cells (under its child groups), in
        order: each is read as a table of its own after the one that holds it, unless the
        cell that holds it has its text already (docling's HTML backend writes it there)."""
        out: list[str] = []
        stack = [(c.ref, 0) for c in reversed(n.children)]
        while stack:
            ref, depth = stack.pop()
            child = None if depth > MAX_TREE_DEPTH else self.node(ref)
            if isinstance(child, TableNode):
                out.append(ref)
            elif child is not None and not isinstance(child, TextNode):
                stack += [(c.ref, depth + 1) for c in reversed(child.children)]
        return out

    def texts_under(self, n: Node, rest: list[str], depth: int = 0) -> list[TextNode]:
        """Return the text items under `n` in order, marking them read; other items go to
        `rest`, to be walked after."""
        out: list[TextNode] = []
        for c in n.children:
            if c.ref in self.seen:
                continue
            child = self.node(c.ref)
            if child is None or child.content_layer != "body":
                continue
            if depth > MAX_TREE_DEPTH:
                raise ParseFailure("too_deep", f"the DoclingDocument's tree is deeper than "
                                   f"{MAX_TREE_DEPTH} levels at {c.ref}")
            if isinstance(child, TextNode):
                self.seen.add(c.ref)
                out.append(child)
                out += self.texts_under(child, rest, depth + 1)
            elif isinstance(child, TableNode) or child.label not in ("inline", "field_item",
                                                                     "unspecified"):
                rest.append(c.ref)
            else:
                self.seen.add(c.ref)
                out += self.texts_under(child, rest, depth + 1)
        return out

    # ---- items -------------------------------------------------------------------------

    def text(self, t: TextNode) -> None:
        """Add one text item as a heading, list item or paragraph."""
        text, geo = self.chars(t)
        if t.label == "list_item" and t.enumerated:
            parent = t.parent.ref if t.parent else ""
            self.numbers[parent] = self.numbers.get(parent, 0) + 1
            shown = " ".join((t.marker or "").split())[:20] or f"{self.numbers[parent]}."
            marker = shown + " "
            text = marker + text
            geo = None if geo is None else [None] * len(marker) + list(geo)
        if t.label in _HEADINGS:
            level = 1 if t.label == "title" else 1 + (t.level or 1)
            self.b.heading(text, level, chars=geo)
        elif t.label == "list_item":
            self.b.paragraph(text, kind=ElementKind.LIST_ITEM.value, chars=geo)
        else:
            self.b.paragraph(text, chars=geo)

    def joined(self, n: Node) -> list[str]:
        """Add the texts under an inline group or field item as one paragraph; return the
        other items under it."""
        rest: list[str] = []
        text, geo = _join([self.chars(t) for t in self.texts_under(n, rest)])
        if text:
            self.b.paragraph(text, chars=geo)
        return rest

    def table(self, t: TableNode) -> None:
        """Add a table: its captions as a paragraph before it (unless read already: docling
        may place them before it in the tree) and as its caption; its cells on docling's
        grid."""
        captions = [(c.ref, n) for c, n in ((c, self.node(c.ref)) for c in t.captions)
                    if isinstance(n, TextNode) and n.content_layer == "body"]
        caption = " ".join(" ".join(n.text.split()) for _, n in captions) or None
        unread = [n for ref, n in captions if ref not in self.seen]  # not read before it
        self.seen.update(ref for ref, _ in captions)
        text, geo = _join([self.chars(n) for n in unread])
        if text:
            self.b.paragraph(text, chars=geo)
        d = t.data
        n_rows = max([d.num_rows] + [c.end_row_offset_idx for c in d.table_cells])
        n_cols = max([d.num_cols] + [c.end_col_offset_idx for c in d.table_cells])
        if n_rows * n_cols > self.limits.max_table_cells:
            raise ParseFailure("over_limit", f"{t.self_ref} is {n_rows}x{n_cols}, over the "
                               f"{self.limits.max_table_cells}-cell limit")
        page = t.prov[0].page_no if t.prov else None
        rows = [[""] * n_cols for _ in range(n_rows)]
        chars: list[list[CharGeom | None]] = [[None] * n_cols for _ in range(n_rows)]
        spans: dict[tuple[int, int], tuple[int, int]] = {}
        headers: set[tuple[int, int]] = set()
        taken: set[tuple[int, int]] = set()
        for c in d.table_cells:
            r0, r1 = c.start_row_offset_idx, c.end_row_offset_idx
            c0, c1 = c.start_col_offset_idx, c.end_col_offset_idx
            if not (r0 < r1 and c0 < c1):
                raise ParseFailure("malformed", f"a cell of {t.self_ref} spans rows {r0}-{r1} "
                                   f"and columns {c0}-{c1}: an empty range")
            if (r0, c0) in taken:
                continue  # a cell docling lists twice is read once
            taken.add((r0, c0))
            text = _SPACES.sub(" ", unicodedata.normalize("NFC", c.text))
            rows[r0][c0] = text
            if (r1 - r0, c1 - c0) != (1, 1):
                spans[(r0, c0)] = (r1 - r0, c1 - c0)
            if c.column_header or c.row_header:
                headers.add((r0, c0))
            where = self.where(page, c.bbox) if page is not None and c.bbox else None
            if where is not None:
                chars[r0][c0] = [where] * len(text)
        has_geo = any(g is not None for row in chars for g in row)
        self.b.table(rows, page=page, cell_chars=chars if has_geo else None, spans=spans,
                     header_cells=headers, caption=caption)

    # ---- geometry ---------------------------------------------------------------------

    def chars(self, t: TextNode) -> tuple[str, CharGeom | None]:
        """Return an item's text (NFC) and each character's page and box from its `prov`."""
        text = unicodedata.normalize("NFC", t.text)
        wheres = [self.where(p.page_no, p.bbox) for p in t.prov]
        first = next((w for w in wheres if w is not None), None)
        if first is None:
            return text, None
        geo: list[Where | None] = [first] * len(text)
        if len(t.prov) > 1 and text == t.text:  # charspans count the text docling wrote
            for p, w in zip(t.prov, wheres, strict=True):
                if w is not None and _span_ok(p, len(text)):
                    a, z = p.charspan  # type: ignore[misc]
                    geo[a:z] = [w] * (z - a)
        return text, geo

    def where(self, page: int, box: DoclingBox) -> Where | None:
        """Return (page, box) with the box in top-left coordinates (None when the page's
        height, needed to turn a bottom-left box, is unknown)."""
        if box.coord_origin == "BOTTOMLEFT":
            h = self.heights.get(page)
            if h is None:
                return None
            top, bottom = h - box.t, h - box.b
        else:
            top, bottom = box.t, box.b
        return page, (min(box.l, box.r), min(top, bottom), max(box.l, box.r), max(top, bottom))


def _span_ok(p: Prov, n: int) -> bool:
    return p.charspan is not None and 0 <= p.charspan[0] < p.charspan[1] <= n


def _join(parts: list[tuple[str, CharGeom | None]]) -> tuple[str, list[Where | None] | None]:
    """Return texts joined by a space with their geometry (None where none is known);
    texts that hold nothing are left out."""
    parts = [(s, g) for s, g in parts if s.strip()]
    text, geo = "", list[Where | None]()
    for i, (s, g) in enumerate(parts):
        gap = "" if not i or _TIGHT_AFTER.search(text) or _TIGHT_BEFORE.match(s) else " "
        text += gap + s
        geo += [None] * len(gap) + (list(g) if g is not None else [None] * len(s))
    return text, geo if any(g is not None for _, g in parts) else None


def _cells_text(n: Node | None) -> str:
    """Return a table's cell texts, whitespace collapsed, joined by spaces."""
    cells = n.data.table_cells if isinstance(n, TableNode) else []
    return " ".join(" ".join(c.text.split()) for c in cells)
