"""Table-cell provenance on TAT-QA: does every gold cell come back with the right paths?

Each TAT-QA table is rendered twice — as HTML (every cell a plain `<td>`, header rows
included, so header detection is what is tested) and as XLSX (openpyxl, one plain string
cell per non-empty cell, written from A1) — and both are ingested through the real path
(`Ingestor`: sniffing, sandboxed parse, store). For every question with
`answer_from == "table"`, `answer_type` span or multi-span and table `mappings`, each
mapped `[row, col]` is a *case*, checked in both formats.

The oracle, from the raw table alone (`table.table`, texts whitespace-collapsed):

- A *value* is a text that, without `$ € £ %`, surrounding parentheses and spaces, is
  a plain decimal number (`1,234.5`, `-12`, `0.5`; no interior spaces, no ranges) other
  than a bare year 1900–2099: so `$ 315,652`, `(12,168)` and `41.6%` are values while
  `2019`, `2021-2022`, `2018 1` (a year with its footnote) and `—` are not. The *header rows* H are the rows above the
  first row holding a value in a column other than 0, less the rows at the bottom of
  that block that hold text only in column 0 (those are row labels). With no value row,
  H is row 0.
- Gold relation: the normalised cell text (lower case, without whitespace, `$`, `,`,
  `%`, and without a trailing scale word equal to the question's `scale`) equals a
  normalised gold answer — an *exact* case — or contains one — a *partial_cell* case
  (TAT-QA's mappings point at cells such as "Government grants1" for "Government
  grants"). A mapped cell that relates to no answer is a *gold_mismatch* (the dataset's
  mapping, not the parser, is off): counted, listed, not scored.
- A case is right in a format when all of these hold:
  1. the text layer has a cell element at that place (found through its meta: the grid
     position `grid_row`/`grid_col` for HTML, the reference `ref` for XLSX);
  2. its text relates to the answer as the raw cell does (equal, or containing it);
  3. a cell in a header row (r in H) is marked `header: "column"` and its
     `column_path` is the non-empty texts of the header rows at that column down to
     its own row;
  4. any other cell in column 0 is marked `header: "row"`; any other cell elsewhere
     carries no header mark and its `column_path` is the non-empty texts of all header
     rows at that column (spans are not inferred: TAT-QA gives none);
  5. a cell below the header rows has a `row_path` that ends with its row's column-0
     text, every earlier part being the column-0 text of a row above it below the
     header rows (parents must be real row labels); when column 0 of its row is empty,
     the `row_path` is empty;
  6. a citation of the cell (`citation_for`) verifies.

**Independent figure first.** The header-row rule above is the same rule the parser uses
(`parse.tables`), so `accuracy` measures the parser agreeing with its own rule, not
whether it is right. `question_grounded_accuracy` is the figure that does not lean on it:
for an exact case, the question's own words name what identifies the cell — its row's
label (column 0) and the texts above it in its column ("2019"; for an answer that is itself
a row label, the group labels above it), each counted when the question writes it out as
whole words — and a case is right when the cell's `row_path` holds every named
row label, its `column_path` every named column text, its value relates to the answer
and its citation verifies (cases whose question names neither are not scored there).

`accuracy` is the share of right (exact case, format) pairs; `partial_cell` counts the
partial cases and `partial_cell_accuracy` scores them the same way. `all_cells` applies
checks 1-5 to every non-empty cell of every table in the folder (questions or not), per
format: a wider, question-free view of the same oracle.
"""

from __future__ import annotations

import html
import io
import json
import re
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..vocab import IngestStatus

FORMATS = ("html", "xlsx")
_STRIP_RE = re.compile(r"[\s$,%]")
_VALUE_RE = re.compile(r"^[-\u2010-\u2015\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?$")
_YEAR_RE = re.compile(r"^(?:19|20)\d{2}$")
_SCALE_WORDS = {"thousand": ("thousands", "thousand"), "million": ("millions", "million"),
                "billion": ("billions", "billion"), "percent": ("percent",)}
