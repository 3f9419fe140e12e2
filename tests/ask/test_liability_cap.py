"""How much a party can be liable for (issue 13, item 6): the contract's cap answers "What
is the maximum liability of a party under this agreement?" in its own words ("shall not
exceed", "is limited to", "in no event … in an amount greater than"), and nothing else
does — not an exclusion of kinds of damages, an insurance limit or "including but not
limited to". Every statement here was written for the test."""

from __future__ import annotations

import pytest

from pincite.ask.liability_cap import states_liability_cap
from tests.ask import phrased_as
from tests.corpus import ANA, EMB, add, publish


@pytest.mark.parametrize("question,asks", [
    ("What is the maximum liability of a party under this agreement?", True),
    ("What is the cap on the Supplier's liability?", True),
    ("How much is the Contractor's liability limited to?", True),
    ("¿Cuál es el límite de responsabilidad del contratista?", True),
    ("Which liabilities are excluded from the limitation of liability?", False),
    ("Is the Supplier's liability unlimited for fraud?", False),
    ("What insurance must the Supplier maintain?", False),
])
def test_a_question_asks_the_cap_on_liability(question, asks):
    assert (phrased_as(question) == "liability_cap") is asks


@pytest.mark.parametrize("statement,states", [
    ("The Supplier's aggregate liability under this Agreement shall not exceed the fees paid "
     "in the twelve months before the claim.", True),
    ("Each party's total liability for all claims is limited to EUR 250,000.", True),
    ("IN NO EVENT SHALL EITHER PARTY BE LIABLE IN AN AMOUNT GREATER THAN THE CHARGES PAID "
     "UNDER THE ORDER.", True),
    ("Kestrel's liability under clause 9 is capped at two hundred thousand pounds (GBP 200,000).", True),
    ("EXCEPT FOR FRAUD, NEITHER PARTY SHALL BE LIABLE TO THE OTHER FOR MORE THAN TWO MILLION "
     "EUROS (EUR 2,000,000) IN TOTAL.", True),
    ("Neither party shall be liable for more than one claim arising from the same event.", False),
    ("La responsabilidad total del Contratista no excederá del precio del contrato.", True),
    # no cap
    ("Neither party shall be liable for any indirect, special or consequential damages.", False),
    ("The Supplier shall maintain product liability insurance with limits of not less than "
     "USD 5,000,000 per occurrence.", False),
    ("Losses include, but are not limited to, the costs of replacement goods.", False),
    ("The Supplier's liability for death or personal injury shall not be limited to the fees.", False),
    ("Nothing in this Agreement limits a party's liability for fraud.", False),
    ("The Customer is liable for all amounts due under an Order.", False),
])
def test_a_cap_bounds_liability_by_an_amount(statement, states):
    assert states_liability_cap(statement, "en") is states


CAPPED = """# Services Agreement

8. LIABILITY

8.1 Neither party shall be liable for any indirect or consequential loss.

8.2 Subject to clause 8.1, the Supplier's total liability arising under this Agreement shall not exceed the charges paid by the Customer in the twelve months before the claim.

9. INSURANCE

9.1 The Supplier shall maintain public liability insurance of not less than GBP 2,000,000.
"""

UNCAPPED = """# Services Agreement

8. LIABILITY

8.1 Neither party shall be liable for any indirect or consequential loss.

9. INSURANCE

9.1 The Supplier shall maintain public liability insurance of not less than GBP 2,000,000.
"""


def test_the_cap_answers_the_maximum_liability(lib):
    add(lib, "capped.md", CAPPED)
    publish(lib)
    res = lib.ask(ANA, "What is the maximum liability of a party under this agreement?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"] == (
        "8.2 Subject to clause 8.1, the Supplier's total liability arising under this Agreement "
        "shall not exceed the charges paid by the Customer in the twelve months before the claim.")


def test_an_exclusion_of_damages_or_an_insurance_limit_is_no_cap(lib):
    add(lib, "uncapped.md", UNCAPPED)
    publish(lib)
    res = lib.ask(ANA, "What is the maximum liability of a party under this agreement?", embedder=EMB)
    assert res.status == "not_found"
