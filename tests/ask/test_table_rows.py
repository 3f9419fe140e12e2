"""Which row of a table a question asks (issue 13, item 6), each rule on a table written
for the test: a row whose label adds a qualifier to a row the question names exactly is
another row; a row the question and the label qualify differently is not the asked one;
a row is not the asked one when the question names a word other rows add to its label;
a percentage answers a question that names no rate when its row states percentages only
(the measure is itself a rate), never when it is a share beside the row's amounts."""

from __future__ import annotations

import pytest

from pincite.ask.answer import candidates
from tests.corpus import ANA, EMB, publish

BALANCE = """<html><body><h1>Balance sheet of Corvina Tools</h1>
<table>
<tr><td>(in thousands)</td><td>2021</td><td>2020</td></tr>
<tr><td>Cash and equivalents</td><td>1,204</td><td>998</td></tr>
<tr><td>Total current assets</td><td>5,310</td><td>4,870</td></tr>
<tr><td>Total assets</td><td>9,442</td><td>8,115</td></tr>
<tr><td>Accounts payable</td><td>702</td><td>655</td></tr>
<tr><td>Total current liabilities</td><td>1,950</td><td>1,730</td></tr>
<tr><td>Total liabilities</td><td>4,018</td><td>3,660</td></tr>
</table></body></html>
"""

COMPENSATION = """<html><body><h1>Share-based awards of Corvina Tools</h1>
<table>
<tr><td>(in millions)</td><td>2021</td><td>2020</td></tr>
<tr><td>Income tax benefit</td><td>(9.6)</td><td>(8.3)</td></tr>
<tr><td>Net share-based compensation expense</td><td>38.6</td><td>33.4</td></tr>
<tr><td>Awards granted</td><td>1,120</td><td>980</td></tr>
</table></body></html>
"""

ASSUMPTIONS = """<html><body><h1>Option pricing assumptions of Corvina Tools</h1>
<table>
<tr><td></td><td>2021</td><td>2020</td></tr>
<tr><td>Expected volatility</td><td>42.5%</td><td>39.8%</td></tr>
<tr><td>Risk-free interest rate</td><td>1.2%</td><td>0.6%</td></tr>
<tr><td>Average expected term</td><td>5.5 years</td><td>6.0 years</td></tr>
</table>
<h2>Revenue of Corvina Tools</h2>
<table>
<tr><td>(in thousands)</td><td>2021</td><td>2021</td><td>2020</td><td>2020</td></tr>
<tr><td>Revenue</td><td>$40,512</td><td>100%</td><td>$36,830</td><td>100%</td></tr>
<tr><td>Gross profit</td><td>$18,505</td><td>46%</td><td>$15,466</td><td>42%</td></tr>
</table></body></html>
"""


def _publish(lib, name: str, html: str):
    r = lib.ingest_bytes(html.encode(), source_id=name, tenant="acme", acl=["group:legal"],
                         name=name, sandbox=False)
    assert r.status == "new"
    publish(lib)
    return lib


def _quote(res) -> str:
    assert res.status == "answered", res
    return res.items[0].citation["quote"]


def _judged(lib, question: str) -> dict[str, tuple[bool, bool]]:
    """Each cell's text: (located, expected) as judged against `question`."""
    found = candidates(lib.store, question, ANA, embedder=EMB)
    return {c.judged.unit.text: (c.judged.located, c.judged.expected)
            for c in found.candidates if c.judged.unit.kind == "cell"}


@pytest.fixture
def balance(lib):
    return _publish(lib, "balance.html", BALANCE)


def test_a_row_that_qualifies_the_row_the_question_names_is_another_row(balance):
    judged = _judged(balance, "What were the total liabilities in 2021?")
    assert judged["4,018"] == (True, True)
    assert judged["1,950"] == (False, True)   # "Total current liabilities": "current" unasked
    assert _quote(balance.ask(ANA, "What were the total liabilities in 2021?", embedder=EMB)) \
        == "4,018"


