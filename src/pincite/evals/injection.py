"""How well `ask` tells instructions from statements, measured sentence by sentence.

`instruction_spans` (pincite.ask.instructions) is a structural detector written against an
instruction set kept with the tests (`tests/ask/data/instructions.tsv`: lang<TAB>text, EN
and ES). It is measured on:
- that set: recall per language (what it was written against, so a floor, not a figure);
- BIPIA's dev attack strings (`text_attack_*.json` in the BIPIA folder), held out: never
  used to write the detector. `flagged` counts strings with an instruction span;
  `cut` counts strings `ask` cuts out of evidence (an instruction span or a question);
- clean sentences: every sentence of the SciFact dev abstracts (the documents named in
  `dev/qrels_train.tsv`) and of the CUAD dev contracts (`dev/full_contract_txt/*.txt`);
  `flagged` there is a false positive, and the sentences are listed.
A folder that is missing is reported as `null`, not as zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..ask.instructions import instruction_spans, is_question, question_spans, sentence_spans
from ..errors import UsageError


def load_set(path: Path) -> list[tuple[str, str]]:
    """Return the (lang, text) rows of an instruction set file (`#` lines are comments)."""
    if not path.is_file():
        raise UsageError(f"instruction set {path} not found; pass --set PATH "
                         "(tests/ask/data/instructions.tsv in a clone)")
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        lang, _, text = line.partition("\t")
        rows.append((lang.strip(), text.strip()))
    return rows


def _recall(texts: list[str]) -> dict[str, Any]:
    flagged = [t for t in texts if instruction_spans(t)]
    cut = [t for t in texts if instruction_spans(t) or question_spans(t) or is_question(t)]
    missed = [t for t in texts if t not in cut]
    n = len(texts)
    return {"tried": n, "flagged": len(flagged), "cut": len(cut),
            "recall": round(len(flagged) / n, 4) if n else None,
            "cut_recall": round(len(cut) / n, 4) if n else None, "missed": missed}


def bipia_attacks(folder: Path) -> list[str] | None:
    """Every attack string of `folder/text_attack_*.json`, or None without the folder."""
    files = sorted(folder.glob("text_attack_*.json")) if folder.is_dir() else []
    if not files:
        return None
    out: list[str] = []
    for f in files:
        for strings in json.loads(f.read_text(encoding="utf-8")).values():
            out.extend(strings)
    return out


def scifact_sentences(folder: Path) -> list[str] | None:
    """The sentences of the SciFact dev abstracts, or None without the data."""
    qrels, corpus = folder / "dev" / "qrels_train.tsv", folder / "corpus.jsonl"
    if not qrels.is_file() or not corpus.is_file():
        return None
    ids = {line.split("\t")[1] for line in qrels.read_text(encoding="utf-8").splitlines()[1:]
           if line.strip()}
    out: list[str] = []
    with corpus.open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            if doc["_id"] in ids:
                for text in (doc.get("title", ""), doc.get("text", "")):
                    out.extend(text[a:b] for a, b in sentence_spans(text))
    return out


def cuad_sentences(folder: Path) -> list[str] | None:
    """The sentences of the CUAD dev contracts (plain text), or None without the data."""
    files = sorted((folder / "dev" / "full_contract_txt").glob("*.txt"))
    if not files:
        return None
    out: list[str] = []
    for f in files:
        text = f.read_text(encoding="utf-8", errors="replace")
        out.extend(text[a:b] for a, b in sentence_spans(text))
    return out


def _false_positives(sentences: list[str] | None) -> dict[str, Any] | None:
    if sentences is None:
        return None
    bad = [s for s in sentences if instruction_spans(s)]
    return {"sentences": len(sentences), "flagged": len(bad), "examples": bad[:20]}


def run_injection(set_path: Path, data_root: Path) -> dict[str, Any]:
    """Measure the detector: the set's recall (EN, ES), BIPIA dev recall (held out), and
    clean sentences flagged on SciFact and CUAD dev."""
    rows = load_set(set_path)
    langs = sorted({lang for lang, _ in rows})
    attacks = bipia_attacks(data_root / "bipia" / "dev")
    return {
        "set": {lang: _recall([t for g, t in rows if g == lang]) for lang in langs},
        "bipia_dev_held_out": None if attacks is None else _recall(attacks),
        "clean_scifact_dev": _false_positives(scifact_sentences(data_root / "scifact")),
        "clean_cuad_dev": _false_positives(cuad_sentences(data_root / "cuad")),
    }
