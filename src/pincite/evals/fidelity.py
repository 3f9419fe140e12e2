"""Text-layer fidelity on real contract PDFs: can every gold clause segment be cited?

For each gold segment of a CUAD split (`derived_spans.jsonl`, taken from the contracts'
.txt), `cite` it against the ingested **PDF** and count the verified citations. This goes
through the same path users hit: ingest (sniffing, sandboxed parse, store) → cite →
verify. It is pincite's one text-layer fidelity eval (`pincite eval cuad-textlayer`);
the parser tests run it on a few contracts.

With `folds`, the rate per document fold: on the other folds (fit) and on the fold
(held out), pooled over folds (`folds.split`; a contract's fold is the sha256 of its file
name). With `refit`, each tuned text-layer constant of the PDF parser is chosen again on
the fit folds and measured on the held-out fold (`folds.refit`): the PDFs are parsed in
this process and a segment counts when its comparison form occurs in the layer.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..errors import QuoteNotFound, UsageError
from ..vocab import IngestStatus
from .folds import check_folds, refit, split, tuned_runs


def derived_spans(data: Path) -> list[dict[str, Any]]:
    """Return the records of a CUAD split's `derived_spans.jsonl` (one per contract and
    category); raise UsageError when the folder is not a CUAD split."""
    path = data / "derived_spans.jsonl"
    if not path.is_file():
        raise UsageError(f"{data} has no derived_spans.jsonl: give a CUAD split folder")
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def gold_segments(data: Path) -> list[tuple[str, str]]:
    """Return (pdf file relative to the split, segment text) for every gold clause segment."""
    out = []
    for rec in derived_spans(data):
        for clause in rec.get("clauses") or []:
            for seg in clause.get("segments") or []:
                if seg["text"].strip():
                    out.append((rec["pdf_file"], seg["text"]))
    return out


def run_cuad_textlayer(data: Path, store_url: str | None = None,
                       files: set[str] | None = None, folds: int | None = None,
                       refit: bool = False) -> dict[str, Any]:
    """Ingest a split's PDFs, cite every gold segment, and return the counts and misses
    (with `folds`, the fit and held-out rates; with `refit`, the tuned text rules chosen
    again on fit folds).

    `files` limits the run to the PDFs of those names (and their segments).
    """
    from ..cite.verifier import Verifier
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    segments = [(f, t) for f, t in gold_segments(data)
                if files is None or Path(f).name in files]
    pdfs = sorted(p for p in (data / "full_contract_pdf").iterdir()
                  if p.is_file() and (files is None or p.name in files))
    if folds is not None:
        folds = check_folds(folds, [p.name for p in pdfs])
    elif refit:
        raise UsageError("--refit chooses rules on fit folds: give --folds K as well")
    per_doc: dict[str, Counter[str]] = {p.name: Counter(segments=0, verified=0) for p in pdfs}
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                results = [ing.ingest(p.read_bytes(), source_id=p.name, path=str(p), name=p.name)
                           for p in pdfs]
            quarantined = [r.to_dict() for r in results if r.status == IngestStatus.QUARANTINED]
            ver = Verifier(store, Principal.parse("eval:evaluator"))
            verified = 0
            misses = []
            noted: dict[str, int] = {}  # how verified citations were found (`CiteNote`s)
            for pdf_file, text in segments:
                source_id = Path(pdf_file).name
                try:
                    c = ver.cite(source_id, text)
                    ok = c.quote_verified
                except QuoteNotFound:
                    ok = False
                one = per_doc.setdefault(source_id, Counter(segments=0, verified=0))
                one["segments"] += 1
                if ok:
                    verified += 1
                    one["verified"] += 1
                    for note in c.notes:
                        noted[note] = noted.get(note, 0) + 1
                else:
                    misses.append({"file": source_id, "text": text[:200]})
        finally:
            store.close()
    n = len(segments)
    out = {
        "dataset": "cuad-textlayer",
        "documents": len(results),
        "segments": n,
        "verified": verified,
        "rate": verified / n if n else 0.0,
        "notes": dict(sorted(noted.items())),
        "quarantined": quarantined,
        "misses": misses,
    }
    if folds is not None:
        out["folds"] = split(per_doc, folds, verified_rate)
        if refit:
            out["refit"] = refit_text_rules(pdfs, segments, folds)
    return out


def verified_rate(counts: Mapping[str, int]) -> float:
    """Return the share of segments verified in summed counts."""
    return counts["verified"] / counts["segments"] if counts.get("segments") else 0.0


def refit_text_rules(pdfs: list[Path], segments: list[tuple[str, str]], k: int) -> dict[str, Any]:
    """Return each tuned text-layer rule of the PDF parser chosen again per fold on the fit
    folds, with its fit and held-out rate (parsed here; a segment counts when it occurs)."""
    from ..cite.compare import FoldedText
    from ..limits import Limits
    from ..parse.pdf import reading

    limits = Limits()
    by_file: dict[str, list[str]] = {}
    for f, text in segments:
        by_file.setdefault(Path(f).name, []).append(text)

    def counts() -> dict[str, dict[str, int]]:
        out = {}
        for p in pdfs:
            layer = reading.parse(p.read_bytes(), password=None, limits=limits)
            folded = FoldedText.build(layer.text)
            texts = by_file.get(p.name, [])
            out[p.name] = {"segments": len(texts),
                           "verified": sum(1 for t in texts if folded.find_all(t, limit=1))}
        return out

    runs, shipped = tuned_runs("text", counts)
    return {"k": k, "figure": "share of gold segments found in the PDF layer (parsed here)",
            "rules": refit(k, runs, shipped, verified_rate)}
