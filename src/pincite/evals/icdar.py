"""ICDAR 2013 table competition: table detection and cell structure, pincite beside pdfplumber.

A split folder holds `NAME.pdf`, `NAME-str.xml` (cells: start/end row and column, text,
box) and `NAME-reg.xml` (table regions). For each system, per page:

- detection: a detected table region matches a gold region when their boxes (top-left
  origin, points) have IoU ≥ 0.5, one to one, best overlap first; precision and recall
  over the whole split;
- structure: the competition's adjacency relations. For every non-empty cell, its
  nearest non-empty neighbour to the right in each row it spans and below in each column
  it spans, as (text, neighbour text, direction) with the texts normalised (NFKC,
  whitespace removed, case folded). Matched tables compare their relation multisets;
  an unmatched gold table counts all its relations as misses, an unmatched detected
  table all of its own as false positives. Precision, recall and F1 are micro-averaged
  over the split.

pincite goes through the real ingest path (sniff, sandboxed parse, store) and its tables
are read back from the stored text layer: table and cell elements, with the cells'
row/col and spans. pdfplumber runs its default `page.find_tables()` on the same bytes in
the same run. A table that crosses pages counts as one region per page (gold regions are
per page too).
"""

from __future__ import annotations

import io
import tempfile
import time
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model import Box, TextLayer
from .folds import check_folds, fold_of, refit, split, tuned_runs
from .icdar_copies import VARIANTS, GoldBox, shown_boxes, turned_copy

IOU_MATCH = 0.5
COPY = "~"  # "eu-001~rotate90": the rotate90 copy of eu-001
ROWS = ("upright", *VARIANTS)


@dataclass(slots=True)
class Cell:
    """A cell of a table region: 0-based first/last row and column, and its text."""

    r0: int
    c0: int
    r1: int
    c1: int
    text: str


@dataclass(slots=True)
class Region:
    """One table region on one page: its box (top-left origin) and its cells."""

    page: int
    bbox: Box
    cells: list[Cell] = field(default_factory=list)


def norm(text: str) -> str:
    """Return the competition's comparison form of a cell text."""
    t = unicodedata.normalize("NFKC", text).replace("\u00ad", "").replace("\ufffe", "-")
    return "".join(t.split()).casefold()


def relations(cells: Iterable[Cell]) -> Counter[tuple[str, str, str]]:
    """Return the adjacency relations of a table's cells (see the module docstring)."""
    kept = [c for c in cells if norm(c.text)]
    at: dict[tuple[int, int], int] = {}
    for i, c in enumerate(kept):
        for r in range(c.r0, c.r1 + 1):
            for k in range(c.c0, c.c1 + 1):
                at.setdefault((r, k), i)
    if not at:
        return Counter()
    max_r = max(r for r, _ in at)
    max_c = max(k for _, k in at)
    out: Counter[tuple[str, str, str]] = Counter()
    for i, c in enumerate(kept):
        right: set[int] = set()
        for r in range(c.r0, c.r1 + 1):
            for k in range(c.c1 + 1, max_c + 1):
                j = at.get((r, k))
                if j is not None and j != i:
                    right.add(j)
                    break
        below: set[int] = set()
        for k in range(c.c0, c.c1 + 1):
            for r in range(c.r1 + 1, max_r + 1):
                j = at.get((r, k))
                if j is not None and j != i:
                    below.add(j)
                    break
        a = norm(c.text)
        for j in right:
            out[(a, norm(kept[j].text), "right")] += 1
        for j in below:
            out[(a, norm(kept[j].text), "below")] += 1
    return out


