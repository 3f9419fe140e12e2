"""Currencies: symbols, ISO 4217 codes and words, and the code each names."""

from __future__ import annotations

_CUR_SYMBOL = {"€": "EUR", "$": "USD", "US$": "USD", "U.S.$": "USD", "£": "GBP", "¥": "JPY",
               "C$": "CAD", "A$": "AUD", "R$": "BRL", "MX$": "MXN"}
_CUR_CODES = ("EUR", "USD", "GBP", "CHF", "JPY", "CAD", "AUD", "MXN", "CNY", "BRL", "ARS",
              "CLP", "COP", "PEN", "SEK", "NOK", "DKK")
CUR_SYM_RE = r"(?:U\.S\.\s?\$|US\$|MX\$|[CAR]\$|\$|€|£|¥)"
CUR_CODE_RE = rf"(?<![A-Za-z])(?:{'|'.join(_CUR_CODES)})(?![A-Za-z])"
CUR_WORDS_RE = (r"(?i:euros?|d[oó]lares(?:\s{1,3}(?:estadounidenses|americanos))?|d[oó]lar"
                r"|(?:U\.?S\.?\s{1,3}|US\s{1,3})?dollars?|pounds\s{1,3}sterling"
                r"|libras\s{1,3}esterlinas|francos\s{1,3}suizos|swiss\s{1,3}francs)(?!\w)")


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
