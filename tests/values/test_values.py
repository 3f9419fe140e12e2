"""Typed values in text: exact values per family and language, and render→parse properties."""

from __future__ import annotations

import time
from datetime import date
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincite.values import (
    canonical,
    date_order_of,
    find_values,
    guess_lang,
    parse_number,
    parse_number_words,
    parse_value,
)


def one(text: str, **kw):
    """Return the only value in `text`, checking that its span slices back to its text."""
    vals = find_values(text, **kw)
    assert len(vals) == 1, [(v.value_type, v.text) for v in vals]
    v = vals[0]
    assert text[v.char_start:v.char_end] == v.text
    for q in v.qualifiers:
        assert text[q.char_start:q.char_end] == q.text
    return v


# ---- numbers ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,lang,expected", [
    ("1,234.5", "en", "1234.5"),
    ("1.234,5", "es", "1234.5"),
    ("1.234,5", None, "1234.5"),
    ("1,234.5", None, "1234.5"),
    ("1 234,5", "es", "1234.5"),
    ("1\u00a0234\u00a0567,89", "es", "1234567.89"),
    ("-3.2", "en", "-3.2"),
    ("\u22123,2", "es", "-3.2"),
    ("1.234", "es", "1234"),
    ("1.234", "en", "1.234"),
    ("1,234", "es", "1.234"),
    ("1,234", "en", "1234"),
    ("0,125", "en", "0.125"),
    ("1.234.567", "en", "1234567"),
    ("1,234,567", "es", "1234567"),
    ("1234.567", "es", "1234.567"),
    ("12,5", "en", "12.5"),
    ("1.200.000,00", "es", "1200000"),
    ("007", "en", "7"),
])
def test_numbers(text, lang, expected):
    assert parse_number(text, lang) == Decimal(expected)
    v = one(f"x {text} y", lang=lang)
    assert v.value_type == "number" and v.normalized == expected and v.text == text


def test_ambiguous_separator_without_a_language_is_flagged():
    v = one("total 1,234 units")
    assert v.normalized == "1234" and "ambiguous_separator" in v.flags
    assert "ambiguous_separator" not in one("total 1,234 units", lang="en").flags


def test_accounting_negative_in_a_cell_and_in_prose():
    v = parse_value("(1,234)", lang="en")
    assert v is not None and v.normalized == "-1234" and v.text == "(1,234)"
    assert "parenthesised_negative" in v.flags
    assert parse_value("(5)").normalized == "-5"  # a cell: always accounting
    assert parse_value(" ($1,234.50) ").normalized == "-1234.5"
    assert one("net loss (1,234) in the year", lang="en").normalized == "-1234"
    # an aside in prose is not negative
    assert one("clients (30) said", lang="en").normalized == "30"


def test_scale_words():
    assert one("EUR 1.2 million", lang="en").normalized == "1200000"
    v = one("1,5 millones de euros", lang="es")
    assert (v.value_type, v.normalized, v.currency, v.scale) == ("money", "1500000", "EUR", "millions")
    assert one("450 mil euros", lang="es").normalized == "450000"
    assert one("3 thousand units", lang="en").normalized == "3000"
    assert one("2.000 mil millones de euros", lang="es").normalized == "2000000000000"
    assert one("USD 3bn", lang="en").normalized == "3000000000"
    assert one("$1.2m", lang="en").normalized == "1200000"
    assert find_values("5m long", lang="en") == []  # metres? not a scale without a currency


def test_units():
    v = one("60 puntos", lang="es")
    assert (v.value_type, v.normalized, v.unit) == ("number", "60", "puntos")


# ---- money ---------------------------------------------------------------------------------

@pytest.mark.parametrize("text,lang,amount,cur", [
    ("450.000 €", "es", "450000", "EUR"),
    ("450.000€", "es", "450000", "EUR"),
    ("€450,000", "en", "450000", "EUR"),
    ("EUR 1.2 million", "en", "1200000", "EUR"),
    ("1.200.000,00 euros", "es", "1200000", "EUR"),
    ("US$ 3,500.75", "en", "3500.75", "USD"),
    ("$10", "en", "10", "USD"),
    ("10 dollars", "en", "10", "USD"),
    ("25.000 dólares", "es", "25000", "USD"),
    ("£99.99", "en", "99.99", "GBP"),
    ("GBP 5", "en", "5", "GBP"),
    ("5 pounds sterling", "en", "5", "GBP"),
    ("100 CHF", "en", "100", "CHF"),
    ("-€5", "en", "-5", "EUR"),
    ("DOSCIENTOS MIL EUROS (200.000 €)", "es", "200000", "EUR"),
    ("Ten Thousand Dollars ($10,000)", "en", "10000", "USD"),
    ("doscientos mil (200.000) euros", "es", "200000", "EUR"),
])
def test_money(text, lang, amount, cur):
    v = one(f"por {text} en", lang=lang) if lang == "es" else one(f"of {text} in", lang=lang)
    assert (v.value_type, v.normalized, v.currency, v.text) == ("money", amount, cur, text)


