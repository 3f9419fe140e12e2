"""Citations: make them from a quote (`cite`) and check them without a model (`Verifier`).

A provenance entry verifies when, in this order:
0. its quote holds something in its comparison form (else `empty_quote`);
1. its document resolves for the principal (else `unknown_document`);
2. the stored bytes of that revision still hash to `doc_sha256` (else `document_changed`);
3. the comparison form (the version the entry names, `comparison`; none: cmp-1) of the
   text at `[char_start, char_end)` of its text layer equals that of the quote (else
   `offsets_mismatch`);
4. the span starts and ends on token boundaries of the layer (`tokens`; else
   `cut_inside_word`): "The fee is 10" never verifies against "The fee is 106";
5. the locator at `char_start` equals `locator` (else `locator_mismatch`);
6. the `page`, `bbox` and `boxes` it gives are the layer's for that span, boxes within
   `BOX_TOLERANCE` points (else `geometry_mismatch`): a PDF layer's per-character boxes,
   else the page of the element holding `char_start` and no box. A null page or bbox
   claims nothing and is not checked; a bbox without a page is a mismatch.
A verified entry whose revision has a newer one says `superseded` (still verified).
An entry whose span overlaps an element the parser flagged `hidden_text` (display:none,
tiny or white text, invisible PDF text, hidden DOCX runs…) carries the flag `hidden_text`,
so every record, review item and report cell resting on it says so. An entry whose span
holds words read from a page image carries the flag `ocr` and `ocr_confidence`, the
lowest confidence of those words, from the layer's stored OCR record (`ocr_spans`): the
same answer every time, nothing is read again.
A document that was deleted says `source_deleted` to a principal of its tenant whom its
ACL at deletion allowed to read it, and `unknown_document` to everyone else.

`cite` finds a quote with `match.QuoteFinder` (tiers: as written, case folded, respaced,
extended to whole words), returns the document's own characters as the quote, and lists
every occurrence when there is more than one (`ambiguous` unless one was chosen with
`occurrence` or narrowed to one by `locator`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from ..errors import EmptyQuote, InvalidCitation, NotFound, QuoteNotFound, UsageError
from ..model import (
    Box,
    Citation,
    Occurrence,
    Principal,
    Revision,
    TextLayer,
    acl_allows,
    split_doc_id,
)
from ..model.cells import has_surrogate
from ..store import Store
from ..vocab import VERIFIED_REASONS, CiteNote, ElementKind, RecordFlag, VerifyReason
from .compare import VERSIONS, comparison_form, same_text
from .locate import LocatorIndex
from .match import Match, QuoteFinder
from .ocr_spans import OcrWords
from .resolve import resolve_doc
from .tokens import on_boundaries

RevKey = tuple[str, str, str]
BOX_TOLERANCE = 0.01   # points: the JSON form rounds boxes to 2 decimals
MAX_LISTED = 50        # occurrences a citation lists (`occurrence_count` counts them all)


@dataclass(frozen=True, slots=True)
class LoadedLayer:
    """A text layer with its lookup structures."""

    layer: TextLayer
    index: LocatorIndex

    @property
    def text(self) -> str:
        return self.layer.text


class Verifier:
    """Verifies provenance entries for one principal, caching per revision and layer."""

    def __init__(self, store: Store, principal: Principal) -> None:
        self.store = store
        self.principal = principal
        self._revs: dict[str, Revision | None] = {}
        self._hash_ok: dict[RevKey, bool] = {}
        self._layers: dict[tuple[RevKey, str], LoadedLayer | None] = {}
        self._folded: dict[tuple[RevKey, str], QuoteFinder] = {}
        self._hidden: dict[tuple[RevKey, str], tuple[tuple[int, int], ...]] = {}
        self._ocr: dict[tuple[RevKey, str], OcrWords] = {}

    # ---- cached lookups ------------------------------------------------------------

    def revision(self, doc_id: str) -> Revision | None:
        """Return the revision a doc id names for this principal, or None."""
        if doc_id not in self._revs:
            try:
                self._revs[doc_id] = resolve_doc(self.store, self.principal, doc_id)
            except NotFound:
                self._revs[doc_id] = None
        return self._revs[doc_id]

    def bytes_match(self, rev: Revision) -> bool:
        """Return True when the stored blob of `rev` still hashes to its sha256 (cached)."""
        key = (rev.tenant, rev.source_id, rev.revision_id)
        ok = self._hash_ok.get(key)
        if ok is None:
            try:
                ok = self.store.blobs.digest(rev.tenant, rev.sha256) == rev.sha256
            except OSError:
                ok = False
            self._hash_ok[key] = ok
        return ok

    def layer(self, rev: Revision, layer_id: str | None = None) -> LoadedLayer | None:
        """Return a revision's text layer (`None` id: the newest) with its locator index."""
        key = ((rev.tenant, rev.source_id, rev.revision_id), layer_id or "")
        if key not in self._layers:
            layer = self.store.text_layer(rev, layer_id or None)
            loaded = LoadedLayer(layer, LocatorIndex.build(layer)) if layer else None
            self._layers[key] = loaded
            if loaded is not None and not layer_id:
                self._layers[(key[0], layer.layer_id)] = loaded  # type: ignore[union-attr]
        return self._layers[key]

    def folded(self, rev: Revision, loaded: LoadedLayer) -> QuoteFinder:
        """Return the quote finder of a layer (its comparison forms, cached)."""
        key = ((rev.tenant, rev.source_id, rev.revision_id), loaded.layer.layer_id)
        f = self._folded.get(key)
        if f is None:
            f = QuoteFinder(loaded.text)
            self._folded[key] = f
        return f

    # ---- verification ---------------------------------------------------------------

    def check(self, c: Citation) -> VerifyReason:
        """Return the verify reason for one entry (see the module docstring)."""
        if c.comparison not in VERSIONS:
            raise InvalidCitation(f"comparison form {c.comparison!r} is unknown; known: "
                                  f"{', '.join(VERSIONS)}")
        if not comparison_form(c.quote, c.comparison):
            return VerifyReason.EMPTY_QUOTE
        rev = self.revision(c.doc_id)
        if rev is None or "@" not in c.doc_id:
            return self._missing_reason(c.doc_id)
        if c.doc_sha256 != rev.sha256 or not self.bytes_match(rev):
            return VerifyReason.DOCUMENT_CHANGED
        loaded = self.layer(rev, c.text_layer or None)
        if loaded is None:
            return VerifyReason.OFFSETS_MISMATCH
        reason = check_span(loaded, c)
        if reason is not None:
            return reason
        return VerifyReason.SUPERSEDED if rev.valid_to is not None else VerifyReason.OK

    def _missing_reason(self, doc_id: str) -> VerifyReason:
        """`source_deleted` for a deleted revision the principal could read, else unknown."""
        source_id, rev_id = split_doc_id(doc_id)
        if rev_id is None:
            return VerifyReason.UNKNOWN_DOCUMENT
        tomb = self.store.tombstone_for(self.principal.tenant, source_id, int(rev_id[1:]))
        if tomb is not None and acl_allows(tomb.acl, self.principal):
            return VerifyReason.SOURCE_DELETED
        return VerifyReason.UNKNOWN_DOCUMENT

    def verify(self, c: Citation) -> Citation:
        """Return the entry with `quote_verified`, `verify_reason` and `flags` set by this check."""
        reason = self.check(c)
        flags, low = self.span_flags(c), self.ocr_confidence(c)
        if low is not None:
            flags = tuple(sorted({*flags, RecordFlag.OCR.value}))
        return c.with_result(reason in VERIFIED_REASONS, reason, flags, low)

    def ocr_confidence(self, c: Citation) -> float | None:
        """Return the lowest confidence of the OCR words under the span an entry cites, or
        None when it holds none (or does not resolve)."""
        rev = self.revision(c.doc_id)
        loaded = self.layer(rev, c.text_layer or None) if rev is not None else None
        if rev is None or loaded is None or "@" not in c.doc_id:
            return None
        key = ((rev.tenant, rev.source_id, rev.revision_id), loaded.layer.layer_id)
        words = self._ocr.get(key)
        if words is None:
            words = self._ocr[key] = OcrWords.of(loaded.layer)
        return words.lowest(c.char_start, c.char_end)

    def span_flags(self, c: Citation) -> tuple[str, ...]:
        """Return the `RecordFlag`s of the span an entry cites (`hidden_text` when it overlaps
        an element the parser flagged hidden), or () when the span does not resolve."""
        rev = self.revision(c.doc_id)
        if rev is None or "@" not in c.doc_id:
            return ()
        loaded = self.layer(rev, c.text_layer or None)
        if loaded is None:
            return ()
        key = ((rev.tenant, rev.source_id, rev.revision_id), loaded.layer.layer_id)
        if key not in self._hidden:
            self._hidden[key] = hidden_spans(loaded.layer)
        return span_flags(loaded.layer, c.char_start, c.char_end, self._hidden[key])

    def verify_all(self, entries: Iterable[Citation]) -> list[Citation]:
        """Return every entry verified, in order."""
        return [self.verify(c) for c in entries]

    # ---- citing ------------------------------------------------------------------------

    def cite(self, doc: str, quote: str, *, occurrence: int | None = None,
             locator: str | None = None) -> Citation:
        """Return the verified citation of `quote` in `doc`'s newest text layer: of its
        `occurrence`-th occurrence (1-based) among those inside the elements whose locator
        is `locator` (all when None); the first, marked `ambiguous`, when several remain
        and none was chosen.

        Raises EmptyQuote for a quote with nothing to compare, UsageError for one holding a
        lone surrogate (no document holds one), NotFound for an unknown or invisible
        document or a locator no element has, and QuoteNotFound when the quote (or the
        chosen occurrence) is not there.
        """
        if not comparison_form(quote):
            raise EmptyQuote()
        if has_surrogate(quote):
            raise UsageError("the quote holds a lone surrogate (an undecodable byte such as "
                             "U+DC80), which no text layer holds: give the quote as UTF-8 "
                             "text copied from the document")
        rev = resolve_doc(self.store, self.principal, doc)
        loaded = self.layer(rev)
        if loaded is None:
            raise QuoteNotFound(rev.doc_id, quote)
        found = self.folded(rev, loaded).find(quote, limit=10_000)
        matches = list(found.matches)
        if not matches:
            raise QuoteNotFound(rev.doc_id, quote)
        if locator is not None:
            matches = _inside(loaded, matches, locator, rev.doc_id, quote)
        total = len(matches) if locator is not None else found.total
        if occurrence is not None and not 1 <= occurrence <= len(matches):
            raise QuoteNotFound(rev.doc_id, quote, (
                f"occurs {total} time(s) in {rev.doc_id}{_within(locator)}, so there is no "
                f"occurrence {occurrence}: give --occurrence from 1 to {len(matches)}"))
        pick = (occurrence or 1) - 1
        m = matches[pick]
        c = citation_for(rev, loaded, m.char_start, m.char_end)
        notes = set(m.notes)
        occs: tuple[Occurrence, ...] = ()
        if len(matches) > 1:
            if occurrence is None:
                notes.add(CiteNote.AMBIGUOUS)
            occs = tuple(_occurrence(loaded, x) for x in matches[:MAX_LISTED])
        return self.verify(replace(
            c, notes=tuple(n.value for n in CiteNote if n in notes), occurrences=occs,
            occurrence=pick + 1 if occs else None, occurrence_count=total if occs else 0))


