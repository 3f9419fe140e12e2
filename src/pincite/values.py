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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

VALUE_TYPES = ("number", "money", "percent", "date", "datetime", "period", "duration", "text")
SCALES = {"units": 1, "thousands": 10**3, "millions": 10**6, "billions": 10**9,
          "trillions": 10**12}


@dataclass(frozen=True, slots=True)
class Qualifier:
    """A qualifier next to a value: its text, kind and span."""

    text: str
    kind: str
    char_start: int
    char_end: int
    negated: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "kind": self.kind, "char_start": self.char_start,
                "char_end": self.char_end, "negated": self.negated}


@dataclass(frozen=True, slots=True)
class Value:
    """One typed value: `text` is the input's `[char_start, char_end)`."""

    value_type: str
    char_start: int
    char_end: int
    text: str
    normalized: str
    amount: Decimal | None = None
    unit: str | None = None
    currency: str | None = None
    scale: str | None = None
    detail: str | None = None
    qualifiers: tuple[Qualifier, ...] = ()
    flags: tuple[str, ...] = ()


def canonical(d: Decimal) -> str:
    """Return the canonical decimal string of `d`: no exponent, no trailing zeros."""
    if d == 0:
        return "0"
    s = format(d, "f")
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    return s


# ---- vocabulary ----------------------------------------------------------------------

def _alt(words: Any) -> str:
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


MONTHS: dict[str, int] = {}
for _n, _names in enumerate((
    "enero ene january jan", "febrero feb february", "marzo mar march",
    "abril abr april apr", "mayo may", "junio jun june", "julio jul july",
    "agosto ago august aug", "septiembre setiembre sept sep september",
    "octubre oct october", "noviembre nov november", "diciembre dic december dec",
), start=1):
    for _w in _names.split():
        MONTHS[_w] = _n
# names a date without a year may use ("mar", "ago" are too loose; English ones must be capitalised)
_FULL_MONTHS = {w for w in MONTHS if len(w) > 4} | {"mayo", "may", "june", "july", "junio", "julio"}

_SMALL = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90,
    "cero": 0, "un": 1, "uno": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5,
    "seis": 6, "siete": 7, "ocho": 8, "nueve": 9, "diez": 10, "once": 11, "doce": 12,
    "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16, "dieciseis": 16,
    "diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiún": 21,
    "veintiun": 21, "veintiuno": 21, "veintiuna": 21, "veintidós": 22, "veintidos": 22,
    "veintitrés": 23, "veintitres": 23, "veinticuatro": 24, "veinticinco": 25,
    "veintiséis": 26, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28,
    "veintinueve": 29, "treinta": 30, "cuarenta": 40, "cincuenta": 50, "sesenta": 60,
    "setenta": 70, "ochenta": 80, "noventa": 90, "cien": 100, "ciento": 100,
}
for _w, _v in (("doscient", 200), ("trescient", 300), ("cuatrocient", 400), ("quinient", 500),
               ("seiscient", 600), ("setecient", 700), ("ochocient", 800), ("novecient", 900)):
    _SMALL[_w + "os"] = _SMALL[_w + "as"] = _v
_MULT = {"hundred": 100, "thousand": 1000, "mil": 1000, "million": 10**6, "millón": 10**6,
         "millon": 10**6, "millones": 10**6, "billion": 10**9}
_NUMBER_WORDS = set(_SMALL) | set(_MULT)
_NW = rf"(?:{_alt(_NUMBER_WORDS)})(?!\w)"
_WORD_RUN = rf"(?<!\w){_NW}(?:(?:\s{{1,3}}|-)(?:(?:y|and)\s{{1,3}})?{_NW}){{0,10}}"

_CUR_SYMBOL = {"€": "EUR", "$": "USD", "US$": "USD", "U.S.$": "USD", "£": "GBP", "¥": "JPY",
               "C$": "CAD", "A$": "AUD", "R$": "BRL", "MX$": "MXN"}
_CUR_CODES = ("EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "MXN", "CNY", "BRL", "ARS",
              "CLP", "COP", "PEN", "SEK", "NOK", "DKK")
_CUR_SYM_RE = r"(?:U\.S\.\s?\$|US\$|MX\$|[CAR]\$|\$|€|£|¥)"
_CUR_CODE_RE = rf"(?<![A-Za-z])(?:{'|'.join(_CUR_CODES)})(?![A-Za-z])"
_CUR_WORDS_RE = (r"(?i:euros?|d[oó]lares(?:\s{1,3}(?:estadounidenses|americanos))?|d[oó]lar"
                 r"|(?:U\.?S\.?\s{1,3}|US\s{1,3})?dollars?|pounds\s{1,3}sterling"
                 r"|libras\s{1,3}esterlinas|francos\s{1,3}suizos|swiss\s{1,3}francs)(?!\w)")
_PCT_WORDS_RE = r"(?i:por\s{1,3}ciento|por\s{1,3}cien|percent|per\s{1,3}cent|pct)(?!\w)"
_DUR_RE = (r"(?i:(?P<du>(?P<dk>business|calendar|working|banking|trading)\s{1,3}days?|years?"
           r"|yrs?|months?|weeks?|days?|hours?|hrs?|minutes?|a[ñn]os?|meses|mes|semanas?"
           r"|d[ií]as?|horas?|minutos?))(?!\w)")
# unit name → ISO 8601 designator ("T…" for time designators)
_DUR_DESIGNATOR = {"years": "Y", "months": "M", "weeks": "W", "days": "D", "hours": "TH",
                   "minutes": "TM"}
_DAY_KIND = {"business": "business", "working": "business", "banking": "business",
             "trading": "business", "calendar": "natural", "natural": "natural",
             "naturales": "natural", "hábil": "business", "hábiles": "business",
             "habil": "business", "habiles": "business", "laborable": "business",
             "laborables": "business", "calendario": "natural"}
