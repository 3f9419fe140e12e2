"""XLSX → text layer: each worksheet a heading (its name, level 1) and its tables.

Values come from openpyxl in read-only mode with cached values (`data_only=True`), so a
formula cell reads as Excel last showed it (empty when the file holds no cached value);
the formula itself is never evaluated or shown. The declared `<dimension>` is ignored
(it may lie): only rows present in the sheet are read, up to `limits.max_sheet_rows`
rows and `limits.max_table_cells` cells per workbook (and four times that many cell
positions looked at, empty ones included), past which the sheet is cut and flagged
`truncated`.

A sheet's used cells are split into tables at fully empty rows, except that a lone
one-cell row (a title) joins the table below it, at most two empty rows away, and is its
caption; each table loses its empty leading and trailing columns (and the builder the
columns empty throughout). Merged ranges (`<mergeCell>`, read from the sheet XML because
read-only mode does not) keep their text in the top-left cell, any stale value in a
covered cell blanked, and reach the builder as spans; alignment indentation of text
cells is their indentation. Header rows and the row-label column are detected
(`parse.tables`). Version 2: each cell's locator is its reference, `Sheet1!B4`
(`'My Sheet'!B4`), with header paths in `row_path`/`column_path`.

Cell text is the displayed value, simply: integers without `.0`, other floats in their
shortest round-trip form, percent formats as `12.5%`, dates as ISO (`2024-01-31`, or
`2024-01-31T09:30:00` with a time), booleans `TRUE`/`FALSE`, error values as written.

Flags: `formulas` on the layer and `formula` on each cell holding one;
`formula_without_value` on the layer and on each table with a formula cell that has no
cached value (a file written by a program that does not compute formulas: the cell's
value is unknown, so it is absent from the text, and the table says so); `hidden_text` on
a hidden (or very hidden) sheet's heading, tables and cells, and on cells in hidden rows
or columns or with bidi controls / tag characters (the text is kept); `external_ref` (external links or relationships),
`active_content` (a VBA project, e.g. `.xlsm`), `truncated`.
"""

from __future__ import annotations

import bisect
import datetime as dt
import io
import re
import warnings
import zipfile
from collections.abc import Iterable

from ..errors import ParseFailure
from ..limits import Limits
from ..model import TextLayer
from .hidden_chars import HIDDEN_CHARS_RE
from .layout import LayerBuilder
from .ooxml import check_package

PARSER = "xlsx"
VERSION = "2"

TITLE_GAP = 2  # empty rows allowed between a title row and its table

MAX_ROW = 1_048_576
MAX_COL = 16_384

_CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_ATTR_RE = re.compile(rb"([\w:]+)\s*=\s*(?:\"([^\"]*)\"|'([^']*)')")
_ROW_TAG_RE = re.compile(rb"<(?:\w+:)?row\b([^>]*)>")
_COL_TAG_RE = re.compile(rb"<(?:\w+:)?col\b([^>]*)>")
_MERGE_TAG_RE = re.compile(rb"<(?:\w+:)?mergeCell\b([^>]*)>")
_FORMULA_CELL_RE = re.compile(rb"<(?:\w+:)?c\b([^>]*?)>\s*<(?:\w+:)?f\b")
_REF_RE = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d{1,7})$")


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

    def hidden_col_mask(self) -> bytearray:
        """Return one byte per column number (0..MAX_COL): 1 where the column is hidden."""
        mask = bytearray(MAX_COL + 1)
        for a, b in self.hidden_cols:
            a, b = max(1, a), min(MAX_COL, b)
            if a <= b:
                mask[a:b + 1] = b"\x01" * (b - a + 1)
        return mask


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


def _titled_blocks(rows: dict[int, dict[int, str]]) -> Iterable[tuple[list[int], str | None]]:
    """Yield (row numbers, caption) per table: a lone one-cell row with at most
    `TITLE_GAP` empty rows below it is the title of the block that follows, and joins it
    (its blank rows are left out of the text)."""
    pending: list[int] | None = None
    for block in _blocks(rows):
        if pending is not None:
            if block[0] - pending[-1] - 1 <= TITLE_GAP:
                yield pending + block, next(iter(rows[pending[0]].values()))
                pending = None
                continue
            yield pending, None
            pending = None
        if len(block) == 1 and len(rows[block[0]]) == 1 and \
                len(next(iter(rows[block[0]].values()))) <= 200:
            pending = block
            continue
        yield block, None
    if pending is not None:
        yield pending, None


def _letters(col: int) -> str:
    """Return the column letters of a 1-based column number (28 → AB)."""
    out = ""
    while col > 0:
        col, rem = divmod(col - 1, 26)
        out = chr(65 + rem) + out
    return out


