"""Spans that are not one sentence (issue 26 item 3): a sentence that leads on — it ends
with a colon, or it is a bare label — is one statement with the sentences after it (up to
three), so a label is never cut from its value nor an introduction from what it
introduces; a title stays context, and a sentence that stands alone stays alone."""

from __future__ import annotations

from pincite.ask.sentences import WINDOW, leads_on, statement_spans
from tests.corpus import ANA, EMB, add, publish


def _said(text: str) -> list[str]:
    return [text[s:e] for s, e in statement_spans(text)]


def test_a_colon_or_a_bare_label_leads_on_and_a_statement_does_not():
    assert leads_on("Presupuesto base de licitación:")
    assert leads_on("El precio se abonará de la siguiente manera:")
    assert leads_on("7.1 Solvencia económica y financiera.")
    assert leads_on("Plazo de garantía de los bienes.")
    assert not leads_on("Warranty period.")                 # a title: read as context
    assert not leads_on("450.000 euros, IVA excluido.")     # an amount is no enumerator
    assert not leads_on("The supplier pays within 30 days.")
    assert not leads_on("4. LIMITATION OF LIABILITY.")   # a title: read as context
    assert not leads_on("Total: 450.000 euros.")            # a value: it states


def test_a_label_keeps_its_value_and_an_introduction_what_it_introduces():
    text = "Presupuesto base de licitación: 450.000 euros, IVA excluido. El plazo es de un año."
    assert _said(text) == ["Presupuesto base de licitación: 450.000 euros, IVA excluido.",
                           "El plazo es de un año."]
    text = ("7.1 Solvencia económica y financiera. Los licitadores acreditarán un volumen anual "
            "de negocios de 450.000 euros. Otra frase.")
    assert _said(text)[0].endswith("450.000 euros.") and _said(text)[1] == "Otra frase."


def test_a_window_spans_at_most_three_sentences():
    text = "Uno: Dos: Tres: Cuatro. Cinco."
    said = _said(text)
    assert said[0] == "Uno: Dos: Tres:" and WINDOW == 3
    assert "".join(said).replace(" ", "") == text.replace(" ", "")


PLIEGO = """# Pliego de cláusulas

## 7. Solvencia

7.1 Solvencia económica y financiera. Los licitadores acreditarán un volumen anual de negocios igual o superior a 450.000 euros.

7.2 Las ofertas se presentarán en el registro del Ayuntamiento.
"""


def test_ask_answers_with_the_label_and_its_value(lib):
    add(lib, "pliego.md", PLIEGO)
    publish(lib)
    res = lib.ask(ANA, "¿Cuál es la solvencia económica y financiera?", embedder=EMB)
    assert res.status == "answered"
    quote = res.items[0].citation["quote"]
    assert quote.startswith("7.1 Solvencia económica y financiera.") and "450.000 euros" in quote