_SCALE_WORDS = (
    ("mil millones", 10**9, "billions"), ("millardo", 10**9, "billions"),
    ("billón", 10**12, "trillions"), ("billon", 10**12, "trillions"),
    ("billones", 10**12, "trillions"), ("trillion", 10**12, "trillions"),
    ("billion", 10**9, "billions"), ("million", 10**6, "millions"),
    ("millón", 10**6, "millions"), ("millon", 10**6, "millions"),
    ("millones", 10**6, "millions"), ("mill.", 10**6, "millions"),
    ("thousand", 10**3, "thousands"), ("mil", 10**3, "thousands"),
)
_ABBR_SCALE = {"k": (10**3, "thousands"), "K": (10**3, "thousands"), "m": (10**6, "millions"),
               "M": (10**6, "millions"), "MM": (10**6, "millions"), "mn": (10**6, "millions"),
               "bn": (10**9, "billions"), "B": (10**9, "billions"), "b": (10**9, "billions")}


def currency_code(token: str) -> str | None:
    """Return the ISO 4217 code a currency symbol, code or word names, or None."""
    t = "".join(token.split())
    if t in _CUR_SYMBOL:
        return _CUR_SYMBOL[t]
    if t in _CUR_CODES:
        return t
    low = t.lower()
    if low.startswith("euro"):
        return "EUR"
    if "dollar" in low or "dólar" in low or "dolar" in low:
        return "USD"
    if "sterling" in low or "esterlina" in low:
        return "GBP"
    if "franc" in low:
        return "CHF"
    return None


# ---- number words ----------------------------------------------------------------------

def parse_number_words(text: str) -> int | None:
    """Return the integer written in English or Spanish words (`veinticuatro`), or None."""
    total, current, seen_thousand, any_word = 0, 0, False, False
    for tok in re.findall(r"[^\W\d_]+", text.lower()):
        if tok in ("y", "and"):
            continue
        any_word = True
        if tok in _SMALL:
            v = _SMALL[tok]
            ok = (current == 0 or (v < 100 and current % 100 == 0)
                  or (v < 10 and current % 100 >= 20 and current % 10 == 0))
            if not ok or (v >= 100 and current):
                return None
            current += v
        elif tok == "hundred":
            if not 0 <= current < 10:
                return None
            current = (current or 1) * 100
        elif tok in ("thousand", "mil"):
            if seen_thousand:
                return None
            total += (current or 1) * 1000
            current, seen_thousand = 0, True
        elif tok in _MULT:
            total = (total + (current or 1)) * _MULT[tok]
            current, seen_thousand = 0, False
        else:
            return None
    return total + current if any_word else None


def _words_ending_at(text: str, lo: int, hi: int, value: Decimal) -> int | None:
    """Return where number words equal to `value` start when they end at `hi` (or None)."""
    if _last_word(text, lo, hi).rsplit("-", 1)[-1] not in _ECHO_LAST:
        return None
    m = _ECHO_RE.search(text, max(lo, hi - 160), hi)
    if not m:
        return None
    run_start, run_end = m.start("w"), m.end("w")
    for t in re.finditer(r"[^\W\d_]+", text[run_start:run_end]):
        if t.group().lower() in ("y", "and"):
            continue
        v = parse_number_words(text[run_start + t.start():run_end])
        if v is not None and v == value:
            return run_start + t.start()
    return None


# ---- numbers -----------------------------------------------------------------------------

_NUM_RE = re.compile(r"""
(?<![\w.,/:\-\u2212+])
(?P<sign>[-\u2212+])?
(?P<num>
    [0-9]{1,3}(?P<g>[.,\u00a0\u202f\u2009])[0-9]{3}(?:(?P=g)[0-9]{3}){0,8}
        (?:(?!(?P=g))[.,][0-9]{1,12})?
  | [0-9]{1,3}(?:\ [0-9]{3}){1,8}(?:,[0-9]{1,12})?(?=\ ?(?:€|%|EUR\b|(?i:euros?)\b))
  | [0-9]{1,3}(?:\ [0-9]{3}){1,8},[0-9]{1,12}
  | [0-9]{1,3}(?:\ [0-9]{3}){2,8}
  | [0-9]{1,3}\ 0[0-9]{2}
  | [0-9]{1,30}(?:[.,][0-9]{1,12})?
)
(?:(?P<abbr>MM|mn|bn|[kKmMBb])(?!\w))?
(?(abbr)|(?!\w|[.,:/][^\W_]|-[0-9]))
""", re.X)


def parse_number(token: str, lang: str | None = None) -> Decimal | None:
    """Return the value of one written number (`1.234,5`, `-3.2`, `1 234`), or None."""
    m = _NUM_RE.fullmatch(token.strip())
    if not m or m.group("abbr"):
        return None
    d, _ = _to_decimal(m.group("num"), lang)
    return -d if m.group("sign") in ("-", "\u2212") else d


def _to_decimal(raw: str, lang: str | None) -> tuple[Decimal, tuple[str, ...]]:
    flags: tuple[str, ...] = ()
    s = raw
    for sp in ("\u00a0", "\u202f", "\u2009", " "):
        s = s.replace(sp, "")
    dots, commas = s.count("."), s.count(",")
    if dots and commas:
        dec = "." if s.rfind(".") > s.rfind(",") else ","
        grp = "," if dec == "." else "."
        s = s.replace(grp, "").replace(dec, ".")
    elif dots + commas:
        sep = "." if dots else ","
        if dots + commas > 1:
            s = s.replace(sep, "")
        else:
            whole, frac = s.split(sep)
            grouped_len = len(frac) == 3 and 1 <= len(whole) <= 3 and whole != "0"
            if grouped_len and len(raw) != len(s):  # a space group too: "1 234,567"
                grouped_len = False
            if not grouped_len:
                s = whole + "." + frac
            else:
                if lang is None:
                    flags = ("ambiguous_separator",)
                groups_with = "." if lang == "es" else ","
                s = whole + frac if sep == groups_with else whole + "." + frac
    try:
        return Decimal(s), flags
    except InvalidOperation:  # pragma: no cover - the pattern admits digits only
        return Decimal(0), ("unparsed",)


