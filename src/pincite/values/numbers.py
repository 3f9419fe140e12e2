"""Written numbers: digit tokens, thousands and decimal separators, and scale words."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

SCALE_WORDS = (
    ("mil millones", 10**9, "billions"), ("millardo", 10**9, "billions"),
    ("billón", 10**12, "trillions"), ("billon", 10**12, "trillions"),
    ("billones", 10**12, "trillions"), ("trillion", 10**12, "trillions"),
    ("billion", 10**9, "billions"), ("million", 10**6, "millions"),
    ("millón", 10**6, "millions"), ("millon", 10**6, "millions"),
    ("millones", 10**6, "millions"), ("mill.", 10**6, "millions"),
    ("thousand", 10**3, "thousands"), ("mil", 10**3, "thousands"),
)
# scale abbreviations, read only right after a currency (`$1.2m`)
ABBR_SCALE = {"k": (10**3, "thousands"), "K": (10**3, "thousands"), "m": (10**6, "millions"),
              "M": (10**6, "millions"), "MM": (10**6, "millions"), "mn": (10**6, "millions"),
              "bn": (10**9, "billions"), "B": (10**9, "billions"), "b": (10**9, "billions")}

NUM_RE = re.compile(r"""
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
    m = NUM_RE.fullmatch(token.strip())
    if not m or m.group("abbr"):
        return None
    d, _ = to_decimal(m.group("num"), lang)
    return -d if m.group("sign") in ("-", "\u2212") else d


def to_decimal(raw: str, lang: str | None) -> tuple[Decimal, tuple[str, ...]]:
    """Return the value of the digits `raw` and its flags (`ambiguous_separator`)."""
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
