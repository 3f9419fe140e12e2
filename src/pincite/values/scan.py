"""The scanner: `find_values` over running text, `parse_value` over a table cell."""

from __future__ import annotations

import re
from dataclasses import replace
from decimal import Decimal

from .amounts import number_value
from .base import ScanContext, Value, canonical
from .dates import DIGIT_LED_RE, LETTER_LED_RE, TRIGGER_RE, date_value, period_value
from .durations import dur_unit, iso_duration
from .numbers import NUM_RE
from .qualifiers import qualify
from .words import parse_number_words

_DIGITS_RE = re.compile(r"(?<![\w.,/:])[0-9]")


def _led_value(c: ScanContext, m: re.Match[str]) -> Value | None:
    gd = m.groupdict()
    if gd.get("WU"):
        return _words_value(c, m)
    if gd.get("A") or gd.get("C") or gd.get("N") or gd.get("I"):
        return date_value(c, m)
    return period_value(c, m)


def _words_value(c: ScanContext, m: re.Match[str]) -> Value | None:
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
    unit, detail = dur_unit(m)
    return Value("duration", start, m.end(), c.text[start:m.end()], iso_duration(amount, unit),
                 None, unit, detail=detail)


def find_values(text: str, start: int = 0, end: int | None = None, *, lang: str | None = None,
                date_order: str | None = None) -> list[Value]:
    """Return the typed values in `text[start:end]`, in order, without overlaps.

    Spans are offsets into `text`. `lang` ("en", "es" or None) decides only ambiguous
    separators; `date_order` ("dmy" or "mdy") only ambiguous numeric dates.
    """
    hi = len(text) if end is None else min(end, len(text))
    lo = max(0, start)
    c = ScanContext(text, lo, hi, lang, date_order)
    cands: list[Value] = []
    for m in _DIGITS_RE.finditer(text, lo, hi):
        p = m.start()
        dm = DIGIT_LED_RE.match(text, p, hi)
        if dm:
            v = _led_value(c, dm)
            if v:
                cands.append(v)
        q = p - 1 if p > lo and text[p - 1] in "-\u2212+" else p
        nm = NUM_RE.match(text, q, hi) or (NUM_RE.match(text, p, hi) if q != p else None)
        if nm:
            v = number_value(c, nm)
            if v:
                cands.append(v)
    low = text[lo:hi].lower()
    if len(low) != hi - lo:  # a few characters lowercase to two: keep those as they are
        low = "".join(ch if len(ch.lower()) != 1 else ch.lower() for ch in text[lo:hi])
    skip = lo
    for m in TRIGGER_RE.finditer(low):
        p = lo + m.start()
        if p < skip:
            continue
        lm = LETTER_LED_RE.match(text, p, hi)
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
            out.append(qualify(c, v, last))
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
