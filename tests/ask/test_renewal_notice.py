"""How much notice stops a renewal (issue 13, item 6): the renewal clause's notice period
answers "How much notice must a party give to prevent the renewal of this agreement?" in
its own words ("notice of non-renewal at least ninety days before the end of the term"),
and nothing else does — not a renewal with no notice period, not a notice with no lead
time. Every statement here was written for the test."""

from __future__ import annotations

import re

import pytest

from pincite.ask.renewal_notice import asks_renewal_notice, states_renewal_notice
from pincite.index.analyze import fold
from tests.corpus import ANA, EMB, add, publish


def _folded(q: str) -> str:
    return " ".join(re.findall(r"[^\W_]+", fold(q)))


@pytest.mark.parametrize("question,asks", [
    ("How much notice must a party give to prevent the renewal of this agreement?", True),
    ("What is the notice period for non-renewal?", True),
    ("¿Con cuánta antelación debe notificarse la no renovación del contrato?", True),
    ("How much notice must a party give to terminate this agreement for convenience?", False),
    ("For how long does this agreement renew after its initial term?", False),
])
def test_a_question_asks_the_notice_that_stops_a_renewal(question, asks):
    assert asks_renewal_notice(_folded(question)) is asks


@pytest.mark.parametrize("statement,states", [
    ("This Agreement renews for successive one-year periods unless either party gives written "
     "notice of non-renewal at least ninety (90) days before the end of the then-current term.", True),
    ("The Lease is extended automatically for two years unless the Tenant notifies the Landlord "
     "of its intention not to extend it no later than six months prior to expiry.", True),
    ("El contrato se prorrogará por periodos anuales salvo que una parte comunique su voluntad de "
     "no renovarlo con dos meses de antelación.", True),
    # no notice period, or no renewal
    ("This Agreement renews automatically for successive one-year periods.", False),
    ("Either party may terminate this Agreement on thirty (30) days' written notice.", False),
    ("A party objecting to a renewal shall give written notice to the other party.", False),
])
def test_a_renewal_clause_sets_a_notice_period_ahead_of_the_end(statement, states):
    assert states_renewal_notice(statement, statement.startswith("El") and "es" or "en") is states


LEASE = """# Equipment Lease

4. TERM

4.1 The Lease runs for an initial term of three years from the Delivery Date.

4.2 The Lease is extended automatically for successive periods of one year unless the Lessee gives the Lessor written notice of its intention not to extend it no later than six months prior to the end of the current term.

9. NOTICES

9.1 Notices are given in writing to the addresses in the Schedule.
"""


def test_the_renewal_clause_answers_how_much_notice_stops_the_renewal(lib):
    add(lib, "lease.md", LEASE)
    publish(lib)
    res = lib.ask(ANA, "How much notice must a party give to prevent the renewal of this agreement?",
                  embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith("4.2 The Lease is extended automatically")
