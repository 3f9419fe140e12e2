"""OCR benchmark: pages/s of pincite's OCR beside the plain `tesseract` CLI, same images, same run.

The pages (`examples/tender/pliego.pdf` and the first pages of the CUAD dev PDFs, `--pages`
in all) are drawn once at 300 dpi to grey PNG files; then, interleaved, each run times

- tesseract CLI          `tesseract IMG stdout -l eng+spa tsv`, one process per page (the
                         Debian binary: its own engine version, printed below; built with
                         OpenMP, so it runs threads on every core)
- tesseract CLI 1 thread the same with `OMP_THREAD_LIMIT=1` (pincite's engine has no
                         OpenMP: one thread)
- pincite engine         `parse.ocr.Tesseract.read` on the same images (tesserocr, engine
                         loaded once; words, boxes, confidences)
- pincite parse          the image-only PDF of those pages through `parse("pdf")`: page
                         detection, drawing, OCR, lines → paragraphs → layer, word marks
- pincite ingest         the same PDF through `Ingestor` (sandboxed worker, store commit)

Both engines get the same tessdata folder and languages; the best of `--runs` counts.

Usage: python bench/ocr.py [--data DIR] [--pages N] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cuad" / "dev" / "full_contract_pdf"
LANGS = "eng+spa"


def _images(data: Path, pages: int) -> list:
    """Return up to `pages` grey 300-dpi page images: the example pliego, then CUAD pages."""
    from pincite.evals.scans import render_pages

    out = render_pages((ROOT / "examples" / "tender" / "pliego.pdf").read_bytes(), 300)
    for pdf in sorted(p for p in data.rglob("*") if p.suffix.lower() == ".pdf"):
        if len(out) >= pages:
            break
        out += render_pages(pdf.read_bytes(), 300, [1, 2])
    return out[:pages]


def bench_cli(paths: list[Path], tessdata: Path, threads: int | None = None) -> int:
    env = dict(os.environ, **({"OMP_THREAD_LIMIT": str(threads)} if threads else {}))
    for p in paths:
        subprocess.run(["tesseract", str(p), "stdout", "--tessdata-dir", str(tessdata),
                        "-l", LANGS, "tsv"], check=True, capture_output=True, env=env)
    return len(paths)


def bench_engine(images: list, engine) -> int:  # type: ignore[no-untyped-def]
    for img in images:
        engine.read(img, dpi=300, seconds=600)
    return len(images)


def bench_parse(pdf: bytes) -> int:
    from pincite.parse import parse

    layer = parse("pdf", pdf)
    return len(layer.meta["ocr"]["pages"])


def bench_ingest(pdf: bytes, pages: int) -> int:
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "s")
        try:
            with Ingestor(store, tenant="bench", acl=["*"]) as ing:
                ing.ingest(b"%PDF-1.4\n%%EOF\n", source_id="warm", path="warm")  # start the worker
                t0 = time.perf_counter()
                r = ing.ingest(pdf, source_id="scan.pdf", path="scan.pdf", name="scan.pdf")
                bench_ingest.elapsed = time.perf_counter() - t0  # type: ignore[attr-defined]
                assert r.flags == ("ocr",), r
        finally:
            store.close()
    return pages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--pages", type=int, default=8)
    ap.add_argument("--runs", type=int, default=2, help="runs per system; the best counts")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    from pincite.evals.scans import images_pdf
    from pincite.parse.ocr import Tesseract, tessdata_dir

    if shutil.which("tesseract") is None or tessdata_dir() is None:
        sys.exit("the tesseract CLI and its language packs are needed: apt-get install "
                 "tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa")
    images = _images(args.data, max(1, args.pages))
    pdf = images_pdf(images, 300)
    engine = Tesseract(tuple(LANGS.split("+")))
    cli_version = subprocess.run(["tesseract", "--version"], capture_output=True,
                                 text=True).stdout.split()[1]
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for k, img in enumerate(images):
            buf = io.BytesIO()
            img.save(buf, "PNG")
            paths.append(Path(tmp) / f"p{k}.png")
            paths[-1].write_bytes(buf.getvalue())
        systems = [("tesseract CLI", lambda: bench_cli(paths, tessdata_dir())),
                   ("tesseract CLI 1 thread", lambda: bench_cli(paths, tessdata_dir(), 1)),
                   ("pincite engine", lambda: bench_engine(images, engine)),
                   ("pincite parse", lambda: bench_parse(pdf)),
                   ("pincite ingest", lambda: bench_ingest(pdf, len(images)))]
        best: dict[str, tuple[float, int]] = {}
        for _ in range(max(1, args.runs)):
            for name, fn in systems:
                bench_ingest.__dict__.pop("elapsed", None)
                t0 = time.perf_counter()
                pages = fn()
                elapsed = getattr(bench_ingest, "elapsed", None) if name == "pincite ingest" else None
                elapsed = elapsed or (time.perf_counter() - t0)
                if name not in best or elapsed < best[name][0]:
                    best[name] = (elapsed, pages)
    rows = []
    for name, _ in systems:
        elapsed, pages = best[name]
        rows.append({"system": name, "pages": pages, "seconds": round(elapsed, 3),
                     "pages_per_s": round(pages / elapsed, 3)})
    base = rows[0]["pages_per_s"]
    for r in rows:
        r["ratio_vs_cli"] = round(r["pages_per_s"] / base, 2)
    out = {"pages": len(images), "runs": max(1, args.runs), "languages": LANGS,
           "cli_engine": cli_version, "pincite_engine": engine.info.version, "rows": rows}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{len(images)} pages at 300 dpi, {LANGS}, best of {out['runs']} runs per system; "
          f"CLI tesseract {cli_version}, pincite's tesseract {engine.info.version}")
    print(f"{'system':24} {'pages':>6} {'seconds':>8} {'pages/s':>8} {'× CLI':>7}")
    for r in rows:
        print(f"{r['system']:24} {r['pages']:>6} {r['seconds']:>8.2f} {r['pages_per_s']:>8.3f} "
              f"{r['ratio_vs_cli']:>7.2f}")


if __name__ == "__main__":
    main()
