"""`pincite eval strata`: text-layer quality per stratum of documents, not one average.

A small corpus is assembled at eval time (seed 004 asks for the per-stratum table): PDFs
written here for each stratum (`renders`: born-digital, rotated, multi-column, forms,
tables, right-to-left, CJK, hidden text, redactions, malformed) and the shared test files
with the reference each gives (`shared_docs`), scanned copies included. Every document
goes through the path users take (sniff, sandboxed parse, store), then each stratum gets:

- `cer`: character error rate of the layer against the reference text (a document that
  is refused loses all its characters);
- `reading_order_error`: the mean normalised Kendall tau distance of word order;
- `table_f1`: adjacency-relation F1 of the layer's tables against the reference tables;
- `locator_accuracy`: the share of gold spans whose citation opens on the right page with
  a box matching the gold one (IoU ≥ 0.5);
- `covered`: text a reader cannot see (hidden, under a redaction box): how much of it is
  absent, cited with the flag `hidden_text`, or leaked (cited with no flag).

A measure with nothing to measure is None. A stratum none of whose documents yields text
(scanned pages with no OCR engine in the tree) is `not available`, not zero.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import QuoteNotFound, UsageError
from ..icdar import layer_regions
from . import renders, shared_docs
from .measures import cer, f1, located, order_error, table_counts
from .typeset import GoldDoc

STRATA = ("born-digital", "scanned", "rotated", "multi-column", "forms", "tables", "rtl",
          "cjk", "hidden text", "redactions", "malformed")
HIDDEN = "hidden_text"
SHARED = ("docling_testdata", "pdfplumber_edgecases", "pypdf_sample_files", "qpdf_damaged_pdfs")


@dataclass
class _Tally:
    docs: int = 0
    read: int = 0
    refused: int = 0
    refused_ok: int = 0
    edits: int = 0
    chars: int = 0
    orders: list[float] = field(default_factory=list)
    tables: list[int] = field(default_factory=lambda: [0, 0, 0])
    spans: int = 0
    hits: int = 0
    covered: dict[str, int] = field(default_factory=lambda: {"total": 0, "absent": 0,
                                                              "flagged": 0, "leaked": 0})
    references: set[str] = field(default_factory=set)
    texts: int = 0  # documents whose layer holds any text
    failures: list[dict[str, str]] = field(default_factory=list)


def generated() -> list[GoldDoc]:
    """Return the generated documents of every stratum."""
    return (renders.born_digital() + renders.rotated() + renders.multi_column() + renders.forms()
            + renders.tables() + renders.rtl() + renders.cjk() + renders.hidden()
            + renders.redactions() + renders.malformed())


def shared(root: Path) -> list[GoldDoc]:
    """Return the shared test files found under `root`, with their references."""
    from ...limits import Limits
    from ...parse import parse

    docs: list[GoldDoc | None] = [
        shared_docs.docling(root, "multi_page", "born-digital"),
        shared_docs.docling(root, "code_and_formula", "born-digital"),
        shared_docs.docling(root, "amt_handbook_sample", "born-digital"),
        shared_docs.docling(root, "normal_4pages", "cjk"),
        shared_docs.docling(root, "right_to_left_01", "rtl"),
        shared_docs.docling(root, "2305.03393v1-pg9", "tables"),
        shared_docs.habibi(root),
        shared_docs.latex_table(root),
    ]
    upright = root / "pdfplumber_edgecases" / "pdfs" / "nics-background-checks-2015-11.pdf"
    if upright.is_file():
        docs.append(shared_docs.nics_rotated(root, parse("pdf", upright.read_bytes(), limits=Limits())))
    for d in (docs[0], docs[2]):  # scanned copies of born-digital pages
        if d is not None:
            layer = parse("pdf", d.pdf, limits=Limits())
            docs.append(shared_docs.image_only(d.name.split("/")[-1], d.pdf, layer))
    return [d for d in docs if d is not None] + shared_docs.damaged(root)


def run_strata(data: Path | None = None, store_url: str | None = None) -> dict[str, Any]:
    """Ingest the stratified corpus and return the per-stratum measures and the documents'
    outcomes (`data`: the shared data root; without it, the generated documents only)."""
    from ...cite.verifier import Verifier
    from ...model import Principal
    from ...sources.ingest import Ingestor
    from ...store import open_store

    found = {}
    if data is not None:
        if not data.is_dir():
            raise UsageError(f"{data} is not a folder: give the shared data root (it holds "
                             f"{', '.join(SHARED)})")
        found = {name: (data / name).is_dir() for name in SHARED}
        if not any(found.values()):
            raise UsageError(f"{data} holds none of {', '.join(SHARED)}: give the shared "
                             "data root, or leave --data out to run the generated documents only")
    t0 = time.perf_counter()
    docs = generated() + (shared(data) if data is not None else [])
    tallies = {s: _Tally() for s in STRATA}
    with tempfile.TemporaryDirectory(prefix="pincite-strata-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                results = [ing.ingest(d.pdf, source_id=f"{i:03d}", path=d.name, name=d.name)
                           for i, d in enumerate(docs)]
            ver = Verifier(store, Principal.parse("eval:evaluator"))
            for i, (d, r) in enumerate(zip(docs, results, strict=True)):
                rev = store.latest_revision("eval", f"{i:03d}") if r.revision_id else None
                layer = store.text_layer(rev) if rev else None
                _measure(tallies[d.stratum], d, layer, ver, f"{i:03d}", r)
        finally:
            store.close()
    return {"dataset": "strata", "documents": len(docs), "data": str(data) if data else None,
            "shared_folders": found,
            "seconds": round(time.perf_counter() - t0, 1),
            "strata": {s: _summary(s, t) for s, t in tallies.items()}}


def _measure(t: _Tally, d: GoldDoc, layer: Any, ver: Any, source_id: str, result: Any) -> None:
    t.docs += 1
    t.references.add(d.reference)
    if layer is None:
        if d.failure_ok:
            t.refused_ok += 1
        else:
            t.refused += 1
            t.failures.append({"doc": d.name, "reason": result.reason or "",
                               "detail": (result.detail or "")[:120]})
        if d.text is not None:
            t.edits += len(" ".join(d.text.split()))
            t.chars += len(" ".join(d.text.split()))
        t.spans += len(d.spans)
        return
    t.read += 1
    t.texts += bool(layer.text.strip())
    if d.text is not None:
        e, n = cer(d.text, layer.text)
        t.edits += e
        t.chars += n
        order = order_error(d.text, layer.text)
        if order is not None:
            t.orders.append(order)
    if d.tables is not None:
        found = [r.cells for r in layer_regions(layer)]
        for k, v in enumerate(table_counts(d.tables, found)):
            t.tables[k] += v
    for s in d.spans:
        t.spans += 1
        try:
            c = ver.cite(source_id, s.quote, occurrence=s.occurrence)
        except QuoteNotFound:
            continue
        t.hits += located(c.page, c.bbox, s.page, s.box, s.within)
    for phrase in d.covered:
        t.covered["total"] += 1
        try:
            c = ver.cite(source_id, phrase)
        except QuoteNotFound:
            t.covered["absent"] += 1
            continue
        t.covered["flagged" if HIDDEN in c.flags else "leaked"] += 1


def _summary(name: str, t: _Tally) -> dict[str, Any]:
    out: dict[str, Any] = {"docs": t.docs, "references": sorted(t.references)}
    if not t.docs:
        out["status"] = "no documents"
        return out
    if not t.texts and not t.refused_ok:
        out["status"] = ("not available: no document of this stratum yields text "
                         "(image-only pages need an OCR engine)" if name == "scanned"
                         else "not available: no document yields text")
        out["refused"] = t.refused
        return out
    out["status"] = "measured"
    out["read"], out["refused"], out["refused_as_expected"] = t.read, t.refused, t.refused_ok
    out["cer"] = round(t.edits / t.chars, 4) if t.chars else None
    out["reading_order_error"] = round(sum(t.orders) / len(t.orders), 4) if t.orders else None
    table = f1(*t.tables)
    out["table_f1"] = round(table, 4) if table is not None else None
    out["locator_accuracy"] = round(t.hits / t.spans, 4) if t.spans else None
    out["gold_spans"] = t.spans
    if t.covered["total"]:
        out["covered"] = dict(t.covered)
    if t.failures:
        out["failures"] = t.failures
    return out
