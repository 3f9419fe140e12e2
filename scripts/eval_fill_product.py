"""Run `eval fill` with targets in the product's own vocabulary (the synonym table, period
reader and scale detector of pincite, as the eval built them before its independent label
file) and print the table of docs/evaluation.md (Workbook fill, product vocabulary).

Usage: python scripts/eval_fill_product.py [--data DIR] [--folds K] [--json FILE]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _cells(r: dict) -> str:
    return (f"{r['written_right']} / {r['cells']} = {r['right_rate']:.3f} | "
            f"{r['written_wrong']} / {r['cells']} = {r['wrong_rate']:.3f}")


def main(argv: list[str]) -> int:
    from pincite.evals.fill_product_words import product_words
    from pincite.evals.fill_tatqa import run_fill_eval

    data = Path(argv[argv.index("--data") + 1]) if "--data" in argv else (
        ROOT.parent / "shared" / "data" / "tatqa" / "dev")
    folds = int(argv[argv.index("--folds") + 1]) if "--folds" in argv else 2
    out = run_fill_eval(data, folds=folds, words=product_words())
    if "--json" in argv:
        Path(argv[argv.index("--json") + 1]).write_text(json.dumps(out, indent=1, default=str))
    print("| tatqa, product vocabulary | right | wrong |")
    print("|---|---|---|")
    print(f"| shipped, all contexts | {_cells(out)} |")
    f = out["folds"]
    for row in f["folds"]:
        print(f"| fold {row['fold']} held out (keep {row['row_keep']}, {row['min_score']:g} / "
              f"{row['margin']:g}) | {_cells(row['held_out'])} |")
    for name in ("pooled", "shipped_rule", "rules_only"):
        print(f"| held out, pooled ({name}) | {_cells(f[name]['held_out'])} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
