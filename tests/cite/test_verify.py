"""The citation contract: cite finds quotes, verify re-checks bytes, offsets and locators."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pincite.cite.compare import FoldedText, comparison_form
from pincite.cite.locate import LocatorIndex, locator_at
from pincite.errors import NotFound, QuoteNotFound
from pincite.model import Principal
from pincite.parse.layout import LayerBuilder
from tests.tamper import rewrite_blob, stored_bytes

CONTRACT = """# Supply agreement

1. DEFINITIONS

1.1 "Products" means the goods listed in Schedule A.

2. PAYMENT

2.1 The Buyer shall pay each invoice within thirty (30) days. Late payments shall not bear interest.

2.2 The annual fee is 450,000.50 EUR, excluding VAT.

a) The first instalment is due on January 15, 2027.

3. TERM

3.1 This Agreement shall remain in force for ten (10) years.
"""


@pytest.fixture
def doc(lib, ana):
    r = lib.ingest_bytes(CONTRACT.encode(), source_id="supply.md", tenant="acme",
                         acl=["group:legal"], name="supply.md", sandbox=False)
    assert r.status == "new", r
    return r


def test_cite_returns_verified_entry_with_clause_locator(lib, ana, doc):
    c = lib.cite(ana, "supply.md", "The annual fee is 450,000.50 EUR")
    assert c.quote_verified and c.verify_reason == "ok"
    assert c.doc_id == "supply.md@r1"
    assert c.locator == "clause 2.2"
    assert c.text_layer == "markdown@2"
    _, layer = lib.document(ana, "supply.md")
    assert layer.text[c.char_start:c.char_end] == "The annual fee is 450,000.50 EUR"
    lettered = lib.cite(ana, "supply.md", "first instalment is due")
    assert lettered.locator == "clause 2.2.a"


def test_cite_folds_typographic_quotes_dashes_case_and_whitespace(lib, ana, doc):
    c = lib.cite(ana, "supply.md", "“PRODUCTS”   means the goods")
    assert c.quote_verified
    assert c.locator == "clause 1.1"


def test_cite_missing_quote_and_invisible_document(lib, ana, doc):
    with pytest.raises(QuoteNotFound):
        lib.cite(ana, "supply.md", "The annual fee is 450,000 EUR")  # rounded
    with pytest.raises(NotFound):
        lib.cite(Principal.parse("other:eve"), "supply.md", "annual fee")
    with pytest.raises(NotFound):
        lib.cite(Principal.parse("acme:bob"), "supply.md", "annual fee")  # not in group legal


def test_verifier_negative_cases_each_fail_with_the_right_reason(lib, ana, doc):
    good = lib.cite(ana, "supply.md", "Late payments shall not bear interest.")
    ver = lib.verifier(ana)
    assert ver.check(good) == "ok"
    shifted = replace(good, char_start=good.char_start + 1, char_end=good.char_end + 1)
    assert ver.check(shifted) == "offsets_mismatch"
    dropped_not = replace(good, quote="Late payments shall bear interest.")
    assert ver.check(dropped_not) == "offsets_mismatch"
    fee = lib.cite(ana, "supply.md", "450,000.50 EUR")
    rounded = replace(fee, quote="450,000 EUR")
    assert ver.check(rounded) == "offsets_mismatch"
    wrong_loc = replace(good, locator="clause 3.1")
    assert ver.check(wrong_loc) == "locator_mismatch"
    other_sha = replace(good, doc_sha256="0" * 64)
    assert ver.check(other_sha) == "document_changed"
    unknown = replace(good, doc_id="nope.md@r1")
    assert ver.check(unknown) == "unknown_document"
    assert lib.verifier(Principal.parse("other:ana:legal")).check(good) == "unknown_document"
    out_of_range = replace(good, char_start=10_000_000, char_end=10_000_010)
    assert ver.check(out_of_range) == "offsets_mismatch"


def test_bytes_changed_on_disk_is_document_changed(lib, ana, doc):
    good = lib.cite(ana, "supply.md", "ten (10) years")
    data = stored_bytes(lib.store, "acme", doc.doc_sha256)
    rewrite_blob(lib.store, "acme", doc.doc_sha256, data.replace(b"ten (10)", b"two (2) "))
    assert lib.verifier(ana).check(good) == "document_changed"


def test_new_revision_makes_old_citation_superseded_and_still_verified(lib, ana, doc):
    old = lib.cite(ana, "supply.md", "thirty (30) days")
    r2 = lib.ingest_bytes(CONTRACT.replace("thirty (30)", "sixty (60)").encode(),
                          source_id="supply.md", tenant="acme", acl=["group:legal"],
                          name="supply.md", sandbox=False)
    assert r2.status == "revised" and r2.revision_id == "r2"
    [checked] = lib.verify(ana, [old])
    assert checked.quote_verified and checked.verify_reason == "superseded"
    new = lib.cite(ana, "supply.md", "sixty (60) days")
    assert new.doc_id == "supply.md@r2" and new.verify_reason == "ok"
    with pytest.raises(QuoteNotFound):
        lib.cite(ana, "supply.md", "thirty (30) days")
    assert lib.cite(ana, "supply.md@r1", "thirty (30) days").verify_reason == "superseded"


def test_quote_verified_in_input_is_ignored(lib, ana, doc):
    from pincite.model import Citation

    good = lib.cite(ana, "supply.md", "ten (10) years").to_dict()
    forged = {**good, "quote": "eleven (11) years", "quote_verified": True, "verify_reason": "ok"}
    c = Citation.from_dict(forged)
    assert c.quote_verified is False and c.verify_reason is None
    [checked] = lib.verify(ana, [c])
    assert not checked.quote_verified and checked.verify_reason == "offsets_mismatch"


# ---- property tests over the builder ---------------------------------------------------

WORDS = st.sampled_from(
    ["contract", "the", "shall", "not", "450.000", "€", "“fee”", "plazo", "días", "Año",
     "—", "co\u00adop", "ﬁle", "straße", "  ", "\t", "EUR", "10%"])
TEXTS = st.lists(WORDS, min_size=1, max_size=12).map(" ".join)
BLOCKS = st.lists(
    st.one_of(
        st.tuples(st.just("heading"), TEXTS, st.integers(1, 3)),
        st.tuples(st.just("para"), TEXTS, st.just(0)),
        st.tuples(st.just("clause"), TEXTS, st.integers(1, 3)),
        st.tuples(st.just("letter"), TEXTS, st.just(0)),
        st.tuples(st.just("table"), TEXTS, st.integers(1, 3)),
    ),
    min_size=1, max_size=15,
)


def _build(blocks):
    b = LayerBuilder("prop", "1")
    expected = []
    counter = [0]
    for kind, text, n in blocks:
        counter[0] += 1
        if kind == "heading":
            b.heading(text, n)
            expected.append(("heading", text))
        elif kind == "para":
            b.paragraph(text)
            expected.append(("paragraph", text))
        elif kind == "clause":
            t = ".".join(str(counter[0] % 9 + 1) for _ in range(n)) + " " + text.capitalize()
            b.paragraph(t)
            expected.append(("paragraph", t))
        elif kind == "letter":
            t = "b) " + text
            b.paragraph(t)
            expected.append(("paragraph", t))
        else:
            rows = [[text, str(i)] for i in range(n)]
            b.table(rows)
            expected.append(("table", rows))
    return b.build(), expected


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(BLOCKS)
def test_every_element_slices_back_to_its_text_and_locators_agree(blocks):
    layer, expected = _build(blocks)
    text = layer.text
    paras = [e for e in layer.elements if e.kind in ("paragraph", "heading")]
    want = [t for k, t in expected if k != "table" and t.strip()]
    import unicodedata
    assert [text[e.char_start:e.char_end] for e in paras] == [
        unicodedata.normalize("NFC", t) for t in want]
    for e in layer.elements:
        assert 0 <= e.char_start <= e.char_end <= len(text)
        if e.kind == "cell":
            assert text[e.char_start:e.char_end].strip()
    index = LocatorIndex.build(layer)
    for off in range(0, len(text), 3):
        assert index.locator_at(off) == locator_at(layer, off)


@settings(max_examples=150, deadline=None)
@given(BLOCKS, st.data())
def test_a_found_span_round_trips_through_the_comparison_form(blocks, data):
    layer, _ = _build(blocks)
    text = layer.text
    words = [i for i, ch in enumerate(text) if not ch.isspace()]
    if not words:
        return
    a = data.draw(st.sampled_from(words))
    b = data.draw(st.integers(a + 1, min(len(text), a + 80)))
    quote = text[a:b]
    if not comparison_form(quote):
        return
    spans = FoldedText.build(text).find_all(quote)
    assert spans, quote
    for s, e in spans:
        assert comparison_form(text[s:e]) == comparison_form(quote)
