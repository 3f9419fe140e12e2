"""What the words around and inside a table say: value or label, unit, scale, period grain,
entity. Pure functions over strings; `tables.analyse` asks them.

- `cell_kind(text)`: "empty", "value" (an amount, a count, a percentage, a ratio, or a
  placeholder such as `—`, `n/a`), "period" (a year, `FY2024`, `2025A`, `Q3 2025`, a
  date — labels, not values), or "text".
- `find_scale(text)`: units | thousands | millions | billions, from phrases such as
  "in millions", "(in thousands)", "$ in millions", "$'000", "€m", "miles de euros",
  "en millones" ("units" only where a text says so: "in units", "in dollars").
- `find_unit(text)`: an ISO currency code (USD, EUR, GBP, …) or "%".
- `find_dimension(text)`: hours, days, weeks, months, years or count, named by a column
  header; it keeps a currency of the caption off that column.
- `period_grain(texts)`: fiscal_year | quarter | half | month | none.
- `find_entity(text)`: a company named in a caption (a legal form such as "Inc." or
  "S.A.", or the capitalised words that open a caption before a period: "Atlas Foods
  FY2024 Summary" → "Atlas Foods").

Every pattern runs on at most `MAX_CUE_CHARS` characters of a text, so a huge cell costs
no more than a short one.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from functools import lru_cache

MAX_CUE_CHARS = 300

_DASHES = "-\u2010\u2011\u2012\u2013\u2014\u2015\u2212"
_PLACEHOLDER_RE = re.compile(
    rf"^(?:[{_DASHES}]+|n/?a|n\.a\.|nm|n\.m\.|nil|none|—\s*%|\$\s*[{_DASHES}]+)$", re.I)
_CURRENCY_PREFIX = r"(?:US\$|U\.S\.\s?\$|A\$|AU\$|C\$|CA\$|NZ\$|HK\$|S\$|R\$|MX\$|[$€£¥₹₩₽])"
_CODE = r"(?:USD|EUR|GBP|JPY|CHF|CNY|RMB|INR|CAD|AUD|SEK|NOK|DKK|HKD|SGD|BRL|MXN)"
_NUMBER = r"(?:\d{1,3}(?:[,.\u00a0\u202f ]\d{3})+(?:[.,]\d+)?|\d+(?:[.,]\d+)?|[.,]\d+)"
_VALUE_RE = re.compile(
    rf"^[(\[]?[{_DASHES}+]?\s*(?:{_CURRENCY_PREFIX}|{_CODE})?\s*[(]?[{_DASHES}+]?\s*"
    rf"{_NUMBER}\s*(?:%|‰|x|bps|bp|pts?|pp|[kmb]n?|mm)?\s*[)\]]?\s*(?:%|{_CODE}|€|£)?"
    r"\s*(?:\(\d{1,2}\)|\*{1,3}|[†‡§]|\(?[a-z]\))?(?:\s*,\s*\(\d{1,2}\))*$",
    re.I,
)
_YEAR = r"(?:19|20)\d{2}"
_PERIOD_RES = (
    re.compile(rf"^(?:FY|CY|F|Y)\s?'?(?:{_YEAR}|\d{{2}})(?:\s?[AEFBP])?$", re.I),
    re.compile(rf"^{_YEAR}\s?[AEFBPRTH]?$", re.I),
    re.compile(rf"^{_YEAR}\s?[/\-–]\s?(?:{_YEAR}|\d{{2}})[AEFBP]?$", re.I),
    re.compile(rf"^(?:Q[1-4]|[1-4]Q|H[12]|[12]H|S[12]|T[1-4])\s?[-'/ ]?\s?(?:FY)?\s?'?(?:{_YEAR}|\d{{2}})?(?:\s?[AEFBP])?$", re.I),
    re.compile(rf"^(?:{_YEAR}|FY\s?\d{{2,4}})\s?[-/ ]?\s?(?:Q[1-4]|H[12])$", re.I),
    re.compile(rf"^{_YEAR}[-/.](?:0?[1-9]|1[0-2])(?:[-/.](?:0?[1-9]|[12]\d|3[01]))?$"),
    re.compile(r"^(?:0?[1-9]|[12]\d|3[01])[-/.](?:0?[1-9]|1[0-2])[-/.](?:\d{4}|\d{2})$"),
)
_MONTHS = (r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
           r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
           r"|enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre"
           r"|noviembre|diciembre")
_DATE_RE = re.compile(
    rf"^(?:(?:{_MONTHS})\.?\s+(?:\d{{1,2}},?\s+)?(?:{_YEAR}|'?\d{{2}})"
    rf"|\d{{1,2}}\s+(?:de\s+)?(?:{_MONTHS})\.?(?:\s+(?:de\s+)?{_YEAR})?"
    rf"|(?:{_MONTHS})[-\s]'?\d{{2}})$",
    re.I,
)
_FOOTNOTE_RE = re.compile(r"(?:\s*\(\d{1,2}\)|\s*\[\d{1,2}\]|\*{1,3}|[†‡§]|\s\d)$")
_YEAR_PERCENT_RE = re.compile(rf"^{_YEAR}\s+%$")


def norm(text: str) -> str:
    """Return `text` with runs of whitespace collapsed to one space, trimmed."""
    return " ".join(text.split())


def is_period(text: str) -> bool:
    """Return True when `text` (normalised) names a period or a date."""
    if len(text) > 40:
        return False
    return any(p.match(text) for p in _PERIOD_RES) or bool(_DATE_RE.match(text))


def cell_kind(text: str) -> str:
    """Return "empty", "value", "period" or "text" for a cell's normalised text."""
    if not text:
        return "empty"
    if len(text) > 60:
        return "text"
    if is_period(text) or is_period(_FOOTNOTE_RE.sub("", text)):
        return "period"
    if _YEAR_PERCENT_RE.match(text):
        return "text"  # "2019 %": the percentage column of 2019, a header
    if _PLACEHOLDER_RE.match(text) or _VALUE_RE.match(text):
        return "value"
    return "text"