# ---- patterns around a number ---------------------------------------------------------

_PREFIX_RE = re.compile(
    rf"(?:(?P<cur>{_CUR_SYM_RE}|{_CUR_CODE_RE})\s{{0,2}}(?P<sign>[-\u2212])?|"
    rf"(?P<sign2>[-\u2212])\s?(?P<cur2>{_CUR_SYM_RE}))(?P<paren>\(\s?)?\Z")
_SUFFIX_RE = re.compile(rf"""
(?P<scale>\s{{0,2}}(?:(?i:mil\s{{1,3}}millones|millones|mill[oó]n|millions?|billions?|billones|bill[oó]n
   |millardos?|thousands?|trillions?|mil)(?!\w)|(?i:mill)\.))?
(?:
   (?P<pct>\s?%|\s{{1,3}}{_PCT_WORDS_RE}\.?)
 | (?P<pp>\s{{1,3}}(?i:puntos\s{{1,3}}porcentuales|percentage\s{{1,3}}points?)(?!\w))
 | (?P<cur>\s{{0,3}}(?P<de>(?i:de)\s{{1,3}})?(?P<curt>{_CUR_SYM_RE}|{_CUR_CODE_RE})
     |\s{{1,3}}(?P<de2>(?i:de)\s{{1,3}})?(?P<curw>{_CUR_WORDS_RE}))
 | (?P<dur>(?:\s{{1,3}}|-){_DUR_RE}(?:\s{{1,3}}(?P<dk2>(?i:naturales|natural|h[aá]biles|h[aá]bil
     |laborables|laborable|de\s{{1,3}}calendario)(?!\w)))?)
 | (?P<unit>\ ?(?:puntos|points|pts|km|m²|m2|m³|m3|kg|kWh|MWh|GWh|kW|MW|GW|toneladas|tonnes
     |tons|hect[aá]reas|hectares|litros|litres|liters|acciones|shares)(?!\w))
)?
""", re.X)
_ECHO_RE = re.compile(
    rf"(?P<w>{_WORD_RUN})(?:\s{{1,3}}(?P<u>{_CUR_WORDS_RE}|{_PCT_WORDS_RE}))?\s{{0,3}}\Z",
    re.I)
_REF_KW = (
    r"art(?:[íi]culo|icle)?s?\.?|cl[áa]usulas?|clauses?|sections?|secci[óo]n(?:es)?"
    r"|apartados?|anexos?|annex(?:es)?|exhibits?|schedules?|appendix|ap[ée]ndices?|p[áa]ginas?"
    r"|pages?|pp?\.|p[áa]rrafos?|paragraphs?|ley(?:es)?|laws?|reglamento|rules?|items?|punto"
    r"|cap[íi]tulos?|chapters?|t[íi]tulos?|grupo|subgrupo|categor[íi]a|n[º°]|n\.[º°]|no\."
    r"|n[úu]m\.|n[úu]mero|nos?\.|§{1,2}|lotes?|lots?|tablas?|tables?|figur[ae]s?|notas?"
    r"|notes?|decreto|directiva|directive|orden|versi[óo]n|version")
_REF_CONNECTORS = frozenset(",|y|e|o|u|a|al|and|or|to|through|-|–".split("|"))
_REF_WORD_RE = re.compile(_REF_KW, re.I)
_REF_RE = re.compile(
    rf"(?<!\w)(?:{_REF_KW})\s{{0,3}}(?:[0-9]{{1,6}}(?:\.[0-9]{{1,4}}){{0,4}}[a-z]?\)?\s{{0,3}}"
    r"(?:,|y|e|o|u|a|al|and|or|to|through|-|–)\s{0,3}){0,6}\Z", re.I)
# the last word of every pre-qualifier (a cheap gate before the regex search)
_PRE_Q_LAST = frozenset(
    "than least of to after before most within máximo maximo mínimo minimo de del a al menos "
    "exceeding above below desde hasta about around circa approximately approx. "
    "aproximadamente los las el la the on max. min. excess".split())
_ECHO_LAST = _NUMBER_WORDS | frozenset(
    "euro euros dollar dollars dólar dolar dólares dolares sterling esterlinas suizos francs "
    "estadounidenses americanos percent ciento cien cent pct".split())


def _last_word(text: str, lo: int, end: int, width: int = 40) -> str:
    """Return the lowercased last whitespace-separated token before `end` (cheap)."""
    w = text[max(lo, end - width):end].rstrip()
    return w.rsplit(None, 1)[-1].lstrip("([\"'“«").lower() if w else ""


def _is_reference(text: str, lo: int, s: int) -> bool:
    tok = _last_word(text, lo, s)
    if not tok:
        return False
    if _REF_WORD_RE.fullmatch(tok) is None and tok not in _REF_CONNECTORS and tok[-1] != ",":
        return False
    return _REF_RE.search(text, max(lo, s - 60), s) is not None


_AT_TIME_RE = re.compile(r"(?<!\w)(?:a\s{1,3}las?|at|las)\s{1,3}\Z", re.I)


_CLOSE_RE = re.compile(r"\s?\)")


@dataclass(slots=True)
class _Ctx:
    text: str
    lo: int
    hi: int
    lang: str | None
    date_order: str | None


