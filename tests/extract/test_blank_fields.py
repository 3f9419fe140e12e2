"""A field whose only evidence is a blank is ABSTAIN `blank_in_document`, never a value
from elsewhere (issue 13, item 3); values read from where a document puts them (labels,
a date and its time, points, counts). Documents written for these tests."""

from __future__ import annotations

from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.vocab import DecisionReason, Outcome
from tests.corpus import ANA, EXAMPLES, add

SCHEMA = load_schema(EXAMPLES / "tender" / "schema.yaml")

# HTML, not Markdown: "__/__/20__" would be read as emphasis
TEMPLATE_ES = """<html lang="es"><body><h1>Pliego modelo</h1>
<h2>1. Objeto</h2>
<p>El presente contrato tiene por objeto la limpieza de los colegios públicos del municipio.</p>
<h2>2. Importes</h2>
<p>Presupuesto base de licitación: [●] euros, IVA excluido.</p>
<p>El seguro de responsabilidad civil cubrirá al menos 600.000,00 euros.</p>
<h2>3. Plazos</h2>
<p>Fecha límite de presentación de ofertas: __/__/20__, a las __:__ horas.</p>
<p>El acta de replanteo se firmó el 3 de marzo de 2025.</p>
<h2>4. Garantías</h2>
<p>Garantía definitiva: X% del precio de adjudicación, IVA excluido.</p>
</body></html>"""


def _run(lib, *docs: str):
    res = run_extraction(lib.store, ANA, SCHEMA, list(docs), route=False, persist=False)
    return {r.field: r for r in res.records}


def test_a_blank_template_abstains_and_cites_the_blank(lib):
    add(lib, "modelo.html", TEMPLATE_ES)
    got = _run(lib, "modelo.html")
    for field, blank in [("budget.base_excl_vat", "[●]"), ("deadline.submission", "__/__/20__"),
                         ("guarantee.definitive", "X")]:
        r = got[field]
        assert (r.outcome, r.reason, r.value, r.status) == (
            Outcome.ABSTAIN, DecisionReason.BLANK_IN_DOCUMENT, None, "absent"), field
        assert r.provenance and all(c.quote_verified for c in r.provenance)
        assert blank in r.provenance[0].quote
        doc_id, s, e = r.value_span
        assert r.provenance[0].quote.find(blank) >= 0 and e - s == len(blank)
    # never a value from elsewhere: the insurance amount and the signing date stay out
    assert got["object"].value == "la limpieza de los colegios públicos del municipio"
    assert got["economic_solvency.min_annual_turnover"].reason == DecisionReason.NOT_STATED


def test_a_stated_value_beats_a_blank_of_another_document(lib):
    add(lib, "anuncio.md", "# Anuncio\n\nPresupuesto base de licitación: [●] euros.\n")
    add(lib, "pliego.md", "# Pliego\n\n1. El presupuesto base de licitación asciende a "
                          "480.000,00 euros, IVA excluido.\n")
    r = _run(lib, "pliego.md", "anuncio.md")["budget.base_excl_vat"]
    assert r.value == {"amount": 480000, "currency": "EUR", "vat": "excluded"}
    assert r.outcome in (Outcome.SHOW, Outcome.FLAG)


def test_the_blanks_of_a_form_to_fill_are_the_bidders_not_the_documents(lib):
    add(lib, "itt.md", """# Invitation to tender

## 4 Security

4.2 The successful tenderer shall provide a performance bond equal to 10% of the contract sum.

## Appendix A - Form of Tender

We undertake to provide a performance bond of ____% of the contract sum if required.
""")
    r = _run(lib, "itt.md")["guarantee.definitive"]
    assert r.value == {"percent": 10} and r.reason != DecisionReason.BLANK_IN_DOCUMENT


def test_values_read_where_the_document_puts_them(lib):
    add(lib, "notice.md", """# Contract notice

IV.2.2) Time limit for receipt of tenders: Date: 14/05/2027 Local time: 12:00

IV.2.7) Conditions for opening of tenders: Date: 21/05/2027 Local time: 10:00

II.2.7) Duration of the contract: Duration in months: 36

III.1.2) Bidders must have an average annual turnover of not less than £4,000,000.

III.1.3) Bidders must show at least two contracts of a similar nature.

VI.3) Liquidated damages: £0.50 per £1,000 of the contract price for each day of delay.
""")
    got = _run(lib, "notice.md")
    assert got["deadline.submission"].value == {"date": "2027-05-14", "time": "12:00"}
    assert got["duration"].value == {"value": 36, "unit": "months"}
    assert got["economic_solvency.min_annual_turnover"].value == {"amount": 4000000,
                                                                  "currency": "GBP"}
    assert got["technical_solvency.min_similar_contracts"].value == 2
    assert got["penalties.delay_per_day"].value is None  # a rate per thousand is no sum
    for f in ("deadline.submission", "duration", "technical_solvency.min_similar_contracts"):
        assert got[f].outcome in (Outcome.SHOW, Outcome.FLAG), (f, got[f].reason)


def test_points_and_percent_words_become_weights(lib):
    add(lib, "pliego.md", """# Pliego

## Criterios de adjudicación

- Precio: 60 puntos.
- Calidad del proyecto técnico: 40 puntos.

## Garantías

La garantía definitiva será del 5 por 100 del precio de adjudicación.
""")
    got = _run(lib, "pliego.md")
    assert got["award_criteria.price_weight"].value == {"percent": 60}
    assert got["award_criteria.quality_weight"].value == {"percent": 40}
    assert got["guarantee.definitive"].value == {"percent": 5}


def test_a_count_of_contracts_is_never_a_duration(lib):
    add(lib, "itt.md", "# ITT\n\n3.2 Bidders must list similar contracts completed within "
                       "the last five years.\n")
    r = _run(lib, "itt.md")["technical_solvency.min_similar_contracts"]
    assert r.value is None and r.reason == DecisionReason.NOT_STATED
