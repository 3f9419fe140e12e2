"""A number with what surrounds it: sign, currency, scale, percent, unit, parentheses.

`number_value` reads one number match into a `Value` of type number, money, percent,
duration or (a bare year) period; a number echoing the words before it, `ten (10)`,
takes in those words.
"""

from __future__ import annotations

import re
from decimal import Decimal

from .base import ScanContext, Value, canonical
from .durations import DUR_RE, dur_unit, iso_duration
from .money import CUR_CODE_RE, CUR_SYM_RE, CUR_WORDS_RE, currency_code
from .numbers import ABBR_SCALE, SCALE_WORDS, to_decimal
from .references import is_reference
from .words import NUMBER_WORDS, PCT_WORDS_RE, WORD_RUN, last_word, parse_number_words

_PREFIX_RE = re.compile(
    rf"(?:(?P<cur>{CUR_SYM_RE}|{CUR_CODE_RE})\s{{0,2}}(?P<sign>[-\u2212])?|"
    rf"(?P<sign2>[-\u2212])\s?(?P<cur2>{CUR_SYM_RE}))(?P<paren>\(\s?)?\Z")
_SUFFIX_RE = re.compile(rf"""
(?P<scale>\s{{0,2}}(?:(?i:mil\s{{1,3}}millones|millones|mill[oó]n|millions?|billions?|billones|bill[oó]n
   |millardos?|thousands?|trillions?|mil)(?!\w)|(?i:mill)\.))?
(?:
   (?P<pct>\s?%|\s{{1,3}}{PCT_WORDS_RE}\.?)
 | (?P<pp>\s{{1,3}}(?i:puntos\s{{1,3}}porcentuales|percentage\s{{1,3}}points?)(?!\w))
 | (?P<cur>\s{{0,3}}(?P<de>(?i:de)\s{{1,3}})?(?P<curt>{CUR_SYM_RE}|{CUR_CODE_RE})
     |\s{{1,3}}(?P<de2>(?i:de)\s{{1,3}})?(?P<curw>{CUR_WORDS_RE}))
 | (?P<dur>(?:\s{{1,3}}|-){DUR_RE}(?:\s{{1,3}}(?P<dk2>(?i:naturales|natural|h[aá]biles|h[aá]bil
     |laborables|laborable|de\s{{1,3}}calendario)(?!\w)))?)
 | (?P<unit>\ ?(?:puntos|points|pts|km|m²|m2|m³|m3|kg|kWh|MWh|GWh|kW|MW|GW|toneladas|tonnes
     |tons|hect[aá]reas|hectares|litros|litres|liters|acciones|shares)(?!\w))
)?
""", re.X)
_ECHO_RE = re.compile(
    rf"(?P<w>{WORD_RUN})(?:\s{{1,3}}(?P<u>{CUR_WORDS_RE}|{PCT_WORDS_RE}))?\s{{0,3}}\Z",
    re.I)
_ECHO_LAST = NUMBER_WORDS | frozenset(
    "euro euros dollar dollars dólar dolar dólares dolares sterling esterlinas suizos francs "
    "estadounidenses americanos percent ciento cien cent pct".split())


def _words_ending_at(text: str, lo: int, hi: int, value: Decimal) -> int | None:
    """Return where number words equal to `value` start when they end at `hi` (or None)."""
    if last_word(text, lo, hi).rsplit("-", 1)[-1] not in _ECHO_LAST:
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


_AT_TIME_RE = re.compile(r"(?<!\w)(?:a\s{1,3}las?|at|las)\s{1,3}\Z", re.I)
_CLOSE_RE = re.compile(r"\s?\)")


def number_value(c: ScanContext, m: re.Match[str]) -> Value | None:
    """Return the value a `NUM_RE` match reads as with its context, or None to skip it."""
    text = c.text
    s = m.start()
    raw, sign, abbr = m.group("num"), m.group("sign"), m.group("abbr")
    if not sign and is_reference(text, c.lo, s):
        return None
    amount, flags = to_decimal(raw, c.lang)
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
        mult, scale = ABBR_SCALE[abbr]
        end = m.end()
    sm = _SUFFIX_RE.match(text, end, min(c.hi, end + 60))
    if sm and sm.end() > end:
        if sm.group("scale") and not abbr:
            word = " ".join(sm.group("scale").split()).lower()
            for w, f, name in SCALE_WORDS:
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
            unit, detail = dur_unit(sm)
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
                            unit, detail = dur_unit(sm2)
                        elif sm2.group("unit"):
                            unit, end = sm2.group("unit").strip(), sm2.end()
            elif (vt in ("number", "money") and not sign
                  and (m.group("g") or currency) and amount > 0):
                amount = -amount
                flags += ("parenthesised_negative",)
                start, end = before, close_m.end()
    value = amount * mult
    if vt == "duration":
        norm = iso_duration(amount, unit or "days")
    elif vt == "percent":
        norm = canonical(amount)
    else:
        norm = canonical(value)
        if (vt == "number" and not sign and unit is None and scale is None and raw.isdigit()
                and len(raw) == 4 and 1900 <= int(raw) <= 2099 and start == s):
            vt = "period"
    return Value(vt, start, end, text[start:end], norm, value if vt in ("number", "money") else
                 amount if vt == "percent" else None, unit, currency, scale, detail, (), flags)
