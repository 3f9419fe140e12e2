"""XLSX → text layer: each worksheet a heading (its name, level 1) and its tables.

Values come from openpyxl in read-only mode with cached values (`data_only=True`), so a
formula cell reads as Excel last showed it (empty when the file holds no cached value);
the formula itself is never evaluated or shown. The declared `<dimension>` is ignored
(it may lie): only rows present in the sheet are read, up to `limits.max_sheet_rows`
rows and `limits.max_table_cells` cells per workbook (and four times that many cell
positions looked at, empty ones included), past which the sheet is cut and flagged
`truncated`.

A sheet's used cells are split into tables at fully empty rows; each table loses its
empty leading and trailing columns. Merged ranges (`<mergeCell>`, read from the sheet
XML because read-only mode does not) keep their text in the top-left cell; any stale
value in a covered cell is blanked.

Cell text is the displayed value, simply: integers without `.0`, other floats in their
shortest round-trip form, percent formats as `12.5%`, dates as ISO (`2024-01-31`, or
`2024-01-31T09:30:00` with a time), booleans `TRUE`/`FALSE`, error values as written.

Flags: `formulas` on the layer and `formula` on each cell holding one; `hidden_text` on
a hidden (or very hidden) sheet's heading, tables and cells, and on cells in hidden rows
or columns or with bidi controls / tag characters (the text is kept); `external_ref` (external links or relationships),
`active_content` (a VBA project, e.g. `.xlsm`), `truncated`.
"""

from __future__ import annotations

import datetime as dt
import io
import re
import warnings
import zipfile
from collections.abc import Iterable
from dataclasses import replace

from ..errors import ParseFailure
from ..limits import Limits
from ..model import Element, TextLayer
from .hidden_chars import HIDDEN_CHARS_RE
from .layout import LayerBuilder
from .ooxml import check_package

PARSER = "xlsx"
VERSION = "1"

MAX_ROW = 1_048_576
MAX_COL = 16_384

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ATTR_RE = re.compile(rb"([\w:]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ROW_TAG_RE = re.compile(rb"<(?:\w+:)?row\b([^>]*)>")
_COL_TAG_RE = re.compile(rb"<(?:\w+:)?col\b([^>]*)>")
_MERGE_TAG_RE = re.compile(rb"<(?:\w+:)?mergeCell\b([^>]*)>")
_FORMULA_CELL_RE = re.compile(rb"<(?:\w+:)?c\b([^>]*?)>\s*<(?:\w+:)?f\b")
_REF_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d{1,7})$")
_LOCATOR_RE = re.compile(r"^table (\d+) r\d+c\d+$")


def _attrs(raw: bytes) -> dict[str, str]:
    out: dict[str, str] = {}
    for m in _ATTR_RE.finditer(raw):
        name = m.group(1).decode("ascii", "ignore").rsplit(":", 1)[-1]
        out[name] = (m.group(2) if m.group(2) is not None else m.group(3) or b"").decode(
            "utf-8", "replace")
    return out


def _col_index(letters: str) -> int:
    n = 0
    for ch in letters.upper():
        n = n * 26 + (ord(ch) - 64)
    return n


def _ref(ref: str) -> tuple[int, int] | None:
    """Return (row, col) of an A1 reference."""
    m = _REF_RE.match(ref.strip())
    if not m:
        return None
    col, row = _col_index(m.group(1)), int(m.group(2))
    if not (1 <= col <= MAX_COL and 1 <= row <= MAX_ROW):
        return None
    return row, col


class _SheetInfo:
    """What the sheet XML says that read-only openpyxl does not: formulas, merges,
    hidden rows and columns."""

    def __init__(self) -> None:
        self.formulas: set[tuple[int, int]] = set()
        self.any_formula = False
        self.merges: list[tuple[int, int, int, int]] = []  # r0, c0, r1, c1
        self.hidden_rows: set[int] = set()
        self.hidden_cols: list[tuple[int, int]] = []

    def col_hidden(self, col: int) -> bool:
        return any(a <= col <= b for a, b in self.hidden_cols)


