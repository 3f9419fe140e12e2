"""Canonical JSON values of field types, made from atomic facts.

One canonical value per type (issue contract):
money `{"amount": 450000, "currency": "EUR"}` (+ `basis`, `vat`: excluded|included);
percent `{"percent": 5}`; date `"2027-01-15"`; datetime `{"date": …, "time": "14:00"}`;
duration `{"value": 24, "unit": "months"}` (days may add `"kind": "business"|"natural"`,
when the text says which days count: "10 días hábiles"); number a JSON number; bool; enum, text,
entity and clause a string; "explicitly not required" `{"required": false}`.

`fact_value(ftype, fact)` returns (value, shape) where shape ∈ [0, 1] says how well the
fact's type fits the field's (1 exact, below 1 a conversion), or None when it cannot.

`is_valid` holds every value to that shape, an extracted one and a reviewer's correction
alike: known sub-keys only, each of its type: numbers finite and never booleans; a currency
three capital letters; `vat` one of its two words; `basis` a label (`LABEL_RE`: a letter or
digit first, then letters, digits, spaces and `_ . / -`, at most 64 characters, so no
markup and no spreadsheet formula start); `time` HH:MM; `tz` Z, UTC, an offset (+01:00) or
a zone name (Europe/Madrid).
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from ..facts.atomic import AtomicFact

DURATION_UNITS = {"Y": "years", "M": "months", "W": "weeks", "D": "days"}
TIME_UNITS = {"H": "hours", "M": "minutes"}
DAY_KINDS = ("business", "natural")  # a duration in days may say which days it counts
_DUR_RE = re.compile(r"^P(?:(?P<n>[0-9]+(?:\.[0-9]+)?)(?P<u>[YMWD]))\Z|^PT(?P<tn>[0-9]+(?:\.[0-9]+)?)(?P<tu>[HM])\Z")
_DATE_RE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}\Z")  # \Z: `$` matches before a newline
_DATETIME_RE = re.compile(r"^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2})(?::[0-9]{2})?(.*)\Z")
POINT_UNITS = ("puntos", "points", "pts", "punto", "point")
VAT_EXCLUDED = re.compile(r"\b(iva excluido|excluido (el )?iva|sin iva|iva no incluido|excluding vat|"
                          r"exclusive of vat|net of vat|vat excluded|excl\.? vat)\b", re.I)
VAT_INCLUDED = re.compile(r"\b(iva incluido|incluido (el )?iva|con iva|including vat|"
                          r"inclusive of vat|vat included|incl\.? vat)\b", re.I)


def json_number(d: Decimal | str) -> int | float:
    """Return a JSON number for a decimal: an int when it is whole."""
    dec = d if isinstance(d, Decimal) else Decimal(d)
    if dec == dec.to_integral_value():
        return int(dec)
    return float(dec)


def _decimal(text: str | None) -> Decimal | None:
    if text is None:
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def duration_value(iso: str | None) -> dict[str, Any] | None:
    """Return `{"value", "unit"}` for an ISO 8601 duration like `P24M`, or None."""
    if not iso:
        return None
    m = _DUR_RE.match(iso)
    if not m:
        return None
    if m.group("n"):
        return {"value": json_number(m.group("n")), "unit": DURATION_UNITS[m.group("u")]}
    return {"value": json_number(m.group("tn")), "unit": TIME_UNITS[m.group("tu")]}


# a negation folded into one of these kinds ("no inferior a", "not less than" → ge) states
# a bound; the value itself is stated, not denied
BOUND_KINDS = frozenset({"ge", "gt", "le", "lt", "excl_tax", "incl_tax"})


def negated(fact: AtomicFact) -> bool:
    """Return True when a negation denies the fact's value, not when it only turns a bound
    ("not less than £4,000,000" states a minimum of £4,000,000)."""
    return any(q.negated and q.kind not in BOUND_KINDS for q in fact.qualifiers)


def fact_value(ftype: str, fact: AtomicFact, unit: str | None = None) -> tuple[Any, float] | None:
    """Return (canonical value, shape fit) of a fact for a field type, or None; a number
    field takes a duration in the unit it counts (`unit`), none when it counts things
    (`count`), any when it does not say."""
    vt = fact.value_type
    if negated(fact):
        return None
    num = _decimal(fact.normalized_value)
    if ftype == "money":
        if vt == "money" and num is not None and fact.currency:
            return {"amount": json_number(num), "currency": fact.currency}, 1.0
        return None
    if ftype == "percent":
        if vt == "percent" and num is not None:
            return {"percent": json_number(num)}, 1.0
        if vt == "number" and num is not None and (fact.unit or "").lower() in POINT_UNITS:
            return {"percent": json_number(num)}, 0.6  # points; checked against a 100 total
        return None
    if ftype == "number":
        if vt == "number" and num is not None:
            return json_number(num), 1.0 if not fact.unit else 0.8
        if vt == "duration" and unit != "count":  # "treinta (30) días" for a count of days
            d = duration_value(fact.normalized_value)
            return (d["value"], 0.7) if d and unit in (None, d["unit"]) else None
        return None
    if ftype == "duration":
        if vt == "duration":
            d = duration_value(fact.normalized_value)
            if d and d["unit"] == "days" and fact.detail in DAY_KINDS:
                d["kind"] = fact.detail  # "1 business day" is not "1 day"
            return (d, 1.0) if d else None
        return None
    if ftype == "date":
        v = fact.normalized_value or ""
        if vt == "date" and _DATE_RE.match(v):
            return v, 1.0
        if vt == "datetime":
            m = _DATETIME_RE.match(v)
            return (m.group(1), 0.7) if m else None
        return None
    if ftype == "datetime":
        v = fact.normalized_value or ""
        if vt == "datetime":
            m = _DATETIME_RE.match(v)
            if not m:
                return None
            out: dict[str, Any] = {"date": m.group(1), "time": m.group(2)}
            if m.group(3):
                out["tz"] = m.group(3)
            return out, 1.0
        if vt == "date" and _DATE_RE.match(v):
            return {"date": v}, 0.6
        return None
    return None


_CLOCK = re.compile(r"(?<![0-9:.])(?P<h>[01]?[0-9]|2[0-3])[:.](?P<m>[0-5][0-9])(?![0-9])"
                    r"(?:\s*(?P<ap>[ap]\.?\s?m\.?(?!\w)|noon|midnight|mediod[ií]a))?", re.I)


def clock_times(text: str, lo: int = 0, hi: int | None = None) -> list[tuple[int, int, str]]:
    """Return the times of day written in `text[lo:hi]` as (start, end, "HH:MM"), with
    "p.m." and "a.m." applied ("2:00 p.m." is 14:00; "12:00 noon" is 12:00); a time at
    midnight is left out (it names the end of a day, not an hour of it)."""
    out = []
    for m in _CLOCK.finditer(text, lo, len(text) if hi is None else hi):
        h, ap = int(m["h"]), (m["ap"] or "").lower().replace(".", "").replace(" ", "")
        if ap == "midnight" or (ap in ("am", "pm") and not 1 <= h <= 12):
            continue
        if ap == "pm" and h < 12:
            h += 12
        elif ap == "am" and h == 12:
            h = 0
        out.append((m.start(), m.end(), f"{h:02d}:{m['m']}"))
    return out


def vat_of(text: str) -> str | None:
    """Return `excluded` / `included` when a passage says so of its amount, else None."""
    if VAT_EXCLUDED.search(text):
        return "excluded"
    if VAT_INCLUDED.search(text):
        return "included"
    return None


VAT_WORDS = ("excluded", "included")
LABEL_RE = re.compile(r"[^\W_][\w .\/-]{0,63}")  # fullmatch: a basis name, never markup or =…
_CURRENCY_RE = re.compile(r"[A-Z]{3}")
_TIME_RE = re.compile(r"(?:[01][0-9]|2[0-3]):[0-5][0-9]")
_TZ_RE = re.compile(r"Z|UTC|(?:UTC)?[+-](?:0[0-9]|1[0-4]):?[0-5][0-9]"
                    r"|[A-Z][A-Za-z_]{0,31}(?:/[A-Za-z][A-Za-z0-9_+-]{0,31}){1,2}")


def _number(x: Any) -> bool:
    """Return True for a finite JSON number (a boolean is not one)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _matches(rx: re.Pattern[str], x: Any) -> bool:
    return isinstance(x, str) and rx.fullmatch(x) is not None


