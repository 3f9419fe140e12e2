"""CSS colour values read into RGBA, and whether two colours can be told apart.

`parse_color` reads what a `color` or `background-color` declaration (or an old `color` /
`bgcolor` attribute) can hold: `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`
and `hsl()`/`hsla()` in comma or space syntax (`rgb(255 255 255 / 50%)`), the 148 named
colours, `transparent`. Anything else (`currentcolor`, `var(--x)`, a gradient) is None:
unknown. `indistinct` says when text in one colour cannot be read on another: a WCAG
contrast ratio under `MIN_CONTRAST` (white on #fafafa, black on #111, any equal pair).
"""

from __future__ import annotations

import re

RGBA = tuple[float, float, float, float]  # channels 0-255, alpha 0-1

MIN_CONTRAST = 1.2  # WCAG ratio under which two colours read as one
WHITE: RGBA = (255.0, 255.0, 255.0, 1.0)
BLACK: RGBA = (0.0, 0.0, 0.0, 1.0)

NAMED = {
    "aliceblue": "f0f8ff", "antiquewhite": "faebd7", "aqua": "00ffff", "aquamarine": "7fffd4",
    "azure": "f0ffff", "beige": "f5f5dc", "bisque": "ffe4c4", "black": "000000",
    "blanchedalmond": "ffebcd", "blue": "0000ff", "blueviolet": "8a2be2", "brown": "a52a2a",
    "burlywood": "deb887", "cadetblue": "5f9ea0", "chartreuse": "7fff00", "chocolate": "d2691e",
    "coral": "ff7f50", "cornflowerblue": "6495ed", "cornsilk": "fff8dc", "crimson": "dc143c",
    "cyan": "00ffff", "darkblue": "00008b", "darkcyan": "008b8b", "darkgoldenrod": "b8860b",
    "darkgray": "a9a9a9", "darkgreen": "006400", "darkgrey": "a9a9a9", "darkkhaki": "bdb76b",
    "darkmagenta": "8b008b", "darkolivegreen": "556b2f", "darkorange": "ff8c00",
    "darkorchid": "9932cc", "darkred": "8b0000", "darksalmon": "e9967a", "darkseagreen": "8fbc8f",
    "darkslateblue": "483d8b", "darkslategray": "2f4f4f", "darkslategrey": "2f4f4f",
    "darkturquoise": "00ced1", "darkviolet": "9400d3", "deeppink": "ff1493",
    "deepskyblue": "00bfff", "dimgray": "696969", "dimgrey": "696969", "dodgerblue": "1e90ff",
    "firebrick": "b22222", "floralwhite": "fffaf0", "forestgreen": "228b22", "fuchsia": "ff00ff",
    "gainsboro": "dcdcdc", "ghostwhite": "f8f8ff", "gold": "ffd700", "goldenrod": "daa520",
    "gray": "808080", "green": "008000", "greenyellow": "adff2f", "grey": "808080",
    "honeydew": "f0fff0", "hotpink": "ff69b4", "indianred": "cd5c5c", "indigo": "4b0082",
    "ivory": "fffff0", "khaki": "f0e68c", "lavender": "e6e6fa", "lavenderblush": "fff0f5",
    "lawngreen": "7cfc00", "lemonchiffon": "fffacd", "lightblue": "add8e6",
    "lightcoral": "f08080", "lightcyan": "e0ffff", "lightgoldenrodyellow": "fafad2",
    "lightgray": "d3d3d3", "lightgreen": "90ee90", "lightgrey": "d3d3d3", "lightpink": "ffb6c1",
    "lightsalmon": "ffa07a", "lightseagreen": "20b2aa", "lightskyblue": "87cefa",
    "lightslategray": "778899", "lightslategrey": "778899", "lightsteelblue": "b0c4de",
    "lightyellow": "ffffe0", "lime": "00ff00", "limegreen": "32cd32", "linen": "faf0e6",
    "magenta": "ff00ff", "maroon": "800000", "mediumaquamarine": "66cdaa", "mediumblue": "0000cd",
    "mediumorchid": "ba55d3", "mediumpurple": "9370db", "mediumseagreen": "3cb371",
    "mediumslateblue": "7b68ee", "mediumspringgreen": "00fa9a", "mediumturquoise": "48d1cc",
    "mediumvioletred": "c71585", "midnightblue": "191970", "mintcream": "f5fffa",
    "mistyrose": "ffe4e1", "moccasin": "ffe4b5", "navajowhite": "ffdead", "navy": "000080",
    "oldlace": "fdf5e6", "olive": "808000", "olivedrab": "6b8e23", "orange": "ffa500",
    "orangered": "ff4500", "orchid": "da70d6", "palegoldenrod": "eee8aa", "palegreen": "98fb98",
    "paleturquoise": "afeeee", "palevioletred": "db7093", "papayawhip": "ffefd5",
    "peachpuff": "ffdab9", "peru": "cd853f", "pink": "ffc0cb", "plum": "dda0dd",
    "powderblue": "b0e0e6", "purple": "800080", "rebeccapurple": "663399", "red": "ff0000",
    "rosybrown": "bc8f8f", "royalblue": "4169e1", "saddlebrown": "8b4513", "salmon": "fa8072",
    "sandybrown": "f4a460", "seagreen": "2e8b57", "seashell": "fff5ee", "sienna": "a0522d",
    "silver": "c0c0c0", "skyblue": "87ceeb", "slateblue": "6a5acd", "slategray": "708090",
    "slategrey": "708090", "snow": "fffafa", "springgreen": "00ff7f", "steelblue": "4682b4",
    "tan": "d2b48c", "teal": "008080", "thistle": "d8bfd8", "tomato": "ff6347",
    "turquoise": "40e0d0", "violet": "ee82ee", "wheat": "f5deb3", "white": "ffffff",
    "whitesmoke": "f5f5f5", "yellow": "ffff00", "yellowgreen": "9acd32",
}

