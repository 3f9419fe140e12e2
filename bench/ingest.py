"""Ingest benchmark: pages/s of pincite's PDF parse beside raw pypdfium2, and verifications/s.

Runs on the CUAD dev PDFs (or `--data DIR` holding PDFs). Every system runs in the same
process, on the same files, in the same run, so the ratios hold on a noisy machine; each
system runs `--runs` times, interleaved with the others, and its best run counts. Imports
and worker start-up are outside the timings: the smallest PDF is parsed once in-process,
and once by each sandbox worker, before the clock starts (pypdfium2 is loaded by then too):

- pypdfium2 text          get_text_range() per page
- pypdfium2 text+boxes    the same plus get_charbox() for every character
- pincite parse           pincite.parse.pdf in-process (no sandbox)
- pincite parse (sandbox) the same through the parser sandbox (a reused child process)
- pincite ingest          sniff + sandboxed parse + blob + SQLite commit

Then verifications/s: citations of random spans verified again and again with the
per-revision hash cached (the steady state of `pincite verify` over many entries); and
cold beside warm over every revision: a fresh verifier pays each revision's blob sha256
and layer load on its first citation (what `pincite verify` of a new file pays).

Usage: python bench/ingest.py [--data DIR] [--repeat N] [--runs N] [--json]
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data" / "cuad" / "dev" / "full_contract_pdf"


def _pdfs(data: Path) -> list[Path]:
    return sorted(p for p in data.rglob("*") if p.suffix.lower() == ".pdf")


def _warm_up(files: list[bytes]) -> None:
    """Load pypdfium2 and pincite's PDF parser in this process (imports are not timed)."""
    import pypdfium2  # noqa: F401

    from pincite.limits import Limits
    from pincite.parse import parse

    parse("pdf", min(files, key=len), limits=Limits())


def bench_pdfium_text(files: list[bytes]) -> int:
    import pypdfium2 as pdfium

    pages = 0
    for data in files:
        doc = pdfium.PdfDocument(data)
        for i in range(len(doc)):
            tp = doc[i].get_textpage()
            tp.get_text_range()
            pages += 1
        doc.close()
    return pages


def bench_pdfium_boxes(files: list[bytes]) -> int:
    import pypdfium2 as pdfium

    pages = 0
    for data in files:
        doc = pdfium.PdfDocument(data)
        for i in range(len(doc)):
            tp = doc[i].get_textpage()
            tp.get_text_range()
            for j in range(tp.count_chars()):
                tp.get_charbox(j)
            pages += 1
        doc.close()
    return pages


def bench_parse(files: list[bytes]) -> int:
    from pincite.limits import Limits
    from pincite.parse import parse

    pages = 0
    for data in files:
        pages += parse("pdf", data, limits=Limits()).page_count
    return pages


def bench_parse_sandbox(files: list[bytes]) -> int:
    from pincite.limits import Limits
    from pincite.sources.sandbox import ParserSandbox

    pages = 0
    with ParserSandbox(Limits()) as sb:
        sb.parse("pdf", min(files, key=len))  # start the worker, load the parser
        t0 = time.perf_counter()
        for data in files:
            pages += sb.parse("pdf", data).page_count
        bench_parse_sandbox.elapsed = time.perf_counter() - t0  # type: ignore[attr-defined]
    return pages


def bench_ingest(files: list[bytes]) -> int:
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    pages = 0
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "s")
        with Ingestor(store, tenant="bench", acl=["*"]) as ing:
            ing.ingest(min(files, key=len), source_id="warm.pdf", path="warm.pdf")
            t0 = time.perf_counter()
            for i, data in enumerate(files):
                r = ing.ingest(data, source_id=f"d{i}.pdf", path=f"d{i}.pdf", name=f"d{i}.pdf")
                assert r.status == "new", r
                rev = store.latest_revision("bench", f"d{i}.pdf")
                layer = store.text_layer(rev)  # type: ignore[arg-type]
                pages += layer.page_count  # type: ignore[union-attr]
            bench_ingest.elapsed = time.perf_counter() - t0  # type: ignore[attr-defined]
        store.close()
    return pages


def _word_span(text: str, a: int, b: int) -> tuple[int, int]:
    """Return [a, b) widened to whitespace on both sides: a citation starts and ends on word
    boundaries (`cite` refuses a cut inside a word)."""
    while a > 0 and not text[a - 1].isspace():
        a -= 1
    while a < len(text) and text[a].isspace():
        a += 1
    while b < len(text) and not text[b].isspace():
        b += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, max(a + 1, b)


