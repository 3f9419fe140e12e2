"""How a typed value reads to a person: the form the dictamen (`report.html`) and the
`value` column of `records.xlsx`/`records.csv` show."""

from __future__ import annotations

from typing import Any


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
