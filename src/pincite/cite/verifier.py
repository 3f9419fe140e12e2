"""Citations: make them from a quote (`cite`) and check them without a model (`Verifier`).

A provenance entry verifies when, in this order:
1. its document resolves for the principal (else `unknown_document`);
2. the stored bytes of that revision still hash to `doc_sha256` (else `document_changed`);
3. the comparison form of the text at `[char_start, char_end)` of its text layer equals
   that of the quote (else `offsets_mismatch`);
4. the locator at `char_start` equals `locator` (else `locator_mismatch`).
A verified entry whose revision has a newer one says `superseded` (still verified).
An entry whose span overlaps an element the parser flagged `hidden_text` (display:none,
tiny or white text, invisible PDF text, hidden DOCX runs…) carries the flag `hidden_text`,
so every record, review item and report cell resting on it says so. An entry whose span
holds words read from a page image carries the flag `ocr` and `ocr_confidence`, the
lowest confidence of those words, from the layer's stored OCR record (`ocr_spans`): the
same answer every time, nothing is read again.
A document that was deleted says `source_deleted` to a principal of its tenant whom its
ACL at deletion allowed to read it, and `unknown_document` to everyone else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import NotFound, QuoteNotFound
from ..model import Citation, Principal, Revision, TextLayer, acl_allows, split_doc_id
from ..store import Store
from ..vocab import VERIFIED_REASONS, ElementKind, RecordFlag, VerifyReason
from .compare import FoldedText, same_text
from .locate import LocatorIndex
from .ocr_spans import OcrWords
from .resolve import resolve_doc

RevKey = tuple[str, str, str]


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
        self._folded: dict[tuple[RevKey, str], FoldedText] = {}
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
                data = self.store.blobs.get(rev.tenant, rev.sha256)
            except OSError:
                ok = False
            else:
                ok = hashlib.sha256(data).hexdigest() == rev.sha256
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

    def folded(self, rev: Revision, loaded: LoadedLayer) -> FoldedText:
        """Return the comparison form of a layer with its offset map (cached)."""
        key = ((rev.tenant, rev.source_id, rev.revision_id), loaded.layer.layer_id)
        f = self._folded.get(key)
        if f is None:
            f = FoldedText.build(loaded.text)
            self._folded[key] = f
        return f

    # ---- verification ---------------------------------------------------------------

    def check(self, c: Citation) -> VerifyReason:
        """Return the verify reason for one entry (see the module docstring)."""
        rev = self.revision(c.doc_id)
        if rev is None or "@" not in c.doc_id:
            return self._missing_reason(c.doc_id)
        if c.doc_sha256 != rev.sha256 or not self.bytes_match(rev):
            return VerifyReason.DOCUMENT_CHANGED
        loaded = self.layer(rev, c.text_layer or None)
        if loaded is None:
            return VerifyReason.OFFSETS_MISMATCH
        text = loaded.text
        if not (0 <= c.char_start < c.char_end <= len(text)):
            return VerifyReason.OFFSETS_MISMATCH
        if not same_text(text[c.char_start:c.char_end], c.quote):
            return VerifyReason.OFFSETS_MISMATCH
        if loaded.index.locator_at(c.char_start) != c.locator:
            return VerifyReason.LOCATOR_MISMATCH
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

    def cite(self, doc: str, quote: str, *, occurrence: int = 1) -> Citation:
        """Return the verified citation of the `occurrence`-th match of `quote` in `doc`.

        Raises NotFound for an unknown or invisible document and QuoteNotFound when the
        quote is not in its newest text layer.
        """
        rev = resolve_doc(self.store, self.principal, doc)
        loaded = self.layer(rev)
        if loaded is None:
            raise QuoteNotFound(rev.doc_id, quote)
        spans = self.folded(rev, loaded).find_all(quote, limit=max(1, occurrence))
        if len(spans) < occurrence:
            raise QuoteNotFound(rev.doc_id, quote)
        start, end = spans[occurrence - 1]
        return self.verify(citation_for(rev, loaded, start, end, quote))


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


def citation_for(rev: Revision, loaded: LoadedLayer, start: int, end: int,
                 quote: str | None = None) -> Citation:
    """Return an (unverified) citation of `[start, end)` in a loaded layer of `rev`."""
    layer = loaded.layer
    page = None
    bbox = None
    boxes: tuple = ()
    if layer.geometry is not None:
        spans = layer.geometry.span_boxes(start, end)
        if spans:
            page, bbox = spans[0]
            boxes = tuple(spans)
    if page is None:
        el = loaded.index.element_at(start)
        page = el.page if el is not None else None
    return Citation(
        doc_id=rev.doc_id, doc_sha256=rev.sha256, text_layer=layer.layer_id,
        locator=loaded.index.locator_at(start), page=page, bbox=bbox,
        char_start=start, char_end=end,
        quote=quote if quote is not None else layer.text[start:end], boxes=boxes,
    )
