"""Property (issue 12): for random layers and random spans on token boundaries, citing the
span's text and verifying the citation round-trips, and any single-character change inside
the quote that the comparison form does not document as a fold fails verification.

Runs on the same functions `Verifier.cite` and `Verifier.check` use (`QuoteFinder`,
`citation_for`, `check_span`) over layers built in memory, with and without PDF geometry.
"""

from __future__ import annotations

import unicodedata
from dataclasses import replace

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pincite.cite.compare import SAFE_FOLDS, comparison_form
from pincite.cite.locate import LocatorIndex
from pincite.cite.match import QuoteFinder
from pincite.cite.tokens import MARK, is_boundary, kind
from pincite.cite.verifier import LoadedLayer, check_span, citation_for
from pincite.model import Revision
from pincite.parse.layout import LayerBuilder

REV = Revision("t", "doc.pdf", "r1", "0" * 64, "application/pdf", 1, "", "", None)

WORDS = st.sampled_from([
    "The", "fee", "is", "106", "10⁶", "euros.", "shall", "not", "no", "EUR", "180", "18",
    "18,500", "10%", "−10", "non-exclusive", "can't", "Buyer's", "½", "m²", "27th", "本合同",
    "ﬁle", "“Products”", "—", "co\u00adop", "Año", "straße", "(a)", "14:00", "and/or",
    "ＥＵＲ", "café", "ﻻ", "—", ";", "  ",
])
PARAS = st.lists(st.lists(WORDS, min_size=1, max_size=10).map(" ".join), min_size=1, max_size=6)
# replacement characters: other letters, case, digits and their look-alikes, punctuation
SUBS = st.sampled_from(list(
    "aAeEoOsStT01236789,.;:%-'\" /\u00a0\u2013\u2014\u2019\u201c\u00b2\u2076\u00bd\u2044"
    "\uff11\uff41\ufb01\u00e9\u00df\u672c\u5408\u00ad\u200b\u2212\u2153\u2460\u2122"))


def _geometry(text: str, page: int, line: int) -> list:
    return [(page, (10.0 + 5 * i, 20.0 * line, 15.0 + 5 * i, 20.0 * line + 10)) for i in
            range(len(text))]


def _layer(paras: list[str], geometry: bool) -> LoadedLayer:
    b = LayerBuilder("prop", "1")
    for n, text in enumerate(paras):
        text = unicodedata.normalize("NFC", text)
        if geometry:
            b.paragraph(text, chars=_geometry(text, 1 + n % 3, n))
        else:
            b.paragraph(text)
    layer = b.build()
    return LoadedLayer(layer, LocatorIndex.build(layer))


def _documented_fold(a: str, b: str) -> bool:
    """True when cmp-2 is documented to treat `a` and `b` as the same character."""
    classes = ("\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u00b4'",
               "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\"",
               "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d\u2043",
               "\u00ad\u200b\u200c\u200d\u2060\ufeff")
    if a.isspace() and b.isspace() or any(a in c and b in c for c in classes):
        return True

    def nfkc(ch: str) -> str:
        safe = any(lo <= ord(ch) <= hi for lo, hi in SAFE_FOLDS)
        return unicodedata.normalize("NFKC", ch) if safe else ch

    return nfkc(a) == nfkc(b)


def _span(data, loaded: LoadedLayer) -> tuple[int, int]:
    text = loaded.text
    assume(text.strip())
    cuts = [i for i in range(len(text) + 1) if is_boundary(text, i)]
    s = data.draw(st.sampled_from(cuts[:-1]), label="start")
    e = data.draw(st.sampled_from([i for i in cuts if s < i <= s + 60] or [len(text)]),
                  label="end")
    while s < e and (text[s].isspace() or kind(text[s]) == MARK):
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    assume(s < e and comparison_form(text[s:e]) and is_boundary(text, s) and is_boundary(text, e))
    return s, e


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(PARAS, st.booleans(), st.data())
def test_cite_then_verify_round_trips_and_any_change_fails(paras, geometry, data):
    loaded = _layer(paras, geometry)
    text = loaded.text
    s, e = _span(data, loaded)
    quote = text[s:e]
    found = QuoteFinder(text).find(quote, limit=10_000)
    spans = [(m.char_start, m.char_end) for m in found.matches]
    assert (s, e) in spans, (quote, spans)
    assert all(m.notes == () for m in found.matches)  # found as written, on boundaries
    cited = citation_for(REV, loaded, s, e)
    assert cited.quote == quote and check_span(loaded, cited) is None
    if geometry:
        assert cited.page is not None and cited.bbox is not None
    # one character changed inside the quote
    k = data.draw(st.integers(0, len(quote) - 1), label="position")
    sub = data.draw(SUBS, label="replacement")
    changed = quote[:k] + sub + quote[k + 1:]
    deleted = quote[:k] + quote[k + 1:]
    if comparison_form(changed) == comparison_form(quote):
        # only a documented fold may leave the form unchanged: the same character class,
        # or a space or invisible character where the form keeps nothing (a space next
        # to a space, after a hyphen, at an edge)
        silent = comparison_form(deleted) == comparison_form(quote)
        assert _documented_fold(quote[k], sub) or silent and (
            sub.isspace() or _documented_fold(sub, "\u00ad")), (quote, k, sub)
        return
    assert check_span(loaded, replace(cited, quote=changed)) is not None
    # and one character deleted or inserted inside it
    if comparison_form(deleted) != comparison_form(quote):
        assert check_span(loaded, replace(cited, quote=deleted)) is not None
    inserted = quote[:k] + sub + quote[k:]
    if comparison_form(inserted) != comparison_form(quote):
        assert check_span(loaded, replace(cited, quote=inserted)) is not None


@settings(max_examples=150, deadline=None)
@given(PARAS, st.data())
def test_a_span_that_cuts_a_word_never_verifies(paras, data):
    loaded = _layer(paras, False)
    text = loaded.text
    inner = [i for i in range(1, len(text)) if not is_boundary(text, i)]
    assume(inner)
    cut = data.draw(st.sampled_from(inner))
    lo = max(0, text.rfind("\n", 0, cut) + 1)
    c = citation_for(REV, loaded, lo, cut)
    assume(comparison_form(c.quote))
    assert check_span(loaded, c) == "cut_inside_word"
