"""A statement answers when it states the question's predicate (issue 13, item 6, third
pass), each rule on contract text written for the test: a yes-or-no question by a
statement that itself states the asked action and its condition; whether a document has
something, not by a statement that it has none; when something begins, by a date or an
event of the document itself; the date and name of this document, not of another thing."""

from __future__ import annotations

import pytest

from pincite.ask.predicate import read_predicate, states
from pincite.ask.question import read_question
from pincite.ask.sentences import is_title, sentence_spans
from pincite.ask.statement_kinds import negated, organisations, this_names
from tests.corpus import ANA, EMB, add, publish


def _states(question: str, statement: str) -> bool:
    q = read_question(question, "acme", ("en", "es"))
    return states(read_predicate(q), q, statement, "en")


# ---- yes or no: the statement itself states the asked action and its condition ----------

TERMINATE = "Can a party terminate this agreement without cause?"


@pytest.mark.parametrize("statement,answers", [
    ("The Customer may terminate this Agreement for convenience on sixty days' written notice.", True),
    ("Either party may terminate this Agreement at any time without cause.", True),
    ("The Consultant may end the engagement for any reason on thirty days' notice.", False),  # no "terminate"
    ("The Consultant may terminate the engagement at any time on thirty days' notice.", True),
    ("The Supplier may terminate this Agreement for cause upon a material breach by the Customer.", False),
    ("The Company may terminate the engagement at any time for Cause.", False),
    ("This Agreement terminates automatically if the Customer becomes insolvent.", False),
])
def test_terminating_without_cause_is_stated_in_one_of_its_set_phrasings(statement, answers):
    assert _states(TERMINATE, statement) is answers


def test_the_predicate_words_are_the_statements_own_not_its_headings():
    audit = "Does a party have the right to audit the other party's books and records?"
    # under a heading "Audit", keeping records is not a right to audit them
    assert not _states(audit, "The Supplier shall keep books and records of all deliveries for three years.")
    assert _states(audit, "The Customer may audit the Supplier's records once in each calendar year.")


def test_words_joined_by_or_are_alternatives_and_the_rest_are_required():
    q = read_question("Is a party restricted from raising or reducing its prices?", "acme", ("en",))
    assert read_predicate(q).slots == ((("raising",), ("reducing",)), (("prices",),))
    q = read_question("Does this agreement provide for liquidated damages or a termination fee?",
                      "acme", ("en",))
    assert read_predicate(q).slots == ((("liquidated", "damages"), ("termination", "fee")),)
    assert _states(q.text, "A termination fee of ten thousand euros is payable on early exit.")
    assert not _states(q.text, "Damages for late delivery are assessed by the court.")


def test_non_x_and_x_are_different_words():
    q = "Is the license granted non-transferable?"
    assert _states(q, "Kestrel grants the Customer a non-transferable, non-exclusive license to use the Software.")
    assert not _states(q, "Kestrel grants the Customer a non-exclusive, transferable license to use the Software.")
    assert not _states("Is a party's appointment exclusive?",
                       "Kestrel appoints the Distributor on a non-exclusive basis in the Territory.")


def test_initials_in_capitals_hold_the_phrase():
    q = "Is intellectual property owned jointly by the parties?"
    assert _states(q, 'All Improvement IP ("Joint IP") shall be owned jointly by the parties.')
    assert not _states(q, "All improvements shall be owned jointly by the parties.")


def test_a_persons_noun_is_not_held_by_the_act():
    q = "Does the license include intellectual property of the licensor's affiliates?"
    # "licensed" is the act; the licensor is a person
    assert not _states(q, "The Joint IP may be used by either party and licensed by its affiliates.")
    assert _states(q, "The license covers the intellectual property of the Licensor and of its affiliates.")


@pytest.mark.parametrize("statement", [
    "There are no third-party beneficiaries of this Agreement.",
    "Nothing in this Agreement creates any third-party beneficiaries or any right for a third party.",
])
def test_whether_a_document_has_something_is_not_answered_by_none(statement):
    assert not _states("Does this agreement have third-party beneficiaries?", statement)


def test_a_present_clause_answers_whether_the_document_has_it():
    assert _states("Does this agreement have third-party beneficiaries?",
                   "The Customer's affiliates are third-party beneficiaries of clause 9.")


def test_a_waived_assertion_is_a_denial():
    q = "Does this agreement provide for liquidated damages or a termination fee?"
    assert not _states(q, "The Customer waives any right to assert that the exit fee is liquidated damages.")


def test_a_thing_asked_with_its_verb_is_stated_in_the_statement():
    q = "What obligations continue after the termination or expiration of this agreement?"
    assert not _states(q, "This Section 9 shall survive termination or expiration of this Agreement.")
    assert _states(q, "The confidentiality obligations continue for five years after termination.")
    # a topic question takes its words from the heading too
    q = read_question("What is the limitation of liability?", "acme", ("en",))
    assert read_predicate(q).slots == ()