def _number_value(c: _Ctx, m: re.Match[str]) -> Value | None:
    text = c.text
    s = m.start()
    raw, sign, abbr = m.group("num"), m.group("sign"), m.group("abbr")
    if not sign and _is_reference(text, c.lo, s):
        return None
    amount, flags = _to_decimal(raw, c.lang)
    if sign in ("-", "\u2212"):
        amount = -amount
    start, end = s, m.end("num")
    currency: str | None = None
    scale: str | None = None
    mult = 1
    vt, unit, detail = "number", None, None
    paren_open = -1
    pm = _PREFIX_RE.search(text, max(c.lo, s - 12), s)
    if pm:
        currency = currency_code(pm.group("cur") or pm.group("cur2"))
        start = pm.start()
        if (pm.group("sign") or pm.group("sign2")) and not sign:
            amount = -amount
        if pm.group("paren"):
            paren_open = pm.start("paren")
    if abbr:
        if currency is None:
            return None
        mult, scale = _ABBR_SCALE[abbr]
        end = m.end()
    sm = _SUFFIX_RE.match(text, end, min(c.hi, end + 60))
    if sm and sm.end() > end:
        if sm.group("scale") and not abbr:
            word = " ".join(sm.group("scale").split()).lower()
            for w, f, name in _SCALE_WORDS:
                if word.startswith(w):
                    mult, scale = f, name
                    break
            end = sm.end("scale")
        if sm.group("pct") or sm.group("pp"):
            if scale is None and currency is None:
                vt, unit, end = "percent", "%" if sm.group("pct") else "pp", sm.end()
        elif sm.group("cur"):
            de = sm.group("de") or sm.group("de2")
            code = currency_code(sm.group("curt") or sm.group("curw"))
            if code and (not de or scale) and currency in (None, code):
                currency, end = code, sm.end()
        elif sm.group("dur") and scale is None and currency is None:
            if _AT_TIME_RE.search(text, max(c.lo, start - 12), start):
                return None  # "a las 14 horas" is a time of day
            vt, end = "duration", sm.end()
            unit, detail = _dur_unit(sm)
        elif sm.group("unit") and scale is None and currency is None:
            unit, end = sm.group("unit").strip(), sm.end()
    if currency:
        vt = "money"
    if paren_open >= 0:
        close = _CLOSE_RE.match(text, end, min(c.hi, end + 2))
        if close:
            if amount > 0:
                amount = -amount
            flags += ("parenthesised_negative",)
            end = close.end()
    else:
        before = start - 1 if start - 1 >= c.lo and text[start - 1] == "(" else (
            start - 2 if start - 2 >= c.lo and text[start - 2:start] == "( " else -1)
        close_m = _CLOSE_RE.match(text, end, min(c.hi, end + 2)) if before >= 0 else None
        if close_m:
            wstart = _words_ending_at(text, c.lo, before, abs(amount)) if not sign else None
            if wstart is not None:
                em = _ECHO_RE.search(text, max(c.lo, before - 160), before)
                if vt == "number" and em and em.group("u"):
                    u = em.group("u")
                    code = currency_code(u)
                    vt, currency = ("money", code) if code else ("percent", None)
                    unit = "%" if vt == "percent" else unit
                start, end = wstart, close_m.end()
                if vt == "number":
                    sm2 = _SUFFIX_RE.match(text, end, min(c.hi, end + 60))
                    if sm2 and sm2.end() > end and not sm2.group("scale"):
                        if sm2.group("pct"):
                            vt, unit, end = "percent", "%", sm2.end()
                        elif sm2.group("cur") and not (sm2.group("de") or sm2.group("de2")):
                            currency = currency_code(sm2.group("curt") or sm2.group("curw"))
                            if currency:
                                vt, end = "money", sm2.end()
                        elif sm2.group("dur"):
                            vt, end = "duration", sm2.end()
                            unit, detail = _dur_unit(sm2)
                        elif sm2.group("unit"):
                            unit, end = sm2.group("unit").strip(), sm2.end()
            elif (vt in ("number", "money") and not sign
                  and (m.group("g") or currency) and amount > 0):
                amount = -amount
                flags += ("parenthesised_negative",)
                start, end = before, close_m.end()
    value = amount * mult
    if vt == "duration":
        norm = _duration(amount, unit or "days")
    elif vt == "percent":
        norm = canonical(amount)
    else:
        norm = canonical(value)
        if (vt == "number" and not sign and unit is None and scale is None and raw.isdigit()
                and len(raw) == 4 and 1900 <= int(raw) <= 2099 and start == s):
            vt = "period"
    return Value(vt, start, end, text[start:end], norm, value if vt in ("number", "money") else
                 amount if vt == "percent" else None, unit, currency, scale, detail, (), flags)


def _dur_unit(m: re.Match[str]) -> tuple[str, str | None]:
    """Return (unit name, day kind) of a duration unit matched by `_DUR_RE`."""
    word = m.group("du").lower().split()[-1]
    kind_word = m.group("dk") or m.groupdict().get("dk2")
    detail = _DAY_KIND.get(kind_word.lower().split()[-1]) if kind_word else None
    if word.startswith(("y", "a")):
        unit = "years"
    elif word.startswith(("mo", "mes")):
        unit = "months"
    elif word.startswith(("w", "sem")):
        unit = "weeks"
    elif word.startswith("d"):
        unit = "days"
    elif word.startswith("h"):
        unit = "hours"
    else:
        unit = "minutes"
    return unit, detail


def _duration(amount: Decimal, unit: str) -> str:
    d = _DUR_DESIGNATOR[unit]
    return f"PT{canonical(amount)}{d[1]}" if d.startswith("T") else f"P{canonical(amount)}{d}"


# ---- dates and periods ----------------------------------------------------------------------

_MON = rf"(?:{_alt(MONTHS)})(?!\w)\.?"
_Y4 = r"[12][0-9]{3}(?![0-9])"
def _qh_tail(k: str) -> str:
    return (rf"(?P<{k}s>[\s\-/]?)(?P<{k}fy>FY\s?)?(?P<{k}a>')?"
            rf"(?P<{k}y>[12][0-9]{{3}}|[0-9]{{2}})(?![\w])")


