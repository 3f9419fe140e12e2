"""Resource limits for untrusted input: what a single ingest may cost, and how big and
deep a JSON value from outside (verify input, a corrected value, a request body) may be."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from .errors import UsageError

MAX_JSON_BYTES = 64 * 1024 * 1024
MAX_JSON_DEPTH = 100
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_NESTING = re.compile(r"[\[\]{}]")


_LANGUAGE_RE = re.compile(r"[a-z][a-z0-9_]{1,31}")
OCR_DPI = (72, 600)  # the resolutions a page may be read at


@dataclass(frozen=True, slots=True)
class OcrSettings:
    """How the PDF parser reads pages that have no usable text layer from their images.

    `languages` are Tesseract language packs joined by `+` (default `eng+spa`); `dpi` is
    the resolution pages are drawn at; a page whose image would exceed `max_pixels` is not
    read, nor is a page past the first `max_pages` that need reading, and a page whose
    recognition takes over `page_seconds` is given up (the layer is flagged
    `ocr_incomplete` in each case). Every value is checked on construction: finite, in
    bounds, languages written as pack names (no paths).
    """

    languages: str = "eng+spa"
    dpi: int = 300
    max_pixels: int = 40_000_000
    page_seconds: float = 60.0
    max_pages: int = 500
    enabled: bool = True

    def __post_init__(self) -> None:
        if not all(type(v := getattr(self, f.name)) is type(f.default) and v == f.default
                   for f in fields(self)):
            self.check()  # the defaults are checked once, by a test

    def check(self) -> None:
        """Raise UsageError unless every setting is in bounds (see the class docstring)."""
        check_number("OCR dpi", self.dpi, OCR_DPI[0], OCR_DPI[1], integer=True)
        check_number("OCR max pixels per page", self.max_pixels, 10_000, 400_000_000, integer=True)
        check_number("OCR seconds per page", self.page_seconds, 0.1, 3600.0)
        check_number("OCR pages per document", self.max_pages, 0, 100_000, integer=True)
        if not isinstance(self.enabled, bool):
            raise UsageError("OCR enabled must be true or false")
        self.language_list()

    def language_list(self) -> tuple[str, ...]:
        """Return the language packs, in order; raise UsageError for a malformed list."""
        parts = tuple(self.languages.split("+")) if isinstance(self.languages, str) else ()
        if not parts or len(parts) > 8 or not all(_LANGUAGE_RE.fullmatch(p) for p in parts) \
                or len(set(parts)) != len(parts):
            raise UsageError(f"invalid OCR languages {str(self.languages)[:80]!r}: give 1-8 "
                             "distinct Tesseract pack names joined by '+', e.g. eng+spa")
        return parts


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds enforced on every input; exceeding one quarantines the file as `over_limit`
    (or `zip_bomb` / `timeout`)."""

    max_bytes: int = 200 * 1024 * 1024
    max_pages: int = 5000
    max_text_chars: int = 50_000_000
    max_zip_entries: int = 10_000
    max_zip_inflated: int = 1024 * 1024 * 1024
    max_zip_ratio: float = 200.0
    max_xml_part_bytes: int = 256 * 1024 * 1024
    max_table_cells: int = 2_000_000
    max_sheet_rows: int = 1_000_000
    max_sheet_cols: int = 16_384
    max_html_depth: int = 512
    max_form_fields: int = 10_000  # AcroForm fields of a PDF
    max_field_chars: int = 100_000  # characters of one form field's value
    parse_seconds: float = 120.0
    parse_cpu_seconds: int = 300
    parse_memory_bytes: int = 3 * 1024 * 1024 * 1024
    ocr: OcrSettings = field(default_factory=OcrSettings)