def is_valid(ftype: str, value: Any, values: tuple[str, ...] = ()) -> bool:
    """Return True when `value` is the canonical JSON shape of `ftype` (null is valid):
    known sub-keys only, each of its type (see the module docstring)."""
    if value is None:
        return True
    if isinstance(value, dict) and set(value) == {"required"} and value["required"] is False:
        return True
    if ftype == "money":
        return (isinstance(value, dict) and {"amount", "currency"} <= set(value)
                <= {"amount", "currency", "basis", "vat"} and _number(value["amount"])
                and _matches(_CURRENCY_RE, value["currency"])
                and ("basis" not in value or _matches(LABEL_RE, value["basis"]))
                and ("vat" not in value or value["vat"] in VAT_WORDS))
    if ftype == "percent":
        return isinstance(value, dict) and set(value) == {"percent"} and _number(value["percent"])
    if ftype == "number":
        return _number(value)
    if ftype == "duration":
        return (isinstance(value, dict) and {"value", "unit"} <= set(value) <= {"value", "unit", "kind"}
                and _number(value["value"])
                and value["unit"] in (*DURATION_UNITS.values(), *TIME_UNITS.values())
                and value.get("kind", "business") in DAY_KINDS
                and ("kind" not in value or value["unit"] == "days"))
    if ftype == "date":
        return _matches(_DATE_RE, value)
    if ftype == "datetime":
        return (isinstance(value, dict) and "date" in value and set(value) <= {"date", "time", "tz"}
                and _matches(_DATE_RE, value["date"])
                and ("time" not in value or _matches(_TIME_RE, value["time"]))
                and ("tz" not in value or _matches(_TZ_RE, value["tz"])))
    if ftype == "bool":
        return isinstance(value, bool)
    if ftype == "enum":
        return isinstance(value, str) and value in values
    return isinstance(value, str) and bool(value.strip())


def numeric(value: Any) -> float | str | None:
    """Return the number (or ISO date string) a postcondition compares for a value."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return value if _DATE_RE.match(value) else None
    if isinstance(value, dict):
        for k in ("amount", "percent", "value"):
            if isinstance(value.get(k), (int, float)):
                return float(value[k])
        if isinstance(value.get("date"), str):
            time = value.get("time")
            return value["date"] + ("T" + time if isinstance(time, str) and time else "")
    return None
