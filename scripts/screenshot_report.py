"""Screenshot a report.html in headless Chromium (Debian's, through Playwright).

Usage: python scripts/screenshot_report.py reports/run/dictamen/report.html docs/dictamen.png
"""

from __future__ import annotations

import sys
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def main(html: str, png: str, width: int = 1400) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": 900})
        page.goto(Path(html).resolve().as_uri())
        page.screenshot(path=png, full_page=True)
        browser.close()
    print(f"wrote {png}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