def _indent_level(cell: object) -> int:
    try:
        return int(getattr(getattr(cell, "alignment", None), "indent", 0) or 0)
    except (TypeError, ValueError, AttributeError, IndexError, KeyError):
        return 0


def _apply_merges(rows: dict[int, dict[int, str]], merges: list[tuple[int, int, int, int]],
                  budget: int) -> tuple[dict[tuple[int, int], tuple[int, int]], bool]:
    """Blank the cells merged ranges cover (their text stays in the top-left cell) and
    return {top-left: (rowspan, colspan)} for ranges whose top-left holds text, plus
    whether the work budget ran out (a merged-cell storm)."""
    spans: dict[tuple[int, int], tuple[int, int]] = {}
    keys = sorted(rows)
    for r0, c0, r1, c1 in merges:
        if r0 in rows and c0 in rows[r0]:
            spans[(r0, c0)] = (r1 - r0 + 1, c1 - c0 + 1)
        i = bisect.bisect_left(keys, r0)
        while i < len(keys) and keys[i] <= r1:
            cells = rows[keys[i]]
            budget -= 1 + min(len(cells), c1 - c0 + 1)
            if budget < 0:
                return spans, True
            if c1 - c0 + 1 < len(cells):
                doomed = [c for c in range(c0, c1 + 1) if c in cells]
            else:
                doomed = [c for c in cells if c0 <= c <= c1]
            for c in doomed:
                if (keys[i], c) != (r0, c0):
                    del cells[c]
            i += 1
    for r in [r for r in keys if not rows[r]]:
        del rows[r]
    return spans, False


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
            indents: dict[tuple[int, int], float] = {}
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
                        if isinstance(value, str):
                            level = _indent_level(cell)
                            if level:
                                indents[(row_no, col_no)] = level
                if not cells:
                    continue
                total_cells += max(cells) - min(cells) + 1
                if total_cells > limits.max_table_cells:
                    truncated = True
                    break
                rows[row_no] = cells
            spans, cut = _apply_merges(rows, info.merges, 4 * total_cells + 100_000)
            truncated = truncated or cut
            hidden_cols = info.hidden_col_mask()
            spans_by_row: dict[int, list[tuple[int, tuple[int, int]]]] = {}
            for (r, c), span in spans.items():
                spans_by_row.setdefault(r, []).append((c, span))
            sheet_flags = ("hidden_text",) if hidden_sheet else ()
            # formula cells the file holds no cached value for: never shown, never dropped
            # silently (the table and the layer say so)
            uncached = {r for r, c in info.formulas if c not in rows.get(r, {})}
            if uncached:
                flags.add("formula_without_value")
            if rows:
                b.heading(ws.title, 1, flags=sheet_flags)
            for block, caption in _titled_blocks(rows):
                c_lo = min(c for r in block for c in rows[r])
                grid: list[list[str]] = []
                refs: list[list[str | None]] = []
                cflags: dict[tuple[int, int], tuple[str, ...]] = {}
                tflags = set(sheet_flags)
                for ri, r in enumerate(block):
                    cells = rows.get(r, {})
                    width = (max(cells) - c_lo + 1) if cells else 0
                    grid.append([cells.get(c_lo + i, "") for i in range(width)])
                    refs.append([f"{_letters(c_lo + i)}{r}" if (c_lo + i) in cells else None
                                 for i in range(width)])
                    for c, text in cells.items():
                        fl: list[str] = []
                        if (r, c) in info.formulas:
                            fl.append("formula")
                        if (hidden_sheet or r in info.hidden_rows or hidden_cols[min(c, MAX_COL)]
                                or HIDDEN_CHARS_RE.search(text)):
                            fl.append("hidden_text")
                            tflags.add("hidden_text")
                        if fl:
                            cflags[(ri, c - c_lo)] = tuple(fl)
                bspans: dict[tuple[int, int], tuple[int, int]] = {}
                bindents: dict[tuple[int, int], float] = {}
                for ri, r in enumerate(block):
                    for c, (rs, cs) in spans_by_row.get(r, ()):
                        if c >= c_lo:
                            bspans[(ri, c - c_lo)] = (bisect.bisect_left(block, r + rs) - ri, cs)
                    for c in rows[r]:
                        lvl = indents.get((r, c))
                        if lvl:
                            bindents[(ri, c - c_lo)] = float(lvl)
                if truncated:
                    tflags.add("truncated")
                if any(block[0] <= r <= block[-1] + 1 for r in uncached):  # + a totals row
                    tflags.add("formula_without_value")
                b.table(grid, flags=tuple(sorted(tflags)), spans=bspans, cell_flags=cflags,
                        indents=bindents, refs=refs, sheet=ws.title, caption=caption)
        if truncated:
            b.flag("truncated")
    finally:
        wb.close()
    for f in flags:
        b.flag(f)
    return b.finish(limits.max_text_chars, "the workbook holds no cell text")
