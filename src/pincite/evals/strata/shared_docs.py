"""The shared test files of the strata eval, each with the reference its source gives.

Read at eval time from the shared data root (nothing of them is copied here):

- `docling_testdata/pdf`: docling's groundtruth JSON (`DoclingDocument`): the body's
  texts in its order (page headers and footers left out, a table as its cells row by row)
  are the reference text; each text of six words or more gives a gold span at its `prov`
  (page, box), quoted by eight of its words from the fourth on (docling writes an item's
  head its own way, "Term : text"; CER counts that, the locator measure need not) and
  cited at its occurrence in the reference; `tables[].data.table_cells` are the gold
  tables. They are docling's accepted output, not human annotation.
- `pypdf_sample_files`: `015-arabic/habibi.pdf` against the text of `habibi.html`; the
  table of `026-latex-multicolumn` against the `tabular` of its `.tex`.
- `pdfplumber_edgecases`: the rotated NICS table against pincite's own layer of the
  upright copy (rotation must not change what is read); `empty.pdf` must be refused.
- `qpdf_damaged_pdfs`: a damaged file holding `(Potato) Tj` must read "Potato"; the
  others must be read or refused cleanly.
- scanned: image-only copies of docling's born-digital pages, rendered here, against
  pincite's layer of the born-digital original.
"""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from ...model import Box
from ..icdar import Cell
from .measures import normal
from .typeset import GoldDoc, GoldSpan
from .writer import PdfWriter

DOCLING = "docling groundtruth (docling's accepted output)"
_SKIP_LABELS = {"page_header", "page_footer"}


def _walk(doc: dict[str, Any], node: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """Append the body's texts in order (a table as its cells' texts, row by row)."""
    for child in node.get("children", []):
        kind, _, index = child["$ref"].lstrip("#/").partition("/")
        if kind == "texts":
            item = doc["texts"][int(index)]
            if item.get("content_layer", "body") == "body" and item["label"] not in _SKIP_LABELS:
                out.append(item)
            _walk(doc, item, out)
        elif kind == "groups":
            _walk(doc, doc["groups"][int(index)], out)
        elif kind == "tables":
            cells = doc["tables"][int(index)].get("data", {}).get("table_cells", [])
            order = sorted(cells, key=lambda c: (c["start_row_offset_idx"], c["start_col_offset_idx"]))
            out.append({"text": " ".join(c["text"] for c in order), "table": True})


def _docling_box(prov: dict[str, Any], heights: dict[int, float]) -> tuple[int, Box]:
    b, page = prov["bbox"], int(prov["page_no"])
    if b.get("coord_origin", "BOTTOMLEFT") == "BOTTOMLEFT":
        h = heights[page]
        return page, (b["l"], h - b["t"], b["r"], h - b["b"])
    return page, (b["l"], b["t"], b["r"], b["b"])


def docling(root: Path, stem: str, stratum: str, *, max_spans: int = 40) -> GoldDoc | None:
    """Return a docling test PDF with its groundtruth, or None when it is absent."""
    base = root / "docling_testdata" / "pdf"
    pdf, gt = base / "sources" / f"{stem}.pdf", base / "groundtruth" / f"{stem}.json"
    if not pdf.is_file() or not gt.is_file():
        return None
    doc = json.loads(gt.read_text("utf-8"))
    heights = {int(k): float(v["size"]["height"]) for k, v in doc.get("pages", {}).items()}
    items: list[dict[str, Any]] = []
    _walk(doc, doc["body"], items)
    text = "\n\n".join(it.get("text", "") for it in items)
    folded = normal(text)
    spans: list[GoldSpan] = []
    pos = 0  # where the item starts in the folded reference text
    for it in items:
        item = normal(it.get("text", ""))
        words = item.split()
        at = folded.find(item, pos) if item else -1
        if at >= 0:
            pos = at
        if len(words) >= 6 and it.get("prov") and not it.get("table") and len(spans) < max_spans:
            quote = " ".join(words[min(3, len(words) - 8):][:8]) if len(words) > 8 else item
            page, box = _docling_box(it["prov"][0], heights)
            k = folded.find(quote, pos)
            occurrence = folded.count(quote, 0, k) + 1 if k >= 0 else 1
            spans.append(GoldSpan(quote, page, box, occurrence, within=True))
    tables = []
    for t in doc.get("tables", []):
        cells = t.get("data", {}).get("table_cells", [])
        if cells:
            tables.append([Cell(c["start_row_offset_idx"], c["start_col_offset_idx"],
                                c["end_row_offset_idx"] - 1, c["end_col_offset_idx"] - 1, c["text"])
                           for c in cells])
    return GoldDoc(f"docling/{stem}", stratum, DOCLING, pdf.read_bytes(), text, spans,
                   tables or None)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: Any) -> None:
        self._skip += tag in ("title", "head", "style", "script")

    def handle_endtag(self, tag: str) -> None:
        self._skip -= tag in ("title", "head", "style", "script")

    def handle_data(self, data: str) -> None:
        if self._skip <= 0:
            self.parts.append(data)