def iou(a: Box, b: Box) -> float:
    """Return the intersection over union of two boxes."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


# ---- gold ---------------------------------------------------------------------------------


def _box(el: Any, shown: GoldBox) -> Box:
    return shown(float(el.get("x1")), float(el.get("y1")), float(el.get("x2")), float(el.get("y2")))


def gold_regions(stem: Path, frames: list[GoldBox]) -> list[Region]:
    """Return the gold regions of one document (`stem` + `-str.xml` / `-reg.xml`), boxes
    on the pages as shown (`frames`: per page, PDF space → as shown)."""
    from defusedxml import ElementTree as ET

    str_root = ET.parse(f"{stem}-str.xml").getroot()
    reg_root = ET.parse(f"{stem}-reg.xml").getroot()
    reg_boxes: dict[tuple[str, int], Box] = {}
    for tab in reg_root.iter("table"):
        for k, reg in enumerate(tab.iter("region")):
            page = int(reg.get("page"))
            bb = reg.find("bounding-box")
            if bb is not None and 1 <= page <= len(frames):
                reg_boxes[(tab.get("id"), k)] = _box(bb, frames[page - 1])
    out: list[Region] = []
    for tab in str_root.iter("table"):
        for k, reg in enumerate(tab.iter("region")):
            page = int(reg.get("page"))
            if not 1 <= page <= len(frames):
                continue
            cells = []
            boxes = []
            for c in reg.iter("cell"):
                r0, c0 = int(c.get("start-row")), int(c.get("start-col"))
                r1 = int(c.get("end-row", r0))
                c1 = int(c.get("end-col", c0))
                cells.append(Cell(r0, c0, max(r0, r1), max(c0, c1), c.findtext("content") or ""))
                bb = c.find("bounding-box")
                if bb is not None:
                    boxes.append(_box(bb, frames[page - 1]))
            bbox = reg_boxes.get((tab.get("id"), k))
            if bbox is None and boxes:
                bbox = (min(b[0] for b in boxes), min(b[1] for b in boxes),
                        max(b[2] for b in boxes), max(b[3] for b in boxes))
            if bbox is not None:
                out.append(Region(page, bbox, cells))
    return out


# ---- systems ------------------------------------------------------------------------------


def layer_regions(layer: TextLayer) -> list[Region]:
    """Return the table regions of a text layer: one per table and page, from its cells."""
    out: list[Region] = []
    tables = [e for e in layer.elements if e.kind == "table"]
    cells = [e for e in layer.elements if e.kind == "cell"]
    for t in tables:
        by_page: dict[int, list[Any]] = {}
        for e in cells:
            if t.char_start <= e.char_start and e.char_end <= t.char_end and e.page and e.bbox:
                by_page.setdefault(e.page, []).append(e)
        for page, els in sorted(by_page.items()):
            meta = [e.meta or {} for e in els]
            region_cells = [
                Cell(e.row - 1, e.col - 1, e.row - 2 + int(m.get("row_span", 1)),
                     e.col - 2 + int(m.get("col_span", 1)), layer.text[e.char_start:e.char_end])
                for e, m in zip(els, meta, strict=True)]
            bbox = (min(e.bbox[0] for e in els), min(e.bbox[1] for e in els),
                    max(e.bbox[2] for e in els), max(e.bbox[3] for e in els))
            out.append(Region(page, bbox, region_cells))
    return out


def _pincite(docs: dict[str, bytes], store_url: str | None
             ) -> tuple[dict[str, list[Region]], dict[str, float]]:
    """Return each document's regions through the real ingest path, and the seconds per
    row (`upright` and each copy)."""
    from ..sources.ingest import Ingestor
    from ..store import open_store

    out: dict[str, list[Region]] = {}
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                ing.ingest(b"warm up the worker", source_id="warm.txt", path="warm.txt")
                for doc_id, data in docs.items():
                    t0 = time.perf_counter()
                    name = f"{doc_id}.pdf"
                    r = ing.ingest(data, source_id=name, path=name, name=name)
                    rev = store.latest_revision("eval", name) if r.revision_id else None
                    layer = store.text_layer(rev) if rev else None
                    out[doc_id] = layer_regions(layer) if layer else []
                    row = row_of(doc_id)
                    seconds[row] = seconds.get(row, 0.0) + time.perf_counter() - t0
        finally:
            store.close()
    return out, seconds


def row_of(doc_id: str) -> str:
    """Return the row a document is scored in: `upright`, or the copy it is."""
    return doc_id.partition(COPY)[2] or "upright"


def original_of(doc_id: str) -> str:
    """Return the document a copy was made from (its id sets the fold)."""
    return doc_id.partition(COPY)[0]


def pdfplumber_regions(pdf: Path | bytes) -> list[Region]:
    """Return pdfplumber's default tables (`page.find_tables()`) as regions: a cell's row
    and column are the ranks of its top and left edge among the table's cells, and it spans
    the rows and columns that start inside its box."""
    import pdfplumber

    out: list[Region] = []
    with pdfplumber.open(io.BytesIO(pdf) if isinstance(pdf, bytes) else pdf) as doc:
        for page in doc.pages:
            for t in page.find_tables():
                grid = t.extract()
                xs = sorted({round(c[0]) for c in t.cells})
                ys = sorted({round(c[1]) for c in t.cells})
                cells = []
                for r, row in enumerate(t.rows):
                    for k, box in enumerate(row.cells):
                        if box is None or r >= len(grid) or k >= len(grid[r]):
                            continue
                        c0 = xs.index(round(box[0]))
                        r0 = ys.index(round(box[1]))
                        c1 = max(c0, sum(1 for x in xs if x < box[2] - 1) - 1)
                        r1 = max(r0, sum(1 for y in ys if y < box[3] - 1) - 1)
                        cells.append(Cell(r0, c0, r1, c1, grid[r][k] or ""))
                out.append(Region(page.page_number, tuple(t.bbox), cells))  # type: ignore[arg-type]
    return out


# ---- scoring ------------------------------------------------------------------------------


@dataclass(slots=True)
class _Score:
    gold_tables: int = 0
    detected: int = 0
    matched: int = 0
    gold_rel: int = 0
    det_rel: int = 0
    correct_rel: int = 0

    def add_counts(self, other: _Score) -> None:
        """Add another score's counts to this one."""
        self.gold_tables += other.gold_tables
        self.detected += other.detected
        self.matched += other.matched
        self.gold_rel += other.gold_rel
        self.det_rel += other.det_rel
        self.correct_rel += other.correct_rel

    def add(self, gold: list[Region], found: list[Region]) -> None:
        self.gold_tables += len(gold)
        self.detected += len(found)
        grel = [relations(g.cells) for g in gold]
        frel = [relations(f.cells) for f in found]
        self.gold_rel += sum(sum(c.values()) for c in grel)
        self.det_rel += sum(sum(c.values()) for c in frel)
        pairs = sorted(((iou(g.bbox, f.bbox), i, j) for i, g in enumerate(gold)
                        for j, f in enumerate(found) if g.page == f.page), reverse=True)
        used_g: set[int] = set()
        used_f: set[int] = set()
        for v, i, j in pairs:
            if v < IOU_MATCH or i in used_g or j in used_f:
                continue
            used_g.add(i)
            used_f.add(j)
            self.matched += 1
            self.correct_rel += sum((grel[i] & frel[j]).values())

    def counts(self) -> dict[str, int]:
        """Return the counts (summed over documents, they give the split's figures)."""
        return {"gold_tables": self.gold_tables, "detected": self.detected,
                "matched": self.matched, "gold_rel": self.gold_rel, "det_rel": self.det_rel,
                "correct_rel": self.correct_rel}

    def result(self) -> dict[str, Any]:
        p = self.correct_rel / self.det_rel if self.det_rel else 0.0
        r = self.correct_rel / self.gold_rel if self.gold_rel else 0.0
        return {
            "tables": self.gold_tables, "detected": self.detected, "matched": self.matched,
            "detection_precision": self.matched / self.detected if self.detected else 0.0,
            "detection_recall": self.matched / self.gold_tables if self.gold_tables else 0.0,
            "relations": self.gold_rel, "detected_relations": self.det_rel,
            "correct_relations": self.correct_rel,
            "precision": p, "recall": r, "f1": 2 * p * r / (p + r) if p + r else 0.0,
        }


