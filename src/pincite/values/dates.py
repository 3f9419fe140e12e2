"""Dates, date-times and periods (`FY2024`, `2025-Q3`, `2024-H1`), and the date order."""

from __future__ import annotations

import re
from datetime import date

from .base import ScanContext, Value
from .durations import DUR_RE
from .words import NUMBER_WORDS, PCT_WORDS_RE, WORD_RUN, alternation

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

_MON = rf"(?:{alternation(MONTHS)})(?!\w)\.?"
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
DIGIT_LED_RE = re.compile(rf"""
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
# Values that open with a word, tried where `TRIGGER_RE` finds one of these words.
LETTER_LED_RE = re.compile(rf"""
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
|(?P<WU>(?P<w>{WORD_RUN})(?:(?:\s{{1,3}}|-)(?P<pct>{PCT_WORDS_RE})|(?:\s{{1,3}}|-)
   (?P<dur>{DUR_RE}(?:\s{{1,3}}(?P<dk2>(?:naturales|h[aá]biles|laborables)(?!\w)))?)))
""", re.X | re.I)
_TRIGGER_WORDS = (set(MONTHS) | NUMBER_WORDS | {
    "fy", "f.y.", "af", "fiscal", "financial", "ejercicio", "año", "ano", "primer", "primero",
    "segundo", "tercer", "tercero", "cuarto", "first", "second", "third", "fourth"}
    | {f"q{i}" for i in range(1, 5)} | {"h1", "h2"})
TRIGGER_RE = re.compile(rf"(?<![\w.])(?:{alternation(_TRIGGER_WORDS)})(?![^\W\d_])")
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


def date_value(c: ScanContext, m: re.Match[str]) -> Value | None:
    """Return the date (or date-time, with a time written next to it) `m` matched, or None."""
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


def period_value(c: ScanContext, m: re.Match[str]) -> Value | None:
    """Return the period (fiscal year, quarter, half, month) `m` matched, or None."""
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


def date_order_of(text: str, start: int = 0, end: int | None = None) -> str:
    """Return "mdy" when numeric dates in `text` are written month-first, else "dmy"."""
    dmy = mdy = 0
    for m in _NUMERIC_DATE_RE.finditer(text, start, len(text) if end is None else end):
        a, b = int(m.group(1)), int(m.group(3))
        dmy += a > 12 >= b
        mdy += b > 12 >= a
    return "mdy" if mdy > dmy else "dmy"
