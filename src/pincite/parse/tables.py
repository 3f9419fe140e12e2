"""Table-grid helpers shared by the parsers that lay spans onto a grid (DOCX, HTML)."""

from __future__ import annotations


def drop_empty_columns(rows: list[list[str]]) -> list[list[str]]:
    """Return the rows that hold text, padded to one width, without the columns that are
    empty in every row (what is left of spans: `colspan` cannot widen the text)."""
    rows = [row for row in rows if any(x.strip() for x in row)]
    if not rows:
        return rows
    width = max(len(row) for row in rows)
    keep = sorted({i for row in rows for i, x in enumerate(row) if x.strip()})
    if len(keep) == width:
        return [row + [""] * (width - len(row)) for row in rows]
    return [[row[i] if i < len(row) else "" for i in keep] for row in rows]
