"""The clause readers of `ask` (term end, liability cap, renewals, parties, negation) take
time linear in a statement's length: a hostile document's sentence of tens of thousands
of characters, built from the words they look for, is read in well under a second. The
renewal reader took 2.9 s on the fourth case (75,000 characters) while it searched the
whole text before each "renew" again; the others read a bounded window after each match."""

from __future__ import annotations

import time

import pytest

from pincite.ask.liability_cap import states_liability_cap
from pincite.ask.predicate import read_predicate, states
from pincite.ask.question import read_question
from pincite.ask.renewal import states_renewal_notice, states_renewal_term
from pincite.ask.statement_kinds import negated, organisations
from pincite.ask.term_end import states_term_end

HOSTILE = [
    "This Agreement " + "shall continue " * 3000,
    "liability " * 5000 + "not exceed",
    "The Agreement renew " * 3000,
    "notice renewal terminate " * 3000 + "ninety days",
    "between " + "Acme Corp (" * 2000,
    "except " + "x " * 20000,
    "a " * 20000 + "agreement dated",
]


@pytest.mark.parametrize("text", HOSTILE, ids=[t[:20] for t in HOSTILE])
def test_a_long_hostile_statement_is_read_in_linear_time(text):
    q = read_question("What is the date of this agreement?", "acme", ("en",))
    p = read_predicate(q)
    # CPU time: the bound is the readers' work, not the wait for a core (`make test` runs
    # more pytest workers than the machine has cores)
    t0 = time.process_time()
    for reader in (states_term_end, states_liability_cap, states_renewal_notice, states_renewal_term):
        reader(text + " ", "en")  # a text not read before (the readers cache by text)
    organisations(text)
    negated(text, "en")
    states(p, q, text + "  ", "en")
    assert time.process_time() - t0 < 1.5
