"""An answer states what the question's form asks for (issue 13, item 6), each rule on a
document written for the test: a table cell where the question points (its row and its
own column; a change from a change column; a percentage only when one is asked), the name
of an agreement where it is named, the parties where organisations are named, the
governing law where it is stated affirmatively (not in a definition, not negated)."""

from __future__ import annotations

import pytest

from pincite.ask.question import read_question
from pincite.ask.statement_kinds import is_definition, named_heads, negated, organisations
from tests.corpus import ANA, EMB, add, publish

RESULTS = """<html><body><h1>Results of operations</h1>
<table>
<tr><td>(in thousands)</td><td>2019</td><td>% of revenue</td><td>2018</td><td>Change (%)</td></tr>
<tr><td>Revenue</td><td>$40,512</td><td>100%</td><td>$36,830</td><td>10.0</td></tr>
<tr><td>Cost of revenue</td><td>22,007</td><td>54%</td><td>21,364</td><td>3.0</td></tr>
<tr><td>Operating income</td><td>9,311</td><td>23%</td><td>7,020</td><td>32.6</td></tr>
</table></body></html>
"""

AGREEMENT = """# Master Services Agreement

This Master Services Agreement (the "Agreement") is made on 2 March 2026 between Northwind Logistics Ltd. and Harbour Freight Inc.

1. DEFINITIONS

1.1 "Applicable Law" means every statute and regulation that binds a party in the Territory.

2. GENERAL

2.1 Neither party may use the other party's trade name without its written consent.

2.2 The parties shall meet each quarter to review the services under this Agreement.

2.3 This Agreement shall not be governed by the United Nations Convention on Contracts for the International Sale of Goods.

2.4 This Agreement is governed by the laws of England and Wales.
"""


def _quote(res) -> str:
    assert res.status == "answered", res
    return res.items[0].citation["quote"]


@pytest.fixture
def results(lib):
    r = lib.ingest_bytes(RESULTS.encode(), source_id="results.html", tenant="acme",
                         acl=["group:legal"], name="results.html", sandbox=False)
    assert r.status == "new"
    publish(lib)
    return lib


def test_a_level_is_read_in_its_year_column_not_in_a_share_or_a_change(results):
    res = results.ask(ANA, "What was the operating income in 2019?", embedder=EMB)
    assert _quote(res) == "9,311"
    assert "2019" in res.items[0].citation["locator"]


def test_the_size_of_a_change_is_read_in_the_change_column(results):
    res = results.ask(ANA, "What was the percentage change in operating income from 2018 to 2019?",
                      embedder=EMB)
    assert _quote(res) == "32.6"


def test_a_cell_in_a_column_the_question_does_not_name_is_not_the_answer(results):
    # every data column of the row is a year or a share; the question names none of them
    res = results.ask(ANA, "What was the operating income?", embedder=EMB)
    assert res.status == "not_found"


@pytest.fixture
def agreement(lib):
    add(lib, "msa.md", AGREEMENT)
    publish(lib)
    return lib


def test_the_name_of_an_agreement_is_its_title_not_a_trade_name(agreement):
    # the one heading that answers: the document's title names it
    res = agreement.ask(ANA, "What is the name of this agreement?", embedder=EMB)
    assert _quote(res) == "Master Services Agreement"
    assert res.items[0].citation["verify_reason"] == "ok"


TITLED = """# Confidential

LICENSING AND HOSTING AGREEMENT

This Agreement is made on 2 March 2026 between Northwind Logistics Ltd. and Harbour Freight Inc.

1. TRADE NAMES

1.1 Neither party may use the other party's trade name without its written consent.
"""

UNTITLED = """# Confidential

This Licensing and Hosting Agreement (the "Agreement") is made on 2 March 2026 between Northwind Logistics Ltd. and Harbour Freight Inc.

1. TRADE NAMES

1.1 Neither party may use the other party's trade name without its written consent.
"""


def test_a_title_line_names_the_document_and_a_heading_that_names_none_does_not(lib):
    add(lib, "titled.md", TITLED)
    add(lib, "untitled.md", UNTITLED)
    publish(lib)
    q = "What is the name of this agreement?"
    res = lib.ask(ANA, q, embedder=EMB, filters={"source_ids": ["titled.md"]})
    assert _quote(res) == "LICENSING AND HOSTING AGREEMENT"
    res = lib.ask(ANA, q, embedder=EMB, filters={"source_ids": ["untitled.md"]})
    assert _quote(res).startswith("This Licensing and Hosting Agreement (the \"Agreement\")")


