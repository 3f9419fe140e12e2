"""`pincite eval fill`: fill TAT-QA tables relabelled as operating models.

Each context becomes a *source* (an HTML page: its paragraphs and its table as plain
`<td>` cells, ingested through the real path) and a *target* workbook built from the
table's labels so that matching is never string equality:

- the *answer cells* are the value cells a question of the context uses (its span answers,
  the numbers of its derivation, its `facts`); they are blanked; every other value cell
  keeps its text (given), an empty one holds `–` (nothing to fill);
- the target's words come from the eval's own label file (`evals/fill_labels/`, written
  without reading the product's synonym table) and its own regexes (`fill_relabel`), never
  from `pincite.fill` or `pincite.parse`, so the product is not graded with its own
  vocabulary (the report says `"labels": "independent"`);
- a header naming one whole year is respelled in a style of the file (`2019` → `FY2019`,
  `FY19`, `2019A`, `Fiscal year 2019`, …), other header words kept, spanning headers
  merged over their columns;
- a row label takes one of the file's respellings (`Cost of revenues` → `COGS`,
  `Total revenue` → `Revenues, total`); a label with none changes case and `and`/`&`
  (`row_labels` counts each kind); rows under a section row (a label with no value) are
  indented under it;
- where the table states its scale (`(in millions)`, `$'000`, `€m`) and no `except`, the
  title states the next one up in a wording of the file (`USD billions`, `$bn`), so
  amounts must be converted (÷1000);
- a percent answer cell is formatted `0.0%`, so the expected value is the fraction.

Two other contexts' sources are passed to every fill as distractors (routing must find
the right table). A cell is `written_right` when the write equals the expected value,
`written_wrong` otherwise (class `wrong_table`, `wrong_row`, `wrong_period` or
`wrong_unit`), else `unresolved` with its class (`ambiguous`, `missing_route`,
`unsupported_write`, `schema_gap` — the target could not hold the cell — or the axis that
failed to align: `wrong_row`, `wrong_period`, `wrong_unit`). Each failure keeps the seed's
reproduce record. Table-level, per target table: whether its context's table is the first
route (`route_top1`) or among those kept (`route_found`). Scoring: `fill_scoring`.

With `--folds K` the contexts are split by `evals.folds.fold_of`; per fold, a row aligner
(`fill.row_model`) is fitted on the other folds' candidate pairs (`fill_rows_fit`, always
from the independent labels' targets), the setting — keep threshold, `min_score`,
`margin` — is chosen on the other folds ranked by cross-fitted aligners, and the
held-out fold is ranked by the aligner of the other folds (`fill_choice`). Beside it:
the keep threshold alone at the shipped write rule (`shipped_rule`), and the rules alone
(`rules_only`). `refit=True` also returns the aligner to ship (`refit`;
`scripts/fit_fill_aligner.py`). `words=fill_product_words.product_words()` builds the
targets in the product's own vocabulary, as before the label file
(`scripts/eval_fill_product.py`).
"""

from __future__ import annotations

import html
import io
import re
import tempfile
from collections import Counter
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from ..evals.fill_choice import (
    Ranked,
    decide,
    fold_report,
    keep_all,
    rates,
    refit_shipped,
    total,
)
from ..evals.fill_relabel import (
    NEXT_SCALE,
    TargetLabels,
    TargetWords,
    default_labels,
    independent_words,
    load_labels,
)
from ..evals.fill_relabel import respell_label as respell_label
from ..evals.fill_relabel import respell_period as respell_period
from ..evals.fill_rows_fit import case_pairs
from ..evals.fill_scoring import facts_of, score_case
from ..evals.folds import check_folds
from ..evals.tatqa import _contexts, _is_value, _norm_space, oracle_header_rows
from ..fill.rank import MARGIN, MIN_SCORE
from ..fill.row_model import active_aligner, label_encoder
from ..fill.solve import run_fill
from ..fill.target import compile_target

MAX_EXAMPLES = 60
_NUM_RE = re.compile(r"-?\d[\d,]*\.?\d*")
_NOT_SPANNING = re.compile(
    r"(?i)^notes?$|ended|year|fiscal|months|september|december|june|march")


def _dec(text: Any) -> Decimal | None:
    s = re.sub(r"[$€£%,\s]", "", str(text))
    neg = s.startswith("(") and s.endswith(")")
    s = s.strip("()")
    try:
        d = Decimal(s)
    except (InvalidOperation, ValueError):
        return None
    if not d.is_finite():
        return None
    return -d if neg else d


def answer_values(ctx: Mapping[str, Any]) -> set[Decimal]:
    """Return the numbers the questions of a context use (answers, derivations, facts)."""
    out: set[Decimal] = set()
    for q in ctx.get("questions") or ():
        if q.get("answer_from") == "text":
            continue
        ans = q.get("answer")
        items = ans if isinstance(ans, list) else [ans]
        items = [*items, *(q.get("facts") or ())]
        items += _NUM_RE.findall(str(q.get("derivation") or ""))
        for a in items:
            d = _dec(a)
            if d is not None:
                out.add(abs(d))
    return out


