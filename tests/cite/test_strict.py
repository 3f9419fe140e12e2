"""Strict verification (issue 12, item 5): token boundaries, the cmp-2 comparison form,
whitespace inside a word, empty quotes, geometry, and quotes that occur more than once.
Each rule is tried the way a new user would try it: through `cite`, `verify` and JSON."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from pincite.cite.compare import comparison_form, same_text
from pincite.cite.tokens import is_boundary
from pincite.errors import EmptyQuote, InvalidCitation, NotFound, QuoteNotFound
from pincite.model import Citation
from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]
AS = ("--as", "acme:ana:legal")

FEES = """# Fees

1. The fee is 106 euros. The parties shall not assign it.

2. Price EUR 180 and USD 18,500 net, 10% off, the Buyer's invoice; it can't wait.

3. Capacity 10⁶ units, ½ of the stock, 25 m² of floor.

4. Made this 27th day of March. The “Products” are invalid here and in valid form there.

5. 本合同 is signed. The Buyer shall pay.

6. The Buyer shall pay.
"""


@pytest.fixture
def fees(lib, ana):
    r = lib.ingest_bytes(FEES.encode(), source_id="fees.md", tenant="acme",
                         acl=["group:legal"], name="fees.md", sandbox=False)
    assert r.status == "new", r
    return r


def _cut(lib, ana, whole: str, keep: int) -> Citation:
    """A citation of `whole` shortened by hand to its first `keep` characters."""
    c = lib.cite(ana, "fees.md", whole)
    assert c.verify_reason == "ok" and c.quote == whole
    return replace(c, char_end=c.char_start + keep, quote=whole[:keep])


# ---- 1. token boundaries -----------------------------------------------------------------


@pytest.mark.parametrize(("whole", "cut"), [
    ("The fee is 106 euros", "The fee is 10"),
    ("parties shall not assign", "parties shall no"),
    ("EUR 180 and", "EUR 18"),
    ("USD 18,500 net", "USD 18,50"),
    ("USD 18,500 net", "USD 18,"),
    ("10% off", "10"),
    ("it can't wait", "it can"),
    ("Capacity 10⁶ units", "Capacity 10"),
])
def test_verify_never_accepts_a_cut_inside_a_word(lib, ana, fees, whole, cut):
    c = _cut(lib, ana, whole, len(cut))
    assert lib.verifier(ana).check(c) == "cut_inside_word"
    [checked] = lib.verify(ana, [Citation.from_dict(c.to_dict())])
    assert not checked.quote_verified and checked.verify_reason == "cut_inside_word"


def test_a_quote_may_end_at_punctuation_a_space_or_before_a_possessive(lib, ana, fees):
    for q in ("The fee is 106 euros.", "USD 18,500 net,", "the Buyer", "10%"):
        assert lib.cite(ana, "fees.md", q).notes == (), q


@pytest.mark.parametrize(("quote", "cited"), [
    ("The fee is 10", "The fee is 106"),
    ("parties shall no", "parties shall not"),
    ("EUR 18", "EUR 180"),
    ("USD 18,50", "USD 18,500"),
    ("it can", "it can't"),
    ("ee is 106", "fee is 106"),
])
def test_cite_extends_a_quote_that_stops_inside_a_word_and_says_so(lib, ana, fees, quote, cited):
    c = lib.cite(ana, "fees.md", quote)
    assert (c.quote, c.notes, c.verify_reason) == (cited, ("extended",), "ok")
    assert c.to_dict()["extended"] is True
    assert lib.verify(ana, [Citation.from_dict(c.to_dict())])[0].verify_reason == "ok"


def test_an_exact_occurrence_wins_over_extending_another():
    from pincite.cite.match import QuoteFinder

    f = QuoteFinder("The fee is 106 euros. The fee is 10 euros.")
    [m] = f.find("The fee is 10").matches
    assert (m.char_start, m.char_end, m.notes) == (22, 35, ())


@pytest.mark.parametrize(("text", "cuts", "joins"), [
    ("The fee is 106.", [3, 4, 7, 11, 14, 15], [5, 12, 13]),
    ("18,500 and 14:00", [6, 7, 10, 11, 16], [2, 3, 13, 14]),
    ("non-exclusive and/or", [0, 13, 14, 20], [3, 4, 17, 18]),
    ("−10% of x", [0, 4, 5], [1, 3]),
    ("Agreement¹ here", [10, 11], [9]),
    ("co\u00adop", [0, 5], [2, 3]),
    ("cafe\u0301 x", [5, 6], [4]),  # a combining accent stays with its letter
    ("本合同 is", [0, 1, 2, 3, 4], []),  # each ideograph is a token
    ("日本語abc", [1, 2, 3], [4, 5]),
])
def test_token_boundaries(text, cuts, joins):
    for i in cuts:
        assert is_boundary(text, i), (text, i)
    for i in joins:
        assert not is_boundary(text, i), (text, i)


# ---- 2. the comparison form cmp-2 ----------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [
    ("10⁶", "106"), ("½", "1\u20442"), ("m²", "m2"), ("H₂O", "H2O"), ("①", "1"), ("™", "TM"),
    ("Products", "products"), ("Ⅻ", "XII"), ("µ", "μ"),
])
def test_cmp2_never_folds_digits_superscripts_fractions_symbols_or_case(a, b):
    assert not same_text(a, b)
    assert same_text(a, b, "cmp-1")  # what cmp-1 did, and why it was replaced


@pytest.mark.parametrize(("a", "b"), [
    ("“Products” — ‘x’", '"Products" - \'x\''),
    ("ﬁle ﬂoor", "file floor"),
    ("ＥＵＲ　１８０", "EUR 180"),
    ("co\u00adop\u200b", "coop"),
    ("non-\n exclusive", "non-exclusive"),
    ("450\u00a0000\u202f€", "450 000 €"),
    ("wait…", "wait..."),
    ("\ufefb", "\u0644\u0627"),  # Arabic lam-alef ligature → lam + alef
])
def test_cmp2_folds_the_documented_safe_set(a, b):
    assert comparison_form(a) == comparison_form(b)


def test_verify_refuses_a_quote_that_only_nfkc_made_equal(lib, ana, fees):
    c = lib.cite(ana, "fees.md", "The fee is 106 euros")
    forged = Citation.from_dict({**c.to_dict(), "quote": "The fee is 10⁶ euros"})
    assert lib.verifier(ana).check(forged) == "offsets_mismatch"
    shouted = Citation.from_dict({**c.to_dict(), "quote": "THE FEE IS 106 EUROS"})
    assert lib.verifier(ana).check(shouted) == "offsets_mismatch"


def test_a_citation_without_a_form_is_cmp1_and_verifies_as_it_did(lib, ana, fees):
    c = lib.cite(ana, "fees.md", "The fee is 106 euros").to_dict()
    assert c["comparison"] == "cmp-2"
    old = {k: v for k, v in c.items() if k != "comparison"} | {"quote": "THE FEE IS 106 EUROS"}
    [checked] = lib.verify(ana, [Citation.from_dict(old)])
    assert (checked.comparison, checked.verify_reason) == ("cmp-1", "ok")
    # explicitly re-verified under the current form, it fails
    [again] = lib.verify(ana, [Citation.from_dict(old)], form="cmp-2")
    assert (again.comparison, again.verify_reason) == ("cmp-2", "offsets_mismatch")
    # the structural rules hold for old citations too
    cut = {**old, "char_end": c["char_end"] - 7, "quote": "The fee is 10"}
    assert lib.verifier(ana).check(Citation.from_dict(cut)) == "cut_inside_word"
    with pytest.raises(InvalidCitation, match="cmp-9"):
        Citation.from_dict({**c, "comparison": "cmp-9"})
    with pytest.raises(InvalidCitation):
        lib.verify(ana, [Citation.from_dict(c)], form="nfkc")


def test_cite_finds_a_quote_in_another_case_and_quotes_the_document(lib, ana, fees):
    c = lib.cite(ana, "fees.md", 'the "products" are')
    assert (c.quote, c.notes, c.verify_reason) == ("The “Products” are", ("case_differs",), "ok")


# ---- 3. whitespace inside a word -----------------------------------------------------------


def test_a_space_inside_a_word_of_the_quote_finds_the_word(lib, ana, fees):
    c = lib.cite(ana, "fees.md", "made this 27t h day of March")
    assert (c.quote, c.notes, c.verify_reason) == ("Made this 27th day of March",
                                                   ("case_differs", "respaced"), "ok")
    assert lib.cite(ana, "fees.md", "27 th day").quote == "27th day"
    # verify itself never drops a space: the respaced quote is not the document's
    assert lib.verifier(ana).check(replace(c, quote="Made this 27t h day of March")) == \
        "offsets_mismatch"


@pytest.mark.parametrize("quote", [
    "are in valid here",     # two real words never join into "invalid"
    "Capacity 1 0⁶",         # digits never join
    "EUR 1 80",
    "and invalid form",      # the document's own space is a word boundary: kept
    "The Buyershall pay",
])
def test_whitespace_matching_never_joins_or_splits_real_words(lib, ana, fees, quote):
    with pytest.raises(QuoteNotFound):
        lib.cite(ana, "fees.md", quote)


def test_cjk_runs_are_found_with_or_without_spaces(lib, ana, fees):
    assert lib.cite(ana, "fees.md", "本合同 is signed").notes == ()
    assert lib.cite(ana, "fees.md", "合同").quote == "合同"  # each ideograph is a token
    spaced = lib.cite(ana, "fees.md", "本 合 同 is")
    assert (spaced.quote, spaced.notes) == ("本合同 is", ("respaced",))


# ---- 4. empty quotes -------------------------------------------------------------------------


@pytest.mark.parametrize("quote", ["", "   ", "\n\t", "\u00ad\u200b"])
def test_an_empty_quote_is_refused_by_cite_and_verify(lib, ana, fees, quote):
    with pytest.raises(EmptyQuote):
        lib.cite(ana, "fees.md", quote)
    good = lib.cite(ana, "fees.md", "The fee is 106 euros")
    with pytest.raises(EmptyQuote, match="entry 1"):
        lib.verify(ana, [replace(good, quote=quote)])
    # a stored entry re-checked inside a run is a failed check, not a crash
    assert lib.verifier(ana).check(replace(good, quote=quote)) == "empty_quote"


def test_the_cli_refuses_empty_quotes_with_one_line(tmp_path, fees_store):
    out = invoke("cite", "fees.md", "--quote", "The fee", "--quote", "  ", *AS, store=fees_store)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip() == ("error: the quote 2 is empty or only whitespace: give the "
                                  "words of the document to cite (a quote is never verified "
                                  "by holding nothing)")
    good = json.loads(invoke("cite", "fees.md", "--quote", "The fee is 106", "--json", *AS,
                             store=fees_store).stdout)
    f = tmp_path / "c.json"
    f.write_text(json.dumps([good, {**good, "quote": " "}]))
    res = invoke("verify", str(f), *AS, store=fees_store)
    assert res.returncode == 2 and "entry 2" in res.stderr and "Traceback" not in res.stderr


# ---- 5. geometry -----------------------------------------------------------------------------


@pytest.fixture
def pliego(lib, ana):
    data = (ROOT / "examples" / "tender" / "pliego.pdf").read_bytes()
    lib.ingest_bytes(data, source_id="pliego.pdf", tenant="acme", acl=["group:legal"],
                     name="pliego.pdf", sandbox=False)
    return lib.cite(ana, "pliego.pdf", "igual o superior a 450.000 euros")


def test_an_edited_page_or_box_is_geometry_mismatch(lib, ana, pliego):
    ver = lib.verifier(ana)
    d = pliego.to_dict()
    assert d["page"] == 2 and ver.check(Citation.from_dict(d)) == "ok"
    x0, top, x1, bottom = d["bbox"]
    for edited in ({"page": 1}, {"page": 3}, {"bbox": [x0, top + 40, x1, bottom + 40]},
                   {"bbox": [x0 + 0.02, top, x1, bottom]}, {"page": None}):
        assert ver.check(Citation.from_dict({**d, **edited})) == "geometry_mismatch", edited
    # rounding in the JSON form is not an edit; a null page and box claim nothing
    assert ver.check(Citation.from_dict({**d, "bbox": [x0 + 0.004, top, x1, bottom]})) == "ok"
    assert ver.check(Citation.from_dict({**d, "page": None, "bbox": None})) == "ok"


def test_edited_boxes_of_a_span_across_pages_are_geometry_mismatch(lib, ana, pliego):
    _, layer = lib.document(ana, "pliego.pdf")
    geo = layer.geometry
    paged = [i for i in range(len(layer.text)) if geo.pages[i]]
    cross = next(i for i, j in zip(paged, paged[1:], strict=False) if geo.pages[i] != geo.pages[j])
    a = layer.text.rfind(" ", 0, cross - 5) + 1
    b = layer.text.find(" ", cross + 5)
    c = lib.cite(ana, "pliego.pdf", layer.text[a:b], occurrence=1)
    d = c.to_dict()
    assert len(d["boxes"]) == 2 and lib.verifier(ana).check(Citation.from_dict(d)) == "ok"
    moved = [d["boxes"][0], {**d["boxes"][1], "page": d["boxes"][1]["page"] + 1}]
    assert lib.verifier(ana).check(Citation.from_dict({**d, "boxes": moved})) == \
        "geometry_mismatch"


def test_a_page_on_a_layer_without_pages_is_geometry_mismatch(lib, ana, fees):
    c = lib.cite(ana, "fees.md", "The fee is 106 euros")
    assert lib.verifier(ana).check(replace(c, page=3)) == "geometry_mismatch"
    assert lib.verifier(ana).check(replace(c, page=1, bbox=(0.0, 0.0, 1.0, 1.0))) == \
        "geometry_mismatch"


@pytest.mark.parametrize("bad", [
    {"boxes": [{"page": 1}]}, {"boxes": [{"page": 0, "bbox": [0, 0, 1, 1]}]},
    {"boxes": "x"}, {"bbox": [0, 0, float("nan"), 1]}, {"extended": "yes"},
    {"occurrences": [{"char_start": 0, "char_end": 1, "locator": "x"}], "occurrence": 2},
    {"occurrences": [{"char_start": 0, "char_end": 1, "locator": "x"}] * 1001, "occurrence": 1},
    {"occurrences": []},
])
def test_malformed_new_fields_are_refused(bad):
    base = {"doc_id": "a@r1", "char_start": 0, "char_end": 1, "quote": "a"}
    with pytest.raises(InvalidCitation):
        Citation.from_dict({**base, **bad})


# ---- 6. quotes that occur more than once ---------------------------------------------------


def test_a_repeated_quote_lists_every_occurrence_and_is_ambiguous(lib, ana, fees):
    c = lib.cite(ana, "fees.md", "The Buyer shall pay")
    d = c.to_dict()
    assert (d["ambiguous"], d["occurrence"], d["occurrence_count"]) == (True, 1, 2)
    assert [o["locator"] for o in d["occurrences"]] == ["clause 5", "clause 6"]
    assert d["char_start"] == d["occurrences"][0]["char_start"]
    # the JSON reads back and verifies, occurrences kept
    [back] = lib.verify(ana, [Citation.from_dict(d)])
    assert back.verify_reason == "ok" and back.to_dict()["occurrences"] == d["occurrences"]


def test_an_occurrence_or_a_locator_chooses_one(lib, ana, fees):
    second = lib.cite(ana, "fees.md", "The Buyer shall pay", occurrence=2)
    assert second.locator == "clause 6" and "ambiguous" not in second.notes
    assert (second.occurrence, second.occurrence_count) == (2, 2)
    inside = lib.cite(ana, "fees.md", "The Buyer shall pay", locator="clause 6")
    assert (inside.char_start, inside.notes, inside.occurrences) == (second.char_start, (), ())
    with pytest.raises(QuoteNotFound, match="give --occurrence from 1 to 2"):
        lib.cite(ana, "fees.md", "The Buyer shall pay", occurrence=3)
    with pytest.raises(QuoteNotFound, match="it occurs 2 time.*clause 5, clause 6"):
        lib.cite(ana, "fees.md", "The Buyer shall pay", locator="clause 1")
    with pytest.raises(NotFound):
        lib.cite(ana, "fees.md", "The Buyer shall pay", locator="clause 99")


def test_the_cli_lists_occurrences_and_takes_a_choice(fees_store):
    out = invoke("cite", "fees.md", "--quote", "The Buyer shall pay", *AS, store=fees_store)
    assert out.returncode == 0, out.stderr
    first = json.loads(invoke("cite", "fees.md", "--quote", "The Buyer shall pay", "--json",
                              *AS, store=fees_store).stdout)
    a, b = ((o["char_start"], o["char_end"]) for o in first["occurrences"])
    assert out.stdout.splitlines()[1] == (
        "  occurs 2 times, cited #1 (choose with --occurrence N or --locator LOCATOR): "
        f"1) clause 5 chars {a[0]}-{a[1]}; 2) clause 6 chars {b[0]}-{b[1]}")
    two = json.loads(invoke("cite", "fees.md", "--quote", "The Buyer shall pay",
                            "--occurrence", "2", "--json", *AS, store=fees_store).stdout)
    assert two["locator"] == "clause 6" and "ambiguous" not in two
    for bad in (("--occurrence", "0"), ("--occurrence", "10001"), ("--occurrence", "x")):
        res = invoke("cite", "fees.md", "--quote", "The Buyer", *bad, *AS, store=fees_store)
        assert res.returncode == 2 and "Traceback" not in res.stderr
    res = invoke("cite", "fees.md", "--quote", "The Buyer shall pay", "--occurrence", "5",
                 "--json", *AS, store=fees_store)
    assert res.returncode == 1
    assert json.loads(res.stdout)["message"].endswith("give --occurrence from 1 to 2")
    res = invoke("cite", "fees.md", "--quote", "The Buyer", "--locator", "clause 99", *AS,
                 store=fees_store)
    assert res.returncode == 1 and res.stderr.startswith("error: ")


def test_the_cli_extends_and_verify_refuses_the_cut(tmp_path, fees_store):
    cited = json.loads(invoke("cite", "fees.md", "--quote", "The fee is 10", "--json", *AS,
                              store=fees_store).stdout)
    assert (cited["quote"], cited["extended"], cited["quote_verified"]) == \
        ("The fee is 106", True, True)
    f = tmp_path / "c.jsonl"
    f.write_text(json.dumps(cited) + "\n" + json.dumps(
        {**cited, "quote": "The fee is 10", "char_end": cited["char_end"] - 1}) + "\n")
    res = invoke("verify", str(f), "--json", *AS, store=fees_store)
    assert res.returncode == 1
    assert [json.loads(x)["verify_reason"] for x in res.stdout.splitlines()] == \
        ["ok", "cut_inside_word"]
    assert invoke("verify", str(f), "--form", "nfkc", *AS, store=fees_store).returncode == 2


@pytest.fixture
def fees_store(tmp_path):
    store = tmp_path / "s"
    f = tmp_path / "fees.md"
    f.write_text(FEES, encoding="utf-8")
    out = invoke("ingest", str(f), "--tenant", "acme", "--acl", "group:legal", "--no-publish",
                 store=store)
    assert out.returncode == 0, out.stderr
    return store
