"""Measure OCR engines on the same page images: CER against the born-digital text, and speed.

Engines: Tesseract 5 through tesserocr (what pincite uses, `pincite.parse.ocr`) and
RapidOCR (`rapidocr-onnxruntime`, PP-OCR models shipped inside its wheel, run by ONNX
Runtime). Pages: the example pliego and the first pages of CUAD dev PDFs, drawn at 300 dpi
(`pincite.evals.scans`). Each engine's lines are put in reading order (top to bottom, then
left to right), joined with spaces and compared with the page's born-digital text (both
with whitespace runs as one space): CER = Levenshtein distance / reference length.

RapidOCR is not a pincite dependency: run this with an interpreter that has it, e.g.
`python -m venv /tmp/ocrcmp && /tmp/ocrcmp/bin/pip install rapidocr-onnxruntime==1.4.4
tesserocr==2.13.0 pypdfium2 numpy` then
`PYTHONPATH=src /tmp/ocrcmp/bin/python scripts/ocr_engines.py --pages 12`.
docs/ocr.md records the figures and the choice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cuad" / "dev" / "full_contract_pdf"


def _pages(data: Path, n: int) -> list[tuple[str, bytes, int]]:
    out = [("tender/pliego.pdf", (ROOT / "examples" / "tender" / "pliego.pdf").read_bytes(), p)
           for p in (1, 2)]
    for pdf in sorted(p for p in data.iterdir() if p.suffix.lower() == ".pdf"):
        if len(out) >= n:
            break
        out.append((pdf.name, pdf.read_bytes(), 1))
    return out[:n]


def _reference(data: bytes, page: int) -> str:
    from pincite.evals.ocr import _page_texts, _subset
    from pincite.parse import parse

    return _page_texts(parse("pdf", _subset(data, [page]))).get(1, "")


def _tesseract(langs: str):  # type: ignore[no-untyped-def]
    from pincite.parse.ocr import Tesseract

    engine = Tesseract(tuple(langs.split("+")))

    def read(img) -> str:  # type: ignore[no-untyped-def]
        lines = engine.read(img, dpi=300, seconds=600) or []
        lines = sorted(lines, key=lambda ln: (ln.box[1], ln.box[0]))
        return " ".join(w.text for ln in lines for w in ln.words)

    return read, f"tesseract {engine.info.version} ({engine.info.binding}, {langs})"


def _rapidocr():  # type: ignore[no-untyped-def]
    import numpy as np
    from rapidocr_onnxruntime import RapidOCR

    engine = RapidOCR()

    def read(img) -> str:  # type: ignore[no-untyped-def]
        result, _ = engine(np.asarray(img.convert("RGB")))
        boxes = sorted(result or [], key=lambda r: (min(p[1] for p in r[0]), min(p[0] for p in r[0])))
        return " ".join(r[1] for r in boxes)

    from importlib.metadata import version

    return read, f"rapidocr-onnxruntime {version('rapidocr-onnxruntime')} (PP-OCR models of its wheel)"


def main(argv: list[str] | None = None) -> int:
    """Print (or --json) CER and seconds per page for each engine; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--pages", type=int, default=12)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    from pincite.evals.ocr import _norm, levenshtein
    from pincite.evals.scans import render_pages

    pages = _pages(args.data, max(1, args.pages))
    images = [render_pages(raw, 300, [p])[0] for _, raw, p in pages]
    refs = [_reference(raw, p) for _, raw, p in pages]
    engines = [_tesseract("eng+spa"), _tesseract("spa+eng")]
    try:
        engines.append(_rapidocr())
    except ImportError:
        print("rapidocr-onnxruntime is not installed here: only Tesseract is measured",
              file=sys.stderr)
    rows = []
    for read, name in engines:
        read(images[0])  # warm: models loaded, first-call costs paid
        edits = chars = 0
        seconds = 0.0
        for img, ref in zip(images, refs, strict=True):
            t0 = time.perf_counter()
            text = _norm(read(img))
            seconds += time.perf_counter() - t0
            edits += levenshtein(ref, text)
            chars += len(ref)
        rows.append({"engine": name, "pages": len(images), "cer": round(edits / chars, 4),
                     "seconds_per_page": round(seconds / len(images), 3)})
    if args.json:
        print(json.dumps(rows))
        return 0
    print(f"{len(images)} pages at 300 dpi (2 of the example pliego, then CUAD dev first pages)")
    print(f"{'engine':70} {'CER':>7} {'s/page':>7}")
    for r in rows:
        print(f"{r['engine']:70} {r['cer']:7.4f} {r['seconds_per_page']:7.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