# ---- percentages --------------------------------------------------------------------------

@pytest.mark.parametrize("text,lang,pts", [
    ("12.5%", "en", "12.5"), ("5 %", "es", "5"), ("12,5 %", "es", "12.5"),
    ("5 por ciento", "es", "5"), ("5 percent", "en", "5"), ("5 per cent", "en", "5"),
    ("cinco por ciento", "es", "5"), ("veinticinco por ciento", "es", "25"),
    ("fifty percent (50%)", "en", "50"), ("cinco (5) por ciento", "es", "5"),
])
def test_percent(text, lang, pts):
    v = one(f"del {text} del", lang=lang)
    assert (v.value_type, v.normalized, v.unit, v.text) == ("percent", pts, "%", text)


def test_percentage_points():
    v = one("up 2.5 percentage points", lang="en")
    assert (v.value_type, v.normalized, v.unit) == ("percent", "2.5", "pp")


# ---- dates ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,order,iso", [
    ("14/08/2026", None, "2026-08-14"),
    ("08/14/2026", None, "2026-08-14"),  # the day > 12 decides
    ("05/06/2026", None, "2026-06-05"),  # day first by default
    ("05/06/2026", "mdy", "2026-05-06"),
    ("14-08-2026", None, "2026-08-14"),
    ("14.08.2026", None, "2026-08-14"),
    ("2026-08-14", None, "2026-08-14"),
    ("14 de agosto de 2026", None, "2026-08-14"),
    ("1º de enero de 2027", None, "2027-01-01"),
    ("14 agosto 2026", None, "2026-08-14"),
    ("August 14, 2026", None, "2026-08-14"),
    ("Aug. 14, 2026", None, "2026-08-14"),
    ("14 August 2026", None, "2026-08-14"),
    ("14th August 2026", None, "2026-08-14"),
    ("the 14th day of August, 2026", None, "2026-08-14"),
    ("14-Aug-2026", None, "2026-08-14"),
    ("3 de septiembre de 2025", None, "2025-09-03"),
    ("3 de setiembre de 2025", None, "2025-09-03"),
    ("December 31, 1999", None, "1999-12-31"),
])
def test_dates(text, order, iso):
    v = one(f"on {text}.", date_order=order)
    assert v.value_type == "date" and v.normalized == iso
    assert v.text == text.removeprefix("the ")


def test_ambiguous_numeric_date_is_flagged_and_document_order_is_detected():
    assert "ambiguous_date_order" in one("05/06/2026").flags
    assert "ambiguous_date_order" not in one("14/06/2026").flags
    assert date_order_of("due 12/31/2026 and 01/02/2027") == "mdy"
    assert date_order_of("due 31/12/2026 and 01/02/2027") == "dmy"


def test_dates_without_a_year_and_invalid_dates():
    v = one("Ley 9/2017, de 8 de noviembre, de Contratos", lang="es")
    assert (v.value_type, v.normalized, v.flags) == ("date", "--11-08", ("no_year",))
    assert one("ending June 30 each year", lang="en").normalized == "--06-30"
    assert find_values("we may 5 times", lang="en")[0].value_type == "number"
    assert [v.value_type for v in find_values("31/02/2026")] == []


@pytest.mark.parametrize("text,iso", [
    ("15 de enero de 2027 a las 14:00 horas", "2027-01-15T14:00"),
    ("a las 14:00 horas del día 15 de enero de 2027", "2027-01-15T14:00"),
    ("15/01/2027 14:00", "2027-01-15T14:00"),
    ("January 15, 2027 at 2:30 p.m.", "2027-01-15T14:30"),
    ("January 15, 2027 at 12:00 a.m.", "2027-01-15T00:00"),
    ("15 de enero de 2027 a las 9 horas", "2027-01-15T09:00"),
])
def test_datetimes(text, iso):
    v = one(f"el {text}.")
    assert (v.value_type, v.normalized, v.text) == ("datetime", iso, text)