def _scan_sheet(xml: bytes, limits: Limits) -> _SheetInfo:
    info = _SheetInfo()
    cap = limits.max_table_cells
    for m in _FORMULA_CELL_RE.finditer(xml):
        info.any_formula = True
        ref = _ref(_attrs(m.group(1)).get("r", ""))
        if ref:
            info.formulas.add(ref)
        if len(info.formulas) >= cap:
            break
    for m in _MERGE_TAG_RE.finditer(xml):
        first, _, last = _attrs(m.group(1)).get("ref", "").partition(":")
        p, q = _ref(first), _ref(last or first)
        if p and q:
            info.merges.append((min(p[0], q[0]), min(p[1], q[1]), max(p[0], q[0]), max(p[1], q[1])))
        if len(info.merges) >= cap:
            break
    for m in _ROW_TAG_RE.finditer(xml):
        row_attrs = _attrs(m.group(1))
        if row_attrs.get("hidden", "").lower() in ("1", "true"):
            r = row_attrs.get("r", "")
            if r.isdigit():
                info.hidden_rows.add(int(r))
            if len(info.hidden_rows) >= cap:
                break
    for m in _COL_TAG_RE.finditer(xml):
        col_attrs = _attrs(m.group(1))
        if col_attrs.get("hidden", "").lower() in ("1", "true"):
            lo, hi = col_attrs.get("min", ""), col_attrs.get("max", "")
            if lo.isdigit() and hi.isdigit():
                info.hidden_cols.append((int(lo), int(hi)))
        if len(info.hidden_cols) >= 10_000:
            break
    return info


def _number(v: float) -> str:
    if v != v or v in (float("inf"), float("-inf")):
        return str(v)
    if v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v)


