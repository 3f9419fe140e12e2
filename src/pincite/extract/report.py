"""The outputs of an extraction: `records.json`, a self-contained `report.html`, the same
records for spreadsheets, `records.xlsx` and `records.csv` (`spreadsheets`), and the
dictamen for Word, `report.docx` (`wordreport`).

`report.html` is the dictamen: one row per field with an outcome badge, the value (or
"not stated in the document"; a REVIEW candidate is shown as a candidate, never as
fact), the quote in its context with the value marked, the document, locator and page,
and for PDFs a crop of the page image with the cited boxes highlighted. Page images are
embedded once per page as CSS data URIs, so the file opens anywhere without a server.
Each file is written to a fresh temporary name (created, never followed if it is a link)
and renamed over its name, so a crash leaves the previous file or the new one, and a link
planted at a name is replaced, not written through.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from ..errors import OutputUnwritable
from ..vocab import Outcome, RecordFlag
from .case import Case, CaseDoc
from .readable import BADGE_TITLES, BADGES, format_value
from .schema import Schema
from .spreadsheets import records_csv, records_workbook
from .wordreport import report_docx

CONTEXT = 160
PX_PER_PT = 0.9
CROP_PT = 150.0
OUTPUT_NAMES = ("records.json", "report.html", "records.xlsx", "records.csv", "report.docx")


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


class _Pages:
    """Page images of the case's PDFs, rendered once each, as CSS classes."""

    def __init__(self, case: Case) -> None:
        self.case = case
        self.styles: dict[tuple[str, int], tuple[str, float, float]] = {}
        self.uris: list[tuple[str, str]] = []

    def page(self, doc: CaseDoc, page: int) -> tuple[str, float, float] | None:
        if doc.rev.media_type != "application/pdf":
            return None
        key = (doc.doc_id, page)
        if key not in self.styles:
            from ..parse.pdf.render import render_page_png
            from ..store.blobs import open_blob

            blobs = self.case.verifier.store.blobs
            with open_blob(blobs, doc.rev.tenant, doc.rev.sha256) as fh:
                png, w, h = render_page_png(fh, page, scale=1.5)
            cls = f"pg{len(self.styles) + 1}"
            self.uris.append((cls, "data:image/png;base64," + base64.b64encode(png).decode()))
            self.styles[key] = (cls, w, h)
        return self.styles[key]


def _crop(pages: _Pages, doc: CaseDoc, p: dict[str, Any]) -> dict[str, Any] | None:
    page = p.get("page")
    boxes = [(b["page"], b["bbox"]) for b in p.get("boxes", ())] or (
        [(page, p["bbox"])] if p.get("bbox") else [])
    boxes = [(pg, b) for pg, b in boxes if pg == page]
    if not page or not boxes:
        return None
    info = pages.page(doc, page)
    if info is None:
        return None
    cls, w, h = info
    k = PX_PER_PT
    top = min(b[1] for _, b in boxes)
    bottom = max(b[3] for _, b in boxes)
    y0 = max(0.0, min(top - 30.0, h - CROP_PT - (bottom - top)))
    height = min(h, (bottom - top) + 60.0, 400.0)
    return {"cls": cls, "w": round(w * k), "h": round(max(height, 60.0) * k),
            "bw": round(w * k), "bh": round(h * k), "oy": round(y0 * k),
            "boxes": [(round(b[0] * k), round((b[1] - y0) * k), round((b[2] - b[0]) * k),
                       round((b[3] - b[1]) * k)) for _, b in boxes]}


