"""Facts benchmark: atomic facts/s of `extract_facts` over parsed PDFs.

Two corpora, each parsed once with `pincite.parse.parse("pdf", data)` (not timed), then
`pincite.facts.extract_facts` timed over every text layer:

- CUAD dev contracts       /work/shared/data/cuad/dev/full_contract_pdf (prose-heavy)
- ICDAR 2013 table PDFs    /work/shared/data/icdar2013_tables/dev/*.pdf (table-heavy)

Prints one row per corpus: documents, pages, characters, facts (table-cell / prose),
seconds, facts/s and MB of text/s.

Usage: python bench/facts.py [--cuad DIR] [--icdar DIR] [--repeat N] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEFAULT_CUAD = DATA / "cuad" / "dev" / "full_contract_pdf"
DEFAULT_ICDAR = DATA / "icdar2013_tables" / "dev"


def _pdfs(data: Path) -> list[Path]:
    return sorted(p for p in data.rglob("*") if p.suffix.lower() == ".pdf")


def bench_corpus(name: str, paths: list[Path], repeat: int) -> dict:
    from pincite.facts.atomic import extract_facts
    from pincite.parse import parse

    layers = [parse("pdf", p.read_bytes()) for p in paths]
    facts = 0
    origins: Counter[str] = Counter()
    types: Counter[str] = Counter()
    t0 = time.perf_counter()
    for _ in range(repeat):
        for i, layer in enumerate(layers):
            out = extract_facts(layer, f"d{i}.pdf@r1")
            facts += len(out)
            if _ == 0:
                origins.update(f.origin_type for f in out)
                types.update(f.value_type for f in out)
    elapsed = time.perf_counter() - t0
    chars = sum(len(layer.text) for layer in layers) * repeat
    return {
        "corpus": name, "documents": len(layers) * repeat,
        "pages": sum(layer.page_count for layer in layers) * repeat, "chars": chars,
        "facts": facts, "table_cell_facts": origins["table_cell"] * repeat,
        "prose_facts": origins["prose"] * repeat, "value_types": dict(types),
        "seconds": round(elapsed, 3), "facts_per_s": round(facts / elapsed, 1),
        "mb_per_s": round(chars / elapsed / 1e6, 2),
    }


def bench_tables(data: Path, repeat: int) -> dict:
    """Return tables/s of pincite's PDF table detection beside pdfplumber's (bench/tables.py)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from tables import run  # bench/tables.py: the same systems, the same run

    return run(data, repeat)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cuad", type=Path, default=DEFAULT_CUAD)
    ap.add_argument("--icdar", type=Path, default=DEFAULT_ICDAR)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    rows = []
    for name, data in (("CUAD dev contracts", args.cuad), ("ICDAR 2013 tables", args.icdar)):
        paths = _pdfs(data)
        if not paths:
            print(f"skipping {name}: no PDFs under {data}", file=sys.stderr)
            continue
        rows.append(bench_corpus(name, paths, args.repeat))
    if not rows:
        sys.exit("no PDFs found: pass --cuad DIR or --icdar DIR")
    if args.json:
        tables = {name: bench_tables(data, args.repeat) for name, data in (
            ("CUAD dev contracts", args.cuad), ("ICDAR 2013 tables", args.icdar)) if _pdfs(data)}
        print(json.dumps({"rows": rows, "tables": tables}))
        return
    print(f"{'corpus':20} {'docs':>5} {'pages':>6} {'facts':>7} {'cell':>6} {'prose':>6} "
          f"{'seconds':>8} {'facts/s':>9} {'MB/s':>6}")
    for r in rows:
        print(f"{r['corpus']:20} {r['documents']:>5} {r['pages']:>6} {r['facts']:>7} "
              f"{r['table_cell_facts']:>6} {r['prose_facts']:>6} {r['seconds']:>8.2f} "
              f"{r['facts_per_s']:>9.1f} {r['mb_per_s']:>6.2f}")
    for r in rows:
        kinds = ", ".join(f"{k} {v}" for k, v in sorted(r["value_types"].items(),
                                                         key=lambda kv: -kv[1]))
        print(f"  {r['corpus']}: {kinds}")
    print(f"\n{'corpus':20} {'system':32} {'pages':>6} {'tables':>7} {'pages/s':>8} {'tables/s':>9}")
    for name, data in (("CUAD dev contracts", args.cuad), ("ICDAR 2013 tables", args.icdar)):
        if not _pdfs(data):
            continue
        for t in bench_tables(data, args.repeat)["rows"]:
            print(f"{name:20} {t['system']:32} {t['pages']:>6} {t['tables']:>7} "
                  f"{t['pages_per_s']:>8.1f} {t['tables_per_s']:>9.1f}")


if __name__ == "__main__":
    main()