def _qw_tail(k: str) -> str:
    return (rf"\s{{1,3}}(?P<{k}k>trimestre|quarter|semestre|half)"
            r"(?:\s{1,3}(?:of|de|del)(?:\s{1,3}(?:the|el))?)?"
            rf"(?:\s{{1,3}}(?P<{k}fy>fiscal\s{{1,3}}year|FY|ejercicio|a[nñ]o\s{{1,3}}fiscal|a[nñ]o))?"
            rf"\s{{1,3}}(?P<{k}y>{_Y4})")


# Values that open with a digit, tried at the start of each digit run.
_DIGIT_LED_RE = re.compile(rf"""
(?P<A>(?<![\w.,/\-])(?P<a_d>[0-3]?[0-9])(?:st|nd|rd|th|er|º|°|ª)?
   (?:\s{{1,3}}day\s{{1,3}}of|\s{{1,3}}del?(?:\s{{1,3}}mes\s{{1,3}}de)?)?(?:\s{{1,3}}|-|/|\.\s?)
   (?P<a_m>{_MON})
   (?:(?:,?\s{{1,3}}(?:del?\s{{1,3}}(?:a[ñn]o\s{{1,3}})?)?|-|/)(?P<a_y>{_Y4}))?)
|(?P<N>(?<![\w.,/\-])(?P<n_a>[0-3]?[0-9])(?P<ns>[/.\-])(?P<n_b>[0-3]?[0-9])(?P=ns)
   (?P<n_y>[12][0-9]{{3}}|[0-9]{{2}})(?![0-9]|[/.\-][0-9]))
|(?P<I>(?<![\w.,/\-])(?P<i_y>[12][0-9]{{3}})(?P<is>[-/.])(?P<i_m>[01]?[0-9])(?P=is)
   (?P<i_d>[0-3]?[0-9])(?![0-9]|[/.\-][0-9]))
|(?P<B>(?<![\w.,])(?P<by>[12][0-9]{{3}})(?-i:(?P<b>[AEFPB]))(?![\w]))
|(?P<Q>(?<![\w])(?-i:(?:(?P<q2>[1-4])Q|(?P<q3>[1-4])T)){_qh_tail("q")})
|(?P<H>(?<![\w])(?-i:(?:(?P<h2>[12])H|(?P<h3>[12])S)){_qh_tail("h")})
|(?P<QD>(?<![\w])(?P<qd>[1-4](?:er|º|°|st|nd|rd|th)){_qw_tail("qd")})
""", re.X | re.I)
# Values that open with a word, tried where `_TRIGGER_RE` finds one of these words.
_LETTER_LED_RE = re.compile(rf"""
(?P<C>(?<![\w.])(?P<c_m>{_MON})\s{{1,3}}(?P<c_d>[0-3]?[0-9])(?:st|nd|rd|th)?(?![\w])
   (?:,?\s{{1,3}}(?P<c_y>{_Y4}))?)
|(?P<MY>(?<![\w])(?P<mm>{_MON})(?:\s{{1,3}}del?\s{{1,3}}|,?\s{{1,3}}|-)(?P<my>{_Y4}))
|(?P<FY>(?<![\w])(?-i:FY|F\.Y\.|AF)\s?'?(?P<fy>[12][0-9]{{3}}|[0-9]{{2}})(?![\w]))
|(?P<FW>(?<![\w])(?:fiscal\s{{1,3}}year|financial\s{{1,3}}year|ejercicio(?:\s{{1,3}}(?:fiscal
   |econ[oó]mico|social))?|a[nñ]o\s{{1,3}}fiscal)\s{{1,3}}(?:de\s{{1,3}})?(?P<fw>{_Y4}))
|(?P<QL>(?<![\w])(?-i:Q(?P<q1>[1-4])){_qh_tail("ql")})
|(?P<HL>(?<![\w])(?-i:H(?P<h1>[12])){_qh_tail("hl")})
|(?P<QW>(?<![\w])(?P<qw>primer|primero|segundo|tercer|tercero|cuarto|first|second|third
   |fourth){_qw_tail("qw")})
|(?P<WU>(?P<w>{_WORD_RUN})(?:(?:\s{{1,3}}|-)(?P<pct>{_PCT_WORDS_RE})|(?:\s{{1,3}}|-)
   (?P<dur>{_DUR_RE}(?:\s{{1,3}}(?P<dk2>(?:naturales|h[aá]biles|laborables)(?!\w)))?)))
""", re.X | re.I)
_TRIGGER_WORDS = (set(MONTHS) | _NUMBER_WORDS | {
    "fy", "f.y.", "af", "fiscal", "financial", "ejercicio", "año", "ano", "primer", "primero",
    "segundo", "tercer", "tercero", "cuarto", "first", "second", "third", "fourth"}
    | {f"q{i}" for i in range(1, 5)} | {"h1", "h2"})
_TRIGGER_RE = re.compile(rf"(?<![\w.])(?:{_alt(_TRIGGER_WORDS)})(?![^\W\d_])")
_DIGITS_RE = re.compile(r"(?<![\w.,/:])[0-9]")
_NUMERIC_DATE_RE = re.compile(
    r"(?<![\w.,/\-])([0-3]?[0-9])([/.\-])([0-3]?[0-9])\2(?:[12][0-9]{3}|[0-9]{2})(?![0-9])")
_TIME_AFTER_RE = re.compile(
    r",?\s{0,3}(?P<conn>(?:a\s{1,3}las?|at|@|,)\s{0,3})?(?P<h>[0-2]?[0-9])"
    r"(?:(?P<sep>[:.h])(?P<mi>[0-5][0-9]))?(?::[0-5][0-9])?(?![0-9])"
    r"(?:\s{0,2}(?P<suf>horas|hrs?\.?|h(?!\w)|[ap]\.\s?m\.|[ap]m(?!\w)))?", re.I)
