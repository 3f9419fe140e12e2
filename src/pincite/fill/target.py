"""Compile the target workbook into canonical tables of cells to fill (`target.json`).

A table on a sheet starts at a *period row*: a row whose cells right of the label column
name periods (`2024A`, `FY2024`, `ejercicio 2024`, a year) and hold no other numbers. The
rows right under it that hold only text in those columns (`Actual`, `Budget`) join its
header; the text rows just above it are its caption (title path). Every later row with a
label, up to the next period row, is a body row; its row path follows the indentation of
the label (openpyxl's `alignment.indent`, or leading spaces), so `Services` indented under
`Revenue` is `Revenue > Services`.

A body cell under a period column is a fill *target* when blank, a *formula* cell when it
holds a formula (never overwritten; its blank inputs are targets already), else *given*.
Unit and scale come from the caption and header texts (`find_scale`, `find_unit`), a
row's own label (`Revenue (EUR m)`); a cell is a percentage when its number format, its
row label or its column header holds `%` (words such as "rate" do not decide it:
"Amount computed at the statutory rate" is an amount).

The target file is validated first: an `.xlsx` name, a ZIP holding `xl/workbook.xml`,
at most `MAX_TARGET_BYTES` bytes (`MAX_UNPACKED_BYTES` once unpacked, as the ZIP
directory declares them), `MAX_SHEETS` sheets and `MAX_SCAN_CELLS` cells read.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any

from ..errors import InvalidTarget
from ..parse.tables.cues import find_scale, find_unit
from .labels import period_of

SCHEMA_NAME = "pincite.fill.target"
MAX_TARGET_BYTES = 20 * 1024 * 1024
MAX_UNPACKED_BYTES = 200 * 1024 * 1024
MAX_SHEETS = 64
MAX_SCAN_CELLS = 500_000
MAX_TARGET_CELLS = 50_000
MAX_CAPTION_ROWS = 3


def check_target(path: Path) -> bytes:
    """Return the bytes of a target workbook after the checks of the module docstring;
    raise InvalidTarget saying which failed."""
    if path.suffix.lower() != ".xlsx":
        raise InvalidTarget(path, "not an .xlsx file")
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise InvalidTarget(path, f"cannot be read ({exc.strerror})") from None
    if not path.is_file():
        raise InvalidTarget(path, "not a file")
    if size > MAX_TARGET_BYTES:
        raise InvalidTarget(path, f"{size} bytes, more than the limit of {MAX_TARGET_BYTES}")
    data = path.read_bytes()
    try:
        import io

        with zipfile.ZipFile(io.BytesIO(data)) as z:
            if "xl/workbook.xml" not in z.namelist():
                raise InvalidTarget(path, "not a spreadsheet (no xl/workbook.xml)")
            unpacked = sum(i.file_size for i in z.infolist())
            if unpacked > MAX_UNPACKED_BYTES:
                raise InvalidTarget(path, f"{unpacked} bytes once unpacked, more than the "
                                    f"limit of {MAX_UNPACKED_BYTES}")
    except zipfile.BadZipFile:
        raise InvalidTarget(path, "not a ZIP container, so not an .xlsx") from None
    return data


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    return " ".join(str(v).split())


def _is_formula(v: Any) -> bool:
    return isinstance(v, str) and v.startswith("=")


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _period_cell(v: Any) -> bool:
    if isinstance(v, int) and 1900 <= v <= 2099:
        return True
    if not isinstance(v, str) or _is_formula(v) or len(v) > 60:
        return False
    return period_of([v]).year is not None


def _indent(cell: Any, text: str) -> float:
    ind = float(getattr(getattr(cell, "alignment", None), "indent", 0) or 0)
    raw = cell.value if isinstance(cell.value, str) else ""
    return ind + (len(raw) - len(raw.lstrip(" "))) / 2


class _Sheet:
    def __init__(self, ws: Any, budget: list[int], path: Path) -> None:
        self.ws = ws
        self.title = ws.title
        self.n_rows = ws.max_row or 0
        self.n_cols = ws.max_column or 0
        budget[0] -= self.n_rows * self.n_cols
        if budget[0] < 0:
            raise InvalidTarget(path, f"more than {MAX_SCAN_CELLS} cells to read")
        self.cells: dict[tuple[int, int], Any] = {}
        for row in ws.iter_rows(min_row=1, max_row=self.n_rows, max_col=self.n_cols):
            for c in row:
                if getattr(c, "value", None) is not None or c.has_style:
                    self.cells[(c.row, c.column)] = c
        self.merged: dict[tuple[int, int], Any] = {}
        for rng in ws.merged_cells.ranges:
            top = ws.cell(rng.min_row, rng.min_col).value
            for r in range(rng.min_row, rng.max_row + 1):
                for k in range(rng.min_col, rng.max_col + 1):
                    self.merged[(r, k)] = top

    def value(self, r: int, k: int) -> Any:
        """Return the value at row r, column k (a merged range's top-left value inside it)."""
        c = self.cells.get((r, k))
        v = c.value if c is not None else None
        return self.merged.get((r, k)) if v is None else v

    def row_values(self, r: int) -> list[tuple[int, Any]]:
        """Return (column, value) of the non-empty cells of row r."""
        return [(k, v) for k in range(1, self.n_cols + 1)
                if (v := self.value(r, k)) is not None and _text(v)]


def _period_row(sh: _Sheet, r: int) -> list[int]:
    vals = sh.row_values(r)
    if len(vals) < 1:
        return []
    periods = [k for k, v in vals if _period_cell(v)]
    if not periods:
        return []
    first = min(periods)
    others = [v for k, v in vals if k > first and k not in periods]
    if any(_is_number(v) or _is_formula(v) for v in others):
        return []
    return periods


def _table(sh: _Sheet, start: int, end: int, n: int) -> dict[str, Any]:
    periods = _period_row(sh, start)
    cols = sorted(set(periods))
    first_col = min(cols)
    head_rows = [start]
    r = start + 1
    while r < end:
        vals = [(k, v) for k, v in sh.row_values(r) if k >= first_col]
        if vals and all(isinstance(v, str) and not _is_formula(v) for _, v in vals) and not [
                k for k, _ in sh.row_values(r) if k < first_col]:
            head_rows.append(r)
            cols = sorted(set(cols) | {k for k, _ in vals})
            r += 1
        else:
            break
    body_start = r
    rr = start - 1
    while rr >= 1:  # spanning headers above the periods ("Domestic", "International")
        vals = sh.row_values(rr)
        if vals and all(k >= first_col and isinstance(v, str) and not _is_formula(v)
                        and not _period_cell(v) for k, v in vals):
            head_rows.insert(0, rr)
            cols = sorted(set(cols) | {k for k, _ in vals})
            rr -= 1
        else:
            break
    caption: list[str] = []
    while rr >= 1 and len(caption) < MAX_CAPTION_ROWS:
        vals = sh.row_values(rr)
        if not vals:
            if caption:
                break
            rr -= 1
            continue
        if _period_row(sh, rr) or any(_is_number(v) for _, v in vals):
            break
        caption.insert(0, " ".join(_text(v) for _, v in vals))
        rr -= 1
    label_texts = [_text(sh.value(h, k)) for h in head_rows for k in range(1, first_col)]
    head_texts = [_text(sh.value(h, k)) for h in head_rows for k in cols]
    context = " ".join([*caption, *label_texts, *head_texts])
    scale, unit = find_scale(context), find_unit(context)
    columns: list[dict[str, Any]] = []
    for k in cols:
        path = [t for h in head_rows if (t := _text(sh.value(h, k)))]
        p = period_of(path)
        columns.append({"col": k, "column_path": path,
                        "period": {"year": p.year, "grain": p.grain, "scenario": p.scenario}})
    label_col = 1
    for k in range(1, first_col):
        if any(isinstance(sh.value(x, k), str) for x in range(body_start, end)):
            label_col = k
            break
    rows, cells = [], []
    stack: list[tuple[float, str]] = []
    from openpyxl.utils import get_column_letter

    for x in range(body_start, end):
        c = sh.cells.get((x, label_col))
        label = _text(sh.value(x, label_col))
        if not label or c is None:
            continue
        ind = _indent(c, label)
        while stack and stack[-1][0] >= ind:
            stack.pop()
        path = [s for _, s in stack] + [label]
        stack.append((ind, label))
        row_scale = find_scale(label)
        row_unit = find_unit(label)
        rows.append({"row": x, "row_path": path})
        for col in columns:
            k = col["col"]
            tc = sh.cells.get((x, k))
            v = tc.value if tc is not None else None
            fmt = str(getattr(tc, "number_format", "") or "") if tc is not None else ""
            kind = "target" if v is None or _text(v) == "" else (
                "formula" if _is_formula(v) else "given")
            pct = "%" in fmt or "%" in label or any("%" in x for x in col["column_path"])
            ref = f"{get_column_letter(k)}{x}"
            cells.append({
                "cell_id": f"{sh.title}!{ref}", "sheet": sh.title, "ref": ref, "row": x,
                "col": k, "row_path": path, "column_path": col["column_path"],
                "period": col["period"], "kind": kind,
                "value": None if kind == "target" else _text(v),
                "unit": "%" if pct else (row_unit or unit),
                "scale": None if pct else (row_scale or scale),
                "number_format": fmt,
            })
    years = [c["period"]["year"] for c in columns if c["period"]["year"]]
    return {
        "table_id": f"target:{sh.title}#t{n}", "sheet": sh.title, "caption": caption[-1] if caption else None,
        "title_path": caption, "unit": unit, "scale": scale,
        "period_grain": "fiscal_year" if years else None,
        "header_rows": head_rows, "label_col": label_col, "columns": columns, "rows": rows,
        "cells": cells,
    }


def compile_target(path: Path) -> dict[str, Any]:
    """Return the target workbook as canonical tables (`target.json`)."""
    data = check_target(path)
    import io

    from openpyxl import load_workbook

    try:
        wb = load_workbook(io.BytesIO(data), data_only=False)
    except Exception as exc:  # openpyxl raises many kinds on a damaged file
        raise InvalidTarget(path, f"cannot be read as a workbook ({type(exc).__name__})") from None
    if len(wb.worksheets) > MAX_SHEETS:
        raise InvalidTarget(path, f"{len(wb.worksheets)} sheets, more than {MAX_SHEETS}")
    budget = [MAX_SCAN_CELLS]
    tables: list[dict[str, Any]] = []
    for ws in wb.worksheets:
        sh = _Sheet(ws, budget, path)
        starts = [r for r in range(1, sh.n_rows + 1) if _period_row(sh, r)]
        # a period row right under another one is part of that table's header
        starts = [r for i, r in enumerate(starts) if i == 0 or starts[i - 1] != r - 1]
        for i, s in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else sh.n_rows + 1
            t = _table(sh, s, end, len([x for x in tables if x["sheet"] == ws.title]) + 1)
            if t["cells"]:
                tables.append(t)
    n = sum(1 for t in tables for c in t["cells"] if c["kind"] == "target")
    if n > MAX_TARGET_CELLS:
        raise InvalidTarget(path, f"{n} cells to fill, more than {MAX_TARGET_CELLS}")
    return {"schema_name": SCHEMA_NAME, "version": 1, "target": path.name,
            "sha256": hashlib.sha256(data).hexdigest(), "tables": tables,
            "target_cells": n}