def hidden_spans(layer: TextLayer) -> tuple[tuple[int, int], ...]:
    """Return the `[start, end)` spans of `layer` that hold hidden text.

    A table whose cells carry their own `hidden_text` flags (XLSX, HTML) is decided by its
    cells, so one hidden cell does not flag a citation of another; a table flagged only as a
    whole (DOCX) counts as a whole."""
    hidden = RecordFlag.HIDDEN_TEXT.value
    flagged = [el for el in layer.elements if hidden in el.flags]
    cells = [el for el in flagged if el.kind == ElementKind.CELL]
    out = []
    for el in flagged:
        if el.kind == ElementKind.TABLE and any(
                el.char_start <= c.char_start and c.char_end <= el.char_end for c in cells):
            continue
        out.append((el.char_start, el.char_end))
    return tuple(out)


def span_flags(layer: TextLayer, start: int, end: int,
               spans: tuple[tuple[int, int], ...] | None = None) -> tuple[str, ...]:
    """Return (`hidden_text`,) when `[start, end)` overlaps hidden text of `layer`
    (`spans`: its `hidden_spans`, when already computed)."""
    end = max(end, start + 1)
    for s, e in hidden_spans(layer) if spans is None else spans:
        if s < end and start < e:
            return (RecordFlag.HIDDEN_TEXT.value,)
    return ()