_TIME_BEFORE_RE = re.compile(
    r"(?<!\w)(?P<conn>(?:a\s{1,3}las?|at)\s{1,3})?(?P<h>[0-2]?[0-9])"
    r"(?:(?P<sep>[:.h])(?P<mi>[0-5][0-9]))?\s{0,2}(?P<suf>horas|hrs?\.?|h|[ap]\.\s?m\.|[ap]m)?"
    r"\s{0,3},?\s{1,3}(?:del\s{1,3}d[ií]a|del|el\s{1,3}d[ií]a|el|de|on\s{1,3}the|on)\s{1,3}\Z",
    re.I)
_ORDINAL = {"primer": 1, "primero": 1, "first": 1, "segundo": 2, "second": 2, "tercer": 3,
            "tercero": 3, "third": 3, "cuarto": 4, "fourth": 4}
_BASIS = {"A": "actual", "E": "estimate", "F": "forecast", "P": "projected", "B": "budget"}


def _year(y: str) -> int:
    n = int(y)
    return n if len(y) == 4 else (2000 + n if n < 70 else 1900 + n)


def _time(m: re.Match[str]) -> str | None:
    sep, suf = m.group("sep"), (m.group("suf") or "").lower().replace(" ", "")
    if not (sep == ":" or suf or (sep == "h" and m.group("mi"))):
        return None
    if m.group("mi") is None and not (m.group("conn") and suf):
        return None
    h, mi = int(m.group("h")), int(m.group("mi") or 0)
    if suf[:1] == "p" and h < 12:
        h += 12
    elif suf[:1] == "a" and h == 12:
        h = 0
    if h > 23:
        return None
    return f"{h:02d}:{mi:02d}"


def _led_value(c: _Ctx, m: re.Match[str]) -> Value | None:
    gd = m.groupdict()
    if gd.get("WU"):
        return _words_value(c, m)
    if gd.get("A") or gd.get("C") or gd.get("N") or gd.get("I"):
        return _date_value(c, m)
    return _period_value(c, m)


def _date_value(c: _Ctx, m: re.Match[str]) -> Value | None:
    gd = m.groupdict("")

    def g(name: str) -> str:
        return gd.get(name, "")

    flags: tuple[str, ...] = ()
    if g("A") or g("C"):
        p = "a" if g("A") else "c"
        mon_word = g(f"{p}_m").rstrip(".")
        d, mo = int(g(f"{p}_d")), MONTHS[mon_word.lower()]
        if not g(f"{p}_y"):
            # a date without its year: only with a full month name (English: capitalised)
            if mon_word.lower() not in _FULL_MONTHS or (
                    p == "c" and not mon_word[0].isupper()) or (
                    p == "a" and " de" not in m.group()[:12].lower()
                    and not mon_word[0].isupper()):
                return None
            y, flags = None, ("no_year",)
        else:
            y = int(g(f"{p}_y"))
    elif g("N"):
        a, b, y = int(g("n_a")), int(g("n_b")), _year(g("n_y"))
        if g("ns") == "." and len(g("n_y")) != 4:
            return None
        if a > 12 or (b <= 12 and c.date_order != "mdy"):
            d, mo = a, b
        else:
            d, mo = b, a
        if a <= 12 and b <= 12 and a != b:
            flags = ("ambiguous_date_order",)
    else:
        y, mo, d = int(g("i_y")), int(g("i_m")), int(g("i_d"))
    try:
        date(y or 2000, mo, d)
    except ValueError:
        return None
    start, end = m.start(), m.end()
    norm = f"{y:04d}-{mo:02d}-{d:02d}" if y else f"--{mo:02d}-{d:02d}"
    vt = "date"
    if y:
        tm = _TIME_AFTER_RE.match(c.text, end, min(c.hi, end + 40))
        t = _time(tm) if tm else None
        if t is None:
            tb = _TIME_BEFORE_RE.search(c.text, max(c.lo, start - 50), start)
            t = _time(tb) if tb else None
            if t is not None and tb:
                start = tb.start()
        elif tm:
            end = tm.end()
        if t is not None:
            vt, norm = "datetime", f"{norm}T{t}"
    return Value(vt, start, end, c.text[start:end], norm, flags=flags)


def _period_value(c: _Ctx, m: re.Match[str]) -> Value | None:
    gd = m.groupdict("")

    def g(name: str) -> str:
        return gd.get(name, "")

    detail = None
    if g("FY"):
        norm = f"FY{_year(g('fy'))}"
    elif g("FW"):
        norm = f"FY{g('fw')}"
    elif g("B"):
        norm, detail = f"FY{g('by')}", _BASIS[g("b")]
    elif g("Q") or g("QL") or g("H") or g("HL"):
        k = next(k for k in ("Q", "QL", "H", "HL") if g(k)).lower()
        part = g("q1") or g("q2") or g("q3") or g("h1") or g("h2") or g("h3")
        yr = g(f"{k}y")
        if len(yr) == 2 and g(f"{k}s") and not g(f"{k}a"):
            return None  # "Q3 25" is too loose
        fy = "FY" if g(f"{k}fy") else ""
        norm = f"{fy}{_year(yr)}-{k[0].upper()}{part}"
    elif g("QW") or g("QD"):
        k = "qw" if g("QW") else "qd"
        word = g(k).lower()
        n = _ORDINAL[word] if k == "qw" else int(word[0])
        half = g(f"{k}k").lower() in ("semestre", "half")
        if half and n > 2:
            return None
        fy = g(f"{k}fy")
        pre = "FY" if fy and fy.lower() not in ("año", "ano") else ""
        norm = f"{pre}{g(f'{k}y')}-{'H' if half else 'Q'}{n}"
    else:
        norm = f"{int(g('my')):04d}-{MONTHS[g('mm').rstrip('.').lower()]:02d}"
    return Value("period", m.start(), m.end(), m.group(), norm, detail=detail)


