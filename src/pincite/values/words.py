"""Number words (English and Spanish), percent words and the word helpers patterns share."""

from __future__ import annotations

import re
from typing import Any


def alternation(words: Any) -> str:
    """Return a regex alternation of `words`, longest first, each escaped."""
    return "|".join(sorted((re.escape(w) for w in words), key=len, reverse=True))


def last_word(text: str, lo: int, end: int, width: int = 40) -> str:
    """Return the lowercased last whitespace-separated token before `end` (cheap)."""
    w = text[max(lo, end - width):end].rstrip()
    return w.rsplit(None, 1)[-1].lstrip("([\"'“«").lower() if w else ""


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
NUMBER_WORDS = set(_SMALL) | set(_MULT)
_NW = rf"(?:{alternation(NUMBER_WORDS)})(?!\w)"
WORD_RUN = rf"(?<!\w){_NW}(?:(?:\s{{1,3}}|-)(?:(?:y|and)\s{{1,3}})?{_NW}){{0,10}}"
# "5 por 100" is the Spanish legal way to write 5 % (never "por 1000", a rate per mille)
PCT_WORDS_RE = (r"(?:(?i:por\s{1,3}ciento|por\s{1,3}cien|percent|per\s{1,3}cent|pct)(?!\w)"
                r"|(?i:por\s{1,3}100)(?![\d.,]?\d))")


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