def build_case(ctx: Mapping[str, Any], labels: TargetLabels | TargetWords | None = None
               ) -> dict[str, Any] | None:
    """Return the source HTML, the target workbook bytes and the expected answer cells of a
    context (None when it has no answer cell); the target's words come from `labels`
    (default: evals/fill_labels/tatqa_dev.json), never from the product's vocabulary
    unless `labels` is `fill_product_words.product_words()`."""
    from openpyxl import Workbook
    from openpyxl.styles import Alignment
    from openpyxl.utils import get_column_letter

    words = labels if isinstance(labels, TargetWords) else independent_words(labels)
    uid = ctx["table"]["uid"]
    raw = [[_norm_space(c) for c in row] for row in ctx["table"]["table"]]
    n_cols = max((len(r) for r in raw), default=0)
    raw = [r + [""] * (n_cols - len(r)) for r in raw]
    h = oracle_header_rows(raw)
    for r in range(h, len(raw)):  # a second header inside the body: keep the first block
        if any(words.has_year(x) for x in raw[r][1:]) and not any(
                _is_value(x) for x in raw[r][1:]):
            raw = raw[:r]
            break
    wanted = answer_values(ctx)
    answers = {(r, c) for r in range(h, len(raw)) for c in range(1, n_cols)
               if raw[r][0] and _is_value(raw[r][c]) and (d := _dec(raw[r][c])) is not None
               and abs(d) in wanted}
    if not answers or h == 0:
        return None
    text = " ".join(" ".join(r) for r in raw)
    src_scale = words.scale_of(text)
    relabel = NEXT_SCALE.get(src_scale or "") if "except" not in text.casefold() else None
    wb = Workbook()
    ws = wb.active
    ws.title = "Model"
    title = words.title(relabel, text, uid) if relabel else None
    ws.append([f"Operating model ({title})" if title else "Operating model"])
    ws.append([])
    top = 3
    year_row = next((i for i in range(h) if any(words.has_year(x) for x in raw[i][1:])), None)
    if year_row is None:
        return None

    def bare(x: str) -> str:
        """Return a spanning header's words without its unit or scale ("(in thousand NT dollars)")."""
        return re.sub(r"\([^)]*\)", "", x).strip() if words.scale_of(x) or words.names_unit(x) else x

    def spanning(x: str) -> bool:
        """Return True when a header above the periods names something (not a date or unit)."""
        x = bare(x)
        return bool(x and not words.has_year(x) and re.search(r"[A-Za-z]{3}", x)
                    and not words.scale_of(x) and not words.names_unit(x)
                    and not _NOT_SPANNING.search(x))

    upper = [i for i in range(h) if i != year_row and any(spanning(x) for x in raw[i][1:])]
    out_r = top
    for i in upper:
        last = None
        for c in range(1, n_cols):
            if spanning(raw[i][c]):
                ws.cell(out_r, c + 1, bare(raw[i][c]))
                last = c
            elif last is not None and raw[year_row][c]:
                ws.merge_cells(start_row=out_r, start_column=last + 1, end_row=out_r,
                               end_column=c + 1)
        out_r += 1
    ws.cell(out_r, 1, "Metric")
    for c in range(1, n_cols):
        if raw[year_row][c]:
            ws.cell(out_r, c + 1, words.period(raw[year_row][c], f"{uid}:{c}"))
    out_r += 1
    expected = []
    kinds: Counter[str] = Counter()
    row_map: dict[int, int] = {}  # target sheet row -> the TAT-QA grid row it was built from
    section = False
    for r in range(h, len(raw)):
        label = raw[r][0]
        if not label:
            continue
        values = [raw[r][c] for c in range(1, n_cols)]
        is_section = not any(values)
        lab = ws.cell(out_r, 1, words.label(label, f"{uid}:{r}"))
        row_map[out_r] = r
        kinds[words.kind(label)] += 1
        if section and not is_section and not label.casefold().startswith("total"):
            lab.alignment = Alignment(indent=1)
        if is_section:
            section = True
        for c in range(1, n_cols):
            if not raw[year_row][c]:
                continue
            cell = ws.cell(out_r, c + 1)
            if (r, c) in answers:
                d = _dec(raw[r][c])
                assert d is not None
                pct = "%" in raw[r][c]
                if pct:
                    cell.number_format = "0.0%"
                    d = d / 100
                elif relabel:
                    d = d / 1000
                expected.append({"ref": f"{get_column_letter(c + 1)}{out_r}", "row": r,
                                 "col": c, "cell": raw[r][c], "expected": d,
                                 "row_path": [label], "column_path": [raw[i][c] for i in range(h) if raw[i][c]]})
            elif not is_section:
                cell.value = raw[r][c] or "–"
                cell.data_type = "s"
        out_r += 1
    buf = io.BytesIO()
    wb.save(buf)
    paras = "".join(f"<p>{html.escape(p['text'])}</p>\n" for p in sorted(
        ctx.get("paragraphs") or (), key=lambda p: p.get("order", 0)))
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>\n"
                   for row in raw)
    page = (f"<!DOCTYPE html>\n<html><body>\n{paras}<table>\n{rows}</table>\n</body></html>\n")
    return {"uid": uid, "source": page.encode(), "target": buf.getvalue(),
            "cells": expected, "scale_relabel": bool(relabel), "label_kinds": kinds,
            "row_map": row_map}


