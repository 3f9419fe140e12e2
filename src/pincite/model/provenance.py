"""The parts of a provenance entry added for strict citing: where else a quote occurs, how
`cite` found it, its boxes, and the comparison form it was made in — as records and as
the JSON of `Citation.to_dict` read back (every value checked: this is user input).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidCitation
from ..limits import ROW_ID_MAX, check_number
from ..vocab import CiteNote, ComparisonForm

_Box = tuple[float, float, float, float]  # model.Box

MAX_OCCURRENCES = 1000   # occurrences an entry may list
PAGE_MAX = 10**6


@dataclass(frozen=True, slots=True)
class Occurrence:
    """One place a quote occurs: its span, locator and (when known) page."""

    char_start: int
    char_end: int
    locator: str
    page: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """Return the occurrence as a JSON object."""
        return {"char_start": self.char_start, "char_end": self.char_end,
                "locator": self.locator, "page": self.page}


def read_comparison(d: dict[str, Any]) -> str:
    """Return the entry's comparison form: `cmp-1` when it names none (it was made before
    the field existed); raise InvalidCitation for a form this pincite does not know."""
    value = d.get("comparison", ComparisonForm.CMP_1)
    if value not in tuple(ComparisonForm):
        raise InvalidCitation(
            f"comparison form {str(value)[:20]!r} is unknown to this pincite; an entry says "
            f"one of {', '.join(ComparisonForm)}, or none for one made before cmp-2")
    return ComparisonForm(value).value


def read_notes(d: dict[str, Any]) -> tuple[str, ...]:
    """Return the `CiteNote`s an entry carries as `true` flags (`"extended": true`)."""
    out = []
    for note in CiteNote:
        value = d.get(note.value, False)
        if not isinstance(value, bool):
            raise InvalidCitation(f"{note.value} must be true or false")
        if value:
            out.append(note.value)
    return tuple(out)


def read_box(what: str, v: Any) -> _Box:
    """Return a JSON box `[x0, top, x1, bottom]` of four finite numbers."""
    if not (isinstance(v, list) and len(v) == 4):
        raise InvalidCitation(f"{what} must be a list of four numbers [x0, top, x1, bottom]")
    x0, top, x1, bottom = (float(check_number(what, x, -1e9, 1e9, error=InvalidCitation))
                           for x in v)
    return x0, top, x1, bottom


def read_boxes(d: dict[str, Any]) -> tuple[tuple[int, _Box], ...]:
    """Return an entry's per-page `boxes` (`[{"page": P, "bbox": [...]}, …]`), or ()."""
    raw = d.get("boxes")
    if raw is None:
        return ()
    if not isinstance(raw, list) or len(raw) > PAGE_MAX or not all(
            isinstance(b, dict) and set(b) == {"page", "bbox"} for b in raw):
        raise InvalidCitation('boxes must be a list of {"page": P, "bbox": [x0, top, x1, bottom]}')
    return tuple((check_number("page", b["page"], 1, PAGE_MAX, integer=True, error=InvalidCitation),
                  read_box("bbox", b["bbox"])) for b in raw)


def read_occurrences(d: dict[str, Any]) -> tuple[int | None, tuple[Occurrence, ...], int]:
    """Return (occurrence, occurrences, occurrence_count) of an entry (None, (), 0 if none)."""
    raw = d.get("occurrences")
    if raw is None:
        return None, (), 0
    if not isinstance(raw, list) or not 0 < len(raw) <= MAX_OCCURRENCES:
        raise InvalidCitation(f"occurrences must be a list of 1 to {MAX_OCCURRENCES} objects")
    occ = []
    for o in raw:
        if not isinstance(o, dict) or not isinstance(o.get("locator"), str):
            raise InvalidCitation("an occurrence is {char_start, char_end, locator, page}")
        s, e = (check_number(k, o.get(k), 0, ROW_ID_MAX, integer=True, error=InvalidCitation)
                for k in ("char_start", "char_end"))
        page = o.get("page")
        if page is not None:
            check_number("page", page, 1, PAGE_MAX, integer=True, error=InvalidCitation)
        occ.append(Occurrence(s, e, o["locator"][:500], page))
    count = check_number("occurrence_count", d.get("occurrence_count", len(occ)), len(occ),
                         ROW_ID_MAX, integer=True, error=InvalidCitation)
    chosen = check_number("occurrence", d.get("occurrence"), 1, count, integer=True,
                          error=InvalidCitation)
    return chosen, tuple(occ), count


def provenance_entries(obj: Any) -> Iterator[Any]:
    """Yield every provenance entry inside a JSON value (what `verify` reads): an object
    with `doc_id` and `quote`, or the items of a `provenance` list, at any depth."""
    if isinstance(obj, list):
        for x in obj:
            yield from provenance_entries(x)
    elif isinstance(obj, dict):
        if "doc_id" in obj and "quote" in obj:
            yield obj
            return
        for k, v in obj.items():
            if k == "provenance" and isinstance(v, list):
                yield from v
            elif isinstance(v, dict | list):
                yield from provenance_entries(v)
