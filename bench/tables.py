"""Table extraction benchmark: pincite's PDF tables beside pdfplumber's, same files, same run.

For each data set (the CUAD dev contracts, the ICDAR 2013 dev split, or `--data DIR`
holding PDFs), every system reads every PDF in the same process:

- pincite parse           the whole text layer (`pincite.parse.pdf`), tables included
- pincite tables          pdfium pages → `pdf_tables.find_tables` (detection and grids,
                          without the rest of the text layer)
- pdfplumber tables       `page.find_tables()` then `table.extract()` on every page
                          (its defaults: ruled tables)

and reports pages/s and tables/s (tables found per second; the systems find different
tables, so tables/s is a throughput, not a quality figure — `pincite eval icdar2013`
measures quality).

Usage: python bench/tables.py [--data DIR ...] [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DEFAULT_DATA = [SHARED / "cuad" / "dev" / "full_contract_pdf", SHARED / "icdar2013_tables" / "dev"]


def _pdfs(data: Path) -> list[Path]:
    return sorted(p for p in data.rglob("*") if p.suffix.lower() == ".pdf")


def bench_parse(files: list[bytes]) -> tuple[int, int]:
    from pincite.limits import Limits
    from pincite.parse.pdf import reading as pdf

    pages = tables = 0
    for data in files:
        layer = pdf.parse(data, password=None, limits=Limits())
        pages += layer.page_count
        tables += sum(1 for e in layer.elements if e.kind == "table")
    return pages, tables


def bench_detect(files: list[bytes]) -> tuple[int, int]:
    import pypdfium2 as pdfium

    from pincite.parse.pdf.lines import read_page
    from pincite.parse.pdf.pdfium_api import pdfium_fns
    from pincite.parse.pdf.table_detect import find_tables

    fn = pdfium_fns()
    pages = tables = 0
    for data in files:
        doc = pdfium.PdfDocument(data)
        handle = ctypes.cast(doc.raw, ctypes.c_void_p).value or 0
        for i in range(len(doc)):
            tables += len(find_tables(read_page(fn, handle, i)))
            pages += 1
        doc.close()
    return pages, tables


def bench_pdfplumber(files: list[bytes]) -> tuple[int, int]:
    import io

    import pdfplumber

    pages = tables = 0
    for data in files:
        with pdfplumber.open(io.BytesIO(data)) as doc:
            for page in doc.pages:
                for t in page.find_tables():
                    t.extract()
                    tables += 1
                pages += 1
    return pages, tables


SYSTEMS = [("pincite parse", bench_parse), ("pincite tables", bench_detect),
           ("pdfplumber tables", bench_pdfplumber)]


def run(data: Path, repeat: int) -> dict:
    paths = _pdfs(data)
    if not paths:
        sys.exit(f"no PDFs under {data}")
    files = [p.read_bytes() for p in paths] * repeat
    rows = []
    for name, fn in SYSTEMS:
        t0 = time.perf_counter()
        pages, tables = fn(files)
        secs = time.perf_counter() - t0
        rows.append({"system": name, "pages": pages, "tables": tables, "seconds": round(secs, 3),
                     "pages_per_s": round(pages / secs, 1), "tables_per_s": round(tables / secs, 1)})
    return {"data": str(data), "documents": len(files), "rows": rows}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, action="append")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    out = [run(d, args.repeat) for d in (args.data or DEFAULT_DATA)]
    if args.json:
        print(json.dumps(out))
        return
    for res in out:
        print(f"{res['documents']} PDFs from {res['data']}")
        print(f"{'system':20} {'pages':>6} {'tables':>7} {'seconds':>8} {'pages/s':>9} {'tables/s':>9}")
        for r in res["rows"]:
            print(f"{r['system']:20} {r['pages']:>6} {r['tables']:>7} {r['seconds']:>8.2f} "
                  f"{r['pages_per_s']:>9.1f} {r['tables_per_s']:>9.1f}")
        print()


if __name__ == "__main__":
    main()