# ---- periods ----------------------------------------------------------------------------

@pytest.mark.parametrize("text,norm,detail", [
    ("FY2024", "FY2024", None), ("FY 2024", "FY2024", None), ("FY24", "FY2024", None),
    ("2024A", "FY2024", "actual"), ("2025E", "FY2025", "estimate"),
    ("Q3 2025", "2025-Q3", None), ("Q3-2025", "2025-Q3", None), ("3Q25", "2025-Q3", None),
    ("Q3 FY2025", "FY2025-Q3", None), ("3T 2025", "2025-Q3", None),
    ("H1 2024", "2024-H1", None), ("1H24", "2024-H1", None), ("1S 2024", "2024-H1", None),
    ("ejercicio 2023", "FY2023", None), ("ejercicio económico 2023", "FY2023", None),
    ("fiscal year 2024", "FY2024", None), ("tercer trimestre de 2025", "2025-Q3", None),
    ("third quarter of 2025", "2025-Q3", None), ("primer semestre de 2024", "2024-H1", None),
    ("3er trimestre de 2025", "2025-Q3", None),
    ("agosto de 2026", "2026-08", None), ("August 2026", "2026-08", None), ("2023", "2023", None),
])
def test_periods(text, norm, detail):
    v = one(f"in {text} the")
    assert (v.value_type, v.normalized, v.detail, v.text) == ("period", norm, detail, text)


# ---- durations --------------------------------------------------------------------------

@pytest.mark.parametrize("text,iso,unit,kind", [
    ("ten (10) years", "P10Y", "years", None),
    ("24 months", "P24M", "months", None),
    ("veinticuatro (24) meses", "P24M", "months", None),
    ("30 días naturales", "P30D", "days", "natural"),
    ("30 días hábiles", "P30D", "days", "business"),
    ("30 business days", "P30D", "days", "business"),
    ("thirty (30) calendar days", "P30D", "days", "natural"),
    ("two weeks", "P2W", "weeks", None),
    ("dos meses", "P2M", "months", None),
    ("24 horas", "PT24H", "hours", None),
    ("45 minutes", "PT45M", "minutes", None),
    ("5-year", "P5Y", "years", None),
    ("un año", "P1Y", "years", None),
    ("one hundred and twenty (120) days", "P120D", "days", None),
    ("1.5 years", "P1.5Y", "years", None),
])
def test_durations(text, iso, unit, kind):
    v = one(f"for {text} from")
    assert (v.value_type, v.normalized, v.unit, v.detail, v.text) == ("duration", iso, unit, kind, text)


def test_a_time_of_day_is_not_a_duration():
    assert find_values("a las 14 horas", lang="es") == []


# ---- qualifiers -------------------------------------------------------------------------

@pytest.mark.parametrize("text,qual,kind,neg", [
    ("not less than 450,000 EUR", "not less than", "ge", True),
    ("no less than 450,000 EUR", "no less than", "ge", True),
    ("at least 450,000 EUR", "at least", "ge", False),
    ("up to 450,000 EUR", "up to", "le", False),
    ("not exceeding 450,000 EUR", "not exceeding", "le", True),
    ("a maximum of 450,000 EUR", "a maximum of", "le", False),
    ("a minimum of 450,000 EUR", "a minimum of", "ge", False),
    ("shall not be less than 450,000 EUR", "not be less than", "ge", True),
    ("more than 450,000 EUR", "more than", "gt", False),
    ("approximately 450,000 EUR", "approximately", "approx", False),
    ("igual o superior a 450.000 euros", "igual o superior a", "ge", False),
    ("no inferior a 450.000 euros", "no inferior a", "ge", True),
    ("como mínimo 450.000 euros", "como mínimo", "ge", False),
    ("al menos 450.000 euros", "al menos", "ge", False),
    ("hasta un máximo de 450.000 euros", "hasta un máximo de", "le", False),
    ("máximo 450.000 euros", "máximo", "le", False),
    ("no superior a 450.000 euros", "no superior a", "le", True),
])
def test_pre_qualifiers(text, qual, kind, neg):
    v = one(f"fee {text} now")
    q = v.qualifiers[0]
    assert (q.text, q.kind, q.negated) == (qual, kind, neg)
    assert q.char_end <= v.char_start


