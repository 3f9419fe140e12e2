"""The records a scan returns (`Value`, `Qualifier`) and the window it scans."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
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


@dataclass(slots=True)
class ScanContext:
    """The text being scanned, the window `[lo, hi)` and the caller's hints."""

    text: str
    lo: int
    hi: int
    lang: str | None
    date_order: str | None
