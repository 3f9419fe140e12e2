"""Text-layer fidelity on real contract PDFs: can every gold clause segment be cited?

For each gold segment of a CUAD split (`derived_spans.jsonl`, taken from the contracts'
.txt), `cite` it against the ingested **PDF** and count the verified citations. This goes
through the same path users hit: ingest (sniffing, sandboxed parse, store) → cite →
verify. It is pincite's one text-layer fidelity eval (`pincite eval cuad-textlayer`);
the parser tests run it on a few contracts.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from ..errors import QuoteNotFound, UsageError
from ..vocab import IngestStatus


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
                       files: set[str] | None = None) -> dict[str, Any]:
    """Ingest a split's PDFs, cite every gold segment, and return the counts and misses.

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
                if ok:
                    verified += 1
                    for note in c.notes:
                        noted[note] = noted.get(note, 0) + 1
                else:
                    misses.append({"file": source_id, "text": text[:200]})
        finally:
            store.close()
    n = len(segments)
    return {
        "dataset": "cuad-textlayer",
        "documents": len(results),
        "segments": n,
        "verified": verified,
        "rate": verified / n if n else 0.0,
        "notes": dict(sorted(noted.items())),
        "quarantined": quarantined,
        "misses": misses,
    }