_REF_RE = re.compile(r"^([A-Z]{1,3})(\d+)$")
MAX_EXAMPLES = 25


# ---- the oracle -----------------------------------------------------------------------


def _norm_space(text: str) -> str:
    return " ".join(str(text).split())


def _is_value(text: str) -> bool:
    s = re.sub(r"[$€£%]", "", text).strip()
    if s.startswith("(") and s.endswith(")"):
        s = s[1:-1].strip()
    s = s.replace(" ", "") if re.fullmatch(r"[-\u2212]\s+\d.*", s) else s
    return bool(_VALUE_RE.match(s)) and not _YEAR_RE.match(s)


def oracle_header_rows(table: list[list[str]]) -> int:
    """Return how many leading rows of a raw TAT-QA table are header rows (see above)."""
    rows = [[_norm_space(c) for c in r] for r in table]
    first = next((i for i, r in enumerate(rows) if any(_is_value(c) for c in r[1:])), None)
    if first is None:
        return 1
    k = first
    while k and not any(rows[k - 1][1:]):
        k -= 1
    return k


def normalise(text: str, scale: str = "") -> str:
    """Return the comparison form of a gold answer or a cell text."""
    s = _STRIP_RE.sub("", _norm_space(text).lower())
    for word in _SCALE_WORDS.get(scale or "", ()):
        if s.endswith(word) and len(s) > len(word):
            s = s[: -len(word)]
            break
    return s


def gold_relation(cell: str, answers: list[str], scale: str) -> str:
    """Return "exact", "partial_cell" or "gold_mismatch" for a raw cell and the answers."""
    c = normalise(cell, scale)
    forms = [normalise(a, scale) for a in answers]
    if c and any(c == f for f in forms):
        return "exact"
    if c and any(f and f in c for f in forms):
        return "partial_cell"
    return "gold_mismatch"


def check_cell(table: list[list[str]], h: int, r: int, c: int, element: Any,
               text: str, relation: str, answers: list[str], scale: str) -> list[str]:
    """Return the failed checks (2-5 of the module docstring) of one found cell."""
    failures = []
    forms = [normalise(a, scale) for a in answers]
    got = normalise(text, scale)
    if relation == "exact" and got not in forms:
        failures.append("wrong_value")
    elif relation == "partial_cell" and not any(f and f in got for f in forms):
        failures.append("wrong_value")
    meta = element.meta or {}
    header = meta.get("header")
    raw = [[_norm_space(x) for x in row] for row in table]
    if r < h:
        want = tuple(raw[i][c] for i in range(r + 1) if raw[i][c])
        if header != "column":
            failures.append("wrong_header_kind")
        elif tuple(element.column_path) != want:
            failures.append("wrong_column_path")
        return failures
    if c == 0:
        if header != "row":
            failures.append("wrong_header_kind")
    else:
        want = tuple(raw[i][c] for i in range(h) if raw[i][c])
        if header is not None:
            failures.append("wrong_header_kind")
        elif tuple(element.column_path) != want:
            failures.append("wrong_column_path")
    label = raw[r][0]
    path = tuple(element.row_path)
    if not label:
        if path:
            failures.append("wrong_row_path")
    else:
        above = {raw[i][0] for i in range(h, r) if raw[i][0]}
        if not path or path[-1] != label or any(p not in above for p in path[:-1]):
            failures.append("wrong_row_path")
    return failures


# ---- rendering ------------------------------------------------------------------------


def table_html(table: list[list[str]]) -> bytes:
    """Return an HTML page holding the table as plain `<td>` cells."""
    rows = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in row) + "</tr>\n"
        for row in table)
    return f"<!DOCTYPE html>\n<html><body>\n<table>\n{rows}</table>\n</body></html>\n".encode()


