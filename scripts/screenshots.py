"""Write docs/review-item.png and docs/review-metrics.png: the browser test of the review
page, run in Debian's Chromium with PINCITE_SCREENSHOTS=1 (the tender example, a strict
schema copy, one item claimed and corrected).

Usage: python scripts/screenshots.py
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    env = {**os.environ, "PINCITE_SCREENSHOTS": "1"}
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/service/test_review_browser.py"], cwd=ROOT, env=env)
    for name in ("review-item.png", "review-metrics.png"):
        path = ROOT / "docs" / name
        print(f"{path}: {'written' if path.exists() else 'MISSING'}")
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main())
