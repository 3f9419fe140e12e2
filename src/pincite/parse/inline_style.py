"""What an element's inline CSS (and its old presentational attributes) tells the HTML parser:
whether a reader sees its text, the colours it is drawn in, and how far a table label is
indented.

Hidden whatever the colours around it (`hiding`; `parse.stylesheet` applies the same test
to `<style>` rules): `display:none`, `visibility:hidden|collapse`; zero or tiny text (a
`font-size` under 2px / 1.5pt / 0.15em / 15%); `opacity`, `filter:opacity()` or `zoom`
under 0.1; a text colour (nearly) transparent; a text colour a reader cannot tell from the
background the same declarations paint (`color:#000; background:#000`); a box moved off
the screen (`left`, `top`, `right`, `bottom`, `inset`, `margin(-left|-top)` or
`text-indent` at -1000px or further, a `translate()` that far, a `scale()` under 0.1);
text clipped away (`clip: rect()` with no area, `clip-path: inset()` of 50% or more from
both sides, a zero `circle()` / `ellipse()`); a box 1px or less wide or high with
`overflow:hidden`.

Colours (`own_color`, `own_background`): `color`, `<font color>` and `<body text>`;
`background-color`, the colour of a `background` shorthand and `bgcolor`. A background with
an image or a gradient, or a value this module does not read (`var()`), is unknown (None).
The HTML parser carries both down the tree and flags text whose colour a reader cannot tell
from the ground under it (`css_colors.indistinct`; the page itself is white).
"""

from __future__ import annotations

import re

import lxml.etree

from .css_colors import RGBA, indistinct, parse_color

MAX_STYLE_CHARS = 20_000  # characters of one style attribute or rule read
UNSET = "unset"  # no declaration: the colour is inherited, the background is see-through
OFFSCREEN_PX = 1000.0  # a box moved this far out (px) is off the screen
FAINT = 0.1  # an opacity or a text alpha under this is not seen

Colour = RGBA | None | str  # a colour, None (unknown), or UNSET

_DECL_RE = re.compile(r"\s*([-a-zA-Z]+)\s*:\s*(.*)", re.S)
_IMPORTANT_RE = re.compile(r"\s*!\s*important\s*$", re.I)
_LEN_RE = re.compile(r"([+-]?(?:\d+\.?\d*|\.\d+))\s*(px|pt|pc|em|rem|%|vw|vh|vmin|vmax|cm|mm|in|q|ch|ex)?",
                     re.I)
_PX = {"px": 1.0, "": 1.0, "pt": 4 / 3, "pc": 16.0, "em": 16.0, "rem": 16.0, "ch": 8.0, "ex": 8.0,
       "cm": 37.8, "mm": 3.78, "q": 0.945, "in": 96.0,
       "%": 10.0, "vw": 10.0, "vh": 10.0, "vmin": 10.0, "vmax": 10.0}  # -100% / -100vw: off too
_TINY = {"px": 2.0, "pt": 1.5, "em": 0.15, "rem": 0.15, "%": 15.0, "": 2.0}
_TRANSLATE_RE = re.compile(r"translate(?:3d|x|y|z)?\(([^)]*)\)", re.I)
_SCALE_RE = re.compile(r"scale(?:3d|x|y|z)?\(([^)]*)\)", re.I)
_OPACITY_FN_RE = re.compile(r"opacity\(\s*([\d.]+)\s*(%)?\s*\)", re.I)
_RECT_RE = re.compile(r"rect\(([^)]*)\)", re.I)
_SHAPE_RE = re.compile(r"(inset|circle|ellipse)\(([^)]*)\)", re.I)
_IMAGE_RE = re.compile(r"url\(|gradient\(|image-set\(|image\(|element\(|cross-fade\(", re.I)
_TOKEN_RE = re.compile(r"[a-z-]+\([^)]*\)|#[0-9a-f]+|[a-z-]+|[-+\d.]+[a-z%]*|/", re.I)
_OFFSETS = ("left", "top", "right", "bottom", "inset", "margin", "margin-left", "margin-top",
            "text-indent")
_SEE_THROUGH = frozenset({"none", "transparent", "inherit", "initial", "unset", "revert", ""})


