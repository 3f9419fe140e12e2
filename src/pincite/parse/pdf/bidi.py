"""Right-to-left and CJK text in pdfium's character stream: logical order, word spaces.

pdfium reads a page's characters in content-stream order and turns right-to-left runs
drawn in visual order (what Word, LibreOffice and HarfBuzz-based writers draw) into
logical order by reversing them. Three things come out wrong, each fixed here for the
class of text it names, on the page's stream before it is cut into lines:

- **a glyph that stands for several letters** (the lam-alef ligature لا, whose ToUnicode
  entry is lam then alef): pdfium reverses its letters with the run, so "خلال" reads
  "خالل". Such letters share one glyph, hence one box: a run of two or more characters
  with the same box, in a right-to-left run, is put back in the order the font gave it,
  unless it already reads as a presentation-form ligature (pdfium decomposes those itself,
  in logical order: U+FEFB reads lam, alef).
- **a combining mark drawn after its base** (fathatan over ض): reversed with the run it
  lands before its base ("أي ًضا" for "أيضًا"), often with a space pdfium made up (no
  width) in front. A right-to-left mark whose box centre lies inside the next letter's box
  goes after that letter; a space with no width between it and a letter it touches goes.
- **no space where Arabic and Latin letters meet** ("Pythonمن"): visual order puts the
  space of the logical text on the other side of the Latin run, so the two runs touch. An
  Arabic letter and a Latin letter never belong to one word: a space goes between them.
  (Hebrew is left as drawn: a Hebrew prefix letter may be written onto a Latin word.)

CJK ideographs and kana are not parted by spaces in writing; letter-spaced CJK (a title set
with character spacing) keeps its characters together: `cjk_pair` tells `lines` not to
read a gap narrower than `lines.GAP_WIDE` between two of them as a space (a wider one
parts two items, as in a table row), and `reading` not to put a space at a line end
between two of them.
"""

from __future__ import annotations

import re
import unicodedata
from functools import cache

import numpy as np

_RTL_RE = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]")
_ARABIC = "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufefc"
_LATIN = "A-Za-z\u00c0-\u024f"
_MEET_RE = re.compile(f"(?<=[{_ARABIC}])(?=[{_LATIN}])|(?<=[{_LATIN}])(?=[{_ARABIC}])")
_RTL_CLASSES = ("R", "AL")
_MARKS_RE = re.compile("[\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f"
                       "\u0670\u06d6-\u06dc\u06df-\u06e4\u06e7\u06e8\u06ea-\u06ed]+")


def has_rtl(text: str) -> bool:
    """Return True when `text` holds a Hebrew or Arabic character."""
    return not text.isascii() and _RTL_RE.search(text) is not None


def cjk(c: str) -> bool:
    """Return True for a character of a script written without spaces between words:
    Han ideographs, kana, CJK punctuation and fullwidth forms (not Hangul)."""
    o = ord(c)
    return (0x3000 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFF60 or 0x2E80 <= o <= 0x2FDF
            or 0x20000 <= o <= 0x3134F)


def cjk_pair(c0: str, c1: str) -> bool:
    """Return True when a gap between `c0` and `c1` is spacing, not a word break."""
    return c0 > "\u2e7f" and c1 > "\u2e7f" and cjk(c0) and cjk(c1)


def _rtl(c: str) -> bool:
    return unicodedata.bidirectional(c) in _RTL_CLASSES


@cache
def _ligatures() -> frozenset[str]:
    """Return the letters of every Arabic presentation-form ligature, in logical order
    (pdfium decomposes a presentation form itself, in this order)."""
    forms = [*range(0xFB50, 0xFE00), *range(0xFE70, 0xFF00)]
    return frozenset(d for c in forms if len(d := unicodedata.normalize("NFKC", chr(c))) > 1)


def logical_order(text: str, frame: np.ndarray) -> tuple[str, np.ndarray | None, list[int]]:
    """Return the page's text with ligature letters and marks in logical order, the
    permutation of characters (None when none moved) and the made-up spaces to drop.

    `frame` holds the character boxes (x0, top, x1, bottom) in the frame where the text
    reads left to right; a caller only calls this when `has_rtl(text)`.
    """
    chars = list(text)
    n = len(chars)
    x0, x1 = frame[:, 0], frame[:, 2]
    # letters of one glyph: the same box as the character before
    same = np.flatnonzero((x0[1:] == x0[:-1]) & (x1[1:] == x1[:-1]) & (x1[1:] > x0[1:]))
    k = 0
    runs = same.tolist()
    while k < len(runs):
        a = runs[k]
        b = a + 1
        while k + 1 < len(runs) and runs[k + 1] == b:
            k += 1
            b += 1
        k += 1
        run = "".join(chars[a:b + 1])
        if any(map(_rtl, run)) and run not in _ligatures():
            chars[a:b + 1] = run[::-1]
    perm: np.ndarray | None = None
    drops: list[int] = []
    for m in _MARKS_RE.finditer("".join(chars)):
        i, j = m.span()  # marks text[i:j], and their base: the next letter if the last
        if j >= n or not _rtl(chars[j]):  # mark's centre lies inside it
            continue
        mid = (x0[j - 1] + x1[j - 1]) / 2
        if not x0[j] - 0.5 <= mid <= x1[j] + 0.5 or x0[j - 1] == x0[j] and x1[j - 1] == x1[j]:
            continue  # (the same box: letters of one glyph, in the font's order)
        if perm is None:
            perm = np.arange(n)
        chars[i:j + 1] = [chars[j], *chars[i:j]]
        perm[i:j + 1] = np.concatenate(([perm[j]], perm[i:j]))
        s = i - 1  # a space of no width in front, between two letters that touch
        if (s > 0 and chars[s] == " " and x0[s] == x1[s] and _rtl(chars[s - 1])
                and abs(x0[s - 1] - x1[j]) < 0.15 * max(frame[j, 3] - frame[j, 1], 1.0)):
            drops.append(s)
    return "".join(chars), perm, drops


def script_meetings(text: str, a: int, b: int) -> list[int]:
    """Return the positions in `text[a:b]` where an Arabic letter and a Latin letter meet
    with nothing between them (a space goes there)."""
    return [m.start() for m in _MEET_RE.finditer(text, a, b)]
