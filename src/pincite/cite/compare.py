"""The comparison form: one versioned function that decides whether two texts say the same.

`cmp-2` (the current form, `VERSION`), applied to a string:
1. Unicode NFC;
2. per code point, only this safe set of folds (`SAFE_FOLDS` lists the last group):
   - soft hyphen and zero-width characters (U+00AD, U+200B-U+200D, U+2060, U+FEFF) dropped;
   - typographic single quotes, primes and the acute accent → `'`; double quotes, double
     primes and guillemets → `"`; every dash, the minus sign and the hyphen bullet → `-`;
   - every whitespace character (NBSP, thin and ideographic spaces, tabs, newlines) → space;
   - compatibility ligatures (U+FB00-U+FB06 ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ, Armenian U+FB13-U+FB17, Dutch
     Ĳ/ĳ), Hebrew and Arabic presentation forms (U+FB1D-U+FDFF, U+FE70-U+FEFC: shapes of
     the same letters, the lam-alef ligatures among them), full-width ASCII (U+FF01-U+FF5E)
     and the ellipsis (… → ...) → their NFKC decomposition;
   nothing else: digits, superscripts and subscripts (¹ ² ⁶ ₂), fractions (½ ⅓) and the
   fraction slash, circled and Roman-numeral characters, letter-like symbols (™ K µ) and
   case all stay as written;
3. every run of whitespace collapsed to one space, and dropped after a hyphen (a compound
   broken at a line end, "non- exclusive", reads as "non-exclusive"); ends stripped.

`cmp-1` (superseded) is the same but folds every code point with NFKC and casefold after
the quote/dash/space folds. A citation records the form it was made in (`comparison`);
one that records none was made before cmp-2 existed and is compared in cmp-1, so an old
citation verifies exactly as it did. NFKC made "10⁶" equal "106" and "½" equal "1/2":
that is why cmp-2 replaces it.

Case: cmp-2 keeps case, so a quote that differs from the document only in case does not
verify ("Products" is a defined term, "products" is not; "May" is a month, "may" is not).
`cite` still finds such a quote (`caseless_form`) and returns the document's own
characters as the quote (noted `case_differs`), so an analyst never has to retype case.

Because step 2 works code point by code point, the form of a slice is the slice of the
form (up to the whitespace at its edges). `FoldedText` relies on that to map a match in
the folded text back to offsets in the original.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ..errors import InvalidCitation
from ..vocab import ComparisonForm

VERSION = ComparisonForm.CMP_2
VERSIONS = tuple(ComparisonForm)

_DROP = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SQUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u00b4"
_DQUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u2043"
_WS_RE = re.compile(r"\s+")
_HYPHEN_WS_RE = re.compile(r"- ")

# cmp-2's compatibility folds: (first, last) code point ranges folded by NFKC.
SAFE_FOLDS: tuple[tuple[int, int], ...] = (
    (0x0132, 0x0133),  # Ĳ ĳ
    (0x2026, 0x2026),  # … horizontal ellipsis
    (0xFB00, 0xFB06),  # Latin ligatures ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ
    (0xFB13, 0xFB17),  # Armenian ligatures
    (0xFB1D, 0xFB4F),  # Hebrew presentation forms
    (0xFB50, 0xFDFF),  # Arabic presentation forms A
    (0xFE70, 0xFEFC),  # Arabic presentation forms B (lam-alef ligatures among them)
    (0xFF01, 0xFF5E),  # full-width ASCII
)


def _safe_fold(cp: int) -> bool:
    return any(a <= cp <= b for a, b in SAFE_FOLDS)


def _shape(ch: str) -> str | None:
    """The folds both forms share (drops, quotes, dashes, whitespace), else None."""
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
    return None


def _fold_char_1(ch: str) -> str:
    shaped = _shape(ch)
    if shaped is not None:
        return shaped
    out = unicodedata.normalize("NFKC", ch).casefold()
    # NFKC can itself produce whitespace (e.g. U+2002); keep it a plain space.
    return " " if out.isspace() else out


def _fold_char_2(ch: str) -> str:
    shaped = _shape(ch)
    if shaped is not None:
        return shaped
    if not _safe_fold(ord(ch)):
        return ch
    out = "".join(_shape(c) or c for c in unicodedata.normalize("NFKC", ch))
    return " " if out.isspace() else out


class _FoldTable(dict[int, str]):
    """A `str.translate` table that computes and memoises each code point's fold."""

    def __init__(self, version: str, caseless: bool) -> None:
        super().__init__()
        self.fold = _fold_char_1 if version == ComparisonForm.CMP_1 else _fold_char_2
        self.caseless = caseless

    def __missing__(self, key: int) -> str:
        value = self.fold(chr(key))
        if self.caseless:
            value = value.casefold()
        self[key] = value
        return value


