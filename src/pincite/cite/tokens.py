"""Token boundaries of a text layer: where a verified quote may start and end.

A *word character* is a letter, digit or other number (Unicode categories L and N;
superscripts, subscripts and fractions included) outside the no-space scripts. A position
between two characters is a **token boundary** unless:
1. both sides are word characters ("10|6", "no|t", "27t|h", "Agreement|¹");
2. the right side is a combining mark (it belongs to the character before it);
3. a *joiner* binds the two sides into one token:
   - a hyphen (`-` U+2010 U+2011), apostrophe (`'` ’ ʼ) or slash between two word
     characters ("non-exclusive", "can't", "and/or"), except that a possessive `'s`
     may be left off ("the Buyer" in "the Buyer's");
   - a period, comma or colon between two digits ("18,500", "450.000,50", "14:00");
4. a sign (`-` − – `+`) that starts a number is bound to its first digit ("−10");
5. a percent or per-mille sign is bound to the digit before it ("10%").
Soft hyphens, zero-width and other format characters (category Cf) are transparent: the
rule looks through them. The start and end of the text are boundaries.

In the **no-space scripts** (Han ideographs, Hiragana, Katakana, Thai, Lao, Khmer,
Myanmar) each character, with its combining marks, is a token of its own: a quote may
start or end at any of them, and between one and a Latin letter.

So a quote may end at punctuation ("The fee is 10." before " EUR") or before a space, but
never inside "106", "not", "18,500", "10%" or "non-exclusive".
"""

from __future__ import annotations

import functools
import unicodedata

_HYPHENS = "-\u2010\u2011"
_APOSTROPHES = "'\u2019\u02bc"
_WORD_JOINERS = _HYPHENS + _APOSTROPHES + "/"
_DIGIT_JOINERS = ".,:"
_SIGNS = "-+\u2212\u2013"
_PERCENT = "%\u2030\u2031"
_NO_SPACE = (
    (0x0E00, 0x0EFF),    # Thai, Lao
    (0x1000, 0x109F),    # Myanmar
    (0x1780, 0x17FF),    # Khmer
    (0x3040, 0x30FF),    # Hiragana, Katakana
    (0x31F0, 0x31FF),    # Katakana phonetic extensions
    (0x3400, 0x4DBF),    # CJK extension A
    (0x4E00, 0x9FFF),    # CJK unified ideographs
    (0xF900, 0xFAFF),    # CJK compatibility ideographs
    (0xFF66, 0xFF9F),    # half-width Katakana
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)

WORD, SOLO, MARK, CLEAR, OTHER = "w", "s", "m", "t", "o"


def _no_space(cp: int) -> bool:
    return any(a <= cp <= b for a, b in _NO_SPACE)


@functools.lru_cache(maxsize=8192)  # a text's few hundred distinct characters, asked often
def kind(ch: str) -> str:
    """Return the token class of `ch`: WORD, SOLO (a no-space script character), MARK
    (combining), CLEAR (a transparent format character) or OTHER."""
    cat = unicodedata.category(ch)
    if cat[0] == "M":
        return MARK
    if cat == "Cf":
        return CLEAR
    if cat[0] in "LN":
        return SOLO if _no_space(ord(ch)) else WORD
    return OTHER


def _is_digit(ch: str) -> bool:
    return unicodedata.category(ch) == "Nd"


def _left(text: str, i: int) -> int:
    """Index of the nearest character before `i` that is neither transparent nor a mark."""
    j = i - 1
    while j >= 0 and kind(text[j]) in (CLEAR, MARK):
        j -= 1
    return j


def _right(text: str, i: int) -> int:
    """Index of the nearest character at or after `i` that is not transparent."""
    k = i
    while k < len(text) and kind(text[k]) == CLEAR:
        k += 1
    return k


def _joined(text: str, p: int) -> bool:
    """True when the joiner at `p` binds the characters on its two sides."""
    ch = text[p]
    j, k = _left(text, p), _right(text, p + 1)
    if j < 0 or k >= len(text):
        return False
    a, b = text[j], text[k]
    if ch in _WORD_JOINERS and kind(a) == WORD and kind(b) == WORD:
        return True
    return ch in _DIGIT_JOINERS and _is_digit(a) and _is_digit(b)


def _clitic_s(text: str, p: int) -> bool:
    """True when the apostrophe at `p` starts a possessive `'s` ("the Buyer's": "the
    Buyer" may be quoted; "can't" still binds)."""
    if text[p] not in _APOSTROPHES:
        return False
    k = _right(text, p + 1)
    if k >= len(text) or text[k] not in "sS":
        return False
    after = _right(text, k + 1)
    return after >= len(text) or kind(text[after]) not in (WORD, SOLO, MARK)


def is_boundary(text: str, i: int) -> bool:
    """Return True when a quote may start or end at offset `i` of `text` (see the module)."""
    n = len(text)
    if i <= 0 or i >= n:
        return True
    if kind(text[i]) == MARK:
        return False
    j, k = _left(text, i), _right(text, i)
    if j < 0 or k >= n:
        return True
    a, b = text[j], text[k]
    ka, kb = kind(a), kind(b)
    if ka == WORD and kb == WORD:
        return False
    if ka == SOLO or kb == SOLO:
        return True
    if ka == WORD and (b in _WORD_JOINERS or b in _DIGIT_JOINERS) and _joined(text, k):
        return _clitic_s(text, k)
    if kb == WORD and (a in _WORD_JOINERS or a in _DIGIT_JOINERS) and _joined(text, j):
        return False
    if a in _SIGNS and _is_digit(b):
        before = _left(text, j)
        if before < 0 or kind(text[before]) != WORD:
            return False
    return not (b in _PERCENT and _is_digit(a))


def on_boundaries(text: str, start: int, end: int) -> bool:
    """Return True when `[start, end)` starts and ends on token boundaries of `text`."""
    return is_boundary(text, start) and is_boundary(text, end)


def widen(text: str, start: int, end: int, limit: int) -> tuple[int, int] | None:
    """Return `[start, end)` widened to the nearest token boundaries, or None when that
    needs more than `limit` characters in all (a run that is no word)."""
    s, e = start, end
    while not is_boundary(text, s):
        s -= 1
        if start - s > limit:
            return None
    while not is_boundary(text, e):
        e += 1
        if (start - s) + (e - end) > limit:
            return None
    return s, e