def test_the_parties_are_where_organisations_are_named(agreement):
    res = agreement.ask(ANA, "Who are the parties to this agreement?", embedder=EMB)
    assert "Northwind Logistics Ltd. and Harbour Freight Inc." in _quote(res)


def test_the_opening_and_a_passage_over_the_same_words_are_cited_once(lib):
    # the preamble is read as the document's opening and is also a retrieved passage
    add(lib, "msa.md", "# Master Services Agreement\n\nThis Master Services Agreement is made "
        "between Halvorsen Data Systems AS, a Norwegian company, and Brightwater Logistics "
        "Inc., a Delaware corporation.\n\n1. FEES\n\n1.1 Fees are payable monthly.\n")
    publish(lib)
    res = lib.ask(ANA, "Who are the parties to this agreement?", embedder=EMB)
    spans = [(i.citation["char_start"], i.citation["char_end"]) for i in res.items]
    assert res.status == "answered" and "Halvorsen Data Systems AS" in _quote(res)
    assert len(spans) == len(set(spans)) == 1


def test_the_governing_law_is_stated_affirmatively_not_defined_or_negated(agreement):
    res = agreement.ask(ANA, "Which law governs this agreement?", embedder=EMB)
    assert _quote(res) == "2.4 This Agreement is governed by the laws of England and Wales."


@pytest.mark.parametrize("text,count", [
    ("made between Northwind Logistics Ltd. and Harbour Freight Inc. on 2 March", 2),
    ("by and between ACME HOLDINGS LLC, a Delaware company, and Ibérica Servicios S.A.", 2),
    ("CRO Consulting (Pty) Limited, whose registered office is in Johannesburg", 1),
    ("The parties shall meet each quarter.", 0),
    ("This Agreement binds the Company.", 0),
    # the Nordic and European forms, written as registers write them
    ("by and between Halvorsen Data Systems AS, a Norwegian company, and Lund Verktyg AB", 2),
    ("between Nordkap Shipping ASA and Tampere Paper Oy", 2),
    ("between Kobenhavn Data A/S and Aarhus Soft ApS", 2),
    ("Berliner Bau GmbH & Co. KG and Roma Costruzioni S.p.A.", 2),
    ("Paris Conseil SAS and Lyon Media SARL", 2),
    ("Madrid Obras SA and Amsterdam Trade BV", 2),
    # a public body given a role in the contract is a party; named in passing it is not
    ('between Aire Paving Ltd, of 4 Mill Lane, Leeds ("the Contractor"), and the City of '
     'Leeds Council ("the Council")', 2),
    ('De una parte, Ebro Instalaciones S.L. (el "Contratista"), y de otra, el Ayuntamiento de '
     'Calatayud (el "Ayuntamiento")', 2),
    ("in accordance with the by-laws of the City of Leeds", 0),
    # … but a short form in a sentence in capitals is a word of the sentence
    ("NEITHER PARTY SHALL BE LIABLE FOR ANY DAMAGES AS A RESULT OF THIS AGREEMENT", 0),
    # in a parties clause, a name given its role or described as a company is a party, and
    # a party named twice counts once
    ('by and between Corvane Analytics (\u201cCorvane\u201d), 12 Dock Road, Hull, and Wexley '
     'Foods, (\u201cWexley\u201d), a Delaware corporation', 2),
    ("by and between brightpath labs, a Delaware corporation, and Ostrava Mills, a Czech "
     "company", 2),
    ('between Tarn Valley Dairies Ltd. ("Tarn") and Pell & Co ("Pell")', 2),
    ('dated as of March 2, 2026 (the "Effective Date") between Tarn Valley Dairies Ltd. and '
     'the Supplier', 1),
    ("The parties shall meet each quarter between January and March.", 0),
    ("such documents as Annex B, as amended", 0),
])
def test_organisations_are_capitalised_names_with_a_company_form(text, count):
    assert organisations(text) == count


