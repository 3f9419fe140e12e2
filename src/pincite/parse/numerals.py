"""List numbers as documents show them: letters (`a` … `z`, `aa` …) and roman numerals."""

from __future__ import annotations

_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"),
          (50, "l"), (40, "xl"), (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def letters(n: int) -> str:
    """Return `n` as a lower-case letter label (Word and browsers repeat the letter:
    a … z, aa … zz); `n` in digits when it is not positive."""
    if n <= 0:
        return str(n)
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1)


def roman(n: int) -> str:
    """Return `n` as a lower-case roman numeral; `n` in digits outside 1 … 3999."""
    if not 0 < n < 4000:
        return str(n)
    out = []
    for value, sym in _ROMAN:
        while n >= value:
            out.append(sym)
            n -= value
    return "".join(out)
