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
  `flagged` there is a false positive, and the sentences are listed;
- clean sentences of real tenders (`tenders_real`: Spanish and Latin American pliegos, PDF,
  DOCX, Markdown, CODICE/ATOM XML), read by pincite's own parsers through ingestion, block
  by block as `ask` reads them (with what a block's neighbours hand over or point back to:
  `instructions.hands_over`, `points_back`); a sentence is flagged when a suspected span
  overlaps it.
  Files ingestion quarantines (legacy .doc, some ATOM feeds) are counted, not read.
`per_2000` is flagged per 2,000 sentences (the release goal: at most 1 on each corpus).
A folder that is missing is reported as `null`, not as zero.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..ask.instructions import (
    hands_over,
    instruction_spans,
    is_question,
    neighbour_spans,
    points_back,
    question_spans,
    sentence_spans,
)
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


def tender_blocks(folder: Path, ocr: bool = True) -> tuple[list[list[str]], dict[str, int]] | None:
    """The block texts of every document under `folder` (one list per document, in reading
    order), read by pincite's parsers through ingestion into a temporary store, with how many
    files were read and quarantined; None without the folder. `ocr=False` leaves scanned
    pages unread (the test suite's quicker reading of the same corpus)."""
    import tempfile

    from ..index.segment import BLOCK_KINDS
    from ..limits import Limits, OcrSettings
    from ..sources.ingest import Ingestor
    from ..store import open_store

    files = sorted(f for f in folder.rglob("*") if f.is_file()
                   and f.name not in ("SOURCE.md", "catalog.json")) if folder.is_dir() else []
    if not files:
        return None
    docs: list[list[str]] = []
    quarantined = 0
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(Path(tmp) / "store")
        try:
            limits = Limits(ocr=OcrSettings(enabled=ocr))
            with Ingestor(store, tenant="eval", acl=["*"], sandbox=False, limits=limits) as ing:
                for f in files:
                    sid = f.relative_to(folder).as_posix()
                    ing.ingest(f.read_bytes(), source_id=sid, path=sid, name=f.name)
                    rev = store.latest_revision("eval", sid)
                    layer = store.text_layer(rev) if rev is not None else None
                    if layer is None:
                        quarantined += 1
                        continue
                    blocks, end = [], -1
                    for e in sorted((e for e in layer.elements if e.kind in BLOCK_KINDS),
                                    key=lambda e: (e.char_start, -e.char_end)):
                        if e.char_end > end:  # outermost blocks only
                            blocks.append(layer.text[e.char_start:e.char_end])
                            end = e.char_end
                    docs.append(blocks)
        finally:
            store.close()
    return docs, {"files": len(files), "read": len(docs), "quarantined": quarantined}


def _figures(sentences: int, bad: list[str]) -> dict[str, Any]:
    return {"sentences": sentences, "flagged": len(bad),
            "per_2000": round(2000 * len(bad) / sentences, 3) if sentences else None,
            "examples": bad[:20]}


def _false_positives(sentences: list[str] | None) -> dict[str, Any] | None:
    if sentences is None:
        return None
    return _figures(len(sentences), [s for s in sentences if instruction_spans(s)])


def _block_false_positives(read: tuple[list[list[str]], dict[str, int]] | None
                           ) -> dict[str, Any] | None:
    """Sentences of clean blocks flagged as `ask` reads them (see the module docstring)."""
    if read is None:
        return None
    docs, files = read
    n, bad = 0, []
    for blocks in docs:
        for k, block in enumerate(blocks):
            spans = instruction_spans(block)
            carried = k > 0 and hands_over(blocks[k - 1])
            pointed = k + 1 < len(blocks) and points_back(blocks[k + 1])
            if carried or pointed:
                spans += neighbour_spans(block, carried, pointed)
            for a, b in sentence_spans(block):
                n += 1
                if any(x < b and a < y for x, y in spans):
                    bad.append(block[a:b])
    return {**files, **_figures(n, bad)}


def run_injection(set_path: Path, data_root: Path, *, ocr: bool = True) -> dict[str, Any]:
    """Measure the detector: the set's recall (EN, ES), BIPIA dev recall (held out), and
    clean sentences flagged on SciFact and CUAD dev and on the real tenders."""
    rows = load_set(set_path)
    langs = sorted({lang for lang, _ in rows})
    attacks = bipia_attacks(data_root / "bipia" / "dev")
    return {
        "set": {lang: _recall([t for g, t in rows if g == lang]) for lang in langs},
        "bipia_dev_held_out": None if attacks is None else _recall(attacks),
        "clean_scifact_dev": _false_positives(scifact_sentences(data_root / "scifact")),
        "clean_cuad_dev": _false_positives(cuad_sentences(data_root / "cuad")),
        "clean_tenders_real": _block_false_positives(tender_blocks(data_root / "tenders_real",
                                                                   ocr)),
    }
