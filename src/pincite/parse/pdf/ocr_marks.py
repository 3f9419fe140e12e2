"""A built PDF layer with pages read from their images: its OCR words, flags and record.

After the layer is built from born-digital and OCR lines alike, each character of a
page read by OCR is found again by its page and box (`OcrPass.char_word`: every OCR
character's float32 box, exactly as the layer stores it), which gives

- the **word spans**: `[char_start, char_end, confidence]` for every OCR word, in layer
  order, kept in `layer.meta["ocr"]["words"]` (what `cite` reads to say how sure the
  words under a quote are);
- the **element marks**: every element holding OCR words carries the flag `ocr` and
  `meta["ocr_confidence"]`, the lowest confidence of its words; the page element of a
  page read by OCR carries `meta["ocr"]` (why it was read, dpi, words, mean confidence);
- the **layer's id and record**: a layer with text read from images is `pdf+ocr` at
  version `<pdf parser version>.<OCR_VERSION>` (`pdf+ocr@4.1`), so a citation's
  `text_layer` says OCR; `meta["ocr"]` names the engine, its version, the binding, the
  language packs with their sha256, and each page that needed reading with its
  `OcrStatus`. Flags: `ocr`, and `ocr_incomplete` when a page could not be read.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from ...model import Element, TextLayer
from ...vocab import ElementKind, LayerFlag, OcrStatus

if TYPE_CHECKING:
    from .scanned import OcrPass

OCR_VERSION = "1"
OCR_PARSER_SUFFIX = "+ocr"
_OCR = LayerFlag.OCR.value


def _word_spans(layer: TextLayer, scan: OcrPass) -> list[list[float]]:
    """Return `[char_start, char_end, confidence]` of every OCR word in `layer`, in order."""
    geo = layer.geometry
    read = sorted({p.page for p in scan.pages if p.status == OcrStatus.READ})
    if geo is None or not read:
        return []
    pages = np.frombuffer(geo.pages, dtype=np.uint16)
    boxes = np.frombuffer(geo.flat, dtype=np.float32).reshape(-1, 4)
    idx = np.flatnonzero(np.isin(pages, read)).tolist()
    spans: list[list[float]] = []
    prev_i = prev_w = -2
    for i, p, b in zip(idx, pages[idx].tolist(), boxes[idx].tolist(), strict=True):
        w = scan.char_word.get((p, b[0], b[1], b[2], b[3]))
        if w is None:
            prev_w = -2
            continue
        if w == prev_w and i == prev_i + 1:
            spans[-1][1] = i + 1
        else:
            spans.append([i, i + 1, scan.confidence[w]])
        prev_i, prev_w = i, w
    return spans


def lowest_confidence(spans: list[list[float]], starts: list[float], start: int,
                      end: int) -> float | None:
    """Return the lowest confidence of the word spans overlapping `[start, end)` (`starts`:
    their starts, for bisecting), or None when no OCR word is there."""
    k = max(0, bisect_right(starts, start) - 1)
    low: float | None = None
    while k < len(spans) and spans[k][0] < end:
        s, e, c = spans[k]
        if e > start and (low is None or c < low):
            low = c
        k += 1
    return low


def _marked(el: Element, low: float) -> Element:
    meta = dict(el.meta or {})
    meta["ocr_confidence"] = low
    flags = tuple(sorted({*el.flags, _OCR}))
    return replace(el, flags=flags, meta=meta)


def mark_layer(layer: TextLayer, scan: OcrPass) -> TextLayer:
    """Return `layer` with its OCR word spans, element marks, id and record."""
    spans = _word_spans(layer, scan)
    starts = [s[0] for s in spans]
    by_page = {p.page: p for p in scan.pages if p.status == OcrStatus.READ}
    elements = []
    for el in layer.elements:
        if el.kind == ElementKind.PAGE and el.page in by_page:
            read = by_page[el.page]
            meta = dict(el.meta or {})
            meta["ocr"] = {"reason": str(read.reason), "dpi": read.dpi, "words": read.words,
                           "mean_confidence": read.mean_confidence}
            elements.append(replace(el, flags=tuple(sorted({*el.flags, _OCR})), meta=meta))
            continue
        low = lowest_confidence(spans, starts, el.char_start, el.char_end) if spans else None
        elements.append(el if low is None else _marked(el, low))
    flags = set(layer.flags)
    if spans:
        flags.add(_OCR)
        flags.discard("no_text_layer")
    if any(p.status != OcrStatus.READ for p in scan.pages):
        flags.add(LayerFlag.OCR_INCOMPLETE.value)
    record: dict = {**(scan.info.to_dict() if scan.info is not None else {}),
                    "reader": OCR_VERSION, "settings": {
                        "languages": scan.settings.languages, "dpi": scan.settings.dpi,
                        "max_pixels": scan.settings.max_pixels,
                        "page_seconds": scan.settings.page_seconds,
                        "max_pages": scan.settings.max_pages},
                    "pages": [p.to_dict() for p in scan.pages],
                    "words": spans}
    out = replace(layer, elements=tuple(elements), flags=tuple(sorted(flags)),
                  meta={**(layer.meta or {}), "ocr": record})
    if spans:
        out = replace(out, parser=layer.parser + OCR_PARSER_SUFFIX,
                      version=f"{layer.version}.{OCR_VERSION}")
    return out
