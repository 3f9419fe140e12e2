"""Typed values say what the document says (issue 13, item 7): a column header's dimension
wins over a currency stated for the whole table, a day count keeps its kind, and a formula
cell the file holds no value for is reported, never dropped silently."""

from __future__ import annotations

import io

import openpyxl
import pytest

from pincite.extract.stated import states
from pincite.extract.typed import fact_value, is_valid
from pincite.facts.atomic import extract_facts
from pincite.parse import parse
from pincite.parse.tables.cues import find_dimension
from pincite.values import find_values


def _workbook(*rows: list, title: str = "Prices") -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = title
    for row in rows:
        ws.append(row)
    buf = io.BytesIO()
    wb.save(buf)  # openpyxl computes no formula: the file holds none of their values
    return buf.getvalue()


def _cells(layer):
    return {f.value: f for f in extract_facts(layer, "p.xlsx@r1") if f.origin_type == "table_cell"}


def test_a_column_that_counts_hours_is_not_money_in_a_sheet_priced_in_euros():
    layer = parse("xlsx", _workbook(["Service prices in EUR"], [],
                                    ["Service", "Minimum hours", "Day rate", "Staff (persons)"],
                                    ["Cleaning", 40, 120, 6], ["Security", 24, 150, 3]))
    facts = _cells(layer)
    hours, rate, staff = facts["40"], facts["120"], facts["6"]
    assert (hours.value_type, hours.unit, hours.currency) == ("number", "hours", None)
    assert (rate.value_type, rate.unit, rate.currency) == ("money", "EUR", "EUR")
    assert (staff.value_type, staff.unit, staff.currency) == ("number", "count", None)
    assert fact_value("money", hours) is None and fact_value("number", hours) == (40, 0.8)


@pytest.mark.parametrize("header,dimension", [
    ("Minimum hours", "hours"), ("Horas mínimas", "hours"), ("Plazo (días)", "days"),
    ("Duration in months", "months"), ("Años de experiencia", "years"),
    ("Number of sites", "count"), ("Número de personas", "count"),
    ("Day rate", None), ("Precio por hora", None), ("Hourly fee (EUR)", None),
    ("Amount", None), ("FY2024", None)])
def test_header_dimensions(header, dimension):
    assert find_dimension(header) == dimension


def test_a_formula_cell_without_a_cached_value_is_reported_not_dropped():
    layer = parse("xlsx", _workbook(["Item", "Qty", "Price", "Total"],
                                    ["Desk", 2, 100, "=B2*C2"], ["Chair", 4, 50, 200],
                                    ["Total", None, None, "=SUM(D2:D3)"]))
    assert "formula_without_value" in layer.flags and "formulas" in layer.flags
    (table,) = [e for e in layer.elements if e.kind == "table"]
    assert "formula_without_value" in table.flags
    assert "200" in layer.text  # the cached/plain values are all there
    complete = parse("xlsx", _workbook(["Item", "Qty"], ["Desk", 2]))
    assert "formula_without_value" not in complete.flags


@pytest.mark.parametrize("text,kind", [
    ("within 1 business day", "business"), ("diez (10) días hábiles", "business"),
    ("thirty (30) calendar days", "natural"), ("30 natural days", "natural"),
    ("15 días naturales", "natural"), ("30 days", None)])
def test_a_day_count_keeps_its_kind(text, kind):
    (v,) = [v for v in find_values(text) if v.value_type == "duration"]
    assert v.detail == kind


def test_business_days_are_not_days():
    from pincite.model import TextLayer
    from pincite.parse.layout import LayerBuilder
    b = LayerBuilder("test", "1")
    b.paragraph("The supplier shall answer within 1 business day and deliver within 30 days.")
    layer: TextLayer = b.build()
    facts = {f.value: f for f in extract_facts(layer, "d.md@r1", lang="en")}
    business = fact_value("duration", facts["1 business day"])
    plain = fact_value("duration", facts["30 days"])
    assert business == ({"value": 1, "unit": "days", "kind": "business"}, 1.0)
    assert plain == ({"value": 30, "unit": "days"}, 1.0)
    assert is_valid("duration", business[0]) and not is_valid(
        "duration", {"value": 1, "unit": "months", "kind": "business"})
    assert states("duration", business[0], "within 1 business day")
    assert not states("duration", business[0], "within 1 day")
    assert not states("duration", {"value": 1, "unit": "days", "kind": "natural"},
                      "within 1 business day")