# ---- when: a beginning, a time of the asked event -----------------------------------------

EFFECTIVE = "When does this agreement become effective?"


@pytest.mark.parametrize("statement,answers", [
    ("This Agreement becomes effective upon signature by both parties.", True),
    ("This Agreement shall be effective as of 1 March 2025.", True),
    ('This Supply Agreement is made on 3 February 2025 (the "Effective Date") between Kestrel Components Ltd. and Harbour Freight Inc.', True),
    ("This Agreement will become effective on the Effective Date and continue for two years.", False),
    ("The Supplier's price list becomes effective on 1 March 2025.", False),
    ("Such termination shall become effective as of 1 November 2027.", False),
    ("The term of this Agreement commences on the Effective Date and ends on 19 February 2027.", False),
    ("If after three years from the Effective Date of this Agreement the Supplier fails to deliver, the Customer may terminate.", False),
])
def test_a_beginning_is_the_documents_own_with_a_date_or_an_event(statement, answers):
    assert _states(EFFECTIVE, statement) is answers


def test_a_time_relative_to_the_asked_event_does_not_say_when_it_happens():
    q = "When does the initial term of this agreement expire?"
    assert not _states(q, "Either party may prevent renewal by notice given not less than ninety (90) "
                          "days prior to the expiration of the initial term.")
    assert _states(q, "The initial term of this Agreement is three years from the Effective Date.")


def test_the_date_of_a_document_is_not_the_end_of_its_term():
    q = "What is the date of this agreement?"
    assert not _states(q, "The term of this Agreement is one year, ending on 19 February 2027.")
    assert _states(q, "This Agreement is dated 20 February 2026.")
    # the date it becomes effective is its effective date, not the date it bears …
    assert not _states(q, 'This Lease is effective as of 1 June 2026 (the "Effective Date") by '
                          "and between Orchard Estates LLP and Pell Bakeries Ltd.")
    assert not _states(q, "This Lease shall be effective as of 1 June 2026.")
    # … unless it is also made, entered into or dated then
    assert _states(q, "This Lease is made and entered into and effective as of 1 June 2026 by "
                      "Orchard Estates LLP and Pell Bakeries Ltd.")
    assert _states(q, "This Lease, dated and effective as of 1 June 2026, is between Orchard "
                      "Estates LLP and Pell Bakeries Ltd.")
    assert _states(EFFECTIVE, 'This Agreement is effective as of 1 June 2026 (the "Effective Date").')


# ---- names: this document, the place near the asked word, the parties --------------------


def test_the_name_of_this_document_not_of_another_agreement():
    q = "What is the name of this agreement?"
    assert not _states(q, 'WHEREAS, the parties are entering into an equipment lease agreement '
                          '("Equipment Lease Agreement") and a Master Services Agreement.')
    assert _states(q, 'This Supply Agreement (the "Agreement") is made on 3 February 2025.')
    assert this_names('SUPPLY AND SERVICES AGREEMENT (this "Agreement") dated 1 May 2025') == {"agreement"}
    assert this_names("The Supply Agreement between Kestrel and Harbour shall terminate.") == frozenset()


def test_a_place_is_named_beside_the_asked_word():
    q = "Which law governs this agreement?"
    assert not _states(q, "This Agreement shall be subject to all applicable and lawful governmental "
                          "regulations and to the approval of the Regulator.")
    assert _states(q, "This Agreement is governed by the laws of the Republic of Ireland.")
    assert _states(q, "This Agreement is governed by Ohio law.")
    # a defined term is no place; nor a name far from the noun with no "of" between
    assert not _states(q, "Seller indemnifies Buyer against any fine for a violation of Applicable Law.")
    assert not _states(q, "The Supplier complies with applicable law, and Kestrel pays the Supplier.")


def test_a_person_declared_an_individual_is_a_party():
    assert organisations('between Kestrel Components Ltd. ("Kestrel") and Marta Ruiz ("Consultant"), '
                         'an individual.') == 2
    assert organisations("by and between eBay Inc. and Harbour Freight Inc.") == 2


def test_a_negative_subject_negates_its_clause_up_to_an_exception():
    words = negated("Neither the Supplier nor its affiliates will grant any license to a competitor, "
                    "except that the Supplier may sell its own brand.", "en")
    assert {"grant", "licens", "competitor"} <= words
    assert "brand" not in words
    # a word the statement also states outside the negation is not stated only negated
    words = negated("This Agreement renews automatically for one-year periods unless a party "
                    "gives notice not to renew it.", "en")
    assert "renew" not in words
    assert negated("A party may give notice not to renew this Agreement.", "en") >= {"renew"}
    # … nor is one it states in an exception
    assert {"grant", "licens"} <= negated("Except for any license granted in Schedule 2, this "
                                          "Agreement does not grant any license.", "en")
    # a bound is not a negation
    assert "ninety" not in negated("notice of not less than ninety days", "en")


# ---- sentences: initials and headings in capitals ---------------------------------------


