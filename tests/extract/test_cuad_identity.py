"""The contract's identity fields on contracts written here, one per class of wrong SHOW the
sealed CUAD test found (issue 13): a name taken from a sentence that merely contains
"Agreement", a title set on two lines losing its first word, and an agreement date taken
from elsewhere while the contract's own date line is a blank template."""

from __future__ import annotations

import pytest

import pincite
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from tests.corpus import ANA, EXAMPLES

NO_TITLE = """Page 14 of 20

12. Entire Agreement. This Agreement constitutes the entire agreement between the parties with respect to its subject matter.

13. Notices. All notices shall be in writing and delivered by hand or by courier.

14. Counterparts. This Agreement may be executed in counterparts, each of which is an original.
"""
TWO_LINE_TITLE = """EXCLUSIVE
DISTRIBUTOR AGREEMENT

This Exclusive Distributor Agreement (the "Agreement") is entered into on March 3, 2019 between Northwind Traders Inc. (the "Supplier") and Harbor Logistics GmbH (the "Distributor").

1. Appointment. The Supplier appoints the Distributor as its exclusive distributor in the Territory.
"""
BLANK_DATE = """SUPPLY AGREEMENT

This Supply Agreement is made this ____ day of ______, 2013 between Northwind Traders Inc. (the "Seller") and Harbor Logistics GmbH (the "Buyer").

1. Term. The term of this Agreement begins on the Effective Date and ends on March 5, 2016.

2. Prior agreement. The parties terminate the letter of intent dated March 5, 2013.
"""


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    lib = pincite.open(tmp_path_factory.mktemp("cuad") / "s", create=True)
    schema = load_schema(EXAMPLES / "contracts" / "cuad.yaml")
    out = {}
    for name, text in (("no-title.txt", NO_TITLE), ("two-lines.txt", TWO_LINE_TITLE),
                       ("blank-date.txt", BLANK_DATE)):
        lib.ingest_bytes(text.encode(), source_id=name, tenant="acme", acl=["group:legal"],
                         name=name, sandbox=False)
        res = run_extraction(lib.store, ANA, schema, [name], route=False, persist=False)
        out[name] = {r.field: r for r in res.records}
    yield out
    lib.close()


def test_a_sentence_that_merely_contains_agreement_is_never_shown(records):
    for field in ("document_name", "parties", "agreement_date"):
        r = records["no-title.txt"][field]
        assert r.outcome != "show", (field, r.value)
        assert "term_only" in r.flags and r.reason == "term_only" or r.outcome != "flag"


def test_a_title_set_on_two_lines_keeps_its_first_word(records):
    r = records["two-lines.txt"]["document_name"]
    assert " ".join(r.value.split()) == "EXCLUSIVE DISTRIBUTOR AGREEMENT"
    assert r.outcome == "show" and r.provenance[0].quote_verified


def test_a_blank_date_line_is_the_agreement_date_never_a_date_from_elsewhere(records):
    r = records["blank-date.txt"]["agreement_date"]
    assert (r.outcome, r.reason, r.value) == ("abstain", "blank_in_document", None)
    assert r.provenance[0].quote.startswith("____ day of ______, 2013")
