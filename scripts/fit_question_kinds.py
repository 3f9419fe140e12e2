"""Fit the question-kind classifier shipped in src/pincite/ask/question_kinds.json.

Fitted on evals/paraphrases/cuad_dev_b.json (a second writer's phrasings of CUAD's
categories, with questions of no kind under `_unknown`), evals/paraphrases/tender_kinds.json
(a third writer's phrasings of public-tender kinds, Spanish and English) and the canonical
wordings (`evals.ask_cuad.QUESTIONS`, `TENDER_QUESTIONS`), in MiniLM's space. The first paraphrase set
(evals/paraphrases/cuad_dev.json) is kept out, so `eval ask-cuad --questions` on it measures
phrasings the classifier never saw.

Usage: python scripts/fit_question_kinds.py [--check]
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "evals" / "paraphrases" / "cuad_dev_b.json",
         ROOT / "evals" / "paraphrases" / "tender_kinds.json"]
# The wording each public-tender kind is read as: the words pliegos use for it (written from
# the LCSP's terms, tried on examples/tender only; the analyst questions of
# evals/tenders_questions/ were never read against them).
TENDER_QUESTIONS = {
    "Tender Budget": "¿Cuánto es el presupuesto base de licitación?",
    "Estimated Value": "¿Cuánto es el valor estimado del contrato?",
    "Contracting Authority": "¿Cuál es el órgano de contratación?",
    "Contract Object": "¿Cuál es el objeto del contrato?",
    "Bid Deadline": "¿Cuándo finaliza el plazo de presentación de ofertas?",
    "Execution Period": "¿Cuál es la duración del contrato?",
    "Extensions": "¿Se puede prorrogar el contrato?",
    "Provisional Guarantee": "¿Se exige garantía provisional?",
    "Definitive Guarantee": "¿Cuál es la garantía definitiva?",
    "Award Criteria": "¿Cuáles son los criterios de adjudicación?",
    "Procedure Type": "¿Cuál es el procedimiento de adjudicación?",
    "CPV Code": "¿Cuál es el código CPV?",
    "Lots": "¿Se divide el contrato en lotes?",
    "Financial Solvency": "¿Cuál es la solvencia económica y financiera?",
    "Technical Solvency": "¿Cuál es la solvencia técnica?",
    "Payment Terms": "¿Cuál es la forma de pago?",
    "Penalties": "¿Cuáles son las penalidades?",
    "Submission Place": "¿Dónde se presentan las ofertas?",
    "Warranty Period": "¿Cuál es el plazo de garantía?",
    "Business Classification": "¿Qué clasificación se exige?",
    "File Number": "¿Cuál es el número de expediente?",
    "Awardee": "¿A quién se adjudica el contrato?",
}
OUT = ROOT / "src" / "pincite" / "ask" / "question_kinds.json"


def main(argv: list[str]) -> int:
    from pincite.embed.factory import open_embedder
    from pincite.evals.ask_cuad import QUESTIONS
    from pincite.evals.kind_fit import fit_files

    model = fit_files(FILES, {**QUESTIONS, **TENDER_QUESTIONS}, open_embedder("minilm"),
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