def _words_value(c: _Ctx, m: re.Match[str]) -> Value | None:
    n = None
    run = m.group("w")
    for t in re.finditer(r"[^\W\d_]+", run):
        if t.group().lower() in ("y", "and"):
            continue
        n = parse_number_words(run[t.start():])
        if n is not None:
            start = m.start("w") + t.start()
            break
    if n is None:
        return None
    amount = Decimal(n)
    if m.group("pct"):
        return Value("percent", start, m.end(), c.text[start:m.end()], canonical(amount),
                     amount, "%")
    unit, detail = _dur_unit(m)
    return Value("duration", start, m.end(), c.text[start:m.end()], _duration(amount, unit),
                 None, unit, detail=detail)


# ---- qualifiers ----------------------------------------------------------------------------

_PRE_Q = (
    ("ge", r"at\s+least|a\s+minimum\s+of|minimum\s+of|min\.|on\s+or\s+after|equal\s+to\s+or\s+"
           r"(?:greater|more)\s+than|(?:greater|more)\s+than\s+or\s+equal\s+to|como\s+m[íi]nimo"
           r"|al\s+menos|por\s+lo\s+menos|un\s+m[íi]nimo\s+del?|m[íi]nimo\s+del?|igual\s+o\s+"
           r"(?:superior|mayor)\s+al?|(?:superior|mayor)\s+o\s+igual\s+al?|a\s+partir\s+del?"
           r"|desde|starting\s+on"),
    ("gt", r"more\s+than|greater\s+than|in\s+excess\s+of|exceeding|above|later\s+than|after"
           r"|(?:superior|mayor)\s+al?|m[áa]s\s+del?|por\s+encima\s+del?|m[áa]s\s+tarde\s+del?"
           r"|despu[ée]s\s+del?|posterior\s+al?"),
    ("le", r"up\s+to(?:\s+a\s+maximum\s+of)?|at\s+most|a\s+maximum\s+of|maximum\s+of|max\."
           r"|equal\s+to\s+or\s+less\s+than|less\s+than\s+or\s+equal\s+to|on\s+or\s+before"
           r"|within|como\s+m[áa]ximo|hasta\s+un\s+m[áa]ximo\s+del?|hasta|un\s+m[áa]ximo\s+del?"
           r"|m[áa]ximo\s+del?|m[áa]ximo|igual\s+o\s+(?:inferior|menor)\s+al?|(?:inferior|menor)"
           r"\s+o\s+igual\s+al?|dentro\s+(?:del?|de\s+los|de\s+las)"),
    ("lt", r"less\s+than|fewer\s+than|below|before|prior\s+to|(?:inferior|menor)\s+al?"
           r"|menos\s+del?|por\s+debajo\s+del?|antes\s+del?"),
    ("approx", r"approximately|approx\.|about|around|circa|aproximadamente|alrededor\s+del?"
               r"|en\s+torno\s+al?|cerca\s+del?"),
)
_PRE_Q_RE = re.compile(
    r"(?<!\w)(?P<neg>(?:not|no|never|nunca)(?:\s+(?:be|ser[áa]|sea|es|podr[áa]\s+ser))?\s+)?(?:"
    + "|".join(f"(?P<{k}>{p})" for k, p in _PRE_Q)
    + r")(?:\s+(?:the|el|la|los|las))?(?!\w)\s{0,3}\Z", re.I)
_POST_Q = (
    ("excl_tax", r"(?:el\s+)?IVA\s+(?P<n1>no\s+)?excluido|excluido\s+(?:el\s+)?IVA|exclud(?:ing|ed)"
                 r"\s+VAT|VAT\s+excluded|exclusive\s+of\s+VAT|excl\.?\s+VAT|net\s+of\s+VAT"
                 r"|sin\s+IVA|m[áa]s\s+IVA|\+\s?IVA|plus\s+VAT|\+\s?VAT|before\s+(?:VAT|taxes)"
                 r"|(?:excluding|excluyendo)\s+(?:taxes|impuestos)|impuestos\s+excluidos"
                 r"|IVA\s+aparte"),
    ("incl_tax", r"(?:el\s+)?IVA\s+(?P<n2>no\s+)?incluido|incluido\s+(?:el\s+)?IVA|includ(?:ing|ed)"
                 r"\s+VAT|VAT\s+included|inclusive\s+of\s+VAT|incl\.?\s+VAT|con\s+IVA"
                 r"|(?:impuestos|taxes)\s+incluid[oa]s|all\s+taxes\s+included"),
    ("per_day", r"per\s+(?:calendar\s+)?day|a\s+day|por\s+d[íi]a|al\s+d[íi]a|diari[oa]s?|/\s?d[íi]a"),
    ("per_week", r"per\s+week|a\s+week|por\s+semana|a\s+la\s+semana|semanales"),
    ("per_month", r"per\s+month|a\s+month|por\s+mes|al\s+mes|mensual(?:es)?|/\s?mes"),
    ("per_year", r"per\s+(?:year|annum)|a\s+year|por\s+a[ñn]o|al\s+a[ñn]o|anual(?:es)?|/\s?a[ñn]o"),
    ("per_hour", r"per\s+hour|an\s+hour|por\s+hora|la\s+hora|/\s?h"),
    ("ge", r"o\s+m[áa]s|or\s+more|or\s+greater|como\s+m[íi]nimo|at\s+least|o\s+superior"),
    ("le", r"o\s+menos|or\s+less|or\s+fewer|como\s+m[áa]ximo|at\s+most|o\s+inferior"),
)
_POST_Q_RE = re.compile(
    r"\s{0,3},?\s{0,3}\(?\s?(?:" + "|".join(f"(?P<{k}>{p})" for k, p in _POST_Q) + r")(?!\w)",
    re.I)
_FLIP = {"ge": "lt", "lt": "ge", "gt": "le", "le": "gt", "excl_tax": "incl_tax",
         "incl_tax": "excl_tax"}


