"""How sure the OCR is of the words under a span, read from the stored layer.

A PDF layer with pages read from their images keeps every OCR word as
`[char_start, char_end, confidence]` (`layer.meta["ocr"]["words"]`, in order; see
`parse.pdf.ocr_marks`). Verification reads that record, never the image: the answer is
the same every time.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model import TextLayer
from ..parse.pdf.ocr_marks import lowest_confidence


@dataclass(frozen=True, slots=True)
class OcrWords:
    """The OCR word spans of one layer, with their starts for bisecting."""

    spans: list[list[float]]
    starts: list[float]

    @classmethod
    def of(cls, layer: TextLayer) -> OcrWords:
        """Return the OCR words of `layer` (none for a layer without OCR)."""
        record = (layer.meta or {}).get("ocr") or {}
        spans = [[int(s), int(e), float(c)] for s, e, c in record.get("words") or ()]
        return cls(spans, [s[0] for s in spans])

    def lowest(self, start: int, end: int) -> float | None:
        """Return the lowest confidence of the words overlapping `[start, end)`, or None
        when no OCR word is there."""
        return lowest_confidence(self.spans, self.starts, start, max(end, start + 1))
