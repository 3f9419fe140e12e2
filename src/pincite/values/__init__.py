"""Typed values in running text, English and Spanish: pure functions over strings.

`find_values(text, start, end)` returns every number, amount of money, percentage, date,
date-time, period and duration written in `text[start:end]`, each with its exact span, the
text as written and a normalised form:

- number    canonical decimal string, no exponent, no trailing zeros (`1,234.50` → `1234.5`);
            a scale word is applied (`1,5 millones` → `1500000`)
- money     the amount as a number plus `currency` (ISO 4217)
- percent   percent points as a decimal string (`12,5 %` → `12.5`); `unit` is `%` or `pp`
- date      `YYYY-MM-DD`; a date without a year is `--MM-DD` (flag `no_year`)
- datetime  `YYYY-MM-DDTHH:MM`
- period    `FY2024`, `2025-Q3`, `FY2025-Q3`, `2024-H1`, `2026-08`, `2023`; `detail` is
            the basis of `2024A`/`2025E` (`actual`, `estimate`, `forecast`, `budget`,
            `projected`)
- duration  ISO 8601 (`P10Y`, `P24M`, `P30D`, `PT24H`); `detail` is the day kind
            (`natural`, `business`) when written

A qualifier written right before or after a value ("not less than", "igual o superior a",
"IVA excluido", "por día") is returned with its own span and a kind (`ge`, `gt`, `le`,
`lt`, `approx`, `excl_tax`, `incl_tax`, `per_day`, …); a negation directly governing it
("not", "no") is part of its text and flips its kind ("no inferior a" → `ge`).

Ambiguity rules:
- a single `.` or `,` followed by exactly three digits after a 1-3 digit integer part other
  than 0 (`1.234`, `1,234`) is a thousands separator for the language that groups with it
  (`.` in Spanish, `,` in English) and a decimal mark otherwise; with no language hint the
  English reading is taken and the value is flagged `ambiguous_separator`;
- a plain space groups thousands only when it cannot be two numbers: two or more groups
  (`1 234 567`), a decimal comma (`1 234,5`), a currency or `%` after, or a group that
  starts with 0 (`2 000`); no-break and thin spaces always group;
- `k`, `m`, `M`, `MM`, `bn` scale a number only right after a currency (`$1.2m`); the
  words (million, millones, mil, thousand, billion = 10^9, billón = 10^12) always do;
- a numeric date with both parts ≤ 12 is read in `date_order` (`dmy` unless told `mdy`) and
  flagged `ambiguous_date_order`; a part > 12 decides the order by itself; two-digit years
  pivot at 70 (`69` → 2069, `70` → 1970); a date without a year needs a full month name
  (capitalised in English) and is flagged `no_year`;
- `$` is USD; a bare 4-digit integer 1900-2099 with no separator, sign or unit is a
  calendar-year period; a number in parentheses is negative only in accounting form (it
  has thousands separators, or a currency), never when it echoes words ("ten (10)");
  `parse_value` (a whole table cell) always reads `(5)` as -5;
- number words count only next to the numeral they spell (`veinticuatro (24)`) or before a
  duration or percent unit (`dos meses`, `cinco por ciento`);
- numbers that refer to structure (`artículo 108`, `clause 9`, `Section 4.2`) are skipped.

All patterns are bounded (no unbounded repetition of groups), so scanning is linear.

Modules, each importing only those before it: `records` (Value, Qualifier, canonical) →
`words` (number and percent words) → `numbers` (digits, separators, scales), `money`,
`durations`, `references` → `amounts` (a number and its context), `dates` (dates, times,
periods), `qualifiers` → `scan` (`find_values`, `parse_value`, `guess_lang`).
"""

from .base import SCALES, VALUE_TYPES, Qualifier, Value, canonical
from .dates import MONTHS, date_order_of
from .money import currency_code
from .numbers import parse_number
from .scan import find_values, guess_lang, parse_value
from .words import parse_number_words

__all__ = [
    "MONTHS",
    "SCALES",
    "VALUE_TYPES",
    "Qualifier",
    "Value",
    "canonical",
    "currency_code",
    "date_order_of",
    "find_values",
    "guess_lang",
    "parse_number",
    "parse_number_words",
    "parse_value",
]
