"""The comparison form: one versioned function that decides whether two texts say the same.

`cmp-1`, applied to a string:
1. Unicode NFC;
2. per code point: soft hyphens and zero-width characters dropped; typographic single
   quotes and primes folded to `'`, double quotes to `"`, every dash and minus to `-`;
   then NFKC and casefold;
3. every run of whitespace collapsed to one space, and dropped after a hyphen (a compound
   broken at a line end, "non- exclusive", reads as "non-exclusive"); leading/trailing
   space stripped.

Because step 2 works code point by code point, the form of a slice is the slice of the
form (up to the whitespace at its edges). `FoldedText` relies on that to map a match in
the folded text back to offsets in the original.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

VERSION = "cmp-1"

_DROP = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SQUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u00b4"
_DQUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u2043"
_WS_RE = re.compile(r"\s+")
_HYPHEN_WS_RE = re.compile(r"- ")


def _fold_char(ch: str) -> str:
    if ch in _DROP:
        return ""
    if ch in _SQUOTES:
        return "'"
    if ch in _DQUOTES:
        return '"'
    if ch in _DASHES:
        return "-"
    if ch.isspace():
        return " "
    out = unicodedata.normalize("NFKC", ch).casefold()
    # NFKC can itself produce whitespace (e.g. U+2002); keep it a plain space.
    return " " if out.isspace() else out


class _FoldTable(dict[int, str]):
    """A `str.translate` table that computes and memoises each code point's fold."""

    def __missing__(self, key: int) -> str:
        value = _fold_char(chr(key))
        self[key] = value
        return value


_TABLE = _FoldTable()


def comparison_form(text: str) -> str:
    """Return the cmp-1 comparison form of `text`."""
    if text.isascii():
        out = _WS_RE.sub(" ", text).strip().lower()
    else:
        folded = unicodedata.normalize("NFC", text).translate(_TABLE)
        out = _WS_RE.sub(" ", folded).strip()
    return _HYPHEN_WS_RE.sub("-", out) if "- " in out else out


def same_text(a: str, b: str) -> bool:
    """Return True when `a` and `b` have the same comparison form."""
    return a == b or comparison_form(a) == comparison_form(b)


@dataclass(frozen=True, slots=True)
class FoldedText:
    """The comparison form of a whole text layer with a map back to original offsets.

    `starts[j]` is the original offset of the character that produced folded char `j`.
    """

    folded: str
    starts: tuple[int, ...]
    length: int

    @classmethod
    def build(cls, text: str) -> FoldedText:
        """Return the folded form of `text` (which must already be NFC)."""
        parts: list[str] = []
        starts: list[int] = []
        table = _TABLE
        prev_space = True  # leading whitespace is dropped
        for i, ch in enumerate(text):
            f = table[ord(ch)] if ord(ch) > 127 else (" " if ch.isspace() else ch.lower())
            if not f:
                continue
            if f == " ":
                if prev_space or (parts and parts[-1].endswith("-")):
                    continue
                prev_space = True
                parts.append(" ")
                starts.append(i)
                continue
            prev_space = False
            parts.append(f)
            starts.extend([i] * len(f))
        folded = "".join(parts)
        return cls(folded, tuple(starts), len(text))

    def find_all(self, quote: str, limit: int = 50) -> list[tuple[int, int]]:
        """Return up to `limit` original spans `[start, end)` whose form equals the quote's."""
        needle = comparison_form(quote)
        if not needle:
            return []
        out: list[tuple[int, int]] = []
        pos = self.folded.find(needle)
        while pos >= 0 and len(out) < limit:
            span = self._span(pos, pos + len(needle))
            if span is not None:
                out.append(span)
            pos = self.folded.find(needle, pos + 1)
        return out

    def _span(self, a: int, b: int) -> tuple[int, int] | None:
        starts = self.starts
        # A match must begin and end on whole original characters (a ligature "ﬁ" folds
        # to two chars; matching only its "i" would not be a citable span).
        if a > 0 and starts[a - 1] == starts[a]:
            return None
        if b < len(starts) and starts[b] == starts[b - 1]:
            return None
        return starts[a], starts[b - 1] + 1
