"""Retrieval units (chunks): what ranking returns. Citations still point at spans and facts.

Policy `seg-1` over one text layer of one revision (so a chunk never crosses a source,
tenant or ACL boundary):
- blocks are headings, paragraphs, list items and tables, in reading order;
- a table is a unit of its own, together with the paragraph that introduces it when that
  paragraph sits right before it in the same clause; a table longer than `max_chars` is
  cut into row groups, each carrying the header rows as context;
- other blocks are grouped by their innermost clause (`clause 12.1.a`), or outside
  clauses by heading path, up to `max_chars`; a group shorter than `min_chars` (a clause
  title, a lone heading) joins the group that follows it when that group is its child or
  shares its heading;
- one block longer than `max_chars` is cut at sentence ends, else at spaces.

A chunk keeps its span, its locator and its parent's locator (for parent-child
expansion), its heading path, and an index text (heading path + span text). Its id is a
digest of (revision, text layer, span, policy); its content digest keys the embedding
cache, so an unchanged passage in a new revision is not embedded again.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from typing import Any

from ..model import Element, Revision, TextLayer
from ..vocab import ElementKind

POLICY = "seg-1"
BLOCK_KINDS = (ElementKind.HEADING, ElementKind.PARAGRAPH, ElementKind.LIST_ITEM,
               ElementKind.TABLE, ElementKind.FIELD)
_SENTENCE_END = re.compile(r"(?<=[.;:!?])\s+")


@dataclass(frozen=True, slots=True)
class Chunk:
    """One retrieval unit of a revision's text layer."""

    chunk_id: str
    tenant: str
    source_id: str
    revision_id: str
    text_layer: str
    kind: str  # clause | section | table
    char_start: int
    char_end: int
    locator: str
    parent_locator: str | None
    heading_path: tuple[str, ...]
    text: str
    content_digest: str
    policy: str = POLICY

    @property
    def doc_id(self) -> str:
        return f"{self.source_id}@{self.revision_id}"

    def to_dict(self) -> dict[str, Any]:
        """Return the chunk as JSON (without its text)."""
        return {"chunk_id": self.chunk_id, "doc_id": self.doc_id, "text_layer": self.text_layer,
                "kind": self.kind, "char_start": self.char_start, "char_end": self.char_end,
                "locator": self.locator, "parent_locator": self.parent_locator,
                "heading_path": list(self.heading_path), "content_digest": self.content_digest,
                "policy": self.policy}


@dataclass(slots=True)
class _Group:
    key: str
    kind: str
    start: int
    end: int
    locator: str
    heading_path: tuple[str, ...]
    prefix: str = ""  # context text that is not part of the span (repeated table header)
    parent: str | None = None
    flags: set[str] | None = None


def _clause_spans(layer: TextLayer) -> list[Element]:
    return sorted((e for e in layer.elements if e.kind == "clause"),
                  key=lambda e: (e.char_start, -e.char_end))


def _innermost(clauses: list[Element], start: int) -> Element | None:
    best = None
    for c in clauses:
        if c.char_start > start:
            break
        if c.char_start <= start < c.char_end:
            best = c  # sorted by start, outer first: the last hit is the innermost
    return best


def _parent_of(locator: str) -> str | None:
    if " > " in locator:
        return locator.rsplit(" > ", 1)[0]
    if locator.startswith("clause ") and "." in locator:
        return locator.rsplit(".", 1)[0]
    return None


def _split_long(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int]]:
    """Cut `[start, end)` into pieces of at most `max_chars`, at sentence ends or spaces."""
    out = []
    a = start
    while end - a > max_chars:
        window = text[a:a + max_chars]
        cut = max((m.end() for m in _SENTENCE_END.finditer(window)), default=0)
        if cut < max_chars // 3:
            cut = window.rfind(" ") + 1
        if cut <= 0:
            cut = max_chars
        out.append((a, a + cut))
        a += cut
    out.append((a, end))
    return [(s, e) for s, e in out if text[s:e].strip()]


