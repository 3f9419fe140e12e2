"""Which optional-content groups (layers) a PDF shows when it opens, read from its own bytes.

pdfium gives a page object's marked content (`/OC /L1 BDC … EMC`) with the properties of
the group it names (its `/Name`), but not the document's `/OCProperties`, which say
which groups are switched off by default. This module reads just that, with a small
reader of PDF objects: every `N G obj` in the file and in its object streams (Flate only),
each catalog holding `/OCProperties` (all of them, incremental updates included: a group
off in any of them counts as off — more flags, never fewer), its default configuration
`/D` (`/BaseState`, `/ON`, `/OFF`) and the `/Name` of each group; and whether any
membership dictionary (`/OCMD`: `/P` over its `/OCGs`; a `/VE` counts as off when it names
a group that is off) hides its content.

It runs only for documents with `/OC` marked content (`objects.page_objects` asks lazily),
and reads a bounded amount: `MAX_STREAMS` object streams, `MAX_INFLATED` bytes inflated,
`MAX_DEPTH` nesting. A group is matched by its name; a name this reader cannot place (an
encrypted file, whose strings it cannot decrypt) counts as off when any group is off, and
an encrypted file whose configuration cannot be read at all has every group counted off.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from dataclasses import dataclass
from typing import Any

MAX_STREAMS = 2_000  # object streams inflated
MAX_INFLATED = 64 * 1024 * 1024  # bytes inflated in all
MAX_DEPTH = 64  # nesting of arrays and dictionaries parsed

_WS = b"\x00\t\n\x0c\r "
_DELIM = b"()<>[]{}/%"
_OBJ_RE = re.compile(rb"(?<![0-9])(\d{1,10})[ \t\r\n\x00\x0c]+(\d{1,5})[ \t\r\n\x00\x0c]+obj\b")
_NUM_RE = re.compile(rb"[+-]?(?:\d+\.?\d*|\.\d+)")
_REF_RE = re.compile(rb"[ \t\r\n\x00\x0c]*(\d{1,10})[ \t\r\n\x00\x0c]+(\d{1,5})[ \t\r\n\x00\x0c]+R(?![A-Za-z])")
_ESCAPES = {ord("n"): b"\n", ord("r"): b"\r", ord("t"): b"\t", ord("b"): b"\b", ord("f"): b"\f"}
# PDFDocEncoding where it differs from Latin-1 (0x80-0xA0)
_PDFDOC = dict(zip(range(0x80, 0xA1),
                   "\u2022\u2020\u2021\u2026\u2014\u2013\u0192\u2044\u2039\u203a\u2212\u2030"
                   "\u201e\u201c\u201d\u2018\u2019\u201a\u2122\ufb01\ufb02\u0141\u0152\u0160"
                   "\u0178\u017d\u0131\u0142\u0153\u0161\u017e\ufffd\u20ac", strict=True))


class Name(str):
    """A PDF name (`/OFF`), told apart from a string."""


@dataclass(frozen=True, slots=True)
class Ref:
    """An indirect reference (`5 0 R`)."""

    num: int
    gen: int


def _skip(data: bytes, i: int) -> int:
    n = len(data)
    while i < n:
        c = data[i]
        if c in _WS:
            i += 1
        elif c == 0x25:  # % comment
            while i < n and data[i] not in b"\r\n":
                i += 1
        else:
            break
    return i


def _literal(data: bytes, i: int) -> tuple[bytes, int]:
    out = bytearray()
    depth, n = 1, len(data)
    while i < n:
        c = data[i]
        if c == 0x5C and i + 1 < n:  # backslash
            e = data[i + 1]
            if e in _ESCAPES:
                out += _ESCAPES[e]
                i += 2
            elif 0x30 <= e <= 0x37:
                j = i + 1
                while j < min(i + 4, n) and 0x30 <= data[j] <= 0x37:
                    j += 1
                out.append(int(data[i + 1:j], 8) & 0xFF)
                i = j
            elif e in b"\r\n":
                i += 3 if data[i + 1:i + 3] == b"\r\n" else 2
            else:
                out.append(e)
                i += 2
            continue
        if c == 0x28:
            depth += 1
        elif c == 0x29:
            depth -= 1
            if depth == 0:
                return bytes(out), i + 1
        out.append(c)
        i += 1
    raise ValueError("unterminated string")


def _value(data: bytes, i: int, depth: int = 0) -> tuple[Any, int]:
    """Parse one object at `i`; return it (dict, list, Name, bytes, Ref, number, bool, None)
    and the offset after it."""
    if depth > MAX_DEPTH:
        raise ValueError("nested too deep")
    i = _skip(data, i)
    head = data[i:i + 2]
    if head == b"<<":
        out: dict[str, Any] = {}
        i += 2
        while True:
            i = _skip(data, i)
            if data[i:i + 2] == b">>":
                return out, i + 2
            key, i = _value(data, i, depth + 1)
            if not isinstance(key, Name):
                raise ValueError("a dictionary key that is not a name")
            val, i = _value(data, i, depth + 1)
            out[str(key)] = val
    if head[:1] == b"[":
        items: list[Any] = []
        i += 1
        while True:
            i = _skip(data, i)
            if i >= len(data):
                raise ValueError("unterminated array")
            if data[i:i + 1] == b"]":
                return items, i + 1
            item, i = _value(data, i, depth + 1)
            items.append(item)
    if head[:1] == b"(":
        return _literal(data, i + 1)
    if head[:1] == b"<":
        end = data.find(b">", i)
        if end < 0:
            raise ValueError("unterminated hex string")
        digits = re.sub(rb"[^0-9A-Fa-f]", b"", data[i + 1:end])
        return bytes.fromhex((digits + b"0" * (len(digits) % 2)).decode("ascii")), end + 1
    if head[:1] == b"/":
        j = i + 1
        while j < len(data) and data[j] not in _WS and data[j] not in _DELIM:
            j += 1
        raw = re.sub(rb"#([0-9A-Fa-f]{2})", lambda m: bytes([int(m.group(1), 16)]), data[i + 1:j])
        return Name(raw.decode("latin-1")), j
    m = _REF_RE.match(data, i)
    if m:
        return Ref(int(m.group(1)), int(m.group(2))), m.end()
    m = _NUM_RE.match(data, i)
    if m:
        text = m.group(0)
        return (float(text) if b"." in text else int(text)), m.end()
    for word, val in ((b"true", True), (b"false", False), (b"null", None)):
        if data.startswith(word, i):
            return val, i + len(word)
    raise ValueError(f"unexpected byte at {i}")


def _text(value: Any) -> str | None:
    """Return a PDF text string as Unicode (UTF-16BE/UTF-8 with a BOM, else PDFDocEncoding)."""
    if not isinstance(value, bytes):
        return None
    if value.startswith(b"\xfe\xff"):
        text = value[2:].decode("utf-16-be", "replace")
    elif value.startswith(b"\xef\xbb\xbf"):
        text = value[3:].decode("utf-8", "replace")
    else:
        text = "".join(_PDFDOC.get(b, chr(b)) for b in value)
    return layer_key(text)


def layer_key(name: str) -> str:
    """Return the form a group's name is compared in (NFC, NULs and outer spaces dropped)."""
    return unicodedata.normalize("NFC", name.replace("\x00", "")).strip()


