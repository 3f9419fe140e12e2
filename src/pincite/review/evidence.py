"""The evidence of a review item as a reviewer reads it, in reading order.

For each cited passage: the surrounding clause from the text layer with the cited span
marked inside it (the seed's "the interface opens the surrounding clause, not only the
span"), and — for PDF pages — the page rendered by pypdfium2 with the cited boxes
expressed as fractions of the page (boxes are `(x0, top, x1, bottom)` in PDF points,
origin at the page's top-left, see `pincite.model`), so a page image of any size can
place a highlight over them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

from ..cite.locate import LocatorIndex
from ..cite.resolve import resolve_doc
from ..errors import NotFound
from ..model import Principal, Revision, TextLayer
from ..store import Store
from ..store.lru import LRU
from ..vocab import ElementKind

CONTEXT_KINDS = (ElementKind.CLAUSE, ElementKind.TABLE, ElementKind.LIST_ITEM,
                 ElementKind.PARAGRAPH)
MAX_CONTEXT = 2400
RENDER_SCALE = 2.0

_render_lock = threading.Lock()  # pdfium is not thread-safe
_page_cache = LRU(32)  # (sha256, page, scale) -> PNG bytes


@dataclass(frozen=True, slots=True)
class Highlight:
    """A cited box on a page, as fractions of the page's width and height."""

    page: int
    left: float
    top: float
    width: float
    height: float
    bbox: tuple[float, float, float, float]

    def to_dict(self) -> dict[str, Any]:
        return {"page": self.page, "left": self.left, "top": self.top, "width": self.width,
                "height": self.height, "bbox": list(self.bbox)}


def _context(layer: TextLayer, start: int, end: int) -> tuple[int, int, str]:
    """Return (start, end, locator) of the element a span sits in: the innermost clause,
    else table, list item or paragraph; else a window around the span."""
    best: dict[str, tuple[int, int, str]] = {}
    for e in layer.elements:
        if e.kind in CONTEXT_KINDS and e.char_start <= start and end <= e.char_end:
            cur = best.get(e.kind)
            if cur is None or e.char_end - e.char_start < cur[1] - cur[0]:
                best[e.kind] = (e.char_start, e.char_end, e.locator)
    for kind in CONTEXT_KINDS:
        if kind in best:
            return best[kind]
    return max(0, start - 300), min(len(layer.text), end + 300), ""


def _trim(text: str, cs: int, ce: int, s: int, e: int) -> tuple[str, str, str]:
    """Return (before, span, after) of `text[s:e]` around `[cs, ce)`, shortened with '…'."""
    before, span, after = text[s:cs], text[cs:ce], text[ce:e]
    room = max(0, MAX_CONTEXT - len(span)) // 2
    if len(before) > room:
        before = "…" + before[len(before) - room:]
    if len(after) > room:
        after = after[:room] + "…"
    return before, span, after


def highlights(entry: dict[str, Any], layer: TextLayer) -> list[Highlight]:
    """Return the cited boxes of a provenance entry as fractions of their pages."""
    boxes: list[tuple[int, list[float]]] = []
    if entry.get("boxes"):
        boxes = [(int(b["page"]), list(b["bbox"])) for b in entry["boxes"]]
    elif entry.get("bbox") and entry.get("page"):
        boxes = [(int(entry["page"]), list(entry["bbox"]))]
    out = []
    for page, (x0, top, x1, bottom) in boxes:
        if not (1 <= page <= len(layer.page_sizes)):
            continue
        w, h = layer.page_sizes[page - 1]
        out.append(Highlight(page, x0 / w, top / h, (x1 - x0) / w, (bottom - top) / h,
                             (x0, top, x1, bottom)))
    return out


def evidence_views(store: Store, principal: Principal, item: dict[str, Any]
                   ) -> list[dict[str, Any]]:
    """Return each cited passage of an item, in reading order, ready for the item page."""
    out = []
    entries = list(item.get("evidence") or ())
    for k, entry in enumerate(entries):
        view: dict[str, Any] = {"index": k, "entry": entry, "doc_id": entry.get("doc_id"),
                                "locator": entry.get("locator"), "page": entry.get("page"),
                                "quote": entry.get("quote"), "available": False,
                                "highlights": [], "pages": [], "purged": bool(entry.get("purged"))}
        if not entry.get("doc_id"):  # what a purged document said: a tombstone
            out.append(view)
            continue
        try:
            rev = resolve_doc(store, principal, str(entry.get("doc_id")))
        except NotFound:
            out.append(view)
            continue
        layer = store.text_layer(rev, entry.get("text_layer") or None) or store.text_layer(rev)
        if layer is None:
            out.append(view)
            continue
        cs, ce = int(entry["char_start"]), int(entry["char_end"])
        cs, ce = max(0, min(cs, len(layer.text))), max(0, min(ce, len(layer.text)))
        s, e, loc = _context(layer, cs, ce)
        before, span, after = _trim(layer.text, cs, ce, min(s, cs), max(e, ce))
        hl = highlights(entry, layer) if rev.media_type == "application/pdf" else []
        view.update(available=True, media_type=rev.media_type, context_locator=loc or view["locator"],
                    before=before, span=span, after=after,
                    locator_now=LocatorIndex.build(layer).locator_at(cs),
                    highlights=[h.to_dict() for h in hl],
                    pages=sorted({h.page for h in hl}))
        out.append(view)
    return out


def render_page_png(store: Store, rev: Revision, page: int,
                    scale: float = RENDER_SCALE) -> bytes:
    """Return a PDF page of a revision rendered to PNG by pypdfium2 (cached)."""
    key = (rev.sha256, page, scale)
    with _render_lock:
        got: bytes | None = _page_cache.get(key)
        if got is not None:
            return got
        from ..errors import UsageError
        from ..parse.pdf.render import render_page_png as render
        from ..store.blobs import open_blob

        try:
            with open_blob(store.blobs, rev.tenant, rev.sha256) as fh:
                png = render(fh, page, scale=scale)[0]
        except UsageError as exc:
            raise NotFound("page", f"{rev.doc_id} p.{page}") from exc
        _page_cache.put(key, png)
        return png
