"""`eval fill`'s targets in the product's own vocabulary: row labels of a synonym class
take another member of it (`fill.labels.SYNONYMS`: `Total sales` → `Net revenue`), others
change case and `and`/`&`; years are read by `fill.labels.period_of` and respelled
(`FY2019`, `2019A`, `Fiscal 2019`, `FY19`, `Ejercicio 2019`); scale and currency by
`parse.tables.cues`. This is how the eval built its targets before the independent label
file (issue 26 item 6): it measures the product against its own words, so its figure is an
upper bound, kept to show that a change for other words costs nothing here.
Use: `run_fill_eval(..., words=product_words())` (`scripts/eval_fill_product.py`).
"""

from __future__ import annotations

import hashlib
import re

from ..fill.labels import SYNONYMS, label_class, period_of
from ..parse.tables.cues import find_scale, find_unit
from .fill_relabel import TargetWords

PERIOD_STYLES = ("FY{y}", "{y}A", "Fiscal {y}", "FY{yy}", "Ejercicio {y}", "{y}")


def _h(text: str) -> int:
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:4], "big")


def respell_label(label: str, seed: str) -> str:
    """Return a label spelled otherwise: another synonym of its class, else case and '&'."""
    base = re.sub(r"[:\s]+$", "", label)
    cls = label_class(base)
    if cls is not None:
        names = [n for n in SYNONYMS[cls] if n.casefold() != base.casefold()]
        if names:
            pick = names[_h(seed) % len(names)]
            return pick[0].upper() + pick[1:]
    t = base.replace(" and ", " & ") if " and " in base else base.replace(" & ", " and ")
    return t.upper() if _h(seed + "u") % 3 == 0 else (t.lower() if t != base else t.title())


def respell_period(text: str, seed: str) -> str:
    """Return a header naming one year spelled in another style; others unchanged."""
    p = period_of([text])
    if p.year is None or p.grain is not None:
        return text
    style = PERIOD_STYLES[_h(seed) % len(PERIOD_STYLES)]
    return style.format(y=p.year, yy=str(p.year)[2:])


def _title(scale: str, text: str, seed: str) -> str:
    unit = find_unit(text)
    return f"{unit if unit not in (None, '%') else 'USD'} {scale}"


def product_words() -> TargetWords:
    """Return the product's own vocabulary as `eval fill` target words."""
    return TargetWords(
        name="product", has_year=lambda x: period_of([x]).year is not None,
        scale_of=find_scale, names_unit=lambda x: bool(find_unit(x)), title=_title,
        period=respell_period, label=respell_label,
        kind=lambda x: "synonym" if label_class(re.sub(r"[:\s]+$", "", x)) else "case_only",
        path="pincite.fill.labels")
