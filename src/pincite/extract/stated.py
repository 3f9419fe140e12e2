"""Value-in-quote: whether a verified quote states the value a record claims.

A citation that verifies proves the quote is in the document; it does not prove the quote
says the value. "The purchase price is 100 euros" verifies, and must not carry a value of
999,999. The check reads the quote with the same value scanner as the extractors
(`values.find_values`) and asks, per field type:

| type               | the quote states the value when it holds …                            |
|--------------------|-----------------------------------------------------------------------|
| money              | an amount equal to `amount` (scale words applied: "1,5 millones"),    |
|                    | in the same currency when the quote writes one                        |
| percent            | a percentage, or a number of points, equal to `percent`               |
| number             | a number, amount or duration count equal to the value, or its words   |
| duration           | a duration equal to it (and of its day kind, business or natural,     |
|                    | when the value names one), or its count beside its unit word          |
| date               | a date (or date-time) on that day                                     |
| datetime           | a date-time on that day and minute (a date alone when no time given), |
|                    | or a date of that day with that time written after it                 |
| text, entity,      | the value itself, in the comparison form of `cite.compare` (quote,     |
| clause             | dash and space shapes folded) with case folded (`caseless_form`); a   |
|                    | value joining several passages with " … " needs each passage in one   |
|                    | of the quotes                                                         |
| enum, bool         | not checked: the value names a category the quote is mapped to        |

A value of `{"required": false}` ("explicitly not required") is not checked. A scale or
currency stated outside the quote (a table caption "in thousands of euros") does not count:
such a record needs the caption among its citations, which is what a reader checks.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..cite.compare import caseless_form as fold  # cmp-2 with case folded
from ..values import Value, find_values, parse_number_words
from .clauses import CLAUSE_JOIN
from .typed import clock_times, duration_value

CHECKED_TYPES = frozenset({"money", "percent", "number", "duration", "date", "datetime",
                           "text", "entity", "clause"})
_DURATION_UNIT_WORDS = {
    "years": ("year", "años", "año", "anos", "ano"), "months": ("month", "mes"),
    "weeks": ("week", "semana"), "days": ("day", "día", "dia"), "hours": ("hour", "hora"),
    "minutes": ("minute", "minuto")}


def _dec(x: Any) -> Decimal | None:
    if isinstance(x, bool) or x is None:
        return None
    try:
        d = Decimal(str(x))
    except (InvalidOperation, ValueError):
        return None
    return d if d.is_finite() else None


def _amount(v: Value) -> Decimal | None:
    return v.amount if v.amount is not None else _dec(v.normalized)


def _numbers(values: Iterable[Value]) -> list[tuple[Value, Decimal]]:
    out = []
    for v in values:
        if v.value_type == "duration":
            d = duration_value(v.normalized)
            n = _dec(d["value"]) if d else None
        elif v.value_type in ("number", "money", "percent"):
            n = _amount(v)
        else:
            n = None
        if n is not None:
            out.append((v, n))
    return out


def _values(quote: str, lang: str | None) -> list[Value]:
    """Return the values of `quote` under each reading of an ambiguous separator (a quote is
    too short to tell "450.000" in Spanish from 450.000 in English) unless `lang` is known."""
    if not quote:
        return []
    langs: tuple[str | None, ...] = (lang,) if lang else ("en", "es")
    return [v for one in langs for v in find_values(quote, 0, len(quote), lang=one)]


def _number_words(quote: str) -> set[Decimal]:
    """Return the integers a quote spells in words alone ("tres contratos", "thirty days")."""
    tokens = re.findall(r"[^\W\d_]+", quote)
    out: set[Decimal] = set()
    for i in range(len(tokens)):
        for j in range(i + 1, min(i + 5, len(tokens)) + 1):
            n = parse_number_words(" ".join(tokens[i:j]))
            if n is not None:
                out.add(Decimal(n))
    return out


def states(ftype: str, value: Any, quotes: str | Sequence[str], lang: str | None = None) -> bool:
    """Return True when the verified `quotes` state `value` for a field of type `ftype`: one
    quote states a typed value; each `…`-joined part of a text value is in some quote.
    Always True for types the check does not cover, for null and "explicitly not required"."""
    if ftype not in CHECKED_TYPES or value is None:
        return True
    if isinstance(value, dict) and value.get("required") is False:
        return True
    quotes = [quotes] if isinstance(quotes, str) else list(quotes)
    if ftype in ("text", "entity", "clause"):
        if not isinstance(value, str):
            return False
        parts = [fold(p) for p in value.split(CLAUSE_JOIN.strip())]
        folded = [fold(q) for q in quotes]
        return all(p and any(p in q for q in folded) for p in parts)
    return any(_states_typed(ftype, value, q, lang) for q in quotes)


def _states_typed(ftype: str, value: Any, quote: str, lang: str | None) -> bool:
    found = _values(quote, lang)
    if ftype in ("date", "datetime"):
        return _states_date(ftype, value, found, quote)
    if ftype == "duration":
        return _states_duration(value, found, quote)
    target = _dec(value.get("amount") if ftype == "money" else
                  value.get("percent") if ftype == "percent" else value) \
        if isinstance(value, dict) or ftype == "number" else None
    if target is None:
        return False
    if ftype == "number" and target in _number_words(quote):
        return True
    for v, n in _numbers(found):
        if n != target:
            continue
        if ftype == "money" and v.currency and isinstance(value, dict) \
                and v.currency != value.get("currency"):
            continue
        if ftype == "percent" and v.value_type not in ("percent", "number"):
            continue
        return True
    return False


def _states_date(ftype: str, value: Any, found: list[Value], quote: str = "") -> bool:
    day = value if ftype == "date" else value.get("date") if isinstance(value, dict) else None
    time = value.get("time") if ftype == "datetime" and isinstance(value, dict) else None
    if not isinstance(day, str):
        return False
    for v in found:
        if v.value_type not in ("date", "datetime") or not v.normalized.startswith(day):
            continue
        if time is None or v.normalized[len(day):].startswith("T" + time):
            return True
        if v.value_type == "date" and _time_after(quote, v.char_end, time):
            return True  # "Date: 14/05/2026 Local time: 12:00": the time stands beside the date
    return False


def _time_after(quote: str, end: int, time: str) -> bool:
    """Return True when the time `HH:MM` is written within 40 characters of a date ending
    at `end` ("p.m." applied: "2:00 p.m." states 14:00)."""
    return any(t == time for _, _, t in clock_times(quote, max(0, end - 80), end + 40))


def _states_duration(value: Any, found: list[Value], quote: str) -> bool:
    if not isinstance(value, dict):
        return False
    target = _dec(value.get("value"))
    kind = value.get("kind")
    for v in found:
        d = duration_value(v.normalized) if v.value_type == "duration" else None
        if d and _dec(d["value"]) == target and d["unit"] == value.get("unit") \
                and kind in (None, v.detail):
            return True
    if kind is not None:
        return False  # business or natural days are stated only by a duration that says so
    words = _DURATION_UNIT_WORDS.get(str(value.get("unit")), ())
    folded = fold(quote)
    return (any(n == target for _, n in _numbers(found))
            and any(re.search(r"\b" + w, folded) for w in words))