def cell_text(value: object, number_format: str | None = None) -> str:
    """Return the displayed text of a cell value."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    if isinstance(value, int):
        text = str(value)
        if number_format and "%" in number_format:
            return f"{value * 100}%"
        return text
    if isinstance(value, float):
        if number_format and "%" in number_format:
            return _number(round(value * 100, 10)) + "%"
        return _number(value)
    return _CONTROL_RE.sub(" ", str(value))


def _blocks(rows: dict[int, dict[int, str]]) -> Iterable[list[int]]:
    """Yield runs of consecutive row numbers that hold text (split at empty rows)."""
    run: list[int] = []
    last = None
    for r in sorted(rows):
        if last is not None and r != last + 1:
            yield run
            run = []
        run.append(r)
        last = r
    if run:
        yield run


def _sheet_path(ws: object) -> str | None:
    path = getattr(ws, "_worksheet_path", None)
    return path if isinstance(path, str) else None


def parse(data: bytes, *, password: str | None = None, limits: Limits | None = None) -> TextLayer:
    """Return the text layer of an XLSX (or XLSM) workbook."""
    del password  # encrypted workbooks are refused by check_package
    limits = limits or Limits()
    flags = check_package(data, limits, "XLSX")
    try:
        with warnings.catch_warnings():
            # openpyxl warns about unsupported extensions and missing styles
            warnings.simplefilter("ignore")
            layer = _parse(data, limits, flags)
    except ParseFailure:
        raise
    except (RecursionError, MemoryError) as exc:
        raise ParseFailure("over_limit", f"the workbook is too large ({type(exc).__name__})") from exc
    except Exception as exc:  # noqa: BLE001 - bad bytes may break openpyxl anywhere
        raise ParseFailure("malformed", f"unreadable XLSX: {type(exc).__name__}: {exc}") from exc
    return layer


def _parse(data: bytes, limits: Limits, flags: set[str]) -> TextLayer:
    import openpyxl

    zf = zipfile.ZipFile(io.BytesIO(data))
    names = set(zf.namelist())
    if any(n.lower().startswith("xl/externallinks/") for n in names):
        flags.add("external_ref")
    wb = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True,
                                keep_links=False, keep_vba=False)
    b = LayerBuilder(PARSER, VERSION)
    cell_flags: dict[tuple[int, int, int], tuple[str, ...]] = {}
    tables = 0
    total_cells = 0
    examined = 0
    truncated = False
    try:
        for ws in wb.worksheets:
            if truncated:
                break
            hidden_sheet = getattr(ws, "sheet_state", "visible") != "visible"
            path = _sheet_path(ws)
            info = _SheetInfo()
            if path and path in names:
                with zf.open(path) as fh:
                    info = _scan_sheet(fh.read(limits.max_xml_part_bytes + 1), limits)
            if info.any_formula:
                flags.add("formulas")
            ws.reset_dimensions()  # never trust <dimension>
            rows: dict[int, dict[int, str]] = {}
            for row_no, row in enumerate(ws.iter_rows(), start=1):
                examined += len(row)
                if row_no > limits.max_sheet_rows or examined > 4 * limits.max_table_cells:
                    truncated = True  # past the row bound, or too many empty cells to wade through
                    break
                cells: dict[int, str] = {}
                for col_no, cell in enumerate(row, start=1):
                    value = getattr(cell, "value", None)
                    if value is None:
                        continue
                    text = cell_text(value, getattr(cell, "number_format", None))
                    if text.strip():
                        cells[col_no] = text
                if not cells:
                    continue
                total_cells += max(cells) - min(cells) + 1
                if total_cells > limits.max_table_cells:
                    truncated = True
                    break
                rows[row_no] = cells
            for r0, c0, r1, c1 in info.merges:
                for r in [r for r in rows if r0 <= r <= r1]:
                    for c in [c for c in rows[r] if c0 <= c <= c1 and (r, c) != (r0, c0)]:
                        del rows[r][c]
                    if not rows[r]:
                        del rows[r]
            sheet_flags = ("hidden_text",) if hidden_sheet else ()
            if rows:
                b.heading(ws.title, 1, flags=sheet_flags)
            for block in _blocks(rows):
                cols = sorted({c for r in block for c in rows[r]})
                c_lo, c_hi = cols[0], cols[-1]
                grid = [[rows[r].get(c, "") for c in range(c_lo, c_hi + 1)] for r in block]
                tables += 1
                tflags = set(sheet_flags)
                for ri, r in enumerate(block, start=1):
                    for c in rows[r]:
                        fl: list[str] = []
                        if (r, c) in info.formulas:
                            fl.append("formula")
                        if (hidden_sheet or r in info.hidden_rows or info.col_hidden(c)
                                or HIDDEN_CHARS_RE.search(rows[r][c])):
                            fl.append("hidden_text")
                            tflags.add("hidden_text")
                        if fl:
                            cell_flags[(tables, ri, c - c_lo + 1)] = tuple(fl)
                if truncated:
                    tflags.add("truncated")
                b.table(grid, flags=tuple(sorted(tflags)))
        if truncated:
            b.flag("truncated")
    finally:
        wb.close()
    for f in flags:
        b.flag(f)
    layer = b.build()
    if cell_flags:
        layer = replace(layer, elements=tuple(_with_cell_flags(layer.elements, cell_flags)))
    if len(layer.text) > limits.max_text_chars:
        raise ParseFailure(
            "over_limit",
            f"text of {len(layer.text)} characters exceeds the limit of {limits.max_text_chars}",
        )
    if not layer.text.strip():
        raise ParseFailure("empty", "the workbook holds no cell text")
    return layer


def _with_cell_flags(elements: Iterable[Element],
                     cell_flags: dict[tuple[int, int, int], tuple[str, ...]]) -> Iterable[Element]:
    for e in elements:
        if e.kind == "cell" and e.row is not None and e.col is not None:
            m = _LOCATOR_RE.match(e.locator)
            if m:
                extra = cell_flags.get((int(m.group(1)), e.row, e.col))
                if extra:
                    e = replace(e, flags=tuple(sorted(set(e.flags) | set(extra))))
        yield e
