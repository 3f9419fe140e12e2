"""Text-layer fidelity on CUAD: can every gold clause segment be cited in the PDF's layer?

For each clause segment of `derived_spans.jsonl` (a quote taken from CUAD's own text of the
contract), parse the contract's PDF and look the segment up the way `cite` does: the
comparison form of the segment must occur in the layer (`FoldedText.find_all`), and the
layer text at the found span must have the same comparison form.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from ..cite.compare import FoldedText, comparison_form
from ..limits import Limits
from ..parse.pdf import reading as pdf


def _segments(data_dir: Path) -> Iterator[tuple[str, str]]:
    """Yield (pdf file relative to data_dir, segment text) for every gold segment."""
    with open(data_dir / "derived_spans.jsonl", encoding="utf-8") as fh:
        for line in fh:
            rec = json.loads(line)
            for clause in rec.get("clauses") or ():
                for seg in clause.get("segments") or ():
                    yield rec["pdf_file"], seg["text"]


def cuad_textlayer(data_dir: Path, cite_fn: Callable[[Path, str], bool] | None = None,
                   files: set[str] | None = None) -> dict[str, Any]:
    """Return {"segments", "found", "rate", "misses"} over the CUAD split in `data_dir`.

    `cite_fn(pdf_path, segment_text) -> bool` replaces the default check (this parser and
    `FoldedText`) by another path, e.g. the full ingest + cite. `files` limits the run to
    those PDF names.
    """
    data_dir = Path(data_dir)
    folded: dict[str, tuple[str, FoldedText]] = {}

    def default(path: Path, segment: str) -> bool:
        key = str(path)
        if key not in folded:
            layer = pdf.parse(path.read_bytes(), password=None, limits=Limits())
            folded[key] = (layer.text, FoldedText.build(layer.text))
        text, ft = folded[key]
        want = comparison_form(segment)
        return any(comparison_form(text[s:e]) == want for s, e in ft.find_all(segment, limit=1))

    check = cite_fn or default
    n = found = 0
    misses: list[dict[str, str]] = []
    for rel, segment in _segments(data_dir):
        if files is not None and Path(rel).name not in files:
            continue
        n += 1
        if check(data_dir / rel, segment):
            found += 1
        else:
            misses.append({"file": Path(rel).name, "text": segment[:120]})
    return {"segments": n, "found": found, "rate": found / n if n else 0.0, "misses": misses}
