"""Retrieved passages read into units: each block of a text layer read once (its heading
path and clause titles as context; a table's cells with their headers, caption and stub
head), cached by content (document sha256, layer, block start, language).

A heading is never read into units (it names a topic; an instruction in it is still
suspected); an instruction in a table flags the passage and no cell that holds any of it
is a unit. `PassageReader.opening` gives a passage over a document's opening — its
title block and preamble — whether or not retrieval ranked it, and `PassageReader.title`
one over its title, read as the statement of its name (the one heading that is an
answer: to "What is the name of this agreement?").
"""

from __future__ import annotations

from bisect import bisect_right

from ..cite.verifier import Verifier
from ..index.segment import BLOCK_KINDS
from ..model import Element, TextLayer
from ..retrieve.bundle import EvidenceItem
from ..store.lru import LRU
from ..vocab import ElementKind
from .instructions import hands_over, points_back
from .sentences import sentence_spans
from .statement_kinds import named_heads
from .units import STATEMENT_KINDS, ReadBlock, Unit, read_block, read_table, read_title, title_of

# a document's opening (title block, preamble) read for its name, parties or date whether
# or not retrieval ranked it: its first blocks, within its first characters
OPENING_BLOCKS = 4
OPENING_CHARS = 4000
MIN_OPENING_WORDS = 8  # a block of fewer words does not count among the opening's blocks
OPENING = "opening"  # the chunk id of a passage over a document's opening

# blocks read, by (document sha256, text layer, block start, language): content-addressed
_READ: LRU = LRU(4096)


class PassageReader:
    """Reads the blocks of candidate passages into units, each block once."""

    def __init__(self, verifier: Verifier) -> None:
        self.verifier = verifier
        self._layers: dict[tuple[str, str], Layer | None] = {}

    def units(self, item: EvidenceItem) -> tuple[list[Unit], bool]:
        """The units that start inside the passage, and whether the passage holds a
        suspected span."""
        cs, ce = item.char_start, item.char_end
        out: list[Unit] = []
        suspected = False
        for rb in self._blocks_of(item):
            suspected |= any(a < ce and cs < z for a, z in rb.suspected)
            out.extend(u for u in rb.units if cs <= u.start < ce)
        return out, suspected

    def opening(self, item: EvidenceItem) -> EvidenceItem | None:
        """A passage over the opening of `item`'s document — its first `OPENING_BLOCKS`
        statement blocks of `MIN_OPENING_WORDS` words or more within its first
        `OPENING_CHARS` characters (title block and preamble), with the shorter blocks
        among them — or None when the layer cannot be read."""
        layer = self._layer_of(item)
        if layer is None:
            return None
        early = [e for e in layer.blocks if e.kind in STATEMENT_KINDS and e.char_start < OPENING_CHARS]
        # a letterhead's lines (an exhibit number, a web address, a telephone) ride along
        # without counting: the opening is its first blocks that say something
        said = [i for i, e in enumerate(early)
                if len(layer.text[e.char_start:e.char_end].split()) >= MIN_OPENING_WORDS]
        blocks = early[:said[OPENING_BLOCKS - 1] + 1] if len(said) >= OPENING_BLOCKS else early
        if not blocks:
            return None
        cs, ce = blocks[0].char_start, blocks[-1].char_end
        return item.model_copy(update={
            "evidence_id": f"{item.doc_id}#opening", "chunk_id": OPENING, "char_start": cs,
            "char_end": ce, "quote": layer.text[cs:ce], "locator": "opening", "page": None,
            "bbox": None, "heading_path": (), "ranks": {}, "scores": {}, "flags": ()})

    def title(self, item: EvidenceItem, noun: str) -> tuple[EvidenceItem, Unit] | None:
        """A passage over the title of `item`'s document, with the title read as a unit: the
        first heading, or title line of a block, within its first `OPENING_CHARS`
        characters whose name's head is `noun` ("LICENSING AND WEB SITE HOSTING
        AGREEMENT" for "agreement") — or None."""
        layer = self._layer_of(item)
        if layer is None:
            return None
        for e in layer.blocks:
            if e.char_start >= OPENING_CHARS:
                break
            if e.kind == ElementKind.TABLE:
                continue
            body = layer.text[e.char_start:e.char_end]
            spans = [(0, len(body))] if e.kind not in STATEMENT_KINDS else sentence_spans(body)[:1]
            for a, b in spans:
                unit = read_title(layer.text, e.char_start + a, e.char_start + b, item.lang)
                if unit is None or noun not in named_heads(unit.text):
                    continue
                cs, ce = unit.pieces[0][0], unit.pieces[0][1]
                return item.model_copy(update={
                    "evidence_id": f"{item.doc_id}#title", "chunk_id": OPENING, "char_start": cs,
                    "char_end": ce, "quote": layer.text[cs:ce], "locator": "title", "page": None,
                    "bbox": None, "heading_path": (), "ranks": {}, "scores": {}, "flags": ()}), unit
        return None

    def _layer_of(self, item: EvidenceItem) -> Layer | None:
        key = (item.doc_id, item.text_layer)
        if key not in self._layers:
            rev = self.verifier.revision(item.doc_id)
            loaded = self.verifier.layer(rev, item.text_layer) if rev is not None else None
            self._layers[key] = Layer(loaded.layer, item.doc_sha256) if loaded else None
        return self._layers[key]

    def _blocks_of(self, item: EvidenceItem) -> list[ReadBlock]:
        layer = self._layer_of(item)
        if layer is None or not layer.blocks:
            # no layer to read (the citation will not verify): the passage alone
            hp = " > ".join(item.heading_path)
            return [read_block(item.quote, item.char_start, hp, item.lang)]
        return layer.read(item.char_start, item.char_end, item.lang)