# ---- scale ----------------------------------------------------------------------------

_SCALE_RES = (
    ("billions", re.compile(
        r"\bbillions?\b|\bbn\b|[$€£]\s?bn?\b|\bmiles de millones\b|\bmilliards?\b|\bmrd\.?(?=\s|$|\))"
        r"|\bmil millones\b", re.I)),
    ("millions", re.compile(
        r"\bmillions?\b|\bmillones\b|\bmill\.(?=\s|$)|\bmio\.?(?=\s|$|\))|\bmn\b|\bmln\b"
        r"|(?:^|[\s(])(?:US)?[$€£¥]\s?m\b|\b(?:EUR|USD|GBP|CHF)\s?m\b|\bm(?:EUR|USD|GBP|€|\$)"
        r"|\bMEUR\b|\bMUSD\b|\bmillions d", re.I)),
    ("thousands", re.compile(
        r"\bthousands?\b|\bmiles\b|\bmilliers\b|\btausend\b|\btsd\.?(?=\s|$|\))"
        r"|['’‘`]000s?\b|(?:^|[\s(])\$\s?000s?\b|\(000s?\)|\b000s\b|\bin 000\b"
        r"|\b(?:T|K)(?:EUR|USD|€|\$)\b|\bk€|€k\b|\$k\b|\bkUSD\b|\bkEUR\b", re.I)),
    ("units", re.compile(r"\bin units\b|\bin (?:us )?dollars\b|\bin euros\b|\ben unidades\b", re.I)),
)


def find_scale(text: str | None) -> str | None:
    """Return the scale a text states, or None."""
    if not text:
        return None
    s = text[:MAX_CUE_CHARS]
    best: tuple[int, str] | None = None
    for name, rx in _SCALE_RES:
        m = rx.search(s)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), name)
    if best is None:
        return None
    if best[1] == "thousands" and re.search(r"\bmiles de millones\b", s, re.I):
        return "billions"
    return best[1]


# ---- unit -----------------------------------------------------------------------------