def declarations(style: str) -> dict[str, str]:
    """Return a CSS block's declarations, property → value, lower-cased and `!important`
    stripped, in the order they last appear (the last of a property wins)."""
    out: dict[str, str] = {}
    for part in style[:MAX_STYLE_CHARS].split(";"):
        m = _DECL_RE.match(part)
        if m:
            prop = m.group(1).lower()
            out.pop(prop, None)
            out[prop] = _IMPORTANT_RE.sub("", m.group(2)).strip().lower()
    return out


def _px(value: str) -> float | None:
    """Return one CSS length in px, or None when `value` is not one."""
    m = _LEN_RE.fullmatch(value.strip())
    if m is None:
        return None
    try:
        return float(m.group(1)) * _PX[(m.group(2) or "").lower()]
    except ValueError:
        return None


def _lengths(value: str) -> list[float | None]:
    return [_px(v) for v in re.split(r"[\s,]+", value.strip()) if v]


def _fraction(value: str) -> float | None:
    """Return a number or a percentage as a fraction (0.5, 50%), or None."""
    m = re.fullmatch(r"\s*([\d.]+)\s*(%)?\s*", value)
    if m is None:
        return None
    try:
        return float(m.group(1)) / (100.0 if m.group(2) else 1.0)
    except ValueError:
        return None


def _tiny_font(value: str) -> bool:
    m = _LEN_RE.fullmatch(value.strip())
    if m is None:
        return False
    try:
        return float(m.group(1)) < _TINY.get((m.group(2) or "").lower(), 0.0)
    except ValueError:
        return False


def _off_screen(d: dict[str, str]) -> bool:
    far = [v for p in _OFFSETS if p in d for v in _lengths(d[p])]
    transform = d.get("transform", "")
    for m in _TRANSLATE_RE.finditer(transform):
        far += _lengths(m.group(1))
    if any(v is not None and v <= -OFFSCREEN_PX for v in far):
        return True
    for m in _SCALE_RE.finditer(transform):
        if any((f := _fraction(v)) is not None and f < FAINT for v in re.split(r"[\s,]+", m.group(1))):
            return True
    zoom = _fraction(d["zoom"]) if "zoom" in d else None
    return zoom is not None and zoom < FAINT


def _inset_hides(args: str) -> bool:
    """Return True when `inset(args)` leaves nothing: 50% or more from opposite sides, or
    1000px or more from one."""
    parts = args.split()[:4]
    if not parts:
        return False
    if any((p := _px(v)) is not None and not v.endswith("%") and p >= OFFSCREEN_PX for v in parts):
        return True
    pct = [_fraction(v) if v.endswith("%") else None for v in parts]
    top, right = pct[0], pct[1 if len(pct) > 1 else 0]
    bottom = pct[2] if len(pct) > 2 else top
    left = pct[3] if len(pct) > 3 else right
    return ((top is not None and bottom is not None and top + bottom >= 1.0)
            or (left is not None and right is not None and left + right >= 1.0))


def _clipped(d: dict[str, str]) -> bool:
    m = _RECT_RE.search(d.get("clip", ""))
    if m:
        v = _lengths(m.group(1))
        if len(v) == 4 and all(x is not None for x in v):
            top, right, bottom, left = (x or 0.0 for x in v)
            if bottom - top <= 1.0 or right - left <= 1.0:
                return True
    for m in _SHAPE_RE.finditer(d.get("clip-path", "")):
        args = re.split(r"\bround\b|\bat\b", m.group(2))[0]
        if m.group(1).lower() == "inset":
            if _inset_hides(args):
                return True
        else:
            radii = _lengths(args)
            if radii and all(r is not None and r <= 0.5 for r in radii):
                return True
    return False


def _tiny_box(d: dict[str, str]) -> bool:
    if not any(d.get(p) in ("hidden", "clip") for p in ("overflow", "overflow-x", "overflow-y")):
        return False
    return any((v := _px(d[p])) is not None and v <= 1.0
               for p in ("width", "height", "max-width", "max-height") if p in d)


