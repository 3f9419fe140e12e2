"""Fit the fill row aligner shipped in src/pincite/fill/row_aligner.json, and print how its
keep threshold was chosen.

Runs `eval fill` over a TAT-QA folder (default: ../shared/data/tatqa/dev) with the
independent target labels (evals/fill_labels/); every context's candidate pairs (target
row × the rows of the table the rules route it to first) fit the logistic regression and
its isotonic map (`evals.fill_rows_fit`); the keep threshold is the one whose writes,
every context ranked by an aligner fitted without its inner fold, score best at the
shipped write rule with wrong writes <= 1 % (`evals.fill_choice.refit_shipped`). Needs the
MiniLM encoder (the `embed` extra); refuses to run under PINCITE_EMBEDDER=hash.

Usage: python scripts/fit_fill_aligner.py [--data DIR] [--write]
"""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "pincite" / "fill" / "row_aligner.json"


def main(argv: list[str]) -> int:
    from pincite.evals.fill_tatqa import run_fill_eval
    from pincite.fill.row_model import label_encoder

    if label_encoder() is None:
        print("the MiniLM encoder is not available (PINCITE_EMBEDDER=hash, or the embed extra "
              "is missing): nothing to fit", file=sys.stderr)
        return 2
    data = Path(argv[argv.index("--data") + 1]) if "--data" in argv else (
        ROOT.parent / "shared" / "data" / "tatqa" / "dev")
    out = run_fill_eval(data, refit=True)
    refit = out["refit"]
    print("| keep threshold | right | wrong |  (every context, cross-fitted, write rule "
          f"{out['min_score']:g} / {out['margin']:g})")
    print("|---|---|---|")
    for t, r in refit["cross_fitted"].items():
        name = "no model rows" if float(t) > 1 else t
        print(f"| {name} | {r['written_right']} / {r['cells']} = {r['right_rate']} | "
              f"{r['written_wrong']} / {r['cells']} = {r['wrong_rate']} |")
    print(f"chosen: {refit['threshold']}")
    model = refit["model"]
    if model is None:
        print("no threshold beats the rules alone: nothing to ship", file=sys.stderr)
        return 1
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, text=True,
                                capture_output=True, check=False).stdout.strip()
    except OSError:
        commit = ""
    model["provenance"].update({
        "data": "TAT-QA dev (" + ", ".join(sorted(p.name for p in data.glob("*.json"))) + ")",
        "labels": "evals/fill_labels/" + Path(model["provenance"].get("labels", "")).name,
        "threshold_chosen_on": "every context, ranked by aligners fitted without its inner "
                               "fold (5), write rule MIN_SCORE / MARGIN, wrong <= 1 %",
        "date": datetime.date.today().isoformat(), "commit": commit,
        "script": "scripts/fit_fill_aligner.py"})
    if "--write" in argv:
        OUT.write_text(json.dumps(model, indent=1) + "\n", "utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