def test_named_heads_skip_a_determiner_and_its_noun_and_runs_of_capitals():
    assert named_heads("This Master Services Agreement is made") == frozenset({"agreement"})
    assert named_heads("This Agreement is made") == frozenset()
    assert named_heads("THE RIGHTS OF THE PARTIES UNDER THIS AGREEMENT SHALL NOT BE AFFECTED") \
        == frozenset()


def test_definitions_and_negated_words_are_read():
    assert is_definition('1.1 "Applicable Law" means every statute')
    assert is_definition("\u201cParty\u201d or \u201cParties\u201d means the Supplier")
    assert not is_definition("This Agreement is governed by the laws of Spain.")
    assert "govern" in {w[:6] for w in negated("shall not be governed by the Convention", "en")}
    assert negated("This Agreement is governed by the laws of Spain.", "en") == frozenset()


@pytest.mark.parametrize("question,expects,change,rate", [
    ("What was the percentage change in revenue between 2018 and 2019?", "amount", True, True),
    ("What is the change (%) for order intake?", "amount", True, True),
    ("What is the change in the obligation recognized as?", "statement", False, False),
    ("What was the reason for the increase in revenue?", "statement", False, False),
    ("What was the revenue in 2019?", None, False, False),
    ("What is the name of this agreement?", "title", False, False),
])
def test_the_form_of_a_question_says_whether_it_asks_a_change_or_a_share(question, expects,
                                                                          change, rate):
    q = read_question(question, "acme", ("en",))
    assert (q.expects, q.change, q.rate) == (expects, change, rate)


def test_a_possessive_is_part_of_the_name_and_a_lone_letter_is_no_word():
    q = read_question("What was Autodesk's goodwill at the end of 2018?", "acme", ("en",))
    assert q.words == ("autodesk", "goodwill", "end", "2018")
    assert q.names == (True, False, False, False)


def _long_agreement() -> str:
    filler = ("The services are performed with the care of a diligent provider, in line with "
              "the service description, and each report is kept for audit. ") * 9
    sections = [f"{n}. CLAUSE {n}\n\n{n}.1 The parties shall review clause {n} of this Agreement "
                f"each year. {filler}\n" for n in range(1, 31)]
    recital = ("Whereas the carrier moves freight by road and rail between its depots, and the "
               "shipper wishes to send goods through that network. ") * 10
    return ("# Logistics Agreement\n\nThis Logistics Agreement is made on 2 March 2026 between "
            f"Northwind Logistics Ltd. and Harbour Freight Inc.\n\n{recital}\n\n"
            + "\n".join(sections))


def test_the_parties_and_the_date_are_read_in_the_opening_even_when_retrieval_passes_it_by(lib):
    add(lib, "long.md", _long_agreement())
    publish(lib)
    opening = ("This Logistics Agreement is made on 2 March 2026 between Northwind Logistics "
               "Ltd. and Harbour Freight Inc.")
    for question in ("Who are the parties to this agreement?", "What is the date of this agreement?"):
        res = lib.ask(ANA, question, embedder=EMB)
        assert _quote(res) == opening, question
    # … and its name in its title
    assert _quote(lib.ask(ANA, "What is the name of this agreement?", embedder=EMB)) == \
        "Logistics Agreement"


@pytest.mark.parametrize("question,opening", [
    ("Who are the parties to this agreement?", True), ("What is the date of this contract?", True),
    ("What is the name of this agreement?", True), ("Who is the CEO of Northwind?", False),
    ("When does this agreement expire?", False), ("What is the date of the invoice?", False),
])
def test_questions_about_a_documents_identity_read_its_opening(question, opening):
    assert read_question(question, "acme", ("en",)).opening is opening


def test_a_what_question_is_not_answered_by_a_negated_grant(lib):
    add(lib, "licence.md", "# Licence Agreement\n\n1. LICENCE\n\n1.1 No licence is granted "
        "under this Agreement to any patent of the Licensor.\n\n1.2 The Licensor grants the "
        "Licensee a non-exclusive licence to use the Software in Spain.\n")
    publish(lib)
    res = lib.ask(ANA, "What licence does the Licensor grant under this agreement?", embedder=EMB)
    assert _quote(res) == ("1.2 The Licensor grants the Licensee a non-exclusive licence to use "
                           "the Software in Spain.")


