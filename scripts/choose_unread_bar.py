"""Choose the generic reader's stricter bar (`ask.kind_model.UNREAD_MIN_DENSE`) on folds by
phrasing, from the judge rows of paraphrase runs.

A question the kind model reads as no kind is answered by a statement only when the
statement's cosine reaches the bar. Each run's rows (`eval ask-cuad|ask-tatqa --questions
FILE --json`, run with the bar off) are split into K folds by phrasing (`evals.folds`); per
fold the bar is chosen on the other folds from GRID, maximising right - 10 x wrong, and the
held-out fold is counted per dataset and style. Answers of questions read as a kind, and
table cells, are not touched by the bar. Rows say only the answer kind, not whether the
answer was a cell: an answer of kind `cell` stands for a cell here (amounts read from
cells count as statements, so the figure for tables is a bound).

Usage: python scripts/choose_unread_bar.py NAME=RUN.json [NAME=RUN.json …] [--folds K]
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

GRID = (0.0, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 1.01)  # 0: no bar; 1.01: never


def kept(row: dict, bar: float) -> bool:
    """Whether an answered row's answer stands under the bar."""
    f = row["features"]
    return bool(f.get("read_as")) or f.get("kind_cell", 0) == 1 or f.get("cosine", 0) >= bar


def counts(rows: list[dict], bar: float) -> tuple[int, int]:
    """(right, wrong) of the answers kept under the bar."""
    out = [r["right"] for r in rows if r["answered"] and kept(r, bar)]
    return sum(out), len(out) - sum(out)


def main(argv: list[str]) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from pincite.evals.folds import fold_of

    k = int(argv[argv.index("--folds") + 1]) if "--folds" in argv else 2
    runs = {a.split("=", 1)[0]: json.loads(Path(a.split("=", 1)[1]).read_text("utf-8"))["judge_rows"]
            for a in argv if "=" in a}
    rows = [r for rs in runs.values() for r in rs]
    chosen = []
    for fold in range(k):
        fit = [r for r in rows if fold_of(r["phrasing"], k) != fold]
        bar = max(GRID, key=lambda b: (lambda rw: rw[0] - 10 * rw[1])(counts(fit, b)))
        chosen.append(bar)
        print(f"fold {fold}: chose {bar} on the fit folds {counts(fit, bar)} (no bar {counts(fit, 0.0)})")
        for name, rs in runs.items():
            styles: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
            for r in rs:
                if fold_of(r["phrasing"], k) != fold:
                    continue
                s = styles[r["style"]]
                s[0] += r["answerable"]
                if r["answered"] and kept(r, bar):
                    s[1 if r["right"] else 2] += 1
            for style, (n, right, wrong) in sorted(styles.items()):
                print(f"  held out {name:6} {style or '-':9} answerable {n:4d}  right {right:4d} "
                      f"({right / max(n, 1):.3f})  wrong {wrong:3d} ({wrong / max(right + wrong, 1):.3f})")
    print("all rows:", {b: {n: counts(rs, b) for n, rs in runs.items()} for b in GRID})
    print("chosen per fold:", chosen)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