def _evidence(case: Case, pages: _Pages, rec: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    vs = rec.get("value_span") or {}
    for p in rec.get("provenance", ()):
        doc = case.doc(p["doc_id"])
        s, e = p["char_start"], p["char_end"]
        ev: dict[str, Any] = {"doc_id": p["doc_id"], "locator": p["locator"], "page": p.get("page"),
                              "verified": p.get("quote_verified"),
                              "verify_reason": p.get("verify_reason"),
                              "hidden": RecordFlag.HIDDEN_TEXT in p.get("flags", ()),
                              "ocr": p.get("ocr_confidence") if RecordFlag.OCR in p.get("flags", ())
                              else None}
        if doc is None:
            ev.update(before="", q_before=p["quote"], q_value="", q_after="", after="", crop=None)
            out.append(ev)
            continue
        text = doc.text
        a, b = s, s
        if vs.get("doc_id") == p["doc_id"] and s <= vs["char_start"] < vs["char_end"] <= e:
            a, b = vs["char_start"], vs["char_end"]
        ev.update(before=text[max(0, s - CONTEXT):s], q_before=text[s:a], q_value=text[a:b],
                  q_after=text[b:e], after=text[e:e + CONTEXT], crop=_crop(pages, doc, p))
        out.append(ev)
    return out


def render_report(doc: dict[str, Any], case: Case, schema: Schema) -> str:
    """Return the dictamen HTML of a `records.json` document."""
    env = Environment(loader=PackageLoader("pincite", "templates"),
                      autoescape=select_autoescape(["html"]))
    env.globals["Outcome"] = Outcome
    pages = _Pages(case)
    rows = []
    counts = {k.value: 0 for k in Outcome}
    for rec in doc["records"]:
        counts[rec["outcome"]] = counts.get(rec["outcome"], 0) + 1
        spec = schema.field(rec["field"])
        rows.append({
            "field": rec["field"], "hard": rec.get("hard"), "description": spec.description,
            "outcome": rec["outcome"], "badge": BADGES.get(rec["outcome"], rec["outcome"]),
            "badge_title": BADGE_TITLES.get(rec["outcome"], ""),
            "hidden": RecordFlag.HIDDEN_TEXT in rec.get("flags", ()),
            "ocr": min((p["ocr_confidence"] for p in rec.get("provenance", ())
                        if p.get("ocr_confidence") is not None), default=None),
            "reason": rec["reason"], "confidence": None if rec["outcome"] == Outcome.ABSTAIN else rec["confidence"],
            "value_text": format_value(rec["value"]),
            "alternatives": [format_value(a.get("value")) for a in rec.get("alternatives", ())],
            "evidence": _evidence(case, pages, rec),
        })
    lang = (schema.languages or ("en",))[0]
    return env.get_template("report.html").render(
        run=doc["run"], rows=rows, counts=counts, schema_name=schema.name,
        page_styles=pages.uris, lang=lang)


def prepare_output_dir(out: Path, names: Sequence[str] = OUTPUT_NAMES) -> None:
    """Create the folder `out` and check that `names` can be written in it; raise
    OutputUnwritable otherwise. Called before a run records anything."""
    if out.exists() and not out.is_dir():
        raise OutputUnwritable(out, "it is a file, not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputUnwritable(out, exc.strerror or type(exc).__name__) from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise OutputUnwritable(out, "permission denied")
    for name in names:
        if (out / name).is_dir():
            raise OutputUnwritable(out / name, "it is a folder")


def write_outputs(out: Path, doc: dict[str, Any], case: Case, schema: Schema,
                  names: Sequence[str] = OUTPUT_NAMES) -> None:
    """Write `records.json`, `report.html`, `records.xlsx`, `records.csv` and `report.docx`
    (the names in that order) into `out`, each atomically."""
    prepare_output_dir(out, names)
    try:
        _write_atomic(out / names[0], json.dumps(doc, ensure_ascii=False, indent=2).encode("utf-8"))
        _write_atomic(out / names[1], render_report(doc, case, schema).encode("utf-8"))
        _write_atomic(out / names[2], records_workbook(doc, names[1]))
        _write_atomic(out / names[3], records_csv(doc, names[1]))
        _write_atomic(out / names[4], report_docx(
            doc, {d.doc_id: d.rev.acquired_at for d in case.docs}))
    except OSError as exc:
        raise OutputUnwritable(out, exc.strerror or type(exc).__name__) from None
