"""OCR on scans made here: CER against the born-digital layer, and gold CUAD segments cited.

`run_ocr(DIR)` (`pincite eval ocr --data DIR`) takes born-digital PDFs — every page of the
`examples/` PDFs and a sample of CUAD pages — draws the sampled pages to images and wraps
them as image-only PDFs in each variant of `evals.scans` (clean 300 dpi, skewed 1-2°,
150 dpi, noisy), ingests them through the sandbox as a user would, and measures against
the born-digital PDF of the same pages parsed the same way:

- **CER**: Levenshtein distance between a page's text in the OCR layer and in the
  born-digital layer, over the born-digital length (micro-averaged over pages; texts
  compared with whitespace runs as one space and soft hyphens dropped, nothing else);
- **segments cited**: the share of gold CUAD clause segments lying on the sampled pages
  (their born-digital citation's boxes are all there) that `cite` finds and verifies in the
  OCR layer;
- **word confidence**: each OCR word is aligned with the born-digital words of its page
  (difflib over word sequences); the error rate of the words at or above each bar, and the
  share below it (what a bar sends to review). The bar of `extract.decide` is checked on
  two document folds: the lowest bar whose error rate is at most 1 % on the fit fold, and
  that bar's error rate on the held-out fold;
- **speed**: OCR'd pages per second of ingest.

Sampling (deterministic, `seed`): CUAD documents in a seeded order; from each, the pages
holding gold segments (then its other pages), until `pages` pages are taken, at most
`PER_DOC` from one document.
"""

from __future__ import annotations

import difflib
import hashlib
import io
import random
import tempfile
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import QuoteNotFound, UsageError
from ..model.progress_report import Report, counted
from ..vocab import ProgressUnit
from .scans import VARIANTS, scan_pdf

PER_DOC = 4
BARS = (0.0, 50.0, 60.0, 70.0, 75.0, 80.0, 85.0, 90.0, 95.0)
MAX_WORD_ERROR = 0.01


def levenshtein(a: str, b: str) -> int:
    """Return the edit distance of two strings (Hyyrö's bit-parallel algorithm)."""
    if len(a) < len(b):
        a, b = b, a
    m = len(b)
    if m == 0:
        return len(a)
    peq: dict[str, int] = {}
    for i, ch in enumerate(b):
        peq[ch] = peq.get(ch, 0) | (1 << i)
    mask, high = (1 << m) - 1, 1 << (m - 1)
    pv, mv, score = mask, 0, m
    for ch in a:
        eq = peq.get(ch, 0)
        xv = eq | mv
        xh = (((eq & pv) + pv) ^ pv) | eq
        ph = (mv | ~(xh | pv)) & mask
        mh = pv & xh
        if ph & high:
            score += 1
        elif mh & high:
            score -= 1
        ph = ((ph << 1) | 1) & mask
        mh = (mh << 1) & mask
        pv = (mh | ~(xv | ph)) & mask
        mv = ph & xv
    return score


def _norm(text: str) -> str:
    return " ".join(text.replace("\u00ad", "").split())


def _page_texts(layer: Any) -> dict[int, str]:
    """Return {page: text} of a PDF layer (the characters with a box on that page)."""
    geo = layer.geometry
    if geo is None:
        return {}
    out: dict[int, list[str]] = defaultdict(list)
    last = 0
    for ch, p in zip(layer.text, geo.pages, strict=True):
        if p:
            out[p].append(ch)
            last = p
        elif last:
            out[last].append(" ")
    return {p: _norm("".join(chars)) for p, chars in out.items()}


def _subset(data: bytes, pages: Sequence[int]) -> bytes:
    """Return a PDF of the 1-based `pages` of `data`, born-digital as they are."""
    import pypdfium2 as pdfium

    out = pdfium.PdfDocument.new()
    src = pdfium.PdfDocument(data)
    out.import_pages(src, [p - 1 for p in pages])
    buf = io.BytesIO()
    out.save(buf)
    return buf.getvalue()


def _fold(name: str) -> int:
    return hashlib.sha256(name.encode()).digest()[0] % 2


