"""Fit the judge shipped in src/pincite/ask/judge.json from eval runs, and print its held-out
figures.

Each FILE is the --json output of `pincite eval ask-cuad`, `ask-tatqa` or `ask-tenders`
(with or without --questions): its `judge_rows` are every asked question with the readers'
answer before any judge. The rows of all files are pooled (a document keeps its dataset's
name), the judge is fitted on them (`evals.judge_fit.fit_judge`) and, with --folds K, each
document fold is measured with a judge fitted on the other folds only.

Usage: python scripts/fit_judge.py FILE... [--folds K] [--write [--gate]]
(--gate: the shipped judge holds answers under its bar back; without it, it only gives each
answer its calibrated confidence)
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "pincite" / "ask" / "judge.json"


def rows_of(paths: list[Path]) -> list[dict]:
    """Return the judge rows of every file, each document named by its dataset."""
    out = []
    for p in paths:
        data = json.loads(p.read_text("utf-8"))
        name = data.get("dataset", p.stem)
        for r in data.get("judge_rows", []):
            out.append({**r, "doc": f"{name}:{r['doc']}", "dataset": name,
                        "style": f"{name}:{r.get('style') or 'own'}"})
    return out


def main(argv: list[str]) -> int:
    from pincite.evals.judge_fit import fit_judge, held_out

    folds = int(argv[argv.index("--folds") + 1]) if "--folds" in argv else 5
    paths = [Path(a) for a in argv if a.endswith(".json")]
    rows = rows_of(paths)
    report = held_out(rows, folds)
    print(f"{len(rows)} questions, {sum(r['answered'] for r in rows)} answered by the readers")
    print("| style | answerable | right | answered | wrong | wrong/answered | readers: right, wrong/answered |")
    print("|---|---|---|---|---|---|---|")
    raw = {}
    for r in rows:
        c = raw.setdefault(r["style"], [0, 0])
        if r["answered"]:
            c[0] += bool(r["right"])
            c[1] += 1
    for style, f in report["by_style"].items():
        answered = f["answered_right"] + f["answered_wrong"]
        rr, ra = raw.get(style, [0, 0])
        print(f"| {style} | {f['answerable']} | {f['answered_right']} ({f['right_rate']}) | "
              f"{answered} | {f['answered_wrong']} | {f['wrong_rate']} | {rr}, "
              f"{(ra - rr) / ra if ra else 0:.3f} |")
    p = report["pooled"]
    print("pooled held out:", {k: p["held_out"][k] for k in ("right_rate", "wrong_rate", "abstain_rate")},
          "readers:", {k: p["held_out_readers"][k] for k in ("right_rate", "wrong_rate", "abstain_rate")})
    print("thresholds per fold:", [f["threshold"] for f in report["folds"]])
    print("| --min-confidence | answered | right / answerable | wrong / answered | abstained right |")
    print("|---|---|---|---|---|")
    for op in report["operating_points"]:
        answered = op["answered_right"] + op["answered_wrong"]
        print(f"| {op['min_confidence']} | {answered} | {op['answered_right']} / {op['answerable']}"
              f" = {op['right_rate']} | {op['answered_wrong']} / {answered} = {op['wrong_rate']} | "
              f"{op['abstained_right']} / {op['unanswerable']} |")
    if "--write" in argv:
        judge = fit_judge(rows, {"fitted_on": [p.name for p in paths],
                                 "script": "scripts/fit_judge.py"})
        judge = replace(judge, gate="--gate" in argv)
        OUT.write_text(json.dumps(judge.to_dict(), separators=(",", ":")) + "\n", "utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}: threshold {judge.threshold:.3f}")
    Path("/tmp/judge_report.json").write_text(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