def geometry_of(loaded: LoadedLayer, start: int, end: int
                ) -> tuple[int | None, Box | None, tuple[tuple[int, Box], ...]]:
    """Return (page, bbox, boxes) of `[start, end)`: the per-page union boxes of a PDF
    layer's characters (page and bbox: the first page's), else the page of the element
    holding `start` and no box."""
    layer = loaded.layer
    if layer.geometry is not None:
        spans = layer.geometry.span_boxes(start, end)
        if spans:
            return spans[0][0], spans[0][1], tuple(spans)
    el = loaded.index.element_at(start)
    return (el.page if el is not None else None), None, ()


def _close(a: Box | None, b: Box | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return all(abs(x - y) <= BOX_TOLERANCE + 1e-6 for x, y in zip(a, b, strict=True))


def check_span(loaded: LoadedLayer, c: Citation) -> VerifyReason | None:
    """Return why `c` does not hold in `loaded` (checks 3-6 of the module docstring), or
    None when its quote, token boundaries, locator and geometry all hold."""
    text = loaded.text
    s, e = c.char_start, c.char_end
    if not (0 <= s < e <= len(text)) or not same_text(text[s:e], c.quote, c.comparison):
        return VerifyReason.OFFSETS_MISMATCH
    if not on_boundaries(text, s, e):
        return VerifyReason.CUT_INSIDE_WORD
    if loaded.index.locator_at(s) != c.locator:
        return VerifyReason.LOCATOR_MISMATCH
    page, bbox, boxes = geometry_of(loaded, s, e)
    if c.page is not None and c.page != page:
        return VerifyReason.GEOMETRY_MISMATCH
    if c.bbox is not None and (c.page is None or not _close(c.bbox, bbox)):
        return VerifyReason.GEOMETRY_MISMATCH
    if len(c.boxes) > 1 and (len(c.boxes) != len(boxes) or not all(
            p == q and _close(a, b) for (p, a), (q, b) in zip(c.boxes, boxes, strict=True))):
        return VerifyReason.GEOMETRY_MISMATCH
    return None


def _occurrence(loaded: LoadedLayer, m: Match) -> Occurrence:
    page, _, _ = geometry_of(loaded, m.char_start, m.char_end)
    return Occurrence(m.char_start, m.char_end, loaded.index.locator_at(m.char_start), page)


def _within(locator: str | None) -> str:
    return f" inside {locator!r}" if locator is not None else ""


def _inside(loaded: LoadedLayer, matches: list[Match], locator: str, doc_id: str,
            quote: str) -> list[Match]:
    """Return the matches inside an element whose locator is `locator`; raise NotFound
    when no element has it and QuoteNotFound (naming where it does occur) when none is."""
    els = [el for el in loaded.layer.elements if el.locator == locator]
    if not els:
        raise NotFound("locator", locator)
    inside = [m for m in matches if any(el.char_start <= m.char_start and m.char_end <= el.char_end
                                        for el in els)]
    if not inside:
        where = sorted({loaded.index.locator_at(m.char_start) or "(no locator)" for m in matches})
        raise QuoteNotFound(doc_id, quote, (
            f"is not inside {locator!r} of {doc_id}; it occurs {len(matches)} time(s), in "
            f"{', '.join(where[:10])}{', …' if len(where) > 10 else ''}: give one of those "
            "with --locator, or --occurrence N"))
    return inside


def citation_for(rev: Revision, loaded: LoadedLayer, start: int, end: int,
                 quote: str | None = None) -> Citation:
    """Return an (unverified) citation of `[start, end)` in a loaded layer of `rev` (its
    quote: the layer's own text unless `quote` is given)."""
    page, bbox, boxes = geometry_of(loaded, start, end)
    return Citation(
        doc_id=rev.doc_id, doc_sha256=rev.sha256, text_layer=loaded.layer.layer_id,
        locator=loaded.index.locator_at(start), page=page, bbox=bbox,
        char_start=start, char_end=end,
        quote=quote if quote is not None else loaded.layer.text[start:end], boxes=boxes,
    )