def _qualifiers(c: _Ctx, v: Value, prev_end: int) -> Value:
    text = c.text
    out: list[Qualifier] = []
    lo = max(c.lo, prev_end, v.char_start - 60)
    pm = None
    if lo < v.char_start and _last_word(text, lo, v.char_start).rstrip(",") in _PRE_Q_LAST:
        pm = _PRE_Q_RE.search(text, lo, v.char_start)
    if pm:
        kind = next(k for k, _ in _PRE_Q if pm.group(k))
        neg = bool(pm.group("neg"))
        qs = pm.start()
        qe = qs + len(pm.group().rstrip())
        out.append(Qualifier(text[qs:qe], _FLIP.get(kind, kind) if neg else kind, qs, qe, neg))
    pos = v.char_end
    for _ in range(2):
        qm = _POST_Q_RE.match(text, pos, min(c.hi, pos + 50))
        if not qm:
            break
        kind = next(k for k, _ in _POST_Q if qm.group(k))
        neg = bool(qm.groupdict().get("n1") or qm.groupdict().get("n2"))
        qs = qm.start(kind)
        out.append(Qualifier(text[qs:qm.end()], _FLIP.get(kind, kind) if neg else kind, qs,
                             qm.end(), neg))
        pos = qm.end()
    return replace(v, qualifiers=tuple(out)) if out else v


# ---- the scanner -------------------------------------------------------------------------------

def find_values(text: str, start: int = 0, end: int | None = None, *, lang: str | None = None,
                date_order: str | None = None, skip_clause_number: bool = False) -> list[Value]:
    """Return the typed values in `text[start:end]`, in order, without overlaps.

    Spans are offsets into `text`. `lang` ("en", "es" or None) decides only ambiguous
    separators; `date_order` ("dmy" or "mdy") only ambiguous numeric dates.
    """
    hi = len(text) if end is None else min(end, len(text))
    lo = max(0, start)
    c = _Ctx(text, lo, hi, lang, date_order)
    cands: list[Value] = []
    for m in _DIGITS_RE.finditer(text, lo, hi):
        p = m.start()
        dm = _DIGIT_LED_RE.match(text, p, hi)
        if dm:
            v = _led_value(c, dm)
            if v:
                cands.append(v)
        q = p - 1 if p > lo and text[p - 1] in "-\u2212+" else p
        nm = _NUM_RE.match(text, q, hi) or (_NUM_RE.match(text, p, hi) if q != p else None)
        if nm:
            v = _number_value(c, nm)
            if v:
                cands.append(v)
    low = text[lo:hi].lower()
    if len(low) != hi - lo:  # a few characters lowercase to two: keep those as they are
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text[lo:hi])
    skip = lo
    for m in _TRIGGER_RE.finditer(low):
        p = lo + m.start()
        if p < skip:
            continue
        lm = _LETTER_LED_RE.match(text, p, hi)
        if lm:
            v = _led_value(c, lm)
            if v:
                cands.append(v)
                skip = v.char_end
    cands.sort(key=lambda v: (v.char_start, -v.char_end))
    out: list[Value] = []
    last = lo
    for v in cands:
        if v.char_start >= last and v.char_end > v.char_start:
            out.append(_qualifiers(c, v, last))
            last = v.char_end
    return out


def parse_value(text: str, start: int = 0, end: int | None = None, *,
                lang: str | None = None, date_order: str | None = None) -> Value | None:
    """Return the one value `text[start:end]` holds entirely (a table cell), or None.

    A value wrapped in parentheses, `(1,234)`, is negative (accounting form).
    """
    hi = len(text) if end is None else min(end, len(text))
    while start < hi and text[start].isspace():
        start += 1
    while hi > start and text[hi - 1].isspace():
        hi -= 1
    if hi <= start:
        return None
    neg = text[start] == "(" and text[hi - 1] == ")"
    a, b = (start + 1, hi - 1) if neg else (start, hi)
    vals = find_values(text, a, b, lang=lang, date_order=date_order)
    if len(vals) != 1:
        return None
    v = vals[0]
    first = min([v.char_start] + [q.char_start for q in v.qualifiers])
    last = max([v.char_end] + [q.char_end for q in v.qualifiers])
    if text[a:first].strip() or text[last:b].strip():
        return None
    if neg:
        if v.value_type not in ("number", "money", "percent") or v.amount is None:
            return None
        amount = -abs(v.amount)
        norm = canonical(amount)
        v = replace(v, char_start=start, char_end=hi, text=text[start:hi], amount=amount,
                    normalized=norm, flags=v.flags + ("parenthesised_negative",))
    elif text[start] == "(":
        return None
    return v


_EN_STOP = frozenset("the of and to in is that for by with as be this shall or on any such "
                     "from which will are not has have it its was".split())
_ES_STOP = frozenset("de la el que los las del se por con para una su al es lo como más "
                     "sus o este esta ser será dicho sobre".split())


def guess_lang(text: str, sample: int = 200_000) -> str | None:
    """Return "en" or "es" by stop-word counts over a sample of `text`, or None."""
    words = re.findall(r"[a-záéíóúñü]+", text[:sample].lower())
    en = sum(1 for w in words if w in _EN_STOP)
    es = sum(1 for w in words if w in _ES_STOP)
    if en + es < 5:
        return None
    if es > en * 1.5:
        return "es"
    if en > es * 1.5:
        return "en"
    return None


def date_order_of(text: str, start: int = 0, end: int | None = None) -> str:
    """Return "mdy" when numeric dates in `text` are written month-first, else "dmy"."""
    dmy = mdy = 0
    for m in _NUMERIC_DATE_RE.finditer(text, start, len(text) if end is None else end):
        a, b = int(m.group(1)), int(m.group(3))
        dmy += a > 12 >= b
        mdy += b > 12 >= a
    return "mdy" if mdy > dmy else "dmy"
