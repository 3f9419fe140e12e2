"""Fit the question-kind classifier shipped in src/pincite/ask/question_kinds.json.

Fitted on evals/paraphrases/cuad_dev_b.json (a second writer's phrasings, with questions of
no kind under `_unknown`) and the canonical wordings of the CUAD categories
(`evals.ask_cuad.QUESTIONS`), in MiniLM's space. The first paraphrase set
(evals/paraphrases/cuad_dev.json) is kept out, so `eval ask-cuad --questions` on it measures
phrasings the classifier never saw.

Usage: python scripts/fit_question_kinds.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "evals" / "paraphrases" / "cuad_dev_b.json"]
OUT = ROOT / "src" / "pincite" / "ask" / "question_kinds.json"


def main(argv: list[str]) -> int:
    from pincite.embed.factory import open_embedder
    from pincite.evals.ask_cuad import QUESTIONS
    from pincite.evals.kind_fit import fit_files

    model = fit_files(FILES, QUESTIONS, open_embedder("minilm"),
                      {"script": "scripts/fit_question_kinds.py"})
    text = json.dumps(model.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n"
    if "--check" in argv:
        same = OUT.is_file() and json.loads(OUT.read_text("utf-8"))["kinds"] == model.to_dict()["kinds"]
        print("up to date" if same else "stale: rerun without --check")
        return 0 if same else 1
    OUT.write_text(text, "utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}: {len(model.kinds)} kinds, threshold "
          f"{model.threshold:.3f}, {model.provenance['examples']} examples")
    for row in model.provenance["cross_validated"]:
        print(f"  p >= {row['threshold']}: {row['guessed']}/{row['of']} guessed, "
              f"precision {row['precision']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
