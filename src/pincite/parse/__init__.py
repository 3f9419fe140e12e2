"""Parsers: bytes of one media kind in, one `TextLayer` out. Pure functions, no I/O.

Each format module exposes `PARSER`, `VERSION` and
`parse(data: bytes, *, password: str | None, limits: Limits) -> TextLayer`, raising
`ParseFailure(reason, detail)` with a quarantine reason when the bytes cannot be read.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from ..limits import Limits
from ..model import TextLayer
from ..model.progress_report import Report

# media kind → module name (under pincite.parse)
_MODULES = {
    "pdf": "pdf.reading",
    "docx": "docx.body",
    "xlsx": "xlsx",
    "html": "html",
    "markdown": "text",
    "text": "text",
    "csv": "csvfile",
    # not a media type a file is stored as: docling's JSON export of one (`ingest --from-docling`)
    "docling": "docling_tree",
}
# kinds read from another tool's export of a document, not from the document: their layer
# ids are `KIND@…` and `reparse` cannot redo them
IMPORT_KINDS = ("docling",)


def parser_module(kind: str) -> ModuleType:
    """Return the parser module for a media kind (`pdf`, `docx`, …)."""
    return importlib.import_module(f"{__name__}.{_MODULES[kind]}")


def parser_id(kind: str) -> str:
    """Return `PARSER@VERSION` of the current parser for a media kind."""
    mod = parser_module(kind)
    name = mod.MARKDOWN_PARSER if kind == "markdown" else mod.PARSER
    return f"{name}@{mod.VERSION}"


def parse(kind: str, data: bytes, *, password: str | None = None,
          limits: Limits | None = None, report: Report | None = None) -> TextLayer:
    """Return the text layer of `data`, read as media kind `kind`; a PDF's pages are
    reported to `report` as they are read (`ProgressUnit.PAGE`, `OCR_PAGE`)."""
    mod = parser_module(kind)
    if kind == "pdf":
        return mod.parse(data, password=password, limits=limits or Limits(), report=report)
    if kind in ("markdown", "text"):
        return mod.parse(data, password=password, limits=limits or Limits(), markdown=kind == "markdown")
    return mod.parse(data, password=password, limits=limits or Limits())
