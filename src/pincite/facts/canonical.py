"""Canonical tables read back from a text layer: the table-level unit of retrieval.

A text layer stores each table as a `table` element (its `meta` holds caption, title
path, the clause or heading that introduces it, unit, scale, period grain, entity, header
counts, size, sheet) followed by its `cell` elements (row/column paths, grid position,
header kind, spreadsheet ref). `canonical_tables` regroups them into the record of seed
003: a table with its cells, every cell citable by its span.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..model import Box, Element, TextLayer


@dataclass(frozen=True, slots=True)
class CanonicalCell:
    """One cell: where it is in the grid, what its headers say, and where its text is."""

    cell_id: str
    row: int
    col: int
    row_path: tuple[str, ...]
    column_path: tuple[str, ...]
    text: str
    header: str | None
    locator: str
    page: int | None
    bbox: Box | None
    char_start: int
    char_end: int
    ref: str | None
    flags: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the cell as JSON."""
        return {
            "cell_id": self.cell_id, "row": self.row, "col": self.col,
            "row_path": list(self.row_path), "column_path": list(self.column_path),
            "text": self.text, "header": self.header, "locator": self.locator,
            "page": self.page, "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "char_start": self.char_start, "char_end": self.char_end, "ref": self.ref,
            "flags": list(self.flags),
        }


@dataclass(frozen=True, slots=True)
class CanonicalTable:
    """A table of one document revision with its context and cells."""

    table_id: str
    doc_id: str
    text_layer: str
    locator: str
    caption: str | None
    title_path: tuple[str, ...]
    intro: str | None
    unit: str | None
    scale: str | None
    period_grain: str | None
    entity: str | None
    header_rows: int
    header_cols: int
    n_rows: int
    n_cols: int
    sheet: str | None
    page: int | None
    bbox: Box | None
    char_start: int
    char_end: int
    flags: tuple[str, ...]
    cells: tuple[CanonicalCell, ...]

    def to_dict(self) -> dict[str, Any]:
        """Return the table as JSON (`schema_name` pincite.table, version 1)."""
        return {
            "schema_name": "pincite.table", "version": 1,
            "table_id": self.table_id, "doc_id": self.doc_id, "text_layer": self.text_layer,
            "locator": self.locator, "caption": self.caption,
            "title_path": list(self.title_path), "intro": self.intro, "unit": self.unit,
            "scale": self.scale, "period_grain": self.period_grain, "entity": self.entity,
            "header_rows": self.header_rows, "header_cols": self.header_cols,
            "n_rows": self.n_rows, "n_cols": self.n_cols, "sheet": self.sheet,
            "page": self.page, "bbox": [round(x, 2) for x in self.bbox] if self.bbox else None,
            "char_start": self.char_start, "char_end": self.char_end, "flags": list(self.flags),
            "cells": [c.to_dict() for c in self.cells],
        }


def _cell(layer: TextLayer, table_id: str, e: Element) -> CanonicalCell:
    meta = e.meta or {}
    row = int(meta.get("grid_row", (e.row or 1) - 1))
    col = int(meta.get("grid_col", (e.col or 1) - 1))
    return CanonicalCell(
        cell_id=f"{table_id}:r{row}c{col}", row=row, col=col, row_path=e.row_path,
        column_path=e.column_path, text=layer.text[e.char_start:e.char_end],
        header=meta.get("header"), locator=e.locator, page=e.page, bbox=e.bbox,
        char_start=e.char_start, char_end=e.char_end, ref=meta.get("ref"), flags=e.flags,
    )


def canonical_tables(layer: TextLayer, doc_id: str) -> list[CanonicalTable]:
    """Return every table of a text layer with its cells, in reading order."""
    tables = [e for e in layer.elements if e.kind == "table"]
    cells = sorted((e for e in layer.elements if e.kind == "cell"), key=lambda e: e.char_start)
    out = []
    i = 0
    for n, t in enumerate(sorted(tables, key=lambda e: e.char_start), start=1):
        meta = t.meta or {}
        table_id = f"{doc_id}#t{n}"
        while i < len(cells) and cells[i].char_start < t.char_start:
            i += 1
        mine = []
        while i < len(cells) and cells[i].char_end <= t.char_end:
            mine.append(_cell(layer, table_id, cells[i]))
            i += 1
        out.append(CanonicalTable(
            table_id=table_id, doc_id=doc_id, text_layer=layer.layer_id, locator=t.locator,
            caption=meta.get("caption"), title_path=tuple(meta.get("title_path") or ()),
            intro=meta.get("intro"), unit=meta.get("unit"), scale=meta.get("scale"),
            period_grain=meta.get("period_grain"), entity=meta.get("entity"),
            header_rows=int(meta.get("header_rows") or 0),
            header_cols=int(meta.get("header_cols") or 0),
            n_rows=int(meta.get("n_rows") or 0), n_cols=int(meta.get("n_cols") or 0),
            sheet=meta.get("sheet"), page=t.page, bbox=t.bbox, char_start=t.char_start,
            char_end=t.char_end, flags=t.flags, cells=tuple(mine),
        ))
    return out