def _sample(data: Path, pages: int, seed: int, store: Any) -> list[dict[str, Any]]:
    """Return the sampled documents: name, bytes, pages taken, gold segments on them."""
    from ..cite.verifier import Verifier
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from .fidelity import gold_segments

    gold: dict[str, list[str]] = defaultdict(list)
    for pdf_file, text in gold_segments(data):
        gold[Path(pdf_file).name].append(text)
    names = sorted(gold)
    random.Random(seed).shuffle(names)
    folder = data / "full_contract_pdf"
    ver = Verifier(store, Principal.parse("eval:evaluator"))
    out: list[dict[str, Any]] = []
    taken = 0
    with Ingestor(store, tenant="eval", acl=["*"]) as ing:
        for name in names:
            if taken >= pages:
                break
            raw = (folder / name).read_bytes()
            ing.ingest(raw, source_id=name, path=name, name=name)
            placed: dict[str, set[int]] = {}
            for text in gold[name]:
                try:
                    c = ver.cite(name, text)
                except QuoteNotFound:
                    continue
                placed[text] = {p for p, _ in c.boxes} or ({c.page} if c.page else set())
            import pypdfium2 as pdfium

            count = len(pdfium.PdfDocument(raw))
            wanted = sorted({p for ps in placed.values() for p in ps})
            chosen = (wanted + [p for p in range(1, count + 1) if p not in wanted])
            chosen = sorted(chosen[:min(PER_DOC, pages - taken)])
            segs = [t for t, ps in placed.items() if ps and ps <= set(chosen)]
            out.append({"name": name, "data": raw, "pages": chosen, "segments": segs,
                        "fold": _fold(name), "group": "cuad"})
            taken += len(chosen)
    return out


def _examples() -> list[dict[str, Any]]:
    root = Path(__file__).resolve().parents[3] / "examples"
    import pypdfium2 as pdfium

    out = []
    for path in sorted(root.rglob("*.pdf")):
        raw = path.read_bytes()
        n = len(pdfium.PdfDocument(raw))
        out.append({"name": str(path.relative_to(root)), "data": raw,
                    "pages": list(range(1, n + 1)), "segments": [], "fold": _fold(path.name),
                    "group": "examples"})
    return out


def _words(layer: Any) -> list[tuple[int, str, float]]:
    """Return (page, text, confidence) of the layer's OCR words, in layer order."""
    record = (layer.meta or {}).get("ocr") or {}
    geo = layer.geometry
    return [(geo.pages[int(s)], layer.text[int(s):int(e)], float(c))
            for s, e, c in record.get("words") or ()]


def _word_hits(ref: str, words: list[tuple[str, float]]) -> list[tuple[float, bool]]:
    """Return (confidence, right) of each OCR word of a page, aligned with the reference."""
    ocr = [w.replace("\u00ad", "") for w, _ in words]
    right = [False] * len(ocr)
    sm = difflib.SequenceMatcher(None, ref.split(), ocr, autojunk=False)
    for block in sm.get_matching_blocks():
        for k in range(block.b, block.b + block.size):
            right[k] = True
    return [(c, r) for (_, c), r in zip(words, right, strict=True)]


def _bars(hits: list[tuple[float, bool]]) -> list[dict[str, Any]]:
    rows = []
    for bar in BARS:
        above = [r for c, r in hits if c >= bar]
        rows.append({"bar": bar, "words": len(above),
                     "error_rate": round(1 - sum(above) / len(above), 4) if above else None,
                     "share_below": round(1 - len(above) / len(hits), 4) if hits else None})
    return rows


def _chosen_bar(hits: list[tuple[float, bool]]) -> float:
    for row in _bars(hits):
        if row["error_rate"] is not None and row["error_rate"] <= MAX_WORD_ERROR:
            return float(row["bar"])
    return BARS[-1]


def _confidence(hits: dict[int, list[tuple[float, bool]]]) -> dict[str, Any]:
    """Return the error rates by bar on each fold, the bar the fit fold picks and its
    held-out error rate and review share."""
    fit_bar = _chosen_bar(hits[0])
    held = [row for row in _bars(hits[1]) if row["bar"] == fit_bar][0]
    return {"fit_fold": _bars(hits[0]), "held_out_fold": _bars(hits[1]), "bar_from_fit": fit_bar,
            "held_out_error_at_bar": held["error_rate"],
            "held_out_share_below_bar": held["share_below"], "_hits": hits}