class Layer:
    """A text layer's blocks, clauses and table cells, for reading."""

    def __init__(self, layer: TextLayer, sha: str) -> None:
        self.text = layer.text
        self.key = (sha, layer.layer_id)
        self.blocks = _block_elements(layer)
        self.starts = [e.char_start for e in self.blocks]
        self.clauses = sorted((e for e in layer.elements if e.kind == ElementKind.CLAUSE),
                              key=lambda e: (e.char_start, -e.char_end))
        self.cells = sorted((e for e in layer.elements if e.kind == ElementKind.CELL),
                            key=lambda e: e.char_start)
        self._cell_starts = [e.char_start for e in self.cells]
        self._titles: dict[int, str | None] = {}

    def read(self, cs: int, ce: int, lang: str | None) -> list[ReadBlock]:
        out = []
        j = max(0, bisect_right(self.starts, cs) - 1)
        for k in range(j, len(self.blocks)):
            e = self.blocks[k]
            if e.char_start >= ce:
                break
            if e.char_end <= cs:
                continue
            rkey = (*self.key, e.char_start, lang)
            got = _READ.get(rkey)
            if got is None:
                got = self._read(e, lang, *self._neighbours(k))
                _READ.put(rkey, got)
            out.append(got)
        return out

    def _neighbours(self, k: int) -> tuple[bool, bool]:
        """Whether the block before block `k` ends on an order that leaves its argument to
        it (`instructions.hands_over`: a form field "Ignore the previous clause." before the
        field that states the value), and whether the block after it begins by pointing
        back at it (`instructions.points_back`: "This is the correct answer …")."""
        before = self.blocks[k - 1] if k else None
        after = self.blocks[k + 1] if k + 1 < len(self.blocks) else None
        return (before is not None and hands_over(self.text[before.char_start:before.char_end]),
                after is not None and points_back(self.text[after.char_start:after.char_end]))

    def _read(self, e: Element, lang: str | None, carried: bool = False,
              pointed: bool = False) -> ReadBlock:
        context = " > ".join(x for x in (" > ".join(e.heading_path), *self._clause_titles(e)) if x)
        if e.kind == ElementKind.TABLE:
            meta = e.meta or {}
            caption = " > ".join(str(x) for x in (meta.get("caption"), *(meta.get("title_path") or ()))
                                 if x)
            lo = bisect_right(self._cell_starts, e.char_start - 1)
            cells = [c for c in self.cells[lo:] if c.char_start < e.char_end]
            # the stub head (the header cell over the row labels) names what the rows are
            stub = [" ".join(self.text[c.char_start:c.char_end].split()) for c in cells
                    if c.col == 1 and (c.meta or {}).get("header") == "column"]
            table = read_table(self.text, cells,
                               " > ".join(x for x in (context, caption, *stub) if x), lang)
            # an instruction in a table is suspected as anywhere else: the passage is
            # flagged, and no cell that holds any of it is a unit
            sus = read_block(self.text[e.char_start:e.char_end], e.char_start, "", lang,
                             carried, pointed).suspected
            return ReadBlock(tuple(u for u in table.units
                                   if not any(a < u.pieces[-1][1] and u.start < z for a, z in sus)),
                             sus)
        read = read_block(self.text[e.char_start:e.char_end], e.char_start, context, lang,
                          carried, pointed)
        if e.kind not in STATEMENT_KINDS:
            # a heading names a topic: context of what follows, never an answer; an
            # instruction in it is still suspected (the passage is flagged)
            return ReadBlock((), read.suspected)
        return read

    def _clause_titles(self, e: Element) -> list[str]:
        """Titles of the clauses that hold block `e`, outermost first."""
        out = []
        for c in self.clauses:
            if c.char_start > e.char_start:
                break
            if c.char_end <= e.char_start:
                continue
            if c.char_start not in self._titles:
                self._titles[c.char_start] = title_of(self.text, c)
            t = self._titles[c.char_start]
            if t and t not in out:
                out.append(t)
        return out


def _block_elements(layer: TextLayer) -> list[Element]:
    """The layer's outermost blocks, in reading order."""
    out: list[Element] = []
    for e in sorted((e for e in layer.elements if e.kind in BLOCK_KINDS),
                    key=lambda e: (e.char_start, -e.char_end)):
        if out and e.char_end <= out[-1].char_end:
            continue
        out.append(e)
    return out