@pytest.mark.parametrize("text,qual,kind,neg", [
    ("450.000 euros, IVA excluido", "IVA excluido", "excl_tax", False),
    ("450.000 euros IVA incluido", "IVA incluido", "incl_tax", False),
    ("450.000 euros, IVA no incluido", "IVA no incluido", "excl_tax", True),
    ("450.000 euros sin IVA", "sin IVA", "excl_tax", False),
    ("450,000 EUR excluding VAT", "excluding VAT", "excl_tax", False),
    ("450,000 EUR including VAT", "including VAT", "incl_tax", False),
    ("300 euros por día", "por día", "per_day", False),
    ("300 EUR per day", "per day", "per_day", False),
    ("450.000 euros como mínimo", "como mínimo", "ge", False),
])
def test_post_qualifiers(text, qual, kind, neg):
    v = one(text)
    q = v.qualifiers[-1]
    assert (q.text, q.kind, q.negated) == (qual, kind, neg)
    assert q.char_start >= v.char_end


def test_pre_and_post_qualifiers_together():
    v = one("no inferior a 600.000 euros, IVA excluido.", lang="es")
    assert [(q.text, q.kind) for q in v.qualifiers] == [("no inferior a", "ge"),
                                                        ("IVA excluido", "excl_tax")]


# ---- what is not a value ---------------------------------------------------------------

def test_references_and_identifiers_are_not_values():
    text = ("conforme a los artículos 156 a 158 de la Ley 9/2017 y la cláusula 9, "
            "Section 4.2 and clause 7.1.a, grupo P, subgrupo 1, categoría 3, v1.2.3, A4")
    assert [v.text for v in find_values(text, lang="es")] == []


def test_number_words():
    assert parse_number_words("veinticuatro") == 24
    assert parse_number_words("ciento veinticinco") == 125
    assert parse_number_words("doscientos mil") == 200000
    assert parse_number_words("dos millones trescientos mil") == 2300000
    assert parse_number_words("one hundred and twenty-five thousand three hundred") == 125300
    assert parse_number_words("two three") is None
    assert parse_number_words("dog") is None


def test_mismatched_words_keep_only_the_numeral():
    v = one("for ten (11) years")
    assert (v.value_type, v.text) == ("number", "11")


def test_space_grouping():
    assert one("in 2 000 cases").normalized == "2000"
    assert one("total 1 234 567 units").normalized == "1234567"
    assert [v.text for v in find_values("it had 3 100 pages")] == ["3", "100"]


def test_guess_lang():
    assert guess_lang("El contrato tendrá una duración de dos años para la ejecución del "
                      "servicio que se adjudica por el órgano de contratación.") == "es"
    assert guess_lang("The Supplier shall deliver the goods to the Buyer within thirty days "
                      "of the order and in accordance with the terms of this Agreement.") == "en"
    assert guess_lang("12 34 56") is None


# ---- bounded work -----------------------------------------------------------------------

PATHOLOGICAL = ["1,", "1 ", "1.", "9", "one ", "veinte y ", "(", "(1) ", "14/", "de ",
                "enero ", "14 de enero de ", "not no ", "no inferior a ", "-", " \n\t",
                "5 % ", "one two three four five six seven eight nine ten (", "$", "EUR ",
                "1\u00a0", "not less than ", "1.234,5 € (1,234) ten (10) years FY2024 "]


