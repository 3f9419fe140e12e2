"""When a document's term ends (issue 13, item 6): a term clause answers "When does the
initial term of this agreement expire?" in its own words ("continues for three years",
"remains in force until …", "is for a period of …"), and nothing else does — not a right
to terminate, not a renewal, not a survival clause, not the term of a licence. Every
statement here was written for the test."""

from __future__ import annotations

import pytest

from pincite.ask.term_end import states_term_end
from tests.ask import phrased_as
from tests.corpus import ANA, EMB, add, publish


@pytest.mark.parametrize("question,asks", [
    ("When does the initial term of this agreement expire?", True),
    ("When does this contract end?", True),
    ("When does the term of the agreement terminate?", True),
    ("¿Cuándo vence el contrato?", True),
    ("¿Cuándo finaliza la vigencia del contrato?", True),
    ("When does this agreement become effective?", False),
    ("When does the warranty expire?", False),
    ("When does the term of the licence expire?", False),
    ("For how long does this agreement renew after its initial term?", False),
])
def test_a_question_asks_when_the_document_or_its_term_ends(question, asks):
    assert (phrased_as(question) == "term_end") is asks


@pytest.mark.parametrize("statement,states", [
    ("This Agreement shall continue for three (3) years from the Effective Date.", True),
    ("9.1 The term of this Contract is twenty-four months from signature.", True),
    ("The initial term of this Agreement is three years from the Effective Date.", True),
    ("This Agreement shall have an initial term of two (2) years, unless terminated earlier.", True),
    ("Subject to clause 12, the term of this Agreement shall commence on 1 May 2026 and shall "
     "remain in full force and effect until 30 April 2029.", True),
    ("Unless terminated earlier under clause 8, this Agreement will be in effect from the "
     "Commencement Date until completion of the Pilot Project.", True),
    ("This Agreement takes effect on signature and shall terminate upon the closing of the "
     "Share Sale.", True),
    ("The Term shall expire on the fifth anniversary of the Go-Live Date.", True),
    ("The initial term ends on 30 June 2028.", True),
    ("This Agreement shall continue indefinitely until terminated by either party.", True),
    ("El contrato tendrá una vigencia de dos años desde su firma.", True),
    # not when the document's term ends
    ("Either party may terminate this Agreement on sixty (60) days' written notice.", False),
    ("This Agreement shall terminate immediately upon written notice if the other party "
     "becomes insolvent.", False),
    ("This Agreement shall thereafter continue for successive one-year renewal periods.", False),
    ("The term of the licence granted in clause 3 shall be five years.", False),
    ("Clauses 7 and 9 remain in effect following the expiry of this Agreement.", False),
    ("Upon expiry of this Agreement, the Distributor may continue to sell stock for six months.", False),
    ("This Agreement is made on 3 March 2026 between Kestrel Components Ltd. and Harbour "
     "Freight Inc.", False),
    ('"Term" means the period from the Effective Date until the end of the Pilot Project.', False),
])
def test_a_term_clause_states_when_the_document_ends_in_its_own_words(statement, states):
    assert states_term_end(statement, "en") is states


SUPPLY = """# Supply Agreement

1. TERM

1.1 This Supply Agreement is made on 3 March 2026 between Kestrel Components Ltd. and Harbour Freight Inc.

1.2 This Agreement shall remain in force until 31 March 2029, unless terminated earlier under clause 6.

1.3 Thereafter this Agreement shall renew for successive periods of one year unless either party objects.

6. TERMINATION

6.1 Either party may terminate this Agreement on ninety days' written notice.

6.2 Clauses 4 and 5 survive the expiry of this Agreement for two years.
"""

NO_TERM = """# Purchase Order Terms

1. DELIVERY

1.1 The Supplier delivers the goods to the Customer's depot in Leeds.

2. TERMINATION

2.1 Either party may terminate this Agreement on ninety days' written notice.

2.2 Clauses 4 and 5 survive the expiry of this Agreement for two years.
"""


def test_the_term_clause_answers_when_the_initial_term_expires(lib):
    add(lib, "supply.md", SUPPLY)
    publish(lib)
    res = lib.ask(ANA, "When does the initial term of this agreement expire?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"] == ("1.2 This Agreement shall remain in force until 31 "
                                              "March 2029, unless terminated earlier under clause 6.")


def test_a_right_to_terminate_or_a_survival_clause_is_no_expiry(lib):
    add(lib, "po.md", NO_TERM)
    publish(lib)
    res = lib.ask(ANA, "When does the initial term of this agreement expire?", embedder=EMB)
    assert res.status == "not_found"
