"""A PDF line's text put in NFC one character (or combining sequence) at a time, so each
character keeps a box: composed pairs get the union of their boxes, both as shown and in
the line's own frame (`frames`) where it has one."""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from ...model import Box

_ZERO: Box = (0.0, 0.0, 0.0, 0.0)


def compose(text: str, boxes: Sequence[Box], holes: list[int], fboxes: Sequence[Box] | None = None,
            ) -> tuple[str, list[Box] | None, list[int], list[Box] | None]:
    """Return the text in NFC, its boxes as shown and in its own frame (each None when they
    stay one for one, or for `fboxes` when none are given) and its holes (the characters
    that are not glyphs)."""
    if not any(map(unicodedata.combining, text)):  # one character for one: same boxes
        return text.translate({
            ord(ch): c for ch in set(text)
            if not ch.isascii() and len(c := unicodedata.normalize("NFC", ch)) == 1}), None, holes, None
    hole_set = set(holes)
    out: list[str] = []
    new_boxes: list[Box] = []
    new_fboxes: list[Box] = []
    new_holes: list[int] = []
    own = boxes if fboxes is None else fboxes
    for i, (ch, box, fbox) in enumerate(zip(text, boxes, own, strict=True)):
        if out and unicodedata.combining(ch):
            comp = unicodedata.normalize("NFC", out[-1] + ch)
            if len(comp) == 1:
                out[-1] = comp
                if i not in hole_set and new_boxes[-1] != _ZERO:
                    new_boxes[-1] = _union(new_boxes[-1], box)
                    new_fboxes[-1] = _union(new_fboxes[-1], fbox)
                continue
        one = unicodedata.normalize("NFC", ch)
        if i in hole_set:
            new_holes.append(len(out))
        out.append(one if len(one) == 1 else ch)
        new_boxes.append(box)
        new_fboxes.append(fbox)
    return "".join(out), new_boxes, new_holes, None if fboxes is None else new_fboxes


def _union(a: Box, b: Box) -> Box:
    return (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
