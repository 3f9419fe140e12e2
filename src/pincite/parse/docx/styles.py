"""DOCX styles and automatic numbering, read from `styles.xml` and `numbering.xml`.

- `Styles` follows a style's `basedOn` chain: its heading level (`Heading N`, `Title`,
  an outline level), whether it is a list style, the numbering it applies and whether
  it hides its text (`w:vanish`).
- `Numbering` renders list labels as Word shows them (`12.1`, `(a)`, `iv.`), counting
  per abstract list, honouring start overrides, `isLgl` and the number formats.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..numerals import letters, roman
from .xml_parts import is_on, to_int, val, w


@dataclass
class Style:
    """One `w:style`: what the DOCX reader needs of it."""

    name: str
    based_on: str | None
    outline: int | None
    num_id: str | None
    ilvl: int | None
    vanish: bool | None


@dataclass
class Styles:
    """The styles of a document by id, and its default paragraph style."""

    by_id: dict[str, Style] = field(default_factory=dict)
    default_para: str | None = None

    def chain(self, style_id: str | None) -> Iterator[Style]:
        seen: set[str] = set()
        sid = style_id or self.default_para
        while sid and sid not in seen and len(seen) < 50:
            seen.add(sid)
            st = self.by_id.get(sid)
            if st is None:
                return
            yield st
            sid = st.based_on

    def heading_level(self, style_id: str | None) -> int | None:
        for st in self.chain(style_id):
            name = st.name.lower()
            m = re.fullmatch(r"heading\s*([1-9])", name)
            if m:
                return int(m.group(1))
            if name == "title":
                return 1
            if st.outline is not None and 0 <= st.outline < 9:
                return st.outline + 1
        return None

    def is_list(self, style_id: str | None) -> bool:
        return any(st.name.lower().startswith("list") and st.name.lower() != "list paragraph"
                   for st in self.chain(style_id))

    def numbering(self, style_id: str | None) -> tuple[str | None, int | None]:
        for st in self.chain(style_id):
            if st.num_id is not None:
                return st.num_id, st.ilvl
        return None, None

    def is_caption(self, style_id: str | None) -> bool:
        return any(st.name.lower() in ("caption", "table caption") for st in self.chain(style_id))

    def vanish(self, style_id: str | None) -> bool:
        for st in self.chain(style_id):
            if st.vanish is not None:
                return st.vanish
        return False


def read_styles(root: object) -> Styles:
    """Return the styles in a `w:styles` element (none when `root` is None)."""
    styles = Styles()
    if root is None:
        return styles
    for st in root.iterchildren(w("style")):  # type: ignore[attr-defined]
        sid = st.get(w("styleId"))
        if not sid:
            continue
        name = val(st.find(w("name")), sid) or sid
        ppr = st.find(w("pPr"))
        rpr = st.find(w("rPr"))
        outline = num_id = ilvl = None
        if ppr is not None:
            o = val(ppr.find(w("outlineLvl")))
            outline = int(o) if o and o.isdigit() else None
            numpr = ppr.find(w("numPr"))
            if numpr is not None:
                num_id = val(numpr.find(w("numId")))
                lv = val(numpr.find(w("ilvl")))
                ilvl = int(lv) if lv and lv.isdigit() else None
        vanish = None
        if rpr is not None and rpr.find(w("vanish")) is not None:
            vanish = is_on(rpr.find(w("vanish")))
        styles.by_id[sid] = Style(name, val(st.find(w("basedOn"))), outline, num_id, ilvl, vanish)
        if st.get(w("type")) == "paragraph" and st.get(w("default")) in ("1", "true", "on"):
            styles.default_para = sid
    return styles


@dataclass
class Level:
    """One level of an abstract list: start value, number format and label text."""

    start: int = 1
    fmt: str = "decimal"
    text: str = "%1."
    is_lgl: bool = False


@dataclass
class Numbering:
    """The lists of a document and their running counters."""

    abstract: dict[str, dict[int, Level]] = field(default_factory=dict)
    nums: dict[str, tuple[str, dict[int, int]]] = field(default_factory=dict)  # numId → (abstractId, startOverrides)
    counters: dict[str, dict[int, int]] = field(default_factory=dict)
    started: set[str] = field(default_factory=set)

    def label(self, num_id: str, ilvl: int) -> tuple[str, bool]:
        """Advance the list and return (label text, is a list at all)."""
        if num_id == "0" or num_id not in self.nums:
            return "", False
        abs_id, overrides = self.nums[num_id]
        levels = self.abstract.get(abs_id, {})
        ilvl = max(0, min(ilvl, 8))
        counters = self.counters.setdefault(abs_id, {})
        if num_id not in self.started:
            self.started.add(num_id)
            for lv, start in overrides.items():
                counters[lv] = start - 1
                for deeper in [k for k in counters if k > lv]:
                    del counters[deeper]
        level = levels.get(ilvl, Level())
        counters[ilvl] = counters.get(ilvl, level.start - 1) + 1
        for deeper in [k for k in counters if k > ilvl]:
            del counters[deeper]
        if level.fmt in ("bullet", "none"):
            return "", True

        def render(m: re.Match[str]) -> str:
            k = int(m.group(1)) - 1
            lv = levels.get(k, Level())
            n = counters.get(k, lv.start)
            fmt = "decimal" if level.is_lgl else lv.fmt
            return format_number(n, fmt)

        return re.sub(r"%([1-9])", render, level.text).strip(), True


def format_number(n: int, fmt: str) -> str:
    """Return `n` in a `w:numFmt` format (decimal for the ones not handled)."""
    if fmt in ("lowerLetter", "upperLetter"):
        s = letters(n)
        return s.upper() if fmt == "upperLetter" else s
    if fmt in ("lowerRoman", "upperRoman"):
        s = roman(n)
        return s.upper() if fmt == "upperRoman" else s
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def read_numbering(root: object) -> Numbering:
    """Return the lists in a `w:numbering` element (none when `root` is None)."""
    num = Numbering()
    if root is None:
        return num
    for a in root.iterchildren(w("abstractNum")):  # type: ignore[attr-defined]
        levels: dict[int, Level] = {}
        for lvl in a.iterchildren(w("lvl")):
            ilvl = to_int(lvl.get(w("ilvl")), 0)
            levels[ilvl] = Level(
                start=to_int(val(lvl.find(w("start"))), 1),
                fmt=val(lvl.find(w("numFmt")), "decimal") or "decimal",
                text=val(lvl.find(w("lvlText")), "") or "",
                is_lgl=is_on(lvl.find(w("isLgl"))),
            )
        num.abstract[a.get(w("abstractNumId"), "")] = levels
    for n in root.iterchildren(w("num")):  # type: ignore[attr-defined]
        overrides: dict[int, int] = {}
        for o in n.iterchildren(w("lvlOverride")):
            so = o.find(w("startOverride"))
            if so is not None:
                overrides[to_int(o.get(w("ilvl")), 0)] = to_int(val(so), 1)
        num.nums[n.get(w("numId"), "")] = (val(n.find(w("abstractNumId")), "") or "", overrides)
    return num
