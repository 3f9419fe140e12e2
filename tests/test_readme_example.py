"""The README's Python example runs as a script, as a new user would save and run it:
`lib.ingest` publishes a generation, so the `lib.search` after it finds the document."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
QUOTE = "governed by the laws of the State of New York"


def readme_python() -> str:
    """Return the one ```python block of README.md."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text("utf-8"), re.S)
    assert len(blocks) == 1, f"README.md holds {len(blocks)} python blocks"
    return blocks[0]


def write_msa(path: Path) -> None:
    """Write a one-page services agreement PDF whose clause 12.1 holds QUOTE."""
    from reportlab.lib.pagesizes import LETTER
    from reportlab.pdfgen import canvas

    c = canvas.Canvas(str(path), pagesize=LETTER)
    lines = [("Helvetica-Bold", 14, "MASTER SERVICES AGREEMENT"),
             ("Helvetica-Bold", 11, "11. TERM"),
             ("Helvetica", 11, "11.1 This Agreement runs for three (3) years."),
             ("Helvetica-Bold", 11, "12. GOVERNING LAW"),
             ("Helvetica", 11, f"12.1 This Agreement is {QUOTE}.")]
    y = 720
    for font, size, text in lines:
        c.setFont(font, size)
        c.drawString(72, y, text)
        y -= 28
    c.save()


def test_the_readme_python_example_runs_as_a_script(tmp_path):
    code = readme_python()
    assert '"contracts/"' in code and QUOTE in code
    (tmp_path / "contracts").mkdir()
    write_msa(tmp_path / "contracts" / "msa.pdf")
    script = tmp_path / "example.py"
    script.write_text(code, "utf-8")
    env = {**os.environ, "PINCITE_EMBEDDER": "hash"}
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    # locator, page, bbox (four PDF points), quote_verified
    assert lines[0].startswith("clause 12.1 1 (") and lines[0].endswith(") True"), lines[0]
    assert lines[1] == "ok"
    # the search after the ingest finds the document: ingest published a generation
    assert len(lines) >= 3 and lines[2].startswith("msa.pdf@r1 "), out.stdout