def habibi(root: Path) -> GoldDoc | None:
    """Return pypdf's Arabic sample against the text of the HTML it was made from."""
    base = root / "pypdf_sample_files" / "015-arabic"
    if not (base / "habibi.pdf").is_file() or not (base / "habibi.html").is_file():
        return None
    p = _Text()
    p.feed((base / "habibi.html").read_text("utf-8"))
    return GoldDoc("pypdf/habibi", "rtl", "habibi.html (the source of the PDF)",
                   (base / "habibi.pdf").read_bytes(), " ".join("".join(p.parts).split()))


def _tex_cell(s: str) -> str:
    s = re.sub(r"\\(?:textbf|textit|emph|textsuperscript|textsubscript)\{([^{}]*)\}", r"\1", s)
    return " ".join(s.replace("\\", "").split())


def latex_table(root: Path) -> GoldDoc | None:
    """Return pypdf's two-column LaTeX sample with the cells of its `tabular`."""
    base = root / "pypdf_sample_files" / "026-latex-multicolumn"
    pdf, tex = base / "multicolumn.pdf", base / "multicolumn.tex"
    if not pdf.is_file() or not tex.is_file():
        return None
    m = re.search(r"\\begin\{tabular\}\{[^}]*\}(.*?)\\end\{tabular\}", tex.read_text("utf-8"), re.S)
    if m is None:
        return None
    body = re.sub(r"\\(?:toprule|midrule|bottomrule|hline)", "", m.group(1))
    rows = [[_tex_cell(c) for c in r.split("&")] for r in body.split("\\\\") if r.strip()]
    cells = [Cell(r, c, r, c, t) for r, row in enumerate(rows) for c, t in enumerate(row)]
    return GoldDoc("pypdf/multicolumn-table", "tables", "the tabular of multicolumn.tex",
                   pdf.read_bytes(), None, [], [cells])


def nics_rotated(root: Path, upright_layer: Any) -> GoldDoc | None:
    """Return the rotated NICS table with pincite's layer of the upright copy as reference."""
    from ..icdar import layer_regions

    base = root / "pdfplumber_edgecases" / "pdfs"
    pdf = base / "nics-background-checks-2015-11-rotated.pdf"
    if not pdf.is_file() or upright_layer is None:
        return None
    tables = [r.cells for r in layer_regions(upright_layer)]
    return GoldDoc("pdfplumber/nics-rotated", "rotated",
                   "pincite's layer of the upright copy (nics-background-checks-2015-11.pdf)",
                   pdf.read_bytes(), upright_layer.text, [], tables or None)


def damaged(root: Path, limit: int = 12) -> list[GoldDoc]:
    """Return damaged PDFs: qpdf's (the ones that draw "Potato" must read it) and
    pdfplumber's empty file (must be refused)."""
    out = []
    qpdf = root / "qpdf_damaged_pdfs" / "files"
    if qpdf.is_dir():
        for p in sorted(qpdf.glob("bad*.pdf"), key=lambda p: (len(p.name), p.name))[:limit]:
            data = p.read_bytes()
            potato = b"(Potato) Tj" in data
            out.append(GoldDoc(f"qpdf/{p.name}", "malformed",
                               "the string its content stream draws" if potato
                               else "none: a clean refusal or any text",
                               data, "Potato" if potato else None, failure_ok=not potato))
    empty = root / "pdfplumber_edgecases" / "pdfs" / "empty.pdf"
    if empty.is_file():
        out.append(GoldDoc("pdfplumber/empty.pdf", "malformed", "none: must be refused",
                           empty.read_bytes(), None, failure_ok=True))
    return out


def image_only(name: str, pdf: bytes, layer: Any, *, pages: int = 2, dpi: int = 200) -> GoldDoc:
    """Return an image-only copy of a born-digital PDF (its pages rendered at `dpi`) with
    pincite's layer of the original as reference: its text, and one span per paragraph."""
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(pdf)
    w = PdfWriter()
    try:
        for i in range(min(pages, len(src))):
            page = src[i]
            width, height = page.get_size()
            pixels = page.render(scale=dpi / 72, grayscale=True).to_numpy()
            if pixels.ndim == 3:
                pixels = pixels[:, :, 0]
            out = w.page(width, height)
            out.image(pixels, 0, 0, width, height)
    finally:
        src.close()
    n = len(w.pages)
    paras = [e for e in layer.elements if e.kind in ("paragraph", "heading", "list_item")
             and e.page and e.page <= n and e.bbox and not e.flags]
    text = "\n\n".join(layer.text[e.char_start:e.char_end] for e in paras)
    spans = [GoldSpan(layer.text[e.char_start:e.char_end], e.page, e.bbox, within=True)
             for e in paras if e.char_end - e.char_start >= 20][:30]
    return GoldDoc(f"scanned/{name}", "scanned",
                   "pincite's layer of the born-digital original", w.tobytes(), text, spans)
