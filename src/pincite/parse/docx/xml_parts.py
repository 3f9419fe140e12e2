"""WordprocessingML names and the small accessors the DOCX reader uses on lxml elements."""

from __future__ import annotations

W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
M = "http://schemas.openxmlformats.org/officeDocument/2006/math"

_FALSE = ("0", "false", "off")


def w(tag: str) -> str:
    """Return the Clark name of a WordprocessingML tag or attribute (`{W}tag`)."""
    return f"{{{W}}}{tag}"


def local_name(el: object) -> str | None:
    """Return the tag of an element without its namespace (None for comments and PIs)."""
    tag = getattr(el, "tag", None)
    if not isinstance(tag, str):
        return None
    return tag.rsplit("}", 1)[-1]


def namespace(el: object) -> str:
    """Return the namespace URI of an element's tag ("" when it has none)."""
    tag = getattr(el, "tag", "")
    return tag[1:].split("}", 1)[0] if isinstance(tag, str) and tag.startswith("{") else ""


def val(el: object, default: str | None = None) -> str | None:
    """Return the `w:val` attribute of an element, or `default` when there is no element."""
    if el is None:
        return default
    return el.get(w("val"), default)  # type: ignore[attr-defined]


def is_on(el: object) -> bool:
    """Return whether a toggle property (`<w:vanish/>`, `<w:vanish w:val="1"/>`) is on."""
    if el is None:
        return False
    v = val(el)
    return v is None or v.lower() not in _FALSE


def to_int(v: str | None, default: int) -> int:
    """Return `v` as an integer, `default` when it is missing or not one."""
    try:
        return int(v) if v is not None else default
    except ValueError:
        return default
