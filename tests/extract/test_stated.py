"""Value-in-quote (`extract.stated`): a verified quote must state the value its record
claims. Each row is a quote a reader would check and the value it does, or does not, state."""

from __future__ import annotations

import pytest

from pincite.extract.stated import states

EUR = "EUR"
STATED = [
    ("money", {"amount": 100, "currency": EUR}, "The purchase price is 100 euros"),
    ("money", {"amount": 450000, "currency": EUR}, "igual o superior a 450.000 euros"),
    ("money", {"amount": 1500000, "currency": EUR}, "un importe de 1,5 millones de euros"),
    ("money", {"amount": 18.5, "currency": "USD"}, "a fee of USD 18.50 per hour"),
    ("percent", {"percent": 5}, "garantía definitiva del 5 por ciento"),
    ("percent", {"percent": 12.5}, "a discount of 12,5 %"),
    ("number", 3, "al menos tres contratos de naturaleza similar"),
    ("number", 30, "en el plazo de treinta (30) días"),
    ("date", "2027-01-15", "finalizará el 15 de enero de 2027 a las 14:00 horas"),
    ("datetime", {"date": "2027-01-15", "time": "14:00"}, "el 15 de enero de 2027 a las 14:00 horas"),
    ("datetime", {"date": "2027-01-15"}, "on 15 January 2027"),
    ("duration", {"value": 24, "unit": "months"}, "un plazo de veinticuatro (24) meses"),
    ("duration", {"value": 2, "unit": "years"}, "for a term of two years"),
    ("text", "Acme Ltd.", "between ACME LTD. and Beta"),
    ("text", "non-exclusive licence", "a non\u2011exclusive  licence"),
    ("enum", "open", "procedimiento abierto"),   # a mapped category: not checked
    ("money", {"required": False}, "no se exige garantía provisional"),
    ("money", None, "anything"),
]
NOT_STATED = [
    ("money", {"amount": 999999, "currency": EUR}, "The purchase price is 100 euros"),
    ("money", {"amount": 100, "currency": "USD"}, "The purchase price is 100 euros"),
    ("money", {"amount": 180, "currency": EUR}, "EUR 18"),
    ("money", {"amount": 18500, "currency": "USD"}, "USD 18,50"),
    ("percent", {"percent": 50}, "garantía definitiva del 5 %"),
    ("percent", {"percent": 5}, "5 euros"),
    ("number", 4, "al menos tres contratos"),
    ("number", 106, "10⁶ units"),
    ("date", "2027-01-16", "finalizará el 15 de enero de 2027"),
    ("datetime", {"date": "2027-01-15", "time": "15:00"}, "el 15 de enero de 2027 a las 14:00 horas"),
    ("duration", {"value": 12, "unit": "months"}, "a term of 24 months"),
    ("duration", {"value": 24, "unit": "days"}, "a term of 24 months"),
    ("duration", {"value": 24, "unit": "days"}, "24 copies delivered today"),
    ("text", "Acme Inc.", "between Acme Ltd. and Beta"),
    ("text", "  ", "between Acme Ltd. and Beta"),
    ("number", 3, ""),
]


@pytest.mark.parametrize("ftype,value,quote", STATED)
def test_a_quote_that_states_the_value(ftype, value, quote):
    assert states(ftype, value, quote)


@pytest.mark.parametrize("ftype,value,quote", NOT_STATED)
def test_a_quote_that_does_not_state_the_value(ftype, value, quote):
    assert not states(ftype, value, quote)


def test_a_clause_joining_passages_needs_each_passage_in_some_quote():
    quotes = ["ACME LTD., a Delaware corporation (“Acme”)", "BETA GMBH (“Beta”)"]
    joined = "ACME LTD., a Delaware corporation (“Acme”) … BETA GMBH (“Beta”)"
    assert states("clause", joined, quotes)
    assert not states("clause", joined, quotes[:1])
    assert not states("clause", joined + " … GAMMA SA", quotes)
