"""Blank templates and placeholders (issue 13, item 3): the shapes, EN and ES, and what is
not a blank. Sentences written for these tests."""

from __future__ import annotations

import pytest

from pincite.extract.blanks import find_blanks, fits, is_blank_value


@pytest.mark.parametrize("text,blank,kind", [
    ("Presupuesto base de licitación: [●] euros, IVA excluido.", "[●]", "money"),
    ("El precio del lote será de [•] € por unidad.", "[•]", "money"),
    ("Valor estimado del contrato: [importe] euros.", "[importe]", "money"),
    ("Closing date for tenders: [insert date] at 12:00.", "[insert date]", "date"),
    ("Issued by: [Name of Agency]", "[Name of Agency]", "any"),
    ("Fecha límite: __/__/20__, a las __:__ horas.", "__/__/20__", "date"),
    ("The contract was signed on ______, 2020 by both parties.", "______", "date"),
    ("Made and entered into as of , 2020 by and between the parties.", "as of , 2020", "date"),
    ("Sealed bids are due by noon on \xa0\xa0\xa0\xa0, 2026.", "on \xa0\xa0\xa0\xa0, 2026", "date"),
    ("En Villaseca, a de de 2026.", "de de 2026", "date"),
    ("Garantía definitiva: X% del precio de adjudicación.", "X", "percent"),
    ("A performance bond of [●]% of the contract value.", "[●]", "percent"),
    ("No se permite subcontratar más del ___ % del importe.", "___", "percent"),
    ("a performance bond in the amount of % of the price", "of %", "percent"),
    ("volumen anual de negocios mínimo de …… euros", "……", "money"),
    ("importe de ........ € anuales", "........", "money"),
    ("The initial term will be ____ months.", "____", "duration"),
    ("At least X similar projects completed.", "X", "any"),
    ("The budget for this project is $\xa0\xa0\xa0.", "$", "money"),
    ("Fecha de firma: dd/mm/aaaa", "dd/mm/aaaa", "date"),
    ("Closing time: hh:mm", "hh:mm", "date"),
    ("Dated this ______ day of ______ 20__", "______", "date"),
    ("Importe: <importe> euros", "<importe>", "money"),
    ("Amount: {{amount}}", "{{amount}}", "money"),
    ("Precio: XX.XXX,XX € (IVA excluido)", "XX.XXX,XX", "money"),
])
def test_a_placeholder_in_a_value_position_is_a_blank(text, blank, kind):
    found = find_blanks(text)
    assert found, text
    b = found[0]
    assert (b.text, b.kind) == (blank, kind)
    assert text[b.char_start:b.char_end] == blank


@pytest.mark.parametrize("text", [
    "The agreement was signed in 2020 and renewed in 2023.",       # a real year
    "Dated March 1, 2020.",                                         # a whole date
    "El plazo vence el 5 de mayo de 2026.",
    "See the schedule [1] and the report [Smith 2003] [sic].",      # references and notes
    "Section 4 [Reserved]. Section 5 [Intentionally omitted].",
    "X-ray equipment shall run Windows XP.",                        # words with X
    "The provisions of Article X and Schedule X apply.",            # Roman numerals, names
    "Budget ........ 12",                                           # a leader to a page number
    "Price (€) and amount (EUR) are columns of the table.",         # a header unit
    "El presupuesto asciende a 1.500.000 €.",                       # the number is before
    "The price is 100 euros... or so they say.",
    "Use snake_case names and a 2 x 3 grid.",
    "El precio es de cinco por 100 del importe.",
])
def test_what_is_not_a_blank(text):
    assert find_blanks(text) == []


def test_a_value_that_is_a_blank_and_one_that_holds_one():
    assert is_blank_value("[Name of Agency]")
    assert is_blank_value("June __, 2020")
    assert is_blank_value("______, 2020")
    assert not is_blank_value("Suministro de [●] vehículos autobomba urbana pesada con destino al parque")
    assert not is_blank_value("la Junta de la Mancomunidad")


def test_a_blank_fits_the_fields_of_its_kind():
    assert fits("money", "money") and fits("money", "any") and not fits("money", "percent")
    assert fits("datetime", "date") and not fits("datetime", "money")
    assert fits("number", "duration", "days")        # "____ days" for a count of days
    assert not fits("number", "duration", "count")   # "____ years" is not a count of contracts
