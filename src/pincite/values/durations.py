"""Durations: unit words, day kinds and the ISO 8601 form (`P10Y`, `PT24H`)."""

from __future__ import annotations

import re
from decimal import Decimal

from .base import canonical

DUR_RE = (r"(?i:(?P<du>(?P<dk>business|calendar|working|banking|trading|natural)\s{1,3}days?|years?"
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


def dur_unit(m: re.Match[str]) -> tuple[str, str | None]:
    """Return (unit name, day kind) of a duration unit matched by `DUR_RE`."""
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


def iso_duration(amount: Decimal, unit: str) -> str:
    """Return the ISO 8601 duration of `amount` `unit`s (`P10Y`, `PT24H`)."""
    d = _DUR_DESIGNATOR[unit]
    return f"PT{canonical(amount)}{d[1]}" if d.startswith("T") else f"P{canonical(amount)}{d}"
