"""A PDF line's text put in NFC one character (or combining sequence) at a time, so each
character keeps a box: composed pairs get the union of their boxes."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from ...model import Box

_ZERO: Box = (0.0, 0.0, 0.0, 0.0)


def compose(text: str, boxes: Iterable[Box], holes: list[int]
            ) -> tuple[str, list[Box] | None, list[int]]:
    """Return the text in NFC, its boxes (None when they stay one for one) and its holes
    (the characters that are not glyphs)."""
    if not any(map(unicodedata.combining, text)):  # one character for one: same boxes
        return text.translate({
            ord(ch): c for ch in set(text)
            if not ch.isascii() and len(c := unicodedata.normalize("NFC", ch)) == 1}), None, holes
    hole_set = set(holes)
    out: list[str] = []
    new_boxes: list[Box] = []
    new_holes: list[int] = []
    for i, (ch, box) in enumerate(zip(text, boxes, strict=True)):
        if out and unicodedata.combining(ch):
            comp = unicodedata.normalize("NFC", out[-1] + ch)
            if len(comp) == 1:
                out[-1] = comp
                prev = new_boxes[-1]
                if i not in hole_set and prev != _ZERO:
                    new_boxes[-1] = (min(prev[0], box[0]), min(prev[1], box[1]),
                                     max(prev[2], box[2]), max(prev[3], box[3]))
                continue
        one = unicodedata.normalize("NFC", ch)
        if i in hole_set:
            new_holes.append(len(out))
        out.append(one if len(one) == 1 else ch)
        new_boxes.append(box)
    return "".join(out), new_boxes, new_holes
