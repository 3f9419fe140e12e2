"""Finding a quote in a text layer: every occurrence, on token boundaries, tier by tier.

`QuoteFinder.find(quote)` compares in the current comparison form (`compare`) and returns
the occurrences of the first tier that has any, in text order:
1. the quote's form, case kept;
2. the same, case folded (noted `case_differs`);
3. the quote's spaces inside a word dropped (noted `respaced`): "27t h" finds "27th";
   case kept, then case folded;
4. tiers 1-3 again, now letting a match that starts or ends inside a word grow to the
   word's ends (noted `extended`): "The fee is 10" finds "The fee is 106".
Tiers 1-3 keep only matches whose both ends are token boundaries (`tokens`).

Whitespace inside a word (tier 3): a space of the quote may match nothing in the layer
only between two characters of the same no-space script (CJK: "中 文" finds "中文"), or
between two word characters that are not both digits where either one is a digit (a
digit run meets a letter run: "27 th", "10 km") or the quote's letter run on one side is a
single character ("27t h", "A GREEMENT"). A space of the layer is a word boundary the
quote must keep, except between two no-space-script characters. So "in valid" never finds
"invalid", "10 6" never finds "106", and "invalid" never finds "in valid".

The returned span always quotes the document's own characters.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..vocab import CiteNote
from .compare import FoldedText, caseless_form, comparison_form
from .tokens import SOLO, WORD, is_boundary, kind, widen

MAX_WIDEN = 64      # characters a match may grow by to reach the ends of its words
MAX_SCAN = 10_000   # raw matches looked at per tier (a quote found more often is listed
                    # up to the limit and counted up to this)


@dataclass(frozen=True, slots=True)
class Match:
    """One occurrence: the original span and how it was found."""

    char_start: int
    char_end: int
    notes: tuple[CiteNote, ...] = ()


@dataclass(frozen=True, slots=True)
class Found:
    """The occurrences of a quote (up to a limit) and how many there are in all."""

    matches: tuple[Match, ...]
    total: int


@dataclass(frozen=True, slots=True)
class _Compact:
    """A folded text with its spaces taken out: `gap[j]` says a space stood before `j`."""

    text: str
    starts: tuple[int, ...]
    gap: tuple[bool, ...]

    @classmethod
    def build(cls, f: FoldedText) -> _Compact:
        chars: list[str] = []
        starts: list[int] = []
        gap: list[bool] = []
        pending = False
        for ch, s in zip(f.folded, f.starts, strict=True):
            if ch == " ":
                pending = True
                continue
            chars.append(ch)
            starts.append(s)
            gap.append(pending)
            pending = False
        return cls("".join(chars), tuple(starts), tuple(gap))


def _compact_needle(needle: str) -> tuple[str, tuple[bool, ...]]:
    out: list[str] = []
    gap: list[bool] = []
    pending = False
    for ch in needle:
        if ch == " ":
            pending = True
            continue
        out.append(ch)
        gap.append(pending)
        pending = False
    return "".join(out), tuple(gap)


def _run(s: str, i: int, step: int) -> int:
    """Length of the run of word characters of `s` from `i` going `step` (±1)."""
    n = 0
    while 0 <= i < len(s) and kind(s[i]) == WORD:
        n += 1
        i += step
    return n


def _may_drop(needle: str, gap: tuple[bool, ...], j: int) -> bool:
    """True when the quote's space before compact char `j` may match nothing."""
    a, b = needle[j - 1], needle[j]
    ka, kb = kind(a), kind(b)
    if ka == SOLO and kb == SOLO:
        return True
    if ka != WORD or kb != WORD or (a.isdigit() and b.isdigit()):
        return False
    if a.isdigit() != b.isdigit():
        return True
    # the quote's runs beside the space (a run ends at the quote's next space)
    left = right = 0
    i = j - 1
    while i >= 0 and kind(needle[i]) == WORD:
        left += 1
        if gap[i]:
            break
        i -= 1
    i = j
    while i < len(needle) and kind(needle[i]) == WORD:
        right += 1
        i += 1
        if i < len(needle) and gap[i]:
            break
    return left == 1 or right == 1


