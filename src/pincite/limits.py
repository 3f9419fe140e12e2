"""Resource limits for untrusted input: what a single ingest may cost, and how big and
deep a JSON value from outside (verify input, a corrected value, a request body) may be.

Every YAML or JSON input (extraction schema, profile, tender schema, release contract,
keys file, OIDC configuration, request bodies) is read by one guarded loader,
`load_guarded`: size cap, depth cap, no YAML aliases, finite numbers, plain data only."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field, fields
from datetime import date
from pathlib import Path
from typing import Any, Literal

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
    """Return the JSON value in `raw`, else raise UsageError (see `load_guarded`)."""
    return load_guarded(raw, what, refuse=UsageError, max_bytes=max_bytes, max_depth=max_depth,
                        syntax="json")


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


YAML_MAX_DEPTH = 32  # a YAML value nested deeper (indentation or brackets) is refused
PLAIN_SCALARS = (str, int, float, bool, type(None), date)  # datetime is a date
_YAML_NUMBER = re.compile(r"[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9_]+)(?:[eE][-+]?[0-9]+)?")


def load_guarded(raw: str | bytes, what: str, *, refuse: type[Exception] = UsageError,
                 max_bytes: int = MAX_JSON_BYTES, max_depth: int = YAML_MAX_DEPTH,
                 syntax: Literal["yaml", "json"] = "yaml") -> Any:
    """Return the plain value (mappings, lists, strings, numbers, booleans, null, dates) of
    YAML or JSON text from outside, else raise `refuse` with one message that names `what`
    (the file the user gave, or "the schema"): over `max_bytes`, not UTF-8, not well formed,
    nested deeper than `max_depth` (block indentation and brackets alike, counted on the
    parser's events or the brackets before any value is built, so nothing recurses), using
    YAML anchors or aliases (no expansion), holding a number that is not finite (`.nan`,
    `.inf`, `1e400`) or a value of another type (`!!binary`, `!!set`)."""
    if len(raw) > max_bytes or (isinstance(raw, str) and len(raw.encode("utf-8", "replace"))
                                > max_bytes):
        size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "replace"))
        raise refuse(f"{what}: {size} bytes is past the {max_bytes}-byte limit")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        kind = "JSON" if syntax == "json" else "YAML"
        raise refuse(f"{what} is not UTF-8 {kind}: save it as UTF-8") from None
    if syntax == "json":
        return _json_value(text, what, refuse, max_depth)
    data = _yaml_value(text, what, refuse, max_depth)
    bad = impure_path(data)
    if bad is not None:
        raise refuse(f"{what}: {bad[0]} {bad[1]}")
    return data


def _json_value(text: str, what: str, refuse: type[Exception], max_depth: int) -> Any:
    depth = 0
    for m in _JSON_NESTING.finditer(_JSON_STRING.sub("", text)):
        depth += 1 if m.group() in "[{" else -1
        if depth > max_depth:
            raise refuse(f"{what} nests deeper than {max_depth} levels: flatten it")
    try:
        return json.loads(text, parse_float=_finite, parse_constant=_no_constant)
    except (ValueError, RecursionError) as exc:  # JSONDecodeError, a 4300-digit integer
        raise refuse(f"{what} is not usable JSON: {_one_line(exc)[:120]}") from None


def _yaml_value(text: str, what: str, refuse: type[Exception], max_depth: int) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        depth = 0
        for event in yaml.parse(text, Loader=loader):  # streamed: stops at the first refusal
            if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
                raise refuse(f"{what}: YAML aliases (*name) are refused, and anchors (&name) "
                             "with them: write each value out")
            if isinstance(event, yaml.CollectionStartEvent):
                depth += 1
                if depth > max_depth:
                    raise refuse(f"{what} nests too deeply to read (more than {max_depth} "
                                 "levels): flatten it")
            elif isinstance(event, yaml.CollectionEndEvent):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent) and not event.style \
                    and _YAML_NUMBER.fullmatch(event.value) \
                    and not math.isfinite(float(event.value)):  # 1e400: a string in YAML 1.1
                raise refuse(f"{what}: the number {event.value[:40]} is not finite: write "
                             "a finite number")
        return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader, checked above
    except RecursionError:
        raise refuse(f"{what} nests too deeply to read") from None
    except yaml.MarkedYAMLError as exc:
        if "nesting depth" in str(exc.problem):  # libyaml's own cap, met before ours
            raise refuse(f"{what} nests too deeply to read (more than {max_depth} "
                         "levels): flatten it") from None
        raise refuse(f"{what}: not valid YAML/JSON: {_one_line(exc)}") from None
    except (yaml.YAMLError, ValueError, OverflowError) as exc:  # a bad date, a huge integer
        raise refuse(f"{what}: not valid YAML/JSON: {_one_line(exc)}") from None


def _one_line(exc: Exception) -> str:
    return " ".join(str(exc).split())[:200]


def impure_path(data: Any, path: str = "") -> tuple[str, str] | None:
    """Return (key path, what is wrong) of the first value in `data` that is not plain data
    (mapping, list, string, number, boolean, null, date) or is a non-finite number, else
    None."""
    if isinstance(data, float) and not math.isfinite(data):
        return path or "(top level)", "must be a finite number (not nan or inf)"
    if isinstance(data, dict):
        for k, v in data.items():
            key = f"{path}.{k}" if path else str(k)
            if not isinstance(k, PLAIN_SCALARS) or (isinstance(k, float)
                                                    and not math.isfinite(k)):
                return key[:80], "is a key that is not a plain string or number"
            if (hit := impure_path(v, key)) is not None:
                return hit
        return None
    if isinstance(data, list):
        for i, v in enumerate(data):
            if (hit := impure_path(v, f"{path}[{i}]")) is not None:
                return hit
        return None
    if isinstance(data, PLAIN_SCALARS):
        return None
    return path or "(top level)", f"is a {type(data).__name__}, not plain data: write a " \
        "string, number, list or mapping"


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


def read_at_most(path: Path, limit: int) -> bytes:
    """Return the first `limit` bytes of a file (all of a shorter one), read in chunks so
    that a small file costs little memory whatever the limit; raise OSError."""
    chunks: list[bytes] = []
    total = 0
    with path.open("rb") as f:
        while total < limit and (chunk := f.read(min(1 << 16, limit - total))):
            chunks.append(chunk)
            total += len(chunk)
    return b"".join(chunks)


def read_capped(path: str | Path, *, max_bytes: int, refuse: type[Exception],
                what: str) -> bytes:
    """Return the bytes of a regular file a user gave, else raise `refuse`: not a file
    (`what` says which file to give), or past `max_bytes` (no more is read)."""
    p = Path(path)
    if not p.is_file():
        raise refuse(f"{str(p)[:200]!r} is not a file: give {what}")
    try:
        size = p.stat().st_size
        raw = read_at_most(p, max_bytes + 1) if size <= max_bytes else b""
    except OSError as exc:
        raise refuse(f"cannot read {str(p)[:200]!r} ({exc.strerror}): give {what}") from None
    if size > max_bytes or len(raw) > max_bytes:  # too large, or grown since
        raise refuse(f"{p.name}: {max(len(raw), size)} bytes is past the {max_bytes}-byte "
                     "limit")
    return raw


def read_yaml_file(path: str | Path, *, max_bytes: int, refuse: type[Exception],
                   what: str) -> Any:
    """Return the value in a YAML (or JSON) file given by a user, else raise `refuse`
    (one message argument): not a file (`what` says which file to give), or any refusal
    of `load_guarded` (messages name the file by its name)."""
    raw = read_capped(path, max_bytes=max_bytes, refuse=refuse, what=what)
    return load_guarded(raw, Path(path).name, refuse=refuse, max_bytes=max_bytes)
