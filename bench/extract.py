"""Extraction benchmark: fields/s of the deterministic extractor on the CUAD dev contracts.

The CUAD dev PDFs are ingested once into a temporary store (not timed); then, with the
41-field CUAD schema (`examples/contracts/cuad.yaml`), each system runs `--runs` times,
interleaved, and its best run counts:

- load case               text layer, locator index, atomic facts, folded text per contract
- extract                 `DeterministicExtractor.extract` over loaded cases (candidates,
                          score parts, records with citations)
- run_extraction          the whole user path per contract, unpersisted: load + extract +
                          validate (every citation re-verified) + decide
- regex scan (floor)      the same schema's patterns and trigger terms run over the
                          contracts' TXT files, first match per field, no sentence, no
                          citation, no verification

No installed peer does schema extraction with verified citations (the query-bench
peers retrieve passages; none fills typed fields), so the floor is a plain regex scan.

Usage: python bench/extract.py [--data DIR] [--schema FILE] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cuad" / "dev"
DEFAULT_SCHEMA = ROOT / "examples" / "contracts" / "cuad.yaml"


def regex_floor(texts: list[str], schema: Any) -> int:
    """Return the fields found by a first-match scan of patterns, then trigger terms."""
    from pincite.extract.case import term_regex

    compiled = []
    for spec in schema.fields:
        rxs = [re.compile(p, re.I | re.S) for p in spec.patterns]
        terms = term_regex(spec.terms())
        compiled.append((rxs, terms))
    found = 0
    for text in texts:
        low = text.lower()
        for rxs, terms in compiled:
            hit = next((m for rx in rxs for m in [rx.search(text)] if m), None)
            if hit is None and terms is not None:
                hit = terms.search(low)
            found += hit is not None
    return found


def best_of(runs: int, fn: Callable[[], Any]) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help="a CUAD split folder")
    ap.add_argument("--schema", type=Path, default=DEFAULT_SCHEMA)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    from pincite.extract.case import load_case
    from pincite.extract.deterministic import DeterministicExtractor
    from pincite.extract.run import run_extraction
    from pincite.extract.schema import load_schema
    from pincite.model import Principal
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    pdfs = sorted(p for p in (args.data / "full_contract_pdf").iterdir() if p.is_file())
    txts = [(args.data / "full_contract_txt" / (p.stem + ".txt")) for p in pdfs]
    texts = [t.read_text(encoding="utf-8", errors="replace") for t in txts if t.is_file()]
    schema = load_schema(args.schema)
    n_fields = len(schema.fields)
    principal = Principal.parse("bench:runner")
    rows: dict[str, dict[str, Any]] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-bench-") as tmp:
        store = open_store(Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="bench", acl=["*"]) as ing:
                ids = [p.name for p in pdfs
                       if ing.ingest(p.read_bytes(), source_id=p.name, path=str(p),
                                        name=p.name).status != "quarantined"]
            load_case(store, principal, ids[:1])  # imports and caches outside the timings
            docs = len(ids)
            ext = DeterministicExtractor()

            def load() -> list[Any]:
                return [load_case(store, principal, [i]) for i in ids]

            t, cases = best_of(args.runs, load)
            rows["load case"] = {"seconds": t, "docs": docs}
            t, _ = best_of(args.runs, lambda: [ext.extract(c, schema, "bench") for c in cases])
            rows["extract"] = {"seconds": t, "fields": docs * n_fields}
            t, _ = best_of(args.runs, lambda: [run_extraction(store, principal, schema, [i], route=False,
                                                              persist=False) for i in ids])
            rows["run_extraction"] = {"seconds": t, "fields": docs * n_fields}
        finally:
            store.close()
    t, found = best_of(args.runs, lambda: regex_floor(texts, schema))
    rows["regex scan (floor)"] = {"seconds": t, "fields": len(texts) * n_fields, "found": found}
    for r in rows.values():
        r["seconds"] = round(r["seconds"], 4)
        if "fields" in r:
            r["fields_per_s"] = round(r["fields"] / r["seconds"], 1) if r["seconds"] else None
        else:
            r["docs_per_s"] = round(r["docs"] / r["seconds"], 2) if r["seconds"] else None
    result = {"benchmark": "extract", "documents": docs, "fields_per_doc": n_fields,
              "runs": args.runs, "systems": rows}
    if args.json:
        sys.stdout.write(json.dumps(result) + "\n")
        return 0
    print(f"CUAD {args.data.name}: {docs} contracts × {n_fields} fields, best of {args.runs} runs")
    print(f"{'system':22} {'seconds':>8} {'fields/s':>10}")
    for name, r in rows.items():
        rate = r.get("fields_per_s") or r.get("docs_per_s")
        unit = "" if "fields_per_s" in r else " docs/s"
        print(f"{name:22} {r['seconds']:8.3f} {rate:>10}{unit}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