_UNIT_RES = (
    ("AUD", re.compile(r"A\$|AU\$|\bAUD\b|australian dollars?", re.I)),
    ("CAD", re.compile(r"C\$|CA\$|\bCAD\b|canadian dollars?", re.I)),
    ("NZD", re.compile(r"NZ\$|\bNZD\b")),
    ("HKD", re.compile(r"HK\$|\bHKD\b")),
    ("SGD", re.compile(r"S\$|\bSGD\b")),
    ("BRL", re.compile(r"R\$|\bBRL\b|\breais\b", re.I)),
    ("MXN", re.compile(r"MX\$|\bMXN\b|\bpesos mexicanos\b", re.I)),
    ("USD", re.compile(r"US\$|U\.S\.\s?\$|\bUSD\b|\bU\.?S\.? dollars?\b|\$|\bdollars?\b|\bd[oó]lares\b", re.I)),
    ("EUR", re.compile(r"€|\bEUR\b|\beuros?\b|\bTEUR\b|\bMEUR\b|\bkEUR\b", re.I)),
    ("GBP", re.compile(r"£|\bGBP\b|\bpounds? sterling\b|\bsterling\b", re.I)),
    ("JPY", re.compile(r"¥|\bJPY\b|\byen\b", re.I)),
    ("CHF", re.compile(r"\bCHF\b|\bswiss francs?\b", re.I)),
    ("CNY", re.compile(r"\bCNY\b|\bRMB\b|\brenminbi\b|\byuan\b", re.I)),
    ("INR", re.compile(r"₹|\bINR\b|\brupees?\b", re.I)),
    ("SEK", re.compile(r"\bSEK\b")),
    ("NOK", re.compile(r"\bNOK\b")),
    ("DKK", re.compile(r"\bDKK\b")),
    ("%", re.compile(r"%|\bpercent(?:age)?\b|\bpor ?ciento\b|\bporcentaje\b", re.I)),
)


def find_unit(text: str | None) -> str | None:
    """Return the unit a text states (an ISO currency code or "%"), or None."""
    if not text:
        return None
    s = text[:MAX_CUE_CHARS]
    best: tuple[int, int, str] | None = None
    for order, (name, rx) in enumerate(_UNIT_RES):
        m = rx.search(s)
        if m:
            key = (m.start(), order, name)
            if best is None or key < best:
                best = key
    return best[2] if best else None


# Dimensions a column header can name for its numbers: counted or timed things, never money.
# A header that names one of these wins over a currency the table's caption states
# ("Minimum hours" in a sheet priced in euros holds hours).
_DIMENSION_RES = (
    ("hours", re.compile(r"\bhours?\b|\bhoras?\b|\bhrs?\b", re.I)),
    ("days", re.compile(r"\bdays?\b|\bd[ií]as?\b", re.I)),
    ("weeks", re.compile(r"\bweeks?\b|\bsemanas?\b", re.I)),
    ("months", re.compile(r"\bmonths?\b|\bmes(?:es)?\b", re.I)),
    ("years", re.compile(r"\byears?\b|\ba[ñn]os?\b", re.I)),
    ("count", re.compile(r"\bnumber of\b|\bn[uú]mero de\b|\bno\. of\b|\bcount\b|\bqty\b"
                         r"|\bquantity\b|\bcantidad\b|\bunits\b|\bunidades\b|\bFTEs?\b"
                         r"|\bheadcount\b|\bstaff\b|\bpersons?\b|\bpersonas\b|\bemployees\b", re.I)),
)
DIMENSIONS = frozenset(name for name, _ in _DIMENSION_RES)
# …unless the header prices the thing it counts ("Day rate", "Precio por hora").
_PRICED_RE = re.compile(r"\b(?:rates?|prices?|costs?|fees?|amounts?|charges?|salar(?:y|ies)|pay"
                        r"|tarifas?|precios?|costes?|costos?|importes?|honorarios|salarios?"
                        r"|retribuci[oó]n)\b", re.I)


def find_dimension(text: str | None) -> str | None:
    """Return the dimension a column header names for its numbers (hours, days, weeks,
    months, years, count), or None (also when the header prices it: "Day rate"); the first
    one written wins."""
    if not text or _PRICED_RE.search(text[:MAX_CUE_CHARS]):
        return None
    s = text[:MAX_CUE_CHARS]
    hits = [(m.start(), name) for name, rx in _DIMENSION_RES if (m := rx.search(s))]
    return min(hits)[1] if hits else None


def value_unit(text: str) -> str | None:
    """Return the unit written on a value cell itself ("$1,200" → USD, "12%" → %)."""
    s = text[:MAX_CUE_CHARS].strip()
    if not s:
        return None
    if s[-1].isdigit() and s.lstrip("(-−–+ ")[:1].isdigit():
        return None  # a plain number: the common case, no pattern needed
    if s.endswith("%") or s.endswith("%)"):
        return "%"
    if re.match(rf"^[(\-−–]?\s*{_CURRENCY_PREFIX}|^[(\-−–]?\s*{_CODE}\b|(?:{_CODE}|€|£)\)?$", s):
        return find_unit(s)
    return None


# ---- period grain ---------------------------------------------------------------------