def _table_groups(layer: TextLayer, table: Element, max_chars: int) -> list[_Group]:
    text = layer.text
    hp = table.heading_path
    parent = (table.meta or {}).get("intro")
    if table.char_end - table.char_start <= max_chars:
        return [_Group(table.locator, "table", table.char_start, table.char_end, table.locator, hp,
                       parent=parent)]
    lines = []
    pos = table.char_start
    for line in text[table.char_start:table.char_end].split("\n"):
        lines.append((pos, pos + len(line)))
        pos += len(line) + 1
    header_rows = int((table.meta or {}).get("header_rows") or 0)
    header = "\n".join(text[s:e] for s, e in lines[:header_rows])
    groups: list[_Group] = []
    cur: list[tuple[int, int]] = []
    size = len(header)
    for s, e in lines[header_rows:] or lines:
        if cur and size + (e - s) > max_chars:
            groups.append(_Group(table.locator, "table", cur[0][0], cur[-1][1], table.locator,
                                 hp, header, parent))
            cur, size = [], len(header)
        cur.append((s, e))
        size += e - s + 1
    if cur:
        groups.append(_Group(table.locator, "table", cur[0][0], cur[-1][1], table.locator, hp,
                             header, parent))
    return groups


def segment(rev: Revision, layer: TextLayer, *, max_chars: int = 1500,
            min_chars: int = 200) -> list[Chunk]:
    """Return the chunks of one revision's text layer under policy `seg-1`."""
    text = layer.text
    clauses = _clause_spans(layer)
    blocks = sorted((e for e in layer.elements if e.kind in BLOCK_KINDS),
                    key=lambda e: (e.char_start, -e.char_end))
    groups: list[_Group] = []
    prev_block: Element | None = None
    for b in blocks:
        if b.kind == "table":
            tgroups = _table_groups(layer, b, max_chars)
            intro = prev_block
            if (intro is not None and intro.kind == "paragraph"
                    and intro.char_end <= b.char_start
                    and _innermost(clauses, intro.char_start) is _innermost(clauses, b.char_start)
                    and intro.char_end - intro.char_start <= min_chars * 3):
                tgroups[0].start = intro.char_start
            groups.extend(tgroups)
            prev_block = b
            continue
        clause = _innermost(clauses, b.char_start)
        key = clause.locator if clause else "§" + " > ".join(b.heading_path)
        kind = "clause" if clause else "section"
        locator = clause.locator if clause else b.locator
        hp = b.heading_path if b.kind != "heading" else b.heading_path + (
            " ".join(text[b.char_start:b.char_end].split()),)
        for s, e in _split_long(text, b.char_start, b.char_end, max_chars):
            last = groups[-1] if groups else None
            if (last is not None and last.key == key and last.kind == kind
                    and e - last.start <= max_chars and b.kind != "heading"):
                last.end = e
            else:
                groups.append(_Group(key, kind, s, e, locator, hp))
        prev_block = b
    merged: list[_Group] = []
    for g in groups:
        last = merged[-1] if merged else None
        if (last is not None and last.kind != "table" and g.kind != "table"
                and last.end - last.start < min_chars and g.end - last.start <= max_chars
                and (g.key.startswith(last.key) or g.heading_path[:len(last.heading_path)]
                     == last.heading_path)):
            last.end, last.key = g.end, g.key
            continue
        merged.append(g)
    out = []
    for g in merged:
        body = text[g.start:g.end]
        context = " > ".join(g.heading_path)
        index_text = "\n".join(x for x in (context, g.prefix, body) if x)
        digest = hashlib.sha256(index_text.encode()).hexdigest()
        cid = hashlib.sha256(
            f"{rev.tenant}\x00{rev.source_id}\x00{rev.revision_id}\x00{layer.layer_id}\x00"
            f"{g.start}\x00{g.end}\x00{POLICY}".encode()).hexdigest()[:20]
        out.append(Chunk(
            chunk_id=f"ch_{cid}", tenant=rev.tenant, source_id=rev.source_id,
            revision_id=rev.revision_id, text_layer=layer.layer_id, kind=g.kind,
            char_start=g.start, char_end=g.end, locator=g.locator,
            parent_locator=g.parent or _parent_of(g.locator), heading_path=g.heading_path,
            text=index_text, content_digest=digest,
        ))
    return out