def load_json(raw: str | bytes, what: str, *, max_bytes: int = MAX_JSON_BYTES,
              max_depth: int = MAX_JSON_DEPTH) -> Any:
    """Return the JSON value in `raw`, else raise UsageError: not JSON, over `max_bytes`,
    nested deeper than `max_depth` (measured before parsing, so no recursion blows up),
    or holding a number that is not finite (`NaN`, `Infinity`, `1e400`)."""
    if len(raw) > max_bytes:
        raise UsageError(f"{what} is {len(raw)} bytes, over the {max_bytes}-byte limit")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise UsageError(f"{what} is not UTF-8 text") from None
    depth = 0
    for m in _JSON_NESTING.finditer(_JSON_STRING.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > max_depth:
            raise UsageError(f"{what} nests deeper than {max_depth} levels: flatten it")
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except ValueError as exc:  # JSONDecodeError, or an integer of over 4300 digits
        raise UsageError(f"{what} is not usable JSON: {str(exc)[:120]}") from None


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"the number {text[:40]} is out of range")
    return value


def _no_constant(text: str) -> float:
    raise ValueError(f"{text} is not a number JSON allows")


# Numbers from outside (CLI options, JSON input, settings, leases, URL paths) pass one check:
# finite, in bounds, an integer where one is meant; a row id fits SQLite's 64 bits.
ROW_ID_MAX = 2**63 - 1


def check_number(what: str, value: Any, lo: float, hi: float, *, integer: bool = False,
                 error: type[UsageError] = UsageError) -> Any:
    """Return `value` if it is a finite number in [lo, hi] (an int when `integer`), else
    raise `error` naming the bounds (never a crash on nan, inf or a huge integer)."""
    kinds = int if integer else (int, float)
    if (isinstance(value, kinds) and not isinstance(value, bool)
            and lo <= value <= hi):  # nan compares false, inf exceeds a finite bound
        return value
    shown = ("a number too large to show" if isinstance(value, int) and value.bit_length() > 64
             else repr(value) if isinstance(value, int | float | str) else type(value).__name__)
    lo_, hi_ = (str(x) if isinstance(x, int) else f"{x:g}" for x in (lo, hi))
    kind = "an integer" if integer else "a finite number"
    raise error(f"{what} must be {kind} from {lo_} to {hi_}, not {shown[:40]}")


YAML_MAX_DEPTH = 32  # a flow collection nested deeper is refused before YAML reads it


def non_finite_path(data: Any, path: str = "") -> str | None:
    """Return the key path of the first non-finite float in `data`, else None."""
    if isinstance(data, float) and not math.isfinite(data):
        return path or "(top level)"
    items = data.items() if isinstance(data, dict) else enumerate(data) \
        if isinstance(data, list) else ()
    for k, v in items:
        key = f"{path}[{k}]" if isinstance(k, int) else (f"{path}.{k}" if path else str(k))
        if (hit := non_finite_path(v, key)) is not None:
            return hit
    return None


def _bracket_depth(text: str) -> int:
    """Return the deepest nesting of [ and { in text (quotes ignored: an over-estimate)."""
    depth = top = 0
    for ch in text:
        if ch in "[{":
            depth += 1
            top = max(top, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return top


def read_yaml_file(path: str | Path, *, max_bytes: int, refuse: type[Exception],
                   what: str) -> Any:
    """Return the value in a YAML (or JSON) file given by a user, else raise `refuse`
    (one message argument): not a file (`what` says which file to give), over
    `max_bytes`, nested deeper than YAML_MAX_DEPTH, using aliases, or not UTF-8 YAML."""
    import yaml

    p = Path(path)
    if not p.is_file():
        raise refuse(f"{str(p)[:200]!r} is not a file: give {what}")
    size = p.stat().st_size
    if size > max_bytes:
        raise refuse(f"{p.name}: {size} bytes is past the {max_bytes}-byte limit")
    try:
        text = p.read_text("utf-8")
        if _bracket_depth(text) > YAML_MAX_DEPTH:
            raise refuse(f"{p.name} nests too deeply to read (more than {YAML_MAX_DEPTH} "
                         "brackets)")
        if any(isinstance(t, yaml.AliasToken) for t in yaml.scan(text)):
            raise refuse(f"{p.name}: YAML aliases (*name) are refused: write each value out")
        return yaml.safe_load(text)
    except RecursionError:
        raise refuse(f"{p.name} nests too deeply to read") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise refuse(f"{p.name} is not UTF-8 YAML: {str(exc)[:200]}") from None
