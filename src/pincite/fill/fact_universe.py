"""The fact universe of a fill (`facts.json`): every source document's canonical tables and
numeric atomic facts, read with the principal's authorization.

Each document is resolved as the principal (`resolve_doc`): one it may not see is "not
found" and the fill stops, so no fact of it can ever be cited. A table-cell fact carries
its table id, grid position, row and column paths, its column's `Period`, unit, scale and
measure family (`label_class` of its row); a prose fact carries its section path.
Only number, money and percent facts can support a written number; the others are
counted, not kept.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from ..cite.resolve import resolve_doc
from ..errors import NotFound
from ..facts.atomic import extract_facts
from ..facts.canonical import canonical_tables
from ..model import Principal
from ..parse.tables.cues import find_scale
from ..values import SCALES, canonical
from .labels import label_class, period_of

SCHEMA_NAME = "pincite.fill.facts"
NUMERIC = ("number", "money", "percent")
_YEARLIKE = re.compile(r"^(?:19|20)\d{2}$")


def _table_record(t: Any, media_type: str) -> dict[str, Any]:
    rows: dict[int, list[str]] = {}
    cols: dict[int, list[str]] = {}
    for c in t.cells:
        if c.header is None:
            if c.row_path:
                rows.setdefault(c.row, list(c.row_path))
            if c.column_path:
                cols.setdefault(c.col, list(c.column_path))
    periods = {k: period_of(p) for k, p in cols.items()}
    heads = " ".join(c.text for c in t.cells if c.header is not None)[:2000]
    return {
        "table_id": t.table_id, "doc_id": t.doc_id, "media_type": media_type,
        "caption": t.caption, "title_path": list(t.title_path), "intro": t.intro,
        "unit": t.unit, "scale": t.scale, "period_grain": t.period_grain, "entity": t.entity,
        "page": t.page, "locator": t.locator, "sheet": t.sheet, "header_text": heads,
        "rows": [{"row": r, "row_path": p} for r, p in sorted(rows.items())],
        "columns": [{"col": k, "column_path": p,
                     "period": {"year": periods[k].year, "grain": periods[k].grain,
                                "scenario": periods[k].scenario}}
                    for k, p in sorted(cols.items())],
    }


_PERCENT_RE = re.compile(r"(?i)%|\bper ?cent\b|\bporcentaje\b")


def _says_percent(text: str) -> bool:
    """Return True when a cell or header text says its numbers are percentages
    ("(in thousands, except percentages)" does not)."""
    return bool(_PERCENT_RE.search(text)) and "except" not in text.casefold()


def _plain(text: str) -> str | None:
    from ..values import parse_value

    v = parse_value(text, 0, len(text))
    return canonical(v.amount) if v is not None and v.amount is not None else None


def _scale_from_headers(d: dict[str, Any], f: Any, table: dict[str, Any] | None) -> None:
    """Set a fact's scale from its own header paths (`£m`, `(in millions)`), else its
    table's header cells, caption and titles, when its cell and table meta name none."""
    texts = [*f.column_path, *f.row_path]
    if table is not None:
        texts += [table.get("caption") or "", *(table.get("title_path") or ()),
                  table.get("intro") or "", table.get("header_text") or ""]
    scale = find_scale(" ".join(texts))
    if scale and scale in SCALES and d.get("normalized_value") is not None:
        try:
            amount = Decimal(str(d["normalized_value"]))
        except InvalidOperation:
            return
        d["scale"] = scale
        d["normalized_value"] = canonical(amount * SCALES[scale])
        d["flags"] = [*d.get("flags", []), "scale_from_headers"]


def build_universe(store: Any, principal: Principal, docs: Sequence[str]) -> dict[str, Any]:
    """Return the fact universe of `docs` as the principal may read them (`facts.json`)."""
    documents, tables, facts = [], [], []
    total = by_origin_table = 0
    seen: set[str] = set()
    for doc in docs:
        rev = resolve_doc(store, principal, doc)
        if rev.doc_id in seen:
            continue
        seen.add(rev.doc_id)
        layer = store.text_layer(rev)
        if layer is None:
            raise NotFound("document", doc)
        ctabs = canonical_tables(layer, rev.doc_id)
        pages = max((e.page or 0 for e in layer.elements), default=0)
        documents.append({"doc": doc, "doc_id": rev.doc_id, "sha256": rev.sha256,
                          "media_type": rev.media_type, "text_layer": layer.layer_id,
                          "pages": pages, "tables": len(ctabs)})
        recs = [_table_record(t, rev.media_type) for t in ctabs]
        tables.extend(recs)
        tables_by_id = {r["table_id"]: r for r in recs}
        spans = sorted((c.char_start, c.char_end, ti, c) for ti, t in enumerate(ctabs)
                       for c in t.cells)
        starts = [s[0] for s in spans]
        for f in extract_facts(layer, rev.doc_id):
            total += 1
            if f.origin_type == "table_cell":
                by_origin_table += 1
            d = f.to_dict()
            if (f.value_type == "period" and f.origin_type == "table_cell"
                    and _YEARLIKE.match(f.value) and f.column_path):
                # a bare 4-digit number in a table body under a column header ("1903"
                # thousand): an amount the value scanner reads as a year
                d["value_type"], d["normalized_value"] = "number", f.value
                d["flags"] = [*d["flags"], "year_like_amount"]
            elif f.value_type not in NUMERIC or f.normalized_value is None:
                continue
            for k in ("qualifiers", "qualifier_start", "qualifier_end", "search_text"):
                d.pop(k, None)
            d["table_id"] = d["grid_row"] = d["grid_col"] = None
            d["source_media_type"] = rev.media_type
            i = bisect.bisect_right(starts, f.char_start) - 1
            if f.origin_type == "table_cell" and i >= 0 and spans[i][1] >= f.char_end:
                _, _, ti, cell = spans[i]
                d["table_id"] = ctabs[ti].table_id
                d["grid_row"], d["grid_col"] = cell.row, cell.col
            own = any(_says_percent(x) for x in (f.value, *f.row_path, *f.column_path))
            if f.value_type == "number" and own and f.origin_type == "table_cell":
                # "Gross margin (%)  73.2": the row or column header makes it a percentage
                d["value_type"], d["unit"], d["scale"] = "percent", "%", None
                d["normalized_value"] = _plain(f.value)
                d["flags"] = [*d["flags"], "percent_from_headers"]
            elif f.value_type == "percent" and "unit_from_table" in f.flags and not own:
                # "(in thousands, except percentages)" makes every plain number of the table
                # a percent; a cell is one only where it, or its own headers, say so
                d["value_type"], d["unit"] = "number", None
                d["normalized_value"] = _plain(f.value)
                d["flags"] = [*d["flags"], "percent_from_table_dropped"]
            if (d["value_type"] in ("number", "money") and d["scale"] is None
                    and f.origin_type == "table_cell"):
                _scale_from_headers(d, f, tables_by_id.get(d["table_id"]))
            p = period_of(f.column_path or f.section_path)
            d["period"] = {"year": p.year, "grain": p.grain, "scenario": p.scenario}
            d["family"] = label_class(f.row_path[-1]) if f.row_path else None
            facts.append(d)
    return {"schema_name": SCHEMA_NAME, "version": 1, "documents": documents,
            "tables": tables, "facts": facts,
            "counts": {"facts_total": total, "facts_table_cell": by_origin_table,
                       "facts_numeric": len(facts), "tables": len(tables),
                       "pages": sum(d["pages"] for d in documents)}}