class _Objects:
    """The file's objects by number: direct ones first, object streams inflated on demand."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.direct: dict[int, int] = {}
        for m in _OBJ_RE.finditer(data):
            self.direct[int(m.group(1))] = m.end()
        self.packed: dict[int, tuple[bytes, int]] | None = None
        self.bodies: list[bytes] = []  # inflated object streams

    def _unpack(self) -> dict[int, tuple[bytes, int]]:
        if self.packed is not None:
            return self.packed
        self.packed = {}
        budget = MAX_INFLATED
        for at in list(self.direct.values()):
            if len(self.bodies) >= MAX_STREAMS or budget <= 0:
                break
            if b"/ObjStm" not in self.data[at:at + 400]:
                continue
            try:
                head, end = _value(self.data, at)
                if not isinstance(head, dict) or head.get("Type") != "ObjStm":
                    continue
                body = self._stream(head, end, budget)
            except (ValueError, IndexError, zlib.error):
                continue
            if body is None:
                continue
            budget -= len(body)
            self.bodies.append(body)
            first, count = head.get("First"), head.get("N")
            if not isinstance(first, int) or not isinstance(count, int):
                continue
            nums = re.findall(rb"\d+", body[:first])
            for k in range(0, min(len(nums), 2 * count) - 1, 2):
                self.packed.setdefault(int(nums[k]), (body, first + int(nums[k + 1])))
        return self.packed

    def _stream(self, head: dict[str, Any], end: int, budget: int) -> bytes | None:
        at = self.data.find(b"stream", end, end + 64)
        if at < 0:
            return None
        at += 6
        at += 2 if self.data[at:at + 2] == b"\r\n" else 1
        length = self.resolve(head.get("Length"))
        raw = self.data[at:at + length] if isinstance(length, int) and length > 0 else \
            self.data[at:self.data.find(b"endstream", at)]
        filters = head.get("Filter")
        filters = filters if isinstance(filters, list) else [filters] if filters else []
        if filters == ["FlateDecode"]:
            d = zlib.decompressobj()
            return d.decompress(raw, budget)
        return raw if not filters else None

    def get(self, num: int) -> Any:
        """Return object `num`, or None when it is absent or unreadable."""
        try:
            if num in self.direct:
                return _value(self.data, self.direct[num])[0]
            packed = self._unpack().get(num)
            return None if packed is None else _value(*packed)[0]
        except (ValueError, IndexError):
            return None

    def resolve(self, value: Any, hops: int = 8) -> Any:
        """Return `value` with indirect references followed."""
        while isinstance(value, Ref) and hops > 0:
            value = self.get(value.num)
            hops -= 1
        return None if isinstance(value, Ref) else value

    def holding(self, needle: bytes) -> list[Any]:
        """Return the objects whose text holds `needle` (direct and packed)."""
        found: list[Any] = []
        starts = sorted(self.direct.values())
        for m in re.finditer(re.escape(needle), self.data):
            k = _last_before(starts, m.start())
            if k is not None:
                try:
                    found.append(_value(self.data, k)[0])
                except (ValueError, IndexError):
                    pass
        packed = self._unpack()
        for body in self.bodies:
            if needle not in body:
                continue
            offsets = sorted(at for b, at in packed.values() if b is body)
            for m in re.finditer(re.escape(needle), body):
                k = _last_before(offsets, m.start())
                if k is not None:
                    try:
                        found.append(_value(body, k)[0])
                    except (ValueError, IndexError):
                        pass
        return found


def _last_before(starts: list[int], pos: int) -> int | None:
    from bisect import bisect_right

    k = bisect_right(starts, pos)
    return starts[k - 1] if k else None


@dataclass(frozen=True)
class Layers:
    """The groups a document switches off when it opens, by name."""

    off: frozenset[str] = frozenset()
    on: frozenset[str] = frozenset()
    membership_off: bool = False  # some /OCMD hides its content
    unreadable: bool = False  # an encrypted file whose configuration could not be read

    def hides(self, name: str | None) -> bool:
        """Return True when content marked with the group named `name` (None: a membership
        dictionary) is hidden when the document opens."""
        if self.unreadable:
            return True
        if name is None:
            return self.membership_off
        key = layer_key(name)
        return key in self.off or (bool(self.off) and key not in self.on)


def _refs(value: Any) -> list[Ref]:
    if isinstance(value, Ref):
        return [value]
    return [v for v in value if isinstance(v, Ref)] if isinstance(value, list) else []


def read_layers(data: bytes) -> Layers:
    """Return which optional-content groups `data` (a PDF) switches off by default."""
    objs = _Objects(data)
    off_refs: set[Ref] = set()
    every: set[Ref] = set()
    found = False
    for holder in objs.holding(b"/OCProperties"):
        props = objs.resolve(holder.get("OCProperties")) if isinstance(holder, dict) else None
        if not isinstance(props, dict):
            continue
        found = True
        groups = _refs(objs.resolve(props.get("OCGs")))
        every.update(groups)
        config = objs.resolve(props.get("D"))
        if not isinstance(config, dict):
            continue
        switched_on = set(_refs(objs.resolve(config.get("ON"))))
        off_refs.update(_refs(objs.resolve(config.get("OFF"))))
        if config.get("BaseState") == "OFF":
            off_refs.update(g for g in groups if g not in switched_on)
    if not found:
        return Layers(unreadable=b"/Encrypt" in data)
    names: dict[Ref, str] = {}
    for ref in every | off_refs:
        group = objs.resolve(ref)
        name = _text(group.get("Name")) if isinstance(group, dict) else None
        if name is not None:
            names[ref] = name
    off = frozenset(names[r] for r in off_refs if r in names)
    on = frozenset(names[r] for r in every - off_refs if r in names)
    membership_off = any(_membership_hides(objs.resolve(d), off_refs, objs)
                         for d in objs.holding(b"/OCMD"))
    return Layers(off, on, membership_off)


def _membership_hides(md: Any, off_refs: set[Ref], objs: _Objects) -> bool:
    """Return True when an /OCMD dictionary hides its content under the default state."""
    if not isinstance(md, dict) or md.get("Type") != "OCMD":
        return False
    if md.get("VE") is not None:
        return bool(off_refs) and _names_off(md["VE"], off_refs, objs, 0)
    groups = _refs(objs.resolve(md.get("OCGs")))
    if not groups:
        return False
    shown = [g not in off_refs for g in groups]
    policy = md.get("P", "AnyOn")
    visible = {"AllOn": all(shown), "AnyOff": not all(shown),
               "AllOff": not any(shown)}.get(str(policy), any(shown))
    return not visible


def _names_off(expr: Any, off_refs: set[Ref], objs: _Objects, depth: int) -> bool:
    """Return True when a visibility expression names a group that is off."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(expr, Ref):
        if expr in off_refs:
            return True
        expr = objs.resolve(expr)
    if isinstance(expr, list):
        return any(_names_off(e, off_refs, objs, depth + 1) for e in expr)
    return False


class DocumentLayers:
    """A document's layer state, read from its bytes the first time a page asks."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._layers: Layers | None = None

    @staticmethod
    def of(data: bytes) -> DocumentLayers | None:
        """Return the layer state of `data`, or None when it cannot have layers: no
        `/OCProperties` in its bytes, and no object stream or encryption that could hold one
        out of sight (a viewer shows `/OC` content of such a file)."""
        if b"/OCProperties" in data or b"/ObjStm" in data or b"/Encrypt" in data:
            return DocumentLayers(data)
        return None

    def hides(self, name: str | None) -> bool:
        """Return True when content of the group named `name` (None: a membership
        dictionary) is hidden when the document opens."""
        if self._layers is None:
            self._layers = read_layers(self._data)
            self._data = b""
        return self._layers.hides(name)