def _run_variant(docs: list[dict[str, Any]], variant: str, refs: dict[str, dict[int, str]],
                 tmp: Path, store_url: str | None, report: Report | None = None
                 ) -> dict[str, Any]:
    from ..cite.verifier import Verifier
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    store = open_store(store_url or tmp / f"store-{variant}")
    edits: dict[str, int] = defaultdict(int)
    ref_chars: dict[str, int] = defaultdict(int)
    ocr_pages = 0
    cited = total_segs = 0
    seconds = 0.0
    pages_out: list[dict[str, Any]] = []
    hits: dict[int, list[tuple[float, bool]]] = {0: [], 1: []}
    misses: list[dict[str, str]] = []
    try:
        with Ingestor(store, tenant="eval", acl=["*"], report=report) as ing:
            ver = Verifier(store, Principal.parse("eval:evaluator"))
            for k, doc in enumerate(counted(docs, ProgressUnit.DOCUMENT, report)):
                scan = scan_pdf(doc["data"], variant=variant, pages=doc["pages"], seed=k)
                t0 = time.perf_counter()
                res = ing.ingest(scan, source_id=doc["name"], path=doc["name"], name="scan.pdf")
                seconds += time.perf_counter() - t0
                loaded = ver.layer(ver.revision(f"{doc['name']}@{res.revision_id}"))  # type: ignore[arg-type]
                layer = loaded.layer if loaded is not None else None
                got = _page_texts(layer) if layer is not None else {}
                words = _words(layer) if layer is not None else []
                ocr_pages += len(doc["pages"])
                for i, _page in enumerate(doc["pages"], start=1):
                    ref, hyp = refs[doc["name"]].get(i, ""), got.get(i, "")
                    d = levenshtein(ref, hyp)
                    edits[doc["group"]] += d
                    ref_chars[doc["group"]] += len(ref)
                    pages_out.append({"doc": doc["name"], "page": _page,
                                      "cer": round(d / len(ref), 4) if ref else None})
                    hits[doc["fold"]] += _word_hits(ref, [(w, c) for p, w, c in words if p == i])
                for text in doc["segments"]:
                    total_segs += 1
                    try:
                        ok = ver.cite(doc["name"], text).quote_verified
                    except QuoteNotFound:
                        ok = False
                    cited += ok
                    if not ok:
                        misses.append({"doc": doc["name"], "text": text[:160]})
    finally:
        store.close()
    return {
        "pages": ocr_pages,
        "cer": {g: round(edits[g] / ref_chars[g], 4) for g in sorted(ref_chars) if ref_chars[g]},
        "segments": total_segs, "segments_cited": cited,
        "segment_share": round(cited / total_segs, 4) if total_segs else None,
        "pages_per_second": round(ocr_pages / seconds, 3) if seconds else None,
        "word_confidence": _confidence(hits),
        "worst_pages": sorted((p for p in pages_out if p["cer"] is not None),
                              key=lambda p: -p["cer"])[:5],
        "misses": misses[:20],
    }


def run_ocr(data: Path, *, pages: int = 40, seed: int = 0, store_url: str | None = None,
            variants: Sequence[str] = VARIANTS, report: Report | None = None
            ) -> dict[str, Any]:
    """Return the OCR eval's figures per variant (see the module docstring). Each variant
    is reported to `report` as a step, its scans as documents with their pages."""
    from ..limits import check_number
    from ..parse import parse
    from ..store import open_store

    check_number("--pages", pages, 1, 10_000, integer=True)
    bad = [v for v in variants if v not in VARIANTS]
    if bad:
        raise UsageError(f"unknown scan variant {bad[0]!r}; use {', '.join(VARIANTS)}")
    if not (data / "full_contract_pdf").is_dir():
        raise UsageError(f"{data} has no full_contract_pdf/: give a CUAD split folder")
    with tempfile.TemporaryDirectory(prefix="pincite-eval-ocr-") as tmp:
        sample_store = open_store(Path(tmp) / "born")
        try:
            cuad = _sample(data, pages, seed, sample_store)
        finally:
            sample_store.close()
        docs = _examples() + cuad
        refs = {d["name"]: _page_texts(parse("pdf", _subset(d["data"], d["pages"])))
                for d in docs}
        out = {v: _run_variant(docs, v, refs, Path(tmp), store_url, report)
               for v in counted(variants, ProgressUnit.STEP, report, lambda v: f"variant {v}")}
    pooled: dict[int, list[tuple[float, bool]]] = {0: [], 1: []}
    for r in out.values():
        for fold, h in r["word_confidence"].pop("_hits").items():
            pooled[fold] += h
    pooled_conf = _confidence(pooled)
    pooled_conf.pop("_hits")
    return {"dataset": "ocr", "seed": seed, "documents": len(docs),
            "cuad_documents": len(cuad), "pages": sum(len(d["pages"]) for d in docs),
            "cuad_pages": sum(len(d["pages"]) for d in cuad),
            "segments_on_pages": sum(len(d["segments"]) for d in cuad),
            "variants": out, "word_confidence_all_variants": pooled_conf}