def bench_verify(files: list[bytes], n: int = 200_000) -> tuple[int, float]:
    from pincite.cite.verifier import Verifier
    from pincite.model import Principal
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "s")
        with Ingestor(store, tenant="bench", acl=["*"], sandbox=False) as ing:
            for i, data in enumerate(files[:5]):
                ing.ingest(data, source_id=f"d{i}.pdf", path=f"d{i}.pdf", name=f"d{i}.pdf")
        ver = Verifier(store, Principal.parse("bench:u"))
        cites = []
        for i in range(min(5, len(files))):
            rev = store.latest_revision("bench", f"d{i}.pdf")
            loaded = ver.layer(rev)  # type: ignore[arg-type]
            text = loaded.text  # type: ignore[union-attr]
            for _ in range(200):
                a = rng.randrange(0, max(1, len(text) - 300))
                a, b = _word_span(text, a, min(len(text), a + rng.randrange(20, 300)))
                from pincite.cite.verifier import citation_for

                cites.append(citation_for(rev, loaded, a, b))  # type: ignore[arg-type]
        reps = max(1, n // len(cites))
        t0 = time.perf_counter()
        ok = 0
        for _ in range(reps):
            for c in cites:
                ok += ver.verify(c).quote_verified
        elapsed = time.perf_counter() - t0
        store.close()
    return reps * len(cites), elapsed if ok == reps * len(cites) else float("nan")


def bench_verify_cold(files: list[bytes], per_rev: int = 20) -> dict[str, float]:
    """Cold verification over many revisions: every document ingested, `per_rev` citations
    each, all verified by a fresh Verifier (so each revision's first verification pays the
    blob's sha256 and the layer load), beside the same citations verified again (warm)."""
    from pincite.cite.verifier import Verifier, citation_for
    from pincite.model import Principal
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        store = open_store(Path(tmp) / "s")
        with Ingestor(store, tenant="bench", acl=["*"], sandbox=False) as ing:
            for i, data in enumerate(files):
                ing.ingest(data, source_id=f"c{i}.pdf", path=f"c{i}.pdf", name=f"c{i}.pdf")
        maker = Verifier(store, Principal.parse("bench:u"))
        cites = []
        for i in range(len(files)):
            rev = store.latest_revision("bench", f"c{i}.pdf")
            loaded = maker.layer(rev) if rev is not None else None
            if loaded is None:
                continue
            text = loaded.text
            for _ in range(per_rev):
                a = rng.randrange(0, max(1, len(text) - 300))
                a, b = _word_span(text, a, min(len(text), a + rng.randrange(20, 300)))
                cites.append(citation_for(rev, loaded, a, b))  # type: ignore[arg-type]
        revisions = len({c.doc_id for c in cites})
        ver = Verifier(store, Principal.parse("bench:u"))  # nothing cached
        t0 = time.perf_counter()
        cold_ok = sum(ver.verify(c).quote_verified for c in cites)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        warm_ok = sum(ver.verify(c).quote_verified for c in cites)
        warm = time.perf_counter() - t0
        store.close()
    return {"revisions": revisions, "citations": len(cites), "verified": min(cold_ok, warm_ok),
            "cold_s": round(cold, 3), "warm_s": round(warm, 3),
            "cold_per_s": round(len(cites) / cold, 1), "warm_per_s": round(len(cites) / warm, 1),
            "cold_revisions_per_s": round(revisions / cold, 2)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--runs", type=int, default=3, help="runs per system; the best counts")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "src"))
    paths = _pdfs(args.data)
    if not paths:
        sys.exit(f"no PDFs under {args.data}")
    files = [p.read_bytes() for p in paths] * args.repeat
    systems = [("pypdfium2 text", bench_pdfium_text),
               ("pypdfium2 text+boxes", bench_pdfium_boxes),
               ("pincite parse", bench_parse),
               ("pincite parse (sandbox)", bench_parse_sandbox),
               ("pincite ingest", bench_ingest)]
    _warm_up(files)
    best: dict[str, tuple[float, int]] = {}
    for _ in range(max(1, args.runs)):
        for name, fn in systems:
            t0 = time.perf_counter()
            pages = fn(files)
            elapsed = getattr(fn, "elapsed", None) or (time.perf_counter() - t0)
            if name not in best or elapsed < best[name][0]:
                best[name] = (elapsed, pages)
    rows = []
    for name, _ in systems:
        elapsed, pages = best[name]
        rows.append({"system": name, "pages": pages, "seconds": round(elapsed, 3),
                     "pages_per_s": round(pages / elapsed, 1)})
    base = next(r for r in rows if r["system"] == "pypdfium2 text+boxes")["pages_per_s"]
    for r in rows:
        r["ratio_vs_text+boxes"] = round(r["pages_per_s"] / base, 2)
    nver, vsec = bench_verify(files)
    out = {"documents": len(files), "runs": max(1, args.runs), "rows": rows,
           "verify": {"verifications": nver, "seconds": round(vsec, 3),
                      "per_s": round(nver / vsec) if vsec == vsec else None},
           "verify_cold": bench_verify_cold(files)}
    if args.json:
        print(json.dumps(out))
        return
    print(f"{len(files)} PDFs from {args.data}, best of {out['runs']} runs per system")
    print(f"{'system':26} {'pages':>6} {'seconds':>8} {'pages/s':>9} {'× text+boxes':>13}")
    for r in rows:
        print(f"{r['system']:26} {r['pages']:>6} {r['seconds']:>8.2f} {r['pages_per_s']:>9.1f} "
              f"{r['ratio_vs_text+boxes']:>13.2f}")
    v = out["verify"]
    print(f"verify: {v['verifications']} verifications in {v['seconds']:.2f}s = {v['per_s']}/s "
          "(per-revision hash cached)")
    c = out["verify_cold"]
    print(f"verify over {c['revisions']} revisions, {c['citations']} citations: cold "
          f"{c['cold_per_s']}/s ({c['cold_revisions_per_s']} revisions/s: blob sha256 and layer "
          f"load on first use) beside warm {c['warm_per_s']}/s; {c['verified']} verified")


if __name__ == "__main__":
    main()