def run_fill_eval(data: Path, store_url: str | None = None, folds: int | None = None,
                  limit: int | None = None, label_file: Path | None = None,
                  words: TargetWords | None = None, aligner: str | None = "shipped",
                  refit: bool = False) -> dict[str, Any]:
    """Run the fill eval on a TAT-QA folder; return the JSON report (module docstring).
    `words`: the target's words (default: the label file's); `aligner`: "shipped" (the
    shipped row aligner where MiniLM is installed) or None (rows by the rules alone);
    `refit`: also fit the aligner to ship (`fill_choice.refit_shipped`)."""
    from ..limits import check_number
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    if limit is not None:
        check_number("--limit", limit, 1, 10**6, integer=True)
    contexts = [ctx for _, ctx in _contexts(data)][:limit]
    labels = load_labels(label_file) if label_file is not None else default_labels()
    own_words = independent_words(labels)
    words = words or own_words
    cases = [c for c in (build_case(ctx, words) for ctx in contexts) if c is not None]
    if folds is not None:
        folds = check_folds(folds, [c["uid"] for c in cases])
    encoder = label_encoder() if aligner is not None else None
    shipped = active_aligner() if aligner == "shipped" else None
    # aligners are fitted on the independent words' pairs, whatever words the targets use
    pair_cases = {c["uid"]: c for c in (cases if words is own_words else (
        build_case(ctx, own_words) for ctx in contexts)) if c is not None}
    who = Principal.parse("eval:fill:analysts")
    counts: dict[str, Counter[str]] = {}
    records: list[dict[str, Any]] = []
    ranked: list[Ranked] = []
    pairs: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-fill-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store", create=True)
        try:
            with Ingestor(store, tenant="eval", acl=["group:analysts"], sandbox=False) as ing:
                for c in cases:
                    ing.ingest(c["source"], source_id=f"tatqa/{c['uid']}.html",
                               path=f"{c['uid']}.html", name=f"{c['uid']}.html")
            for i, c in enumerate(cases):
                tpath = Path(tmp) / f"{c['uid']}.xlsx"
                tpath.write_bytes(c["target"])
                others = [cases[(i + k) % len(cases)]["uid"] for k in (1, 2) if len(cases) > k]
                docs = [f"tatqa/{c['uid']}.html", *(f"tatqa/{u}.html" for u in others)]
                res = run_fill(store, who, tpath, docs, min_score=0.0, margin=0.0,
                               aligner=shipped)
                uni, tgt = res.artifacts["facts"], res.artifacts["target"]
                facts_at = facts_of(c, uni)
                dec, prog = decide(keep_all(res.artifacts["candidates"]), uni, MIN_SCORE, MARGIN)
                counts[c["uid"]], recs = score_case(c, facts_at, res.artifacts["routing"], dec,
                                                    prog)
                records.extend(recs)
                ranked.append(Ranked(c, tgt, uni, facts_at))
                pc, ptgt = pair_cases.get(c["uid"]), tgt
                if pc is not None and encoder is not None and (folds is not None or refit):
                    if pc is not c:
                        (Path(tmp) / "pairs.xlsx").write_bytes(pc["target"])
                        ptgt = compile_target(Path(tmp) / "pairs.xlsx")
                    pairs[c["uid"]] = case_pairs(c["uid"], pc["row_map"], ptgt, uni, encoder)
        finally:
            store.close()
    tot = total(counts, list(counts))
    by_class: dict[str, list[dict[str, Any]]] = {}
    for r in records:
        by_class.setdefault(r["failure_class"], []).append(r)
    out: dict[str, Any] = {
        **rates(tot), "contexts": len(cases), "min_score": MIN_SCORE, "margin": MARGIN,
        "row_aligner": None if shipped is None else {
            "threshold": shipped[0].threshold, "provenance": dict(shipped[0].provenance)},
        "failure_classes": {k[6:]: v for k, v in sorted(tot.items()) if k.startswith("class:")},
        "examples": {k: v[:MAX_EXAMPLES] for k, v in sorted(by_class.items())},
        "scale_relabelled_contexts": sum(1 for c in cases if c["scale_relabel"]),
        "labels": words.name, "label_file": words.path,
        "row_labels": dict(sorted(sum((c["label_kinds"] for c in cases), Counter()).items())),
        "tables": {"target_tables": tot["target_tables"],
                   "route_top1": tot["route_top1"], "route_found": tot["route_found"]}}
    if folds is not None:
        out["folds"] = fold_report(ranked, pairs, encoder, folds)
    if refit:
        out["refit"] = refit_shipped(ranked, pairs, encoder, {
            "data": str(data), "contexts": len(cases), "labels": own_words.path})
    return out