def table_xlsx(table: list[list[str]]) -> bytes:
    """Return an XLSX workbook holding the table from A1 as plain string cells."""
    import openpyxl

    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    for r, row in enumerate(table, start=1):
        for c, text in enumerate(row, start=1):
            if str(text).strip():
                cell = ws.cell(row=r, column=c, value=str(text))
                cell.data_type = "s"  # never a formula, whatever the text starts with
    out = io.BytesIO()
    wb.save(out)
    return out.getvalue()


def _ref_place(ref: str) -> tuple[int, int] | None:
    m = _REF_RE.match(ref or "")
    if not m:
        return None
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - 64
    return int(m.group(2)) - 1, col - 1


# ---- the run --------------------------------------------------------------------------


def _contexts(data: Path) -> list[tuple[str, dict[str, Any]]]:
    data = Path(data)
    files = sorted(data.glob("*.json")) if data.is_dir() else [data]
    if not files or not all(f.is_file() for f in files):
        raise UsageError(f"{data} holds no TAT-QA *.json files: give the folder of a split")
    out: list[tuple[str, dict[str, Any]]] = []
    for f in files:
        try:
            records = json.loads(f.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UsageError(f"cannot read {f}: {exc}") from None
        out.extend((f.name, rec) for rec in records)
    return out


def run_tatqa_cells(data: Path, store_url: str | None = None) -> dict[str, Any]:
    """Ingest every TAT-QA table as HTML and XLSX, check every mapped gold cell; return
    the figures (see the module docstring)."""
    from ..cite.verifier import Verifier, citation_for
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    contexts = _contexts(data)
    questions = skipped = 0
    cases: list[dict[str, Any]] = []
    for fname, ctx in contexts:
        table = ctx["table"]["table"]
        for q in ctx.get("questions") or ():
            if q.get("answer_from") != "table" or q.get("answer_type") not in ("span", "multi-span"):
                continue
            questions += 1
            places = [m["table"] for m in (q.get("mappings") or ()) if "table" in m]
            if not places:
                skipped += 1
                continue
            answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
            answers = [str(a) for a in answers]
            for r, c in places:
                raw = table[r][c] if r < len(table) and c < len(table[r]) else ""
                cases.append({
                    "file": fname, "uid": ctx["table"]["uid"], "question": q["uid"],
                    "text": str(q.get("question") or ""),
                    "row": r, "col": c, "cell": raw, "answers": answers,
                    "scale": q.get("scale") or "",
                    "relation": gold_relation(raw, answers, q.get("scale") or ""),
                })
    tables = {ctx["table"]["uid"]: ctx["table"]["table"] for _, ctx in contexts}
    needed = sorted(tables)
    by_format: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                ingested = {}
                for uid in needed:
                    for fmt in FORMATS:
                        data_bytes = table_html(tables[uid]) if fmt == "html" else table_xlsx(tables[uid])
                        name = f"{uid}.{fmt}"
                        ingested[(uid, fmt)] = ing.ingest(data_bytes, source_id=name, path=name, name=name)
            ver = Verifier(store, Principal.parse("eval:evaluator"))
            all_cells = {}
            for fmt in FORMATS:
                by_format[fmt] = _score(fmt, cases, tables, ingested, ver, citation_for)
                all_cells[fmt] = _score_all(fmt, tables, ingested, ver)
        finally:
            store.close()
    exact = [c for c in cases if c["relation"] == "exact"]
    partial = [c for c in cases if c["relation"] == "partial_cell"]
    mismatch = [c for c in cases if c["relation"] == "gold_mismatch"]
    right = sum(by_format[f]["right"] for f in FORMATS)
    pright = sum(by_format[f]["partial_right"] for f in FORMATS)
    g_n = sum(by_format[f]["question_grounded"]["evaluated"] for f in FORMATS)
    g_right = sum(by_format[f]["question_grounded"]["right"] for f in FORMATS)
    return {
        "dataset": "tatqa-cells",
        "questions": questions,
        "question_grounded_accuracy": g_right / g_n if g_n else 0.0,
        "question_grounded_cases": g_n,
        "evaluated": len(exact),
        "skipped": skipped,
        "accuracy": right / (len(exact) * len(FORMATS)) if exact else 0.0,
        "partial_cell": len(partial),
        "partial_cell_accuracy": pright / (len(partial) * len(FORMATS)) if partial else 0.0,
        "gold_mismatch": len(mismatch),
        "cases": len(cases),
        "tables": len(needed),
        "by_format": {f: {k: v for k, v in by_format[f].items() if k != "failures"}
                      for f in FORMATS},
        "failures": [x for f in FORMATS for x in by_format[f]["failures"]][:MAX_EXAMPLES],
        "all_cells": all_cells,
        "gold_mismatches": [
            {k: c[k] for k in ("uid", "question", "row", "col", "cell", "answers")}
            for c in mismatch[:MAX_EXAMPLES]],
    }


def _tokens(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+(?:[-.][a-z0-9]+)*", _norm_space(text).lower()))


def question_terms(table: list[list[str]], r: int, c: int, question: str
                   ) -> tuple[list[str], list[str]]:
    """Return (row terms, column terms): the texts the question itself names for a gold cell
    — its row's label (column 0) and the cells above it in its column, or for a row label
    the labels above it — each when the question writes it out. The dataset's own words
    say which row and column the answer is in; pincite's header rule plays no part."""
    q = f" {_tokens(question)} "
    raw = [[_norm_space(x) for x in row] for row in table]

    def said(t: str) -> bool:
        return bool(t and _tokens(t) and f" {_tokens(t)} " in q)

    above = [raw[i][c] for i in range(r) if c < len(raw[i]) and said(raw[i][c])]
    if c == 0:  # a row label: the labels above it that the question names are its parents
        return above, []
    return [t for t in (raw[r][0],) if said(t)], above


def grounded_problems(table: list[list[str]], r: int, c: int, question: str,
                      element: Any) -> list[str] | None:
    """Return the named terms the cell's paths lack (`row_label_not_in_path`,
    `column_not_in_path`), or None when the question names neither its row nor column."""
    row_terms, col_terms = question_terms(table, r, c, question)
    if not row_terms and not col_terms:
        return None
    rows = {_tokens(p) for p in element.row_path}
    cols = {_tokens(p) for p in element.column_path}
    out = []
    if any(_tokens(t) not in rows for t in row_terms):
        out.append("row_label_not_in_path")
    if any(_tokens(t) not in cols for t in col_terms):
        out.append("column_not_in_path")
    return out


def _score(fmt: str, cases: list[dict[str, Any]], tables: dict[str, list[list[str]]],
           ingested: dict[tuple[str, str], Any], ver: Any, citation_for: Any) -> dict[str, Any]:
    layers: dict[str, Any] = {}
    right = partial_right = evaluated = partial_n = 0
    grounded_n = grounded_right = 0
    grounded_classes: Counter[str] = Counter()
    classes: Counter[str] = Counter()
    failures: list[dict[str, Any]] = []
    for case in cases:
        if case["relation"] == "gold_mismatch":
            continue
        uid = case["uid"]
        if uid not in layers:
            layers[uid] = _load(fmt, ingested[(uid, fmt)], ver)
        loaded = layers[uid]
        is_exact = case["relation"] == "exact"
        if is_exact:
            evaluated += 1
        else:
            partial_n += 1
        if loaded is None:
            problems = ["not_ingested"]
            el = None
        else:
            rev, layer, cells = loaded
            el = cells.get((case["row"], case["col"]))
            if el is None:
                problems = ["missing_cell"]
            else:
                text = layer.layer.text[el.char_start:el.char_end]
                table = tables[uid]
                problems = check_cell(table, oracle_header_rows(table), case["row"], case["col"],
                                      el, text, case["relation"], case["answers"], case["scale"])
                verified = ver.verify(citation_for(rev, layer, el.char_start, el.char_end)).quote_verified
                if not verified:
                    problems.append("not_verified")
                grounded = grounded_problems(table, case["row"], case["col"], case["text"], el)
                if grounded is not None and is_exact:
                    grounded_n += 1
                    value_ok = "wrong_value" not in problems and verified
                    grounded_right += int(value_ok and not grounded)
                    grounded_classes.update(grounded + ([] if value_ok else ["value_or_citation"]))
        if not problems:
            if is_exact:
                right += 1
            else:
                partial_right += 1
            continue
        classes.update(problems)
        failures.append({
            "format": fmt, "uid": uid, "question": case["question"],
            "row": case["row"], "col": case["col"], "cell": case["cell"],
            "answers": case["answers"], "relation": case["relation"], "problems": problems,
            "locator": el.locator if el is not None else None,
            "row_path": list(el.row_path) if el is not None else None,
            "column_path": list(el.column_path) if el is not None else None,
        })
    return {
        "evaluated": evaluated, "right": right,
        "accuracy": right / evaluated if evaluated else 0.0,
        "question_grounded": {
            "evaluated": grounded_n, "right": grounded_right,
            "accuracy": grounded_right / grounded_n if grounded_n else 0.0,
            "failure_classes": dict(sorted(grounded_classes.items()))},
        "partial_cell": partial_n, "partial_right": partial_right,
        "failure_classes": dict(sorted(classes.items())),
        "failures": failures,
    }


def _score_all(fmt: str, tables: dict[str, list[list[str]]],
               ingested: dict[tuple[str, str], Any], ver: Any) -> dict[str, Any]:
    """Check checks 1-5 on every non-empty cell of every table (not only mapped ones)."""
    n = right = 0
    classes: Counter[str] = Counter()
    examples: list[dict[str, Any]] = []
    for uid, table in tables.items():
        loaded = _load(fmt, ingested[(uid, fmt)], ver)
        h = oracle_header_rows(table)
        for r, row in enumerate(table):
            for c, raw in enumerate(row):
                if not _norm_space(raw):
                    continue
                n += 1
                el = loaded[2].get((r, c)) if loaded else None
                if el is None:
                    problems = ["missing_cell"]
                else:
                    text = loaded[1].layer.text[el.char_start:el.char_end]  # type: ignore[index]
                    problems = check_cell(table, h, r, c, el, text, "exact", [raw], "")
                if not problems:
                    right += 1
                    continue
                classes.update(problems)
                if len(examples) < 10:
                    examples.append({"uid": uid, "row": r, "col": c, "cell": raw,
                                     "problems": problems,
                                     "row_path": list(el.row_path) if el else None,
                                     "column_path": list(el.column_path) if el else None})
    return {"cells": n, "right": right, "accuracy": right / n if n else 0.0,
            "failure_classes": dict(sorted(classes.items())), "examples": examples}


def _load(fmt: str, result: Any, ver: Any) -> tuple[Any, Any, dict[tuple[int, int], Any]] | None:
    """Return (revision, loaded layer, {(row, col) of the raw table: cell element})."""
    if result.status == IngestStatus.QUARANTINED or result.doc_id is None:
        return None
    rev = ver.revision(result.doc_id)
    loaded = ver.layer(rev) if rev is not None else None
    if loaded is None:
        return None
    cells: dict[tuple[int, int], Any] = {}
    for e in loaded.layer.elements:
        if e.kind != "cell" or not e.meta:
            continue
        if fmt == "xlsx":
            place = _ref_place(e.meta.get("ref", ""))
        else:
            place = (e.meta.get("grid_row"), e.meta.get("grid_col"))
        if place is not None:
            cells[place] = e  # type: ignore[index]
    return rev, loaded, cells
