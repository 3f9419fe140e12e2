"""Question phrasings from a file (`eval ask-cuad --questions FILE`, `eval ask-tatqa
--questions FILE`): every phrasing is asked, and each is counted on its own line.

The file is JSON: `{"<category or question kind>": ["phrasing", …], …}`. A phrasing may
carry its style before a bar — `"casual|who signed this?"` — so figures can be read per
style (formal, casual, noun, indirect, yesno, es …); without one its style is `""`.
The rows of `by_phrasing` keep the file's order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..limits import load_json
from .ask_scoring import Outcome, by_category, count, rates

MAX_PHRASINGS = 5000
MAX_PHRASING_CHARS = 2000
STYLE_SEPARATOR = "|"


@dataclass(frozen=True, slots=True)
class Phrasing:
    """One wording of a category's (or kind's) question, with its style tag."""

    category: str
    text: str
    style: str = ""


def load_phrasings(path: Path, known: Iterable[str] | None = None
                   ) -> dict[str, list[Phrasing]]:
    """Return the phrasings of the file by category, in its order; raise UsageError for a
    file that is not such an object, a category not in `known`, or a phrasing past its
    bound."""
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read the questions file {p.name}: {exc.strerror}") from None
    data = load_json(raw, f"the questions file {p.name}")
    if not isinstance(data, dict) or not data:
        raise UsageError(f"{p.name}: write an object of category -> list of phrasings")
    # categories are matched whatever their case (CUAD's own files spell some two ways)
    allowed = {k.casefold(): k for k in known} if known is not None else None
    out: dict[str, list[Phrasing]] = {}
    total = 0
    for category, texts in data.items():
        if allowed is not None:
            if category.casefold() not in allowed:
                raise UsageError(f"{p.name}: unknown category {category[:80]!r}: use one of "
                                 f"{', '.join(sorted(allowed.values()))[:400]}")
            category = allowed[category.casefold()]
        if not isinstance(texts, list) or not all(isinstance(t, str) and t.strip()
                                                  for t in texts):
            raise UsageError(f"{p.name}: {category[:80]!r} must list phrasings (strings)")
        for t in texts:
            if len(t) > MAX_PHRASING_CHARS:
                raise UsageError(f"{p.name}: a phrasing of {category[:80]!r} is over "
                                 f"{MAX_PHRASING_CHARS} characters")
        total += len(texts)
        if total > MAX_PHRASINGS:
            raise UsageError(f"{p.name}: more than {MAX_PHRASINGS} phrasings; split the file")
        out[category] = [_phrasing(category, t) for t in texts]
    return out


def _phrasing(category: str, text: str) -> Phrasing:
    style, sep, rest = text.partition(STYLE_SEPARATOR)
    if sep and rest.strip() and style.strip() and " " not in style.strip():
        return Phrasing(category, rest.strip(), style.strip())
    return Phrasing(category, text.strip())


def phrasing_tables(rows: Sequence[tuple[Phrasing, Outcome]],
                    order: Mapping[str, Sequence[Phrasing]]) -> dict[str, Any]:
    """Return `by_phrasing` (one row per phrasing, the file's order) and `by_style` (counts
    and rates per style) of the (phrasing, outcome) rows."""
    per: dict[Phrasing, list[Outcome]] = {}
    for ph, o in rows:
        per.setdefault(ph, []).append(o)
    by_phrasing = []
    for phrasings in order.values():
        for ph in phrasings:
            c = count(per.get(ph, ()))
            by_phrasing.append({"category": ph.category, "phrasing": ph.text, "style": ph.style,
                                "answerable": c["answerable"], "unanswerable": c["unanswerable"],
                                "answered_right": c["answered_right"],
                                "answered_wrong": c["answered_wrong"],
                                "abstained_right": c["abstained_right"]})
    by_style = by_category((ph.style, o) for ph, o in rows)
    return {"by_phrasing": by_phrasing, "by_style": by_style,
            "phrasings": sum(len(v) for v in order.values())}


def pooled(rows: Sequence[tuple[Phrasing, Outcome]]) -> dict[str, Any]:
    """Return the counts and rates of every (phrasing, outcome) row together."""
    return rates(count(o for _ph, o in rows))