def test_the_name_of_this_agreement_is_never_another_agreement_named_in_it(lib):
    add(lib, "hosting.md", "This Hosting Agreement is made between Northwind Logistics Ltd. and "
        "Harbour Freight Inc.\n\n" + "The hosting service runs in two data centres. " * 12
        + "\n\n" + "Backups are kept for thirty days in a second region. " * 12
        + "\n\n" + "Support answers within four hours on working days. " * 12
        + "\n\n9. OTHER AGREEMENTS\n\n9.1 The Software Development Agreement of even date "
        "herewith is not affected by this agreement.\n")
    publish(lib)
    res = lib.ask(ANA, "What is the name of this agreement?", embedder=EMB)
    assert [i.citation["quote"] for i in res.items] == [
        "This Hosting Agreement is made between Northwind Logistics Ltd. and Harbour Freight Inc."]


def test_a_policy_without_the_cell_bar_reads_with_its_default_and_a_newer_one_is_refused():
    from pincite.errors import UsageError
    from pincite.index.policy import RankingPolicy

    old = {k: v for k, v in RankingPolicy().to_dict().items() if k != "ask_min_coverage_cell"}
    assert RankingPolicy.from_dict({**old, "version": 1}).ask_min_coverage_cell == 0.5
    with pytest.raises(UsageError, match="newer than this pincite"):
        RankingPolicy.from_dict({**RankingPolicy().to_dict(), "version": 3})


def test_the_date_of_this_agreement_is_its_own_not_the_start_of_its_term(lib):
    add(lib, "supply.md", "# Supply Agreement\n\nThis Supply Agreement is dated 2 March 2026.\n\n"
        + "\n\n".join(f"{n}. The supplier delivers batch {n} to the depot." for n in range(1, 6))
        + "\n\n9. TERM\n\n9.1 The term of this agreement commences on 1 April 2026, the date "
        "of the first delivery of this agreement.\n")
    publish(lib)
    res = lib.ask(ANA, "What is the date of this agreement?", embedder=EMB)
    assert [i.citation["quote"] for i in res.items] == ["This Supply Agreement is dated 2 March 2026."]


PRICE_ES = """# Contrato de mantenimiento

En Zaragoza, a 9 de septiembre de 2025.

De una parte, Ebro Instalaciones S.L. (el "Contratista"), y de otra, Moncayo Servicios S.A. (el "Cliente").

## Cláusula 2. Precio

2.1 El precio del contrato es de 84.000 euros anuales, IVA excluido.

## Cláusula 3. Duración

3.1 El contrato tendrá una duración de dos años a contar desde el 1 de octubre de 2025.
"""

PRICE_EN = """# Maintenance Agreement

1. PRICE

1.1 The annual price of the maintenance services is EUR 12,000 excluding VAT.
"""


ES_PRICE = "2.1 El precio del contrato es de 84.000 euros anuales, IVA excluido."
EN_PRICE = "1.1 The annual price of the maintenance services is EUR 12,000 excluding VAT."


@pytest.mark.parametrize("doc,question,quote", [
    (PRICE_ES, "¿Cuál es el precio del contrato con IVA?", None),  # the price excludes it
    (PRICE_ES, "¿Cuál es el precio del contrato sin IVA?", ES_PRICE),
    (PRICE_ES, "¿Cuál es el precio del contrato?", ES_PRICE),
    (PRICE_EN, "What is the annual price of the maintenance services including VAT?", None),
    (PRICE_EN, "What is the annual price of the maintenance services excluding VAT?", EN_PRICE),
])
def test_a_price_that_excludes_what_the_question_includes_is_no_answer(lib, doc, question, quote):
    add(lib, "price.md", doc)
    publish(lib)
    res = lib.ask(ANA, question, embedder=EMB)
    if quote is None:
        assert res.status == "not_found", res
    else:
        assert _quote(res) == quote


def test_the_date_of_a_contract_asked_in_spanish_is_read_in_its_opening(lib):
    # "del contrato" is this contract: its date is the opening's, not a term's start
    add(lib, "contrato.md", PRICE_ES)
    publish(lib)
    res = lib.ask(ANA, "¿Cuál es la fecha del contrato?", embedder=EMB)
    assert _quote(res) == "En Zaragoza, a 9 de septiembre de 2025."
