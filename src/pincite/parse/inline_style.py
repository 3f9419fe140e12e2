"""What an element's inline CSS (and its old presentational attributes) tells the HTML parser:
whether a reader sees its text, and how far a table label is indented.

Hidden from a reader (`parse.stylesheet` applies the same test to `<style>` rules):
`display:none`, `visibility:hidden|collapse`, `font-size:0`,
`opacity:0`, tiny text (a `font-size` under 2px / 1.5pt / 0.15em / 15%), transparent text,
and white text (`color` or `<font color>`) where neither the element nor an ancestor paints
a background other than white (`bgcolor`, `background`, `background-color`).
"""

from __future__ import annotations

import re

import lxml.etree

_HIDDEN_STYLE_RE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse)"
    r"|font-size\s*:\s*0(?:\.0*)?(?![.\d])|opacity\s*:\s*0(?:\.0*)?(?![.\d])",
    re.I,
)
_FONT_SIZE_RE = re.compile(r"(?<![-\w])font-size\s*:\s*([\d.]+)\s*(px|pt|em|rem|%)?", re.I)
_TINY = {"px": 2.0, "pt": 1.5, "em": 0.15, "rem": 0.15, "%": 15.0, "": 2.0}
_WHITE = r"(?:#fff(?:f)?|#ffffff(?:ff)?|white|rgba?\(\s*255\s*,\s*255\s*,\s*255\s*(?:,\s*1(?:\.0*)?\s*)?\))"
_WHITE_TEXT_RE = re.compile(r"(?<![-\w])color\s*:\s*" + _WHITE + r"\s*(?:;|!|$)", re.I)
_CLEAR_TEXT_RE = re.compile(r"(?<![-\w])color\s*:\s*(?:transparent|rgba\([^)]*,\s*0(?:\.0*)?\s*\))", re.I)
_BACKGROUND_RE = re.compile(r"(?<![-\w])background(?:-color)?\s*:\s*([^;]+)", re.I)
_UNPAINTED_RE = re.compile(r"\s*(?:" + _WHITE + r"|transparent|none|inherit|initial|unset)\s*"
                           r"(?:!important)?\s*$", re.I)


def paints(el: lxml.etree._Element) -> bool:
    """Return True when `el` paints a background other than white (so white text shows)."""
    bg = el.get("bgcolor")
    if bg and not _UNPAINTED_RE.fullmatch(bg):
        return True
    return any(not _UNPAINTED_RE.fullmatch(m.group(1))
               for m in _BACKGROUND_RE.finditer(el.get("style") or ""))


def hiding_declarations(style: str) -> bool:
    """Return True when CSS declarations hide text whatever the background: none, hidden,
    zero or tiny size, zero opacity, transparent colour."""
    if _HIDDEN_STYLE_RE.search(style) or _CLEAR_TEXT_RE.search(style):
        return True
    for m in _FONT_SIZE_RE.finditer(style):
        try:
            if float(m.group(1)) < _TINY[(m.group(2) or "").lower()]:
                return True
        except ValueError:
            pass
    return False


def hides(el: lxml.etree._Element, painted: bool = False,
          sheet_hidden: frozenset[lxml.etree._Element] = frozenset()) -> bool:
    """Return True when the text of `el` is not seen by a reader: hidden (by an attribute, its
    inline style or a `<style>` rule: `sheet_hidden`), invisible, tiny, or white/transparent
    where nothing paints a background (`painted`: an ancestor or `el` does)."""
    a = el.attrib
    if "hidden" in a or a.get("aria-hidden", "").strip().lower() == "true":
        return True
    if a.get("type", "").lower() == "hidden" or el in sheet_hidden:
        return True
    style = a.get("style") or ""
    if style and hiding_declarations(style):
        return True
    if painted or paints(el):
        return False
    color = (a.get("color") or "") if str(el.tag).lower() == "font" else ""
    return bool(_WHITE_TEXT_RE.search(style) or _WHITE_TEXT_RE.search(f"color:{color}"))


_INDENT_STYLE_RE = re.compile(
    r"(?:padding-left|margin-left|text-indent)\s*:\s*([\d.]+)\s*(px|pt|em|rem|%)?", re.I)
_UNIT_POINTS = {"px": 0.75, "pt": 1.0, "em": 12.0, "rem": 12.0, "%": 0.0, "": 0.75}


def indent_points(cell: lxml.etree._Element) -> float:
    """Return a label's indentation in points: CSS padding/margin/text-indent on the cell
    or its first child, plus leading no-break spaces (3 points each)."""
    points = 0.0
    first = next((ch for ch in cell if isinstance(ch.tag, str)), None)
    for el in (cell, first):
        if el is None:
            continue
        style = el.get("style")
        if style:
            for m in _INDENT_STYLE_RE.finditer(style):
                try:
                    points += float(m.group(1)) * _UNIT_POINTS[(m.group(2) or "").lower()]
                except ValueError:
                    pass
    lead = cell.text if cell.text and cell.text.strip() else (
        first.text if first is not None and first.text else cell.text or "")
    n = 0
    for ch in lead or "":
        if ch in "\u00a0\u2002\u2003\u2007":
            n += 1
        elif ch in " \t\r\n":
            continue
        else:
            break
    return points + 3.0 * n