_GRAIN_RES = (
    ("quarter", re.compile(
        r"\bQ[1-4]\b|\b[1-4]Q(?:\d{2}|\d{4})?\b|\bquarters?\b|\bthree months\b|\b3 months\b"
        r"|\b13 weeks\b|\btrimestres?\b|\bquarterly\b", re.I)),
    ("half", re.compile(
        r"\bH[12]\b|\b[12]H(?:\d{2}|\d{4})?\b|\bhalf[- ]years?\b|\bsix months\b|\b6 months\b"
        r"|\bsemestres?\b|\b26 weeks\b|\binterim\b", re.I)),
    ("month", re.compile(
        rf"^(?:{_MONTHS})\.?(?:[-\s]'?(?:\d{{2}}|{_YEAR}))?$|^{_YEAR}[-/](?:0?[1-9]|1[0-2])$"
        r"|\bmonthly\b|\bmonth ended\b|\bone month\b", re.I)),
    ("fiscal_year", re.compile(
        rf"\bFY\s?'?\d{{2,4}}\b|^{_YEAR}\s?[AEFBP]?$|\b(?:fiscal|financial) (?:year )?{_YEAR}\b"
        rf"|\byears? ended\b|\byear ending\b|\bfiscal years?\b|\bejercicios?\b|\bannual\b"
        rf"|^{_YEAR}\s?[/\-–]\s?(?:{_YEAR}|\d{{2}})$|\btwelve months\b|\b12 months\b"
        rf"|^(?:{_MONTHS})\.?\s+\d{{1,2}},?\s+{_YEAR}$|^{_YEAR}$", re.I)),
)
_GRAIN_ORDER = {"month": 0, "quarter": 1, "half": 2, "fiscal_year": 3}


@lru_cache(maxsize=4096)
def text_grain(text: str) -> str | None:
    """Return the period grain one header text names, or None."""
    s = text[:MAX_CUE_CHARS]
    for name, rx in _GRAIN_RES:
        if rx.search(s):
            return name
    return None


def path_grain(parts: Iterable[str]) -> str | None:
    """Return the finest grain named along one header path."""
    found = [g for g in (text_grain(p) for p in parts) if g]
    if not found:
        return None
    return min(found, key=lambda g: _GRAIN_ORDER[g])


def period_grain(paths: Iterable[Iterable[str]]) -> str:
    """Return the most common grain over header paths (ties: the finer), else "none"."""
    counts = Counter(g for g in (path_grain(p) for p in paths) if g)
    if not counts:
        return "none"
    return max(counts, key=lambda g: (counts[g], -_GRAIN_ORDER[g]))


# ---- entity ---------------------------------------------------------------------------

_LEGAL = (r"(?:Inc\.?|Incorporated|Corp\.?|Corporation|Ltd\.?|Limited|plc|PLC|LLC|L\.L\.C\."
          r"|L\.P\.|LP|S\.A\.(?:U\.)?|S\.L\.|SA|AG|GmbH|N\.V\.|NV|B\.V\.|SE|S\.p\.A\.|Co\.|Company"
          r"|Group|Holdings?|Bank)")
_NAME_WORD = r"[A-Z0-9][\w&'’.\-]*"
_LEGAL_RE = re.compile(
    rf"(?<![\w])((?:{_NAME_WORD}\s+){{0,5}}(?:{_NAME_WORD},?\s+)?{_LEGAL})(?![\w])")
_LEADING_RE = re.compile(
    rf"^((?:{_NAME_WORD}\s+){{0,4}}{_NAME_WORD})\s+(?:FY\s?'?\d{{2,4}}|(?:19|20)\d{{2}}|Q[1-4])\b")
_GENERIC = frozenset("""table schedule exhibit note consolidated condensed summary selected
annual quarterly interim financial statement statements results revenue revenues sales
income balance sheet cash flow flows total key figures data unaudited audited segment
reconciliation of the and for in fiscal year years""".split())


def find_entity(text: str | None) -> str | None:
    """Return the company a caption names, or None."""
    if not text:
        return None
    s = norm(text[:MAX_CUE_CHARS])
    for m in _LEGAL_RE.finditer(s):
        words = m.group(1).split()
        while words and words[0].lower().strip(",.") in _GENERIC:
            words = words[1:]
        if len(words) >= 2:
            return " ".join(words).rstrip(",")
    lead = _LEADING_RE.match(s)
    if lead:
        words = lead.group(1).split()
        while words and words[0].lower() in _GENERIC:
            words = words[1:]
        if words and not any(w.lower() in _GENERIC for w in words):
            return " ".join(words)
    return None