@pytest.mark.parametrize("unit", PATHOLOGICAL)
def test_pathological_input_is_linear(unit):
    def run(size: int) -> float:
        s = (unit * (size // len(unit) + 1))[:size]
        t = time.process_time()
        find_values(s)
        return time.process_time() - t

    # CPU time, best of three, so a busy machine (or `pytest -n`'s workers sharing its
    # cores) does not fake a quadratic curve; a quadratic scan
    # is 16× slower on 4× the input, a linear one 4×
    small = min(run(20_000) for _ in range(3))
    large = min(run(80_000) for _ in range(3))
    assert large < 3.0, large  # 80 kB of the worst text in about a second at most
    assert large < 8 * small + 0.05


# ---- properties: render in every format, parse back -------------------------------------

def en(d: Decimal, places: int, group: bool = True) -> str:
    return format(d, f"{',' if group else ''}.{places}f")


def es(d: Decimal, places: int, group: bool = True) -> str:
    return en(d, places, group).translate(str.maketrans(",.", ".,"))


def es_space(d: Decimal, places: int) -> str:
    return en(d, places).replace(",", "\u00a0").replace(".", ",")


decimals = st.builds(
    lambda units, places: (Decimal(units).scaleb(-places), places),
    st.integers(min_value=-10**12, max_value=10**12), st.integers(min_value=0, max_value=3),
)


@settings(max_examples=300, deadline=None)
@given(decimals)
def test_property_numbers_round_trip(dp):
    d, places = dp
    renders = [(en(d, places), "en"), (en(d, places, False), "en"), (es(d, places), "es"),
               (es(d, places, False), "es"), (es_space(d, places), "es")]
    for text, lang in renders:
        vals = find_values(f"x {text} y", lang=lang)
        assert len(vals) == 1, (text, vals)
        v = vals[0]
        assert v.normalized == canonical(d), (text, lang, v)
        assert v.text == text
        assert v.value_type in ("number", "period")


CURRENCY_FORMS = [
    ("€{en}", "en", "EUR"), ("EUR {en}", "en", "EUR"), ("{en} EUR", "en", "EUR"),
    ("{en} euros", "en", "EUR"), ("US${en}", "en", "USD"), ("${en}", "en", "USD"),
    ("USD {en}", "en", "USD"), ("{en} dollars", "en", "USD"), ("£{en}", "en", "GBP"),
    ("{es} €", "es", "EUR"), ("{es}€", "es", "EUR"), ("{es} euros", "es", "EUR"),
    ("EUR {es}", "es", "EUR"), ("{es} dólares", "es", "USD"), ("US$ {es}", "es", "USD"),
]


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10**11), st.sampled_from([0, 2]))
def test_property_money_round_trip(cents, places):
    amount = Decimal(cents).scaleb(-places)
    for form, lang, cur in CURRENCY_FORMS:
        num = en(amount, places) if lang == "en" else es(amount, places)
        text = form.format(en=num, es=num)
        v = one(f"pay {text} now", lang=lang)
        assert (v.value_type, v.normalized, v.currency, v.text) == (
            "money", canonical(amount), cur, text)
    if cents and cents % 10**4 == 0:  # scaled forms: "EUR 1.2 million", "1,2 millones de euros"
        m = amount.scaleb(-6)
        v = one(f"pay EUR {format(m, 'f')} million now", lang="en")
        assert v.normalized == canonical(amount)
        v = one(f"pagar {format(m, 'f').replace('.', ',')} millones de euros", lang="es")
        assert v.normalized == canonical(amount)


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=10**5), st.sampled_from([0, 1, 2]))
def test_property_percent_round_trip(units, places):
    p = Decimal(units).scaleb(-places)
    for text, lang in [(f"{en(p, places, False)}%", "en"), (f"{en(p, places, False)} %", "en"),
                       (f"{en(p, places, False)} percent", "en"),
                       (f"{es(p, places, False)} %", "es"),
                       (f"{es(p, places, False)} por ciento", "es")]:
        v = one(f"a {text} b", lang=lang)
        assert (v.value_type, v.normalized) == ("percent", canonical(p)), text


EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"]
ES_MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
             "septiembre", "octubre", "noviembre", "diciembre"]


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@settings(max_examples=300, deadline=None)
@given(st.dates(min_value=date(1900, 1, 1), max_value=date(2099, 12, 31)))
def test_property_dates_round_trip(d):
    iso = d.isoformat()
    mon_en, mon_es = EN_MONTHS[d.month - 1], ES_MONTHS[d.month - 1]
    forms = [
        (d.strftime("%d/%m/%Y"), None), (d.strftime("%d-%m-%Y"), None),
        (d.strftime("%d.%m.%Y"), None), (f"{d.day}/{d.month}/{d.year}", None),
        (d.strftime("%m/%d/%Y"), "mdy"), (iso, None),
        (f"{d.day} de {mon_es} de {d.year}", None), (f"{d.day} {mon_es} {d.year}", None),
        (f"{mon_en} {d.day}, {d.year}", None), (f"{d.day} {mon_en} {d.year}", None),
        (f"{ordinal(d.day)} day of {mon_en}, {d.year}", None),
        (f"{mon_en[:3]}. {d.day}, {d.year}", None), (f"{d.day}-{mon_en[:3]}-{d.year}", None),
    ]
    for text, order in forms:
        v = one(f"on {text} the", date_order=order)
        assert (v.value_type, v.normalized, v.text) == ("date", iso, text), text
    dt = one(f"el {d.day} de {mon_es} de {d.year} a las 09:30 horas")
    assert dt.normalized == f"{iso}T09:30"