class QuoteFinder:
    """Finds quotes in one text layer; the folded forms are built when first needed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._folded: dict[bool, FoldedText] = {}
        self._compact: dict[bool, _Compact] = {}

    def folded(self, caseless: bool = False) -> FoldedText:
        """Return the layer in the current comparison form (case folded when `caseless`)."""
        f = self._folded.get(caseless)
        if f is None:
            f = self._folded[caseless] = FoldedText.build(self.text, caseless=caseless)
        return f

    def find_all(self, quote: str, limit: int = 50, *, any_case: bool = False
                 ) -> list[tuple[int, int]]:
        """Return the spans of `find(quote, limit, any_case=any_case)`."""
        return [(m.char_start, m.char_end)
                for m in self.find(quote, limit, any_case=any_case).matches]

    def find(self, quote: str, limit: int = 50, *, any_case: bool = False) -> Found:
        """Return the occurrences of `quote` in the first tier that has any (module doc);
        with `any_case`, the case-folded tiers only: every occurrence in any case (how an
        eval locates gold text; `cite` prefers the quote's own case)."""
        needle = comparison_form(quote)
        if not needle:
            return Found((), 0)
        tiers = [(False, False), (True, False)] + ([(False, True), (True, True)]
                                                  if " " in needle else [])
        if any_case:
            tiers = [t for t in tiers if t[0]]
        raw: dict[tuple[bool, bool], list[tuple[int, int]]] = {}
        for extend in (False, True):
            for caseless, respaced in tiers:
                spans = raw.get((caseless, respaced))
                if spans is None:  # each search runs once, and only when reached
                    text = caseless_form(quote) if caseless else needle
                    spans = raw[(caseless, respaced)] = (
                        self._respaced(text, caseless) if respaced
                        else self.folded(caseless).find_form(text, MAX_SCAN))
                notes = ((CiteNote.CASE_DIFFERS,) if caseless else ()) + (
                    (CiteNote.RESPACED,) if respaced else ())
                out = self._keep(spans, notes, extend)
                if out:
                    return Found(tuple(out[:limit]), len(out))
        return Found((), 0)

    def _keep(self, spans: list[tuple[int, int]], notes: tuple[CiteNote, ...],
              extend: bool) -> list[Match]:
        text = self.text
        out: list[Match] = []
        seen: set[tuple[int, int]] = set()
        for s, e in spans:
            aligned = is_boundary(text, s) and is_boundary(text, e)
            if aligned == extend:
                continue  # tiers without extension keep aligned matches; the others the rest
            if extend:
                wide = widen(text, s, e, MAX_WIDEN)
                if wide is None:
                    continue
                s, e = wide
            if (s, e) not in seen:
                seen.add((s, e))
                out.append(Match(s, e, (*notes, CiteNote.EXTENDED) if extend else notes))
        return out

    def _respaced(self, needle: str, caseless: bool) -> list[tuple[int, int]]:
        """Raw spans where the quote matches with some of its inner spaces matching nothing."""
        comp = self._compact.get(caseless)
        if comp is None:
            comp = self._compact[caseless] = _Compact.build(self.folded(caseless))
        q, qgap = _compact_needle(needle)
        out: list[tuple[int, int]] = []
        pos = comp.text.find(q)
        while pos >= 0 and len(out) < MAX_SCAN:
            if self._gaps_agree(comp, pos, q, qgap) and self._whole(comp, pos, len(q)):
                out.append((comp.starts[pos], comp.starts[pos + len(q) - 1] + 1))
            pos = comp.text.find(q, pos + 1)
        return out

    @staticmethod
    def _gaps_agree(comp: _Compact, pos: int, q: str, qgap: tuple[bool, ...]) -> bool:
        for j in range(1, len(q)):
            doc_gap, quote_gap = comp.gap[pos + j], qgap[j]
            if doc_gap == quote_gap:
                continue
            if doc_gap:  # the layer's space: kept, except inside a no-space script
                if not (kind(q[j - 1]) == SOLO and kind(q[j]) == SOLO):
                    return False
            elif not _may_drop(q, qgap, j):
                return False
        return True

    @staticmethod
    def _whole(comp: _Compact, pos: int, n: int) -> bool:
        """True when compact `[pos, pos + n)` begins and ends on whole original characters."""
        st = comp.starts
        if pos > 0 and st[pos - 1] == st[pos]:
            return False
        end = pos + n
        return not (end < len(st) and st[end] == st[end - 1])

