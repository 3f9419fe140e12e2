"""A fact's value in the target's unit and scale, and the conversion that got it there.

`normalized_value` of a number or money fact is in units (the source table's scale
applied); of a percent, the percentage itself. The conversion is one of:

- `none`            a percent, or a target and source in the same scale
- `percent_to_fraction`  a percent written into a cell formatted as a percentage (Excel
                    holds 4% as 0.04): divided by 100
- `rescale`         the normalised value divided by the target's scale (`factor`)
- `as_source`       the target names no scale: the number as the source prints it
- `scale_unstated`  the target names a scale the source does not: the printed number,
                    kept, and ranked lower (`rank`)

`apply(conversion, normalized_value)` recomputes the written value from a cited fact;
`validate_write` uses it, so a write cannot claim a conversion it did not apply.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ..values import SCALES, canonical


def _dec(x: Any) -> Decimal | None:
    try:
        d = Decimal(str(x))
    except (InvalidOperation, ValueError):
        return None
    return d if d.is_finite() else None


def conversion_for(fact: Mapping[str, Any], target_scale: str | None,
                   target_unit: str | None, number_format: str = "") -> dict[str, Any]:
    """Return the conversion that takes a fact to the target cell's unit and scale."""
    src = fact.get("scale")
    if fact["value_type"] == "percent" or target_unit == "%":
        if "%" in number_format and fact["value_type"] == "percent":
            return {"kind": "percent_to_fraction", "factor": "100"}
        return {"kind": "none"}
    if target_scale is None:
        return {"kind": "as_source", "from": src, "factor": str(SCALES.get(src or "units", 1))}
    if src is None:
        return {"kind": "scale_unstated", "to": target_scale, "factor": "1"}
    if src == target_scale:
        return {"kind": "none", "factor": str(SCALES.get(src, 1))}
    return {"kind": "rescale", "from": src, "to": target_scale,
            "factor": str(SCALES.get(target_scale, 1))}


def apply(conv: Mapping[str, Any], normalized_value: Any) -> Decimal | None:
    """Return the value a conversion gives for a normalised value (None if not a number)."""
    v = _dec(normalized_value)
    if v is None:
        return None
    factor = _dec(conv.get("factor", "1")) or Decimal(1)
    if conv["kind"] == "none" and "factor" not in conv:
        return v
    return v / factor


def convert(fact: Mapping[str, Any], cell: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """Return (value as a canonical decimal string, conversion) of a fact for a target
    cell (its `scale`, `unit`, `number_format`)."""
    conv = conversion_for(fact, cell.get("scale"), cell.get("unit"),
                          str(cell.get("number_format") or ""))
    v = apply(conv, fact["normalized_value"])
    return (canonical(v) if v is not None else "nan"), conv