def test_a_capital_letter_alone_is_an_initial_unless_it_labels_a_schedule():
    text = "Kestrel Components Ltd., with offices at 21 W. Bridge Street, Leeds. See Schedule A. The Customer pays."
    assert [text[a:b] for a, b in sentence_spans(text)] == [
        "Kestrel Components Ltd., with offices at 21 W. Bridge Street, Leeds.", "See Schedule A.",
        "The Customer pays."]


def test_a_line_in_capitals_that_states_nothing_is_a_heading_dates_or_not():
    assert is_title("SCHEDULE 2 NOVEMBER 1, 2024 RATE CARD BETWEEN KESTREL AND HARBOUR")
    assert not is_title("AGREEMENT DATED 1 NOVEMBER 2024 BETWEEN KESTREL LTD AND HARBOUR LLC")
    assert not is_title("IN NO EVENT SHALL EITHER PARTY BE LIABLE FOR LOST PROFITS")
    assert not is_title("USD 5,000 PER MONTH")


# ---- through ask ---------------------------------------------------------------------------

SUPPLY = """# Supply Agreement

This Supply Agreement (the "Agreement") is made on 3 February 2025 (the "Effective Date") between Kestrel Components Ltd. and Harbour Freight Inc.

## 1. Term

1.1 The initial term of this Agreement is three years from the Effective Date.

1.2 Either party may prevent renewal by notice given not less than ninety (90) days prior to the expiration of the initial term.

## 2. Termination

2.1 The Supplier may terminate this Agreement for cause upon a material breach by the Customer.

## 3. Licence

3.1 Kestrel grants the Customer a non-exclusive, transferable license to use the Catalogue Software.

## 4. General

4.1 There are no third-party beneficiaries of this Agreement.

4.2 This Agreement is governed by the laws of the Republic of Ireland.
"""


@pytest.fixture
def supply(lib):
    add(lib, "supply.md", SUPPLY)
    publish(lib)
    return lib


@pytest.mark.parametrize("question", [
    "Can a party terminate this agreement without cause?",
    "Does this agreement have third-party beneficiaries?",
    "Is the license granted non-transferable?",
])
def test_questions_about_a_clause_the_contract_lacks_are_not_found(supply, question):
    res = supply.ask(ANA, question, embedder=EMB)
    assert res.status == "not_found", res.items[0].citation["quote"]


def test_the_clauses_the_contract_has_are_answered(supply):
    res = supply.ask(ANA, "When does this agreement become effective?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith('This Supply Agreement (the "Agreement") is made on 3 February 2025')
    res = supply.ask(ANA, "Which law governs this agreement?", embedder=EMB)
    assert res.items[0].citation["quote"] == "4.2 This Agreement is governed by the laws of the Republic of Ireland."
    res = supply.ask(ANA, "Is the license granted transferable?", embedder=EMB)
    assert res.items[0].citation["quote"].startswith("3.1 Kestrel grants the Customer a non-exclusive, transferable")


ASSIGNMENT = """# Hosting Agreement

7. ASSIGNMENT

7.1 Neither party may assign or transfer this Agreement without the prior written approval of the other party.

8. NOTICES

8.1 Notices are given in writing to the addresses in the Schedule.
"""


def test_approval_is_consent(lib):
    q = "Can a party assign this agreement without the other party's consent?"
    assert _states(q, "Neither party may assign this Agreement without the prior written approval "
                      "of the other party.")
    add(lib, "hosting.md", ASSIGNMENT)
    publish(lib)
    res = lib.ask(ANA, q, embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith("7.1 Neither party may assign")


RECORDS = """# Supply Agreement

5. RECORDS

5.1 The Supplier shall keep accurate books and records of all Products supplied.

5.2 Each party shall have the right to inspect the other party's books and records relating to this Agreement once in each year.

6. DELIVERY

6.1 The Buyer may inspect the Products on delivery.
"""


def test_inspecting_books_and_records_is_an_audit(lib):
    q = "Does a party have the right to audit the other party's books and records?"
    assert not _states(q, "The Buyer may inspect the Products on delivery.")
    add(lib, "supply.md", RECORDS)
    publish(lib)
    res = lib.ask(ANA, q, embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith("5.2 Each party shall have the right to inspect")


@pytest.mark.parametrize("statement,answers", [
    ("It remains in force for as long as the licence agreement between Kestrel and Harbour "
     "dated 2 May 2021 remains in effect.", False),
    ("WHEREAS, Kestrel is party to a distribution agreement dated 19 February 2019 with Lund "
     "Verktyg AB.", False),
    ('This Escrow Agreement (the "Agreement") is made on 19 September 2025 among Vantor LLC and '
     'Kestrel Ltd.', True),
    ('SUPPLY AGREEMENT (the "Agreement") dated 1 November 2025 between Kestrel Ltd and Harbour '
     'Freight Inc.', True),
])
def test_the_date_of_this_document_not_of_another_agreement(statement, answers):
    assert _states("What is the date of this agreement?", statement) is answers
