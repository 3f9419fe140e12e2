"""A document's opening (issue 13, item 6): its date, name and parties are read in its
first blocks that say something — a letterhead's short lines ride along without using up
the opening — and its date is the one it bears ("dated", "entered into on"), not the day
its term starts ("shall take effect on"). Documents written for the test."""

from __future__ import annotations

from tests.corpus import ANA, EMB, add, publish

LETTERHEAD = """Exhibit 4.2

www.corvane.example

+44 113 496 0000

7 Dock Road, Hull, HU1 4AB

# Hosting Agreement

This Hosting Agreement is entered into on 4 May 2026 by and between Corvane Analytics, a Delaware corporation ("Customer"), and brightpath labs, a Delaware corporation ("Host").

1. SERVICES

1.1 Host shall host the Customer's web site on servers in Leeds and keep daily backups.
"""

DATED = """# Services Agreement

THIS AGREEMENT is dated 7 September 2026 and made between Corvane Analytics Ltd and Wexley Foods Ltd.

1. TERM

1.1 This Agreement shall take effect on 1 October 2026 (the "Commencement Date") and continue for two years.
"""


def test_a_letterhead_does_not_use_up_the_opening(lib):
    add(lib, "hosting.md", LETTERHEAD)
    publish(lib)
    res = lib.ask(ANA, "What is the date of this agreement?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"].startswith("This Hosting Agreement is entered into on 4 May 2026")
    res = lib.ask(ANA, "Who are the parties to this agreement?", embedder=EMB)
    assert res.items[0].citation["quote"].startswith("This Hosting Agreement is entered into")


def test_the_date_of_a_document_is_the_date_it_bears_not_the_start_of_its_term(lib):
    add(lib, "services.md", DATED)
    publish(lib)
    res = lib.ask(ANA, "What is the date of this agreement?", embedder=EMB)
    assert res.status == "answered"
    assert res.items[0].citation["quote"] == ("THIS AGREEMENT is dated 7 September 2026 and made "
                                              "between Corvane Analytics Ltd and Wexley Foods Ltd.")


PREAMBLE = """# Supply Agreement

SUPPLY AGREEMENT dated 2 February 2026 (the "Effective Date") between Tarn Valley Dairies Ltd. and Wexley Foods Ltd.

1. SUPPLY

1.1 Tarn Valley Dairies Ltd. shall supply milk to Wexley Foods Ltd. each week.
"""


def test_when_a_document_begins_is_read_in_its_opening_too(lib):
    from pincite.ask.answer import candidates
    from pincite.ask.passages import OPENING

    add(lib, "supply.md", PREAMBLE)
    publish(lib)
    question = "When does this agreement become effective?"
    found = candidates(lib.store, question, ANA, embedder=EMB)
    assert any(c.item.chunk_id == OPENING for c in found.candidates)
    res = lib.ask(ANA, question, embedder=EMB)
    assert res.items[0].citation["quote"].startswith('SUPPLY AGREEMENT dated 2 February 2026 (the "Effective Date")')