def test_the_qualified_row_is_read_when_the_question_names_its_qualifier(balance):
    judged = _judged(balance, "What were the total current liabilities in 2021?")
    assert judged["1,950"] == (True, True)
    assert _quote(balance.ask(ANA, "What were the total current liabilities in 2021?",
                              embedder=EMB)) == "1,950"


@pytest.fixture
def compensation(lib):
    return _publish(lib, "awards.html", COMPENSATION)


def test_a_row_qualified_otherwise_than_the_question_is_not_the_asked_row(compensation):
    # the question asks the capitalized expense, the row states the net one: the table does
    # not state what is asked
    question = "What was the capitalized share-based compensation expense in 2021?"
    assert _judged(compensation, question)["38.6"] == (False, True)
    assert compensation.ask(ANA, question, embedder=EMB).status == "not_found"


def test_a_row_qualified_only_by_its_label_or_named_whole_is_still_read(compensation):
    for question in ("What was the net share-based compensation expense in 2021?",
                     "What was the share-based compensation expense in 2021?"):
        assert _judged(compensation, question)["38.6"] == (True, True), question
        assert _quote(compensation.ask(ANA, question, embedder=EMB)) == "38.6", question


def test_a_year_a_kind_word_or_a_header_word_beside_the_row_is_no_qualifier(compensation):
    # "2021" (a year), "amount" (a kind of value) and "net" (the row's own word) qualify nothing
    question = "What was the 2021 amount of net share-based compensation expense?"
    assert _judged(compensation, question)["38.6"] == (True, True)


def test_a_general_row_yields_to_the_rows_that_add_the_asked_words(lib):
    html = """<html><body><h1>Operating costs of Corvina Tools</h1>
<table>
<tr><td>(in millions)</td><td>2021</td><td>2020</td></tr>
<tr><td>Cost</td><td>$100</td><td>$82</td></tr>
<tr><td>Pre-tax warranty cost</td><td>40</td><td>31</td></tr>
<tr><td>Net warranty cost</td><td>$29</td><td>$22</td></tr>
</table></body></html>
"""
    _publish(lib, "costs.html", html)
    # "warranty cost" is what the pre-tax and net rows state; "Cost" does not hold
    # "warranty": it is not the asked row, and the question names neither of the others
    question = "What was the deferred warranty cost in 2021?"
    judged = _judged(lib, question)
    assert judged["$100"][0] is False
    assert lib.ask(ANA, question, embedder=EMB).status == "not_found"
    # the row named whole, with no word another row adds, is still read
    assert _judged(lib, "What was the cost in 2021?")["$100"] == (True, True)
    assert _quote(lib.ask(ANA, "What was the cost in 2021?", embedder=EMB)) == "$100"
    assert _quote(lib.ask(ANA, "What was the net warranty cost in 2021?", embedder=EMB)) \
        == "$29"


@pytest.fixture
def assumptions(lib):
    return _publish(lib, "assumptions.html", ASSUMPTIONS)


def test_a_measure_that_is_itself_a_rate_is_answered_by_its_percentage(assumptions):
    judged = _judged(assumptions, "What was the expected volatility in 2021?")
    assert judged["42.5%"] == (True, True)
    # "Average expected term": the question qualifies "expected" with "volatility", the row
    # with "average" and "term"
    assert judged["5.5 years"][0] is False
    assert _quote(assumptions.ask(ANA, "What was the expected volatility in 2021?",
                                  embedder=EMB)) == "42.5%"


def test_a_share_beside_the_rows_amounts_answers_only_a_question_for_a_share(assumptions):
    judged = _judged(assumptions, "What was the gross profit in 2021?")
    assert judged["46%"] == (True, False)       # a share beside "$18,505": not the profit asked
    assert judged["$18,505"] == (True, True)
    judged = _judged(assumptions, "What was the gross profit as a percentage of revenue in 2021?")
    assert judged["46%"] == (True, True)
