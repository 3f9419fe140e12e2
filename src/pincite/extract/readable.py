"""How a record reads to a person: the form of a typed value and the outcome's badge word
that the dictamen (`report.html`, `report.docx`) and the `value` column of
`records.xlsx`/`records.csv` show, and text made safe for their XML."""

from __future__ import annotations

import re
from typing import Any

from ..vocab import Outcome

# the badge of each outcome, and what it tells the reader (its tooltip)
BADGES = {Outcome.SHOW: "show", Outcome.FLAG: "flagged", Outcome.REVIEW: "review",
          Outcome.ABSTAIN: "not stated"}
BADGE_TITLES = {
    Outcome.SHOW: "shown as stated: the citation verified and the confidence cleared the bar",
    Outcome.FLAG: "shown with a flag: a person should check it against the document",
    Outcome.REVIEW: "waiting for a person's review: the value is a candidate, not a fact",
    Outcome.ABSTAIN: "the documents do not state this field",
}
NOT_STATED = "not stated in the document"
CANDIDATE = "candidate, not shown as fact"
# what XML 1.0 cannot hold: control characters but tab, LF and CR; U+FFFE, U+FFFF;
# surrogates (a lone one can come from JSON)
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_safe(text: str) -> str:
    """Return `text` with each character XML cannot hold replaced by U+FFFD."""
    return _XML_ILLEGAL.sub("\ufffd", text)


def format_value(value: Any) -> str:
    """Return a typed value as a short human-readable string."""
    if value is None:
        return ""
    if isinstance(value, dict):
        if set(value) == {"required"} and value["required"] is False:
            return "not required (stated)"
        if "amount" in value:
            amount = value["amount"]
            s = f"{amount:,.2f}" if isinstance(amount, float) else f"{amount:,}"
            out = f"{s} {value.get('currency', '')}".strip()
            if value.get("vat"):
                out += f" · VAT {value['vat']}"
            if value.get("basis"):
                out += f" · basis {value['basis']}"
            return out
        if "percent" in value:
            return f"{value['percent']} %"
        if "unit" in value and "value" in value:
            return f"{value['value']} {value['unit']}"
        if "date" in value:
            return " ".join(str(value[k]) for k in ("date", "time", "tz") if value.get(k))
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