_TABLES = {(v, c): _FoldTable(v, c) for v in VERSIONS for c in (False, True)}


def check_version(version: str) -> ComparisonForm:
    """Return `version` as a `ComparisonForm`; raise InvalidCitation for an unknown one."""
    try:
        return ComparisonForm(version)
    except ValueError:
        raise InvalidCitation(f"comparison form {str(version)[:20]!r} is unknown; give one "
                              f"of {', '.join(VERSIONS)}") from None


def _form(text: str, version: ComparisonForm, caseless: bool) -> str:
    lower = caseless or version == ComparisonForm.CMP_1
    if text.isascii():
        out = _WS_RE.sub(" ", text).strip()
        out = out.lower() if lower else out
    else:
        folded = unicodedata.normalize("NFC", text).translate(_TABLES[(version, caseless)])
        out = _WS_RE.sub(" ", folded).strip()
    return _HYPHEN_WS_RE.sub("-", out) if "- " in out else out


def comparison_form(text: str, version: str = VERSION) -> str:
    """Return the comparison form of `text` in `version` (default: the current, cmp-2)."""
    return _form(text, check_version(version), False)


def caseless_form(text: str) -> str:
    """Return the cmp-2 form of `text` with case folded (how `cite` finds a quote whose
    case differs; never used to verify)."""
    return _form(text, VERSION, True)


def same_text(a: str, b: str, version: str = VERSION) -> bool:
    """Return True when `a` and `b` have the same comparison form in `version`."""
    return a == b or comparison_form(a, version) == comparison_form(b, version)


@dataclass(frozen=True, slots=True)
class FoldedText:
    """The comparison form of a whole text layer with a map back to original offsets.

    `starts[j]` is the original offset of the character that produced folded char `j`.
    """

    folded: str
    starts: tuple[int, ...]
    length: int

    @classmethod
    def build(cls, text: str, version: str = VERSION, *, caseless: bool = False) -> FoldedText:
        """Return the folded form of `text` (which must already be NFC)."""
        parts: list[str] = []
        starts: list[int] = []
        table = _TABLES[(check_version(version), caseless)]
        lower = caseless or version == ComparisonForm.CMP_1
        prev_space = True  # leading whitespace is dropped
        for i, ch in enumerate(text):
            if ord(ch) > 127:
                f = table[ord(ch)]
            elif ch.isspace():
                f = " "
            else:
                f = ch.lower() if lower else ch
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
        """Return up to `limit` original spans `[start, end)` whose form equals the quote's
        (raw matches: they may start or end inside a word; `cite.match` decides that)."""
        return self.find_form(comparison_form(quote), limit)

    def find_form(self, needle: str, limit: int = 50) -> list[tuple[int, int]]:
        """Return up to `limit` original spans whose folded text is `needle` (already folded)."""
        if not needle:
            return []
        out: list[tuple[int, int]] = []
        pos = self.folded.find(needle)
        while pos >= 0 and len(out) < limit:
            span = self.span(pos, pos + len(needle))
            if span is not None:
                out.append(span)
            pos = self.folded.find(needle, pos + 1)
        return out

    def span(self, a: int, b: int) -> tuple[int, int] | None:
        """Return the original span of folded `[a, b)`, or None when it splits a character."""
        starts = self.starts
        # A match must begin and end on whole original characters (a ligature "ﬁ" folds
        # to two chars; matching only its "i" would not be a citable span).
        if a > 0 and starts[a - 1] == starts[a]:
            return None
        if b < len(starts) and starts[b] == starts[b - 1]:
            return None
        return starts[a], starts[b - 1] + 1
