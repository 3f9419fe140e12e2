"""Renewals (issue 13, item 6): the renewal clause answers "For how long does this agreement
renew after its initial term?" with its period ("for successive one-year periods"), and
"How much notice must a party give to prevent the renewal of this agreement?" with its
notice period ("notice of non-renewal at least ninety days before the end of the term") —
in its own words; nothing else does: not a renewal with no notice period, a notice with no
lead time, a renewal it negates, or another thing extended. Every statement here was
written for the test."""

from __future__ import annotations

import pytest

from pincite.ask.renewal import (
    states_renewal_notice,
    states_renewal_term,
)
from tests.ask import phrased_as
from tests.corpus import ANA, EMB, add, publish


@pytest.mark.parametrize("question,asks", [
    ("How much notice must a party give to prevent the renewal of this agreement?", True),
    ("What is the notice period for non-renewal?", True),
    ("¿Con cuánta antelación debe notificarse la no renovación del contrato?", True),
    ("How much notice must a party give to terminate this agreement for convenience?", False),
    ("For how long does this agreement renew after its initial term?", False),
])
def test_a_question_asks_the_notice_that_stops_a_renewal(question, asks):
    assert (phrased_as(question) == "renewal_notice") is asks


@pytest.mark.parametrize("statement,states", [
    ("This Agreement renews for successive one-year periods unless either party gives written "
     "notice of non-renewal at least ninety (90) days before the end of the then-current term.", True),
    ("The Lease is extended automatically for two years unless the Tenant notifies the Landlord "
     "of its intention not to extend it no later than six months prior to expiry.", True),
    ("El contrato se prorrogará por periodos anuales salvo que una parte comunique su voluntad de "
     "no renovarlo con dos meses de antelación.", True),
    ("Cualquiera de las partes podrá oponerse a la prórroga mediante preaviso escrito con una "
     "antelación mínima de dos meses.", True),
    ("Either party may prevent a renewal by giving notice of termination with a notice period of "
     "ninety (90) days.", True),
    # no notice period, or no renewal
    ("This Agreement renews automatically for successive one-year periods.", False),
    ("Either party may terminate this Agreement on thirty (30) days' written notice.", False),
    ("A party objecting to a renewal shall give written notice to the other party.", False),
])
def test_a_renewal_clause_sets_a_notice_period_ahead_of_the_end(statement, states):
    lang = "es" if statement.startswith(("El", "Cualquiera")) else "en"
    assert states_renewal_notice(statement, lang) is states


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


@pytest.mark.parametrize("question,asks", [
    ("For how long does this agreement renew after its initial term?", True),
    ("How long is each renewal term?", True),
    ("¿Por cuánto tiempo se prorroga el contrato?", True),
    ("How much notice must a party give to prevent the renewal of this agreement?", False),
    ("When does this agreement renew?", False),
])
def test_a_question_asks_how_long_a_renewal_runs(question, asks):
    assert (phrased_as(question) == "renewal_term") is asks


@pytest.mark.parametrize("statement,states", [
    ("Thereafter this Agreement is extended for further terms of twelve (12) months each.", True),
    ("This Agreement renews automatically for successive one-year periods.", True),
    ("The Lease may be renewed for one further term of two (2) years by mutual agreement.", True),
    ("El contrato se prorrogará tácitamente por periodos anuales.", True),
    ("This Agreement shall not be renewed for any further period.", False),
    ("Either party may give notice of non-renewal ninety (90) days before the end of the term.", False),
    ("The Licensee may extend the payment date by 30 days.", False),
])
def test_a_renewal_clause_states_the_period_it_renews_for(statement, states):
    assert states_renewal_term(statement, "es" if statement.startswith("El") else "en") is states


def test_the_renewal_clause_answers_how_long_a_renewal_runs(lib):
    add(lib, "lease.md", LEASE)
    publish(lib)
    res = lib.ask(ANA, "For how long does this agreement renew after its initial term?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith("4.2 The Lease is extended automatically")