_NUM = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?"
_FUNC_RE = re.compile(rf"(rgba?|hsla?)\(\s*({_NUM})(%|deg|turn|rad)?\s*,?\s*({_NUM})(%)?\s*,?\s*"
                      rf"({_NUM})(%)?\s*(?:[,/]\s*({_NUM})(%)?\s*)?\)", re.I)
_HEX_RE = re.compile(r"#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})", re.I)
_IMPORTANT_RE = re.compile(r"\s*!\s*important\s*$", re.I)


def parse_color(value: str) -> RGBA | None:
    """Return the colour a CSS value names as (r, g, b, alpha), or None when it names none
    this module reads (`currentcolor`, `var()`, `inherit`, an image)."""
    v = _IMPORTANT_RE.sub("", value).strip().lower()
    if not v or len(v) > 200:
        return None
    if v == "transparent":
        return (0.0, 0.0, 0.0, 0.0)
    if v in NAMED:
        return _hex(NAMED[v])
    m = _HEX_RE.fullmatch(v)
    if m:
        return _hex(m.group(1))
    m = _FUNC_RE.fullmatch(v)
    if m is None:
        return None
    kind = m.group(1)
    try:
        a1, u1, a2, u2, a3, u3 = (float(m.group(2)), m.group(3), float(m.group(4)), m.group(5),
                                  float(m.group(6)), m.group(7))
        alpha = 1.0 if m.group(8) is None else float(m.group(8)) / (100.0 if m.group(9) else 1.0)
    except ValueError:
        return None
    alpha = min(max(alpha, 0.0), 1.0)
    if kind.startswith("rgb"):
        chans = [x * 2.55 if u == "%" else x for x, u in ((a1, u1), (a2, u2), (a3, u3))]
        r, g, b = (min(max(c, 0.0), 255.0) for c in chans)
        return (r, g, b, alpha)
    hue = {"turn": a1 * 360.0, "rad": a1 * 57.29577951308232}.get(u1 or "", a1)
    return (*_hsl(hue, a2 / 100.0, a3 / 100.0), alpha)


def _hex(h: str) -> RGBA:
    if len(h) in (3, 4):
        h = "".join(c * 2 for c in h)
    alpha = int(h[6:8], 16) / 255.0 if len(h) == 8 else 1.0
    return (float(int(h[0:2], 16)), float(int(h[2:4], 16)), float(int(h[4:6], 16)), alpha)


def _hsl(h: float, s: float, lum: float) -> tuple[float, float, float]:
    s, lum = min(max(s, 0.0), 1.0), min(max(lum, 0.0), 1.0)
    c = (1 - abs(2 * lum - 1)) * s
    hp = (h % 360.0) / 60.0
    x = c * (1 - abs(hp % 2 - 1))
    r, g, b = [(c, x, 0), (x, c, 0), (0, c, x), (0, x, c), (x, 0, c), (c, 0, x)][int(hp) % 6]
    m = lum - c / 2
    return ((r + m) * 255.0, (g + m) * 255.0, (b + m) * 255.0)


def over(top: RGBA, under: RGBA) -> RGBA:
    """Return `top` painted over the opaque colour `under` (alpha composited)."""
    a = top[3]
    return (top[0] * a + under[0] * (1 - a), top[1] * a + under[1] * (1 - a),
            top[2] * a + under[2] * (1 - a), 1.0)


def _luminance(c: RGBA) -> float:
    def lin(x: float) -> float:
        x /= 255.0
        return x / 12.92 if x <= 0.04045 else ((x + 0.055) / 1.055) ** 2.4
    return 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2])


def indistinct(text: RGBA, background: RGBA) -> bool:
    """Return True when text in colour `text` cannot be read on the opaque `background`:
    their contrast ratio (text composited by its alpha) is under `MIN_CONTRAST`."""
    shown = over(text, background)
    la, lb = _luminance(shown), _luminance(background)
    hi, lo = max(la, lb), min(la, lb)
    return (hi + 0.05) / (lo + 0.05) < MIN_CONTRAST