def en_words(n: int) -> str:
    ones = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen").split()
    tens = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

    def below_1000(k: int) -> str:
        parts = []
        if k >= 100:
            parts.append(f"{ones[k // 100]} hundred")
            k %= 100
            if k:
                parts.append("and")
        if k >= 20:
            parts.append(tens[k // 10] + (f"-{ones[k % 10]}" if k % 10 else ""))
        elif k or not parts:
            parts.append(ones[k])
        return " ".join(parts)

    if n >= 1000:
        rest = n % 1000
        return f"{below_1000(n // 1000)} thousand" + (f" {below_1000(rest)}" if rest else "")
    return below_1000(n)


def es_words(n: int) -> str:
    units = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
             "quince dieciséis diecisiete dieciocho diecinueve veinte veintiuno veintidós "
             "veintitrés veinticuatro veinticinco veintiséis veintisiete veintiocho "
             "veintinueve").split()
    tens = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta",
            8: "ochenta", 9: "noventa"}
    hundreds = {1: "ciento", 2: "doscientos", 3: "trescientos", 4: "cuatrocientos",
                5: "quinientos", 6: "seiscientos", 7: "setecientos", 8: "ochocientos",
                9: "novecientos"}

    def below_100(k: int) -> str:
        return units[k] if k < 30 else tens[k // 10] + (f" y {units[k % 10]}" if k % 10 else "")

    def below_1000(k: int) -> str:
        if k == 100:
            return "cien"
        h, r = divmod(k, 100)
        if not h:
            return below_100(r)
        return hundreds[h] + (f" {below_100(r)}" if r else "")

    if n >= 1000:
        th, r = divmod(n, 1000)
        head = below_1000(th)
        if th == 1:
            head = ""
        elif head.endswith("veintiuno"):
            head = head.removesuffix("veintiuno") + "veintiún"
        elif head.endswith("uno"):
            head = head.removesuffix("uno") + "un"
        return f"{head} mil".strip() + (f" {below_1000(r)}" if r else "")
    return below_1000(n)


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=0, max_value=999_999))
def test_property_number_words_round_trip(n):
    assert parse_number_words(en_words(n)) == n, en_words(n)
    assert parse_number_words(es_words(n)) == n, es_words(n)


DURATION_UNITS = [("years", "años", "Y"), ("months", "meses", "M"), ("days", "días", "D"),
                  ("weeks", "semanas", "W")]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=2, max_value=999), st.sampled_from(DURATION_UNITS))
def test_property_durations_round_trip(n, unit):
    en_unit, es_unit, designator = unit
    iso = f"P{n}{designator}"
    for text in (f"{en_words(n)} ({n}) {en_unit}", f"{n} {en_unit}", f"{en_words(n)} {en_unit}",
                 f"{es_words(n)} ({n}) {es_unit}", f"{n} {es_unit}", f"{es_words(n)} {es_unit}"):
        v = one(f"por {text} desde")
        assert (v.value_type, v.normalized, v.text) == ("duration", iso, text), text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1970, max_value=2069), st.integers(min_value=1, max_value=4),
       st.integers(min_value=1, max_value=2), st.integers(min_value=1, max_value=12))
def test_property_periods_round_trip(y, q, h, m):
    yy = f"{y % 100:02d}"
    forms = [
        (f"FY{y}", f"FY{y}"), (f"FY {y}", f"FY{y}"), (f"FY{yy}", f"FY{y}"),
        (f"{y}A", f"FY{y}"), (f"{y}E", f"FY{y}"), (f"fiscal year {y}", f"FY{y}"),
        (f"ejercicio {y}", f"FY{y}"), (f"Q{q} {y}", f"{y}-Q{q}"), (f"{q}Q{yy}", f"{y}-Q{q}"),
        (f"{q}T {y}", f"{y}-Q{q}"), (f"Q{q} FY{y}", f"FY{y}-Q{q}"), (f"H{h} {y}", f"{y}-H{h}"),
        (f"{h}H{yy}", f"{y}-H{h}"),
        (f"{['first', 'second', 'third', 'fourth'][q - 1]} quarter of {y}", f"{y}-Q{q}"),
        (f"{['primer', 'segundo', 'tercer', 'cuarto'][q - 1]} trimestre de {y}", f"{y}-Q{q}"),
        (f"{EN_MONTHS[m - 1]} {y}", f"{y}-{m:02d}"), (f"{ES_MONTHS[m - 1]} de {y}", f"{y}-{m:02d}"),
    ]
    for text, norm in forms:  # two-digit years pivot at 70: 69 → 2069, 70 → 1970
        v = one(f"in {text} the")
        assert (v.value_type, v.normalized, v.text) == ("period", norm, text), text