def hiding(d: dict[str, str]) -> bool:
    """Return True when declarations `d` hide text whatever the colours around it."""
    if d.get("display") == "none" or d.get("visibility") in ("hidden", "collapse"):
        return True
    if "font-size" in d and _tiny_font(d["font-size"]):
        return True
    opacity = _fraction(d["opacity"]) if "opacity" in d else None
    if opacity is not None and opacity < FAINT:
        return True
    m = _OPACITY_FN_RE.search(d.get("filter", ""))
    if m and float(m.group(1)) / (100.0 if m.group(2) else 1.0) < FAINT:
        return True
    text = declared_color(d)
    if isinstance(text, tuple) and text[3] < FAINT:
        return True
    ground = declared_background(d)
    if isinstance(text, tuple) and isinstance(ground, tuple) and indistinct(text, ground):
        return True  # the same block paints the text and its ground alike
    return _off_screen(d) or _clipped(d) or _tiny_box(d)


def hiding_declarations(style: str) -> bool:
    """Return True when a CSS block hides text whatever the colours around it."""
    return hiding(declarations(style))


def declared_color(d: dict[str, str]) -> Colour:
    """Return the text colour declarations `d` set: RGBA, None (a value not read) or UNSET."""
    value = d.get("-webkit-text-fill-color") or d.get("color")
    if value is None or value in ("inherit", "unset", "revert", ""):
        return UNSET
    return parse_color(value)


def declared_background(d: dict[str, str]) -> Colour:
    """Return the background colour declarations `d` paint: an opaque RGBA (a translucent one
    is None), None (an image, a gradient or a value not read) or UNSET (none, see-through)."""
    if _IMAGE_RE.search(d.get("background-image", "")):
        return None
    last = None
    for prop in d:  # in the order the declarations last appear: the later one wins
        if prop in ("background", "background-color"):
            last = prop
    if last is None:
        return UNSET
    value = d[last]
    if value in _SEE_THROUGH:
        return UNSET
    if last == "background" and _IMAGE_RE.search(value):
        return None
    colour = parse_color(value)
    if colour is None and last == "background":
        tokens = _TOKEN_RE.findall(value)
        known = [c for c in map(parse_color, tokens) if c is not None]
        if not known:
            return UNSET if all(parse_color(t) is None and "(" not in t for t in tokens) else None
        colour = known[-1]
    if colour is None:
        return None
    if colour[3] == 0.0:
        return UNSET
    return colour if colour[3] >= 1.0 else None


def inline(el: lxml.etree._Element) -> dict[str, str]:
    """Return the declarations of `el`'s style attribute (empty when it has none)."""
    style = el.get("style")
    return declarations(style) if style else {}


def hides(el: lxml.etree._Element,
          sheet_hidden: frozenset[lxml.etree._Element] = frozenset(),
          style: dict[str, str] | None = None) -> bool:
    """Return True when `el` and all it holds are out of a reader's sight whatever the colours:
    a `hidden` attribute, `aria-hidden="true"`, a hidden input, a `<style>` rule
    (`sheet_hidden`) or its inline style (`hiding`; `style`: `inline(el)` if read already)."""
    a = el.attrib
    if "hidden" in a or a.get("aria-hidden", "").strip().lower() == "true":
        return True
    if a.get("type", "").lower() == "hidden" or el in sheet_hidden:
        return True
    d = inline(el) if style is None else style
    return bool(d) and hiding(d)


def own_color(el: lxml.etree._Element, style: dict[str, str] | None = None) -> Colour:
    """Return the text colour `el` sets itself: inline `color`, `<font color>` or
    `<body text>` (RGBA, None for a value not read, UNSET when none)."""
    d = inline(el) if style is None else style
    if d:
        c = declared_color(d)
        if c != UNSET:
            return c
    tag = str(el.tag).lower()
    attr = el.get("color") if tag == "font" else el.get("text") if tag == "body" else None
    return parse_color(attr) if attr else UNSET


def own_background(el: lxml.etree._Element, style: dict[str, str] | None = None) -> Colour:
    """Return the background colour `el` paints itself: inline `background(-color)`, else
    `bgcolor` or a `background` image attribute (RGBA, None when unknown, UNSET when none)."""
    d = inline(el) if style is None else style
    if d:
        c = declared_background(d)
        if c != UNSET:
            return c
    if el.get("background"):
        return None  # an image
    bg = el.get("bgcolor")
    if not bg:
        return UNSET
    colour = parse_color(bg)
    if colour is None or colour[3] >= 1.0:
        return colour
    return UNSET if colour[3] == 0.0 else None


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
