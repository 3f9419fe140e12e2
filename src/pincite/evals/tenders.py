"""Tender extraction: the deterministic extractor on tender cases nobody wrote rules for.

`run_tenders(DIR)` ingests every case of a tender corpus (`DIR/gold.json`, see
`evals.tender_gold`; default examples/tenders-dev), revisions after the documents they
revise, runs `run_extraction` with the tender schema (examples/tender/schema.yaml) over
each case's documents as one case (no index: rules only, as `eval cuad`), and judges each
(case, field) by its decided outcome:

| outcome        | gold stated, value right | stated, value wrong | blank or absent       |
|----------------|--------------------------|---------------------|-----------------------|
| SHOW           | shown_right              | shown_wrong         | shown_wrong           |
| FLAG           | flagged_right            | flagged_wrong       | flagged_wrong         |
| REVIEW         | review                   | review              | review                |
| ABSTAIN        | abstained_wrong          | abstained_wrong     | abstained_right       |

and counts `blank_in_document` (a blank field abstained with that reason).

Cases are split deterministically into K folds (`tender_gold.folds_of`, a case's documents
together): the last fold is **held out**, the others are the **fit** part — rules are
tuned on fit only. Figures for both sit side by side, with Wilson 95 % intervals:
`show_precision` (shown right / shown), `wrong_shown_or_flagged`, `shown_or_flagged_right`
(right SHOW/FLAG over stated fields), `abstain_precision` and `blank_in_document` over
blank fields. `--split fit|heldout` runs only one part. Cases of a later `batch` (written
after the rules were tuned on earlier ones) also get their own figures, per part.
"""

from __future__ import annotations

import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..review.calibration import wilson
from ..vocab import DecisionReason, IngestStatus, Outcome
from .tender_gold import GoldCase, folds_of, load_gold, value_right

PARTS = ("fit", "heldout")
KINDS = ("shown_right", "shown_wrong", "flagged_right", "flagged_wrong", "review",
         "abstained_right", "abstained_wrong")
MAX_FOLDS = 20


def checkout_path(*parts: str) -> Path:
    """Return a path under the source checkout this pincite runs from."""
    return Path(__file__).resolve().parents[3].joinpath(*parts)


def default_data() -> Path:
    """Return examples/tenders-dev of the source checkout."""
    return checkout_path("examples", "tenders-dev")


def default_schema() -> Path:
    """Return examples/tender/schema.yaml of the source checkout."""
    path = checkout_path("examples", "tender", "schema.yaml")
    if not path.is_file():
        raise UsageError("examples/tender/schema.yaml is not next to this install; "
                         "give the schema with --schema FILE")
    return path


def judge(state: str, outcome: str, right: bool) -> str:
    """Return the kind of one (case, field): see the table of this module."""
    if outcome == Outcome.REVIEW:
        return "review"
    if outcome == Outcome.ABSTAIN:
        return "abstained_right" if state != "stated" else "abstained_wrong"
    good = state == "stated" and right
    if outcome == Outcome.SHOW:
        return "shown_right" if good else "shown_wrong"
    return "flagged_right" if good else "flagged_wrong"


def _rate(k: int, n: int) -> dict[str, Any]:
    w = wilson(k, n)
    return {"k": k, "n": n, "rate": round(k / n, 4) if n else None,
            "wilson_low": None if w is None else round(w[0], 4),
            "wilson_high": None if w is None else round(w[1], 4)}


def figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Return the counts and rates of judged (case, field) rows."""
    n = Counter(r["kind"] for r in rows)
    counts = {k: n[k] for k in KINDS}
    states = Counter(r["state"] for r in rows)
    blank_ok = sum(1 for r in rows if r["state"] == "blank" and r["reason"] == DecisionReason.BLANK_IN_DOCUMENT)
    counts.update({"stated": states["stated"], "blank": states["blank"], "absent": states["absent"],
                   "blank_in_document": blank_ok})
    shown = counts["shown_right"] + counts["shown_wrong"]
    sf_right = counts["shown_right"] + counts["flagged_right"]
    abstained = counts["abstained_right"] + counts["abstained_wrong"]
    return {"counts": counts,
            "show_precision": _rate(counts["shown_right"], shown),
            "wrong_shown_or_flagged": counts["shown_wrong"] + counts["flagged_wrong"],
            "shown_or_flagged_right": _rate(sf_right, states["stated"]),
            "abstain_precision": _rate(counts["abstained_right"], abstained),
            "blank_in_document": _rate(blank_ok, states["blank"])}


def run_tenders(data: Path | None = None, *, schema_path: Path | None = None, folds: int = 2,
                split: str | None = None, store_url: str | None = None) -> dict[str, Any]:
    """Extract every case of a tender corpus and return the judged figures as JSON."""
    from ..extract.schema import load_schema
    from ..limits import check_number

    check_number("--folds", folds, 2, MAX_FOLDS, integer=True)
    if split is not None and split not in PARTS:
        raise UsageError(f"--split must be one of {', '.join(PARTS)}, not {split!r}")
    data = data or default_data()
    if not data.is_dir():
        raise UsageError(f"{data} is not a folder; give --data a tender corpus folder")
    schema = load_schema(schema_path or default_schema())
    cases = load_gold(data, schema)
    if folds > len(cases):
        raise UsageError(f"--folds {folds} is more than the {len(cases)} cases; use fewer folds")
    fold = folds_of(cases, folds)
    part = {c.case: "heldout" if fold[c.case] == folds - 1 else "fit" for c in cases}
    chosen = [c for c in cases if split is None or part[c.case] == split]
    t0 = time.perf_counter()
    rows = _extract(data, schema, chosen, store_url)
    batch = {c.case: c.batch for c in cases}
    for r in rows:
        r["fold"], r["part"], r["batch"] = fold[r["case"]], part[r["case"]], batch[r["case"]]
    result: dict[str, Any] = {
        "dataset": "tenders", "data": str(data), "schema": schema.name, "folds": folds,
        "split": split, "cases": {p: sorted(c.case for c in chosen if part[c.case] == p) for p in PARTS},
        "documents": sum(len(c.docs) for c in chosen),
        "revisions": sum(len(c.revisions) for c in chosen)}
    result["parts"] = {p: figures([r for r in rows if r["part"] == p]) for p in PARTS
                       if split in (None, p)}
    if len({c.batch for c in chosen}) > 1:  # cases written after the rules were tuned
        result["batches"] = {str(b): {p: figures([r for r in rows if r["batch"] == b
                                                  and r["part"] == p]) for p in result["parts"]}
                             for b in sorted({c.batch for c in chosen})}
    result["folds_detail"] = {str(k): figures([r for r in rows if r["fold"] == k])
                              for k in range(folds) if any(r["fold"] == k for r in rows)}
    result["fields"] = {spec.name: {p: {k: sum(1 for r in rows if r["field"] == spec.name
                                               and r["part"] == p and r["kind"] == k)
                                        for k in KINDS} for p in result["parts"]}
                        for spec in schema.fields}
    result["misses"] = [r for r in rows if r["kind"] not in ("shown_right", "flagged_right",
                                                               "abstained_right")
                        or (r["state"] == "blank" and r["reason"] != DecisionReason.BLANK_IN_DOCUMENT)]
    result["seconds"] = round(time.perf_counter() - t0, 2)
    return result


def _extract(data: Path, schema: Any, cases: list[GoldCase],
             store_url: str | None) -> list[dict[str, Any]]:
    """Ingest and extract each case; return one judged row per (case, field)."""
    from ..extract.run import run_extraction
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    principal = Principal.parse("eval:evaluator")
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pincite-tenders-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                bad: set[str] = set()
                for c in cases:
                    files = [(rel, rel) for rel in c.docs] + list(c.revisions)
                    for source_id, rel in files:
                        path = data / rel
                        res = ing.ingest(path.read_bytes(), source_id=source_id, path=str(path),
                                         name=Path(rel).name)
                        if res.status == IngestStatus.QUARANTINED:
                            bad.add(c.case)
            for c in cases:
                if c.case in bad:  # a case a parser refused: a person has to read it
                    rows += [_row(c, spec.name, Outcome.REVIEW, None, None, False)
                             for spec in schema.fields]
                    continue
                run = run_extraction(store, principal, schema, list(c.docs), route=False,
                                     persist=False)
                for r in run.records:
                    spec = schema.field(r.field)
                    gold = c.fields.get(r.field)
                    right = c.state(r.field) == "stated" and gold is not None \
                        and value_right(spec, gold, r.value)
                    rows.append(_row(c, r.field, r.outcome or Outcome.REVIEW, r.reason, r.value,
                                     right, gold, r.confidence))
        finally:
            store.close()
    return rows


def _row(c: GoldCase, field: str, outcome: str, reason: str | None, value: Any, right: bool,
         gold: dict[str, Any] | None = None, confidence: float = 0.0) -> dict[str, Any]:
    state = c.state(field)
    return {"case": c.case, "field": field, "state": state, "outcome": str(outcome),
            "reason": reason, "value": value, "confidence": confidence, "value_right": right,
            "gold": None if gold is None else gold.get("value", "blank"),
            "kind": judge(state, outcome, right)}