def adjacency_f1(counts: Mapping[str, int]) -> float:
    """Return the adjacency F1 of summed counts (`_Score.counts`)."""
    return float(_Score(**counts).result()["f1"])


def _per_doc(gold: Mapping[str, list[Region]], found: Mapping[str, list[Region]]
             ) -> dict[str, _Score]:
    out = {}
    for doc_id, g in gold.items():
        out[doc_id] = _Score()
        out[doc_id].add(g, found.get(doc_id, []))
    return out


def run_icdar2013(data: Path, store_url: str | None = None, folds: int | None = None,
                  refit: bool = False) -> dict[str, Any]:
    """Score pincite and pdfplumber on an ICDAR 2013 split folder and on turned copies of
    its documents (see the module docstring); with `folds`, the fit and held-out figures
    per fold, and with `refit` each tuned table rule chosen again on the fit folds."""
    data = Path(data)
    pdfs = sorted(p for p in data.glob("*.pdf")
                  if (data / f"{p.stem}-str.xml").is_file() and (data / f"{p.stem}-reg.xml").is_file())
    if not pdfs:
        raise UsageError(f"{data} holds no NAME.pdf with NAME-str.xml and NAME-reg.xml: "
                         "give an ICDAR 2013 split folder")
    if folds is not None:
        folds = check_folds(folds, [p.stem for p in pdfs])
    elif refit:
        raise UsageError("--refit chooses rules on fit folds: give --folds K as well")
    try:
        import pdfplumber  # noqa: F401
    except ImportError:
        from ..errors import MissingExtra

        raise MissingExtra("pdfplumber", "dev") from None
    docs: dict[str, bytes] = {}
    gold: dict[str, list[Region]] = {}
    for p in pdfs:
        original = p.read_bytes()
        for row in ROWS:
            doc_id = p.stem if row == "upright" else f"{p.stem}{COPY}{row}"
            docs[doc_id] = original if row == "upright" else turned_copy(original, row)
            gold[doc_id] = gold_regions(data / p.stem, shown_boxes(original, None if row == "upright" else row))
    found, pin_seconds = _pincite(docs, store_url)
    plumbed: dict[str, list[Region]] = {}
    plumb_seconds: dict[str, float] = {}
    for doc_id, pdf in docs.items():
        t0 = time.perf_counter()
        plumbed[doc_id] = pdfplumber_regions(pdf)
        row = row_of(doc_id)
        plumb_seconds[row] = plumb_seconds.get(row, 0.0) + time.perf_counter() - t0
    per_doc = {"pincite": _per_doc(gold, found), "pdfplumber": _per_doc(gold, plumbed)}
    seconds = {"pincite": pin_seconds, "pdfplumber": plumb_seconds}
    rows: dict[str, Any] = {}
    for row in (*ROWS, "all"):
        rows[row] = {}
        for name, scores in per_doc.items():
            total = _Score()
            for doc_id, one in scores.items():
                if row in ("all", row_of(doc_id)):
                    total.add_counts(one)
            res = total.result()
            res["seconds"] = round(sum(v for k, v in seconds[name].items() if row in ("all", k)), 3)
            rows[row][name] = res
    detail = {doc_id: {name: {k: round(v, 4) if isinstance(v, float) else v
                              for k, v in per_doc[name][doc_id].result().items()}
                       for name in per_doc}
              for doc_id in docs}
    out: dict[str, Any] = {"dataset": "icdar2013", "documents": len(pdfs),
                           "systems": rows["upright"], "rows": rows, "documents_detail": detail}
    if folds is not None:
        out["folds"] = {"k": folds, "assignment": {p.stem: fold_of(p.stem, folds) for p in pdfs},
                        "rows": {row: {name: split(
                            {d: s.counts() for d, s in scores.items() if row in ("all", row_of(d))},
                            folds, adjacency_f1, original_of) for name, scores in per_doc.items()}
                            for row in (*ROWS, "all")}}
        if refit:
            out["refit"] = refit_rules(docs, gold, folds)
    return out


def refit_rules(docs: Mapping[str, bytes], gold: Mapping[str, list[Region]], k: int
                ) -> dict[str, Any]:
    """Return each tuned table rule chosen again per fold on the fit folds (all rows, the
    parser run in this process), with its fit and held-out adjacency F1."""
    from ..limits import Limits
    from ..parse.pdf import reading

    limits = Limits()

    def counts() -> dict[str, dict[str, int]]:
        out = {}
        for doc_id, data in docs.items():
            layer = reading.parse(data, password=None, limits=limits)
            one = _Score()
            one.add(gold[doc_id], layer_regions(layer))
            out[doc_id] = one.counts()
        return out

    runs, shipped = tuned_runs("table", counts)
    return {"k": k, "figure": "pincite adjacency F1 over every row (upright and turned copies)",
            "rules": refit(k, runs, shipped, adjacency_f1, original_of)}
