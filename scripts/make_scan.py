"""Write a scanned (image-only) copy of a PDF: every page drawn to an image with pypdfium2
and wrapped as a PDF with no text layer (`pincite.evals.scans`).

Usage: python scripts/make_scan.py SRC.pdf OUT.pdf [--variant clean|skew|lowres|noise] [--seed N]

Example: python scripts/make_scan.py examples/tender/pliego.pdf /tmp/pliego-scan.pdf
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from pincite.evals.scans import VARIANTS, scan_pdf  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    """Write the scan; return the exit status."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("src", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--variant", choices=VARIANTS, default="clean")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.out.resolve() == args.src.resolve():
        ap.error("OUT must not be SRC")
    args.out.write_bytes(scan_pdf(args.src.read_bytes(), variant=args.variant, seed=args.seed))
    print(f"wrote {args.out} ({args.variant})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
