"""docling's DoclingDocument JSON → text layer (`parse.docling_tree`): the tree read in
order, headings and tables as locators, page and box from `prov`, and every refusal.

The export of `tests/sources/docling_data/lease_notice.html` (made with docling's HTML
backend, see that folder's README) and small documents written here; docling's own
test exports (`../shared/data/docling_testdata`) when present.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pincite.errors import ParseFailure
from pincite.limits import Limits
from pincite.parse import IMPORT_KINDS, parse
from pincite.parse.docling_tree import MAX_CONTAINERS, PARSER
from tests.loud_skips import shared_files

DATA = Path(__file__).resolve().parents[1] / "sources" / "docling_data"
LEASE = DATA / "lease_notice.docling.json"


def _doc(texts: list[dict[str, Any]], *, tables: list[dict[str, Any]] | None = None,
         body: list[str] | None = None, pages: dict[str, Any] | None = None,
         groups: list[dict[str, Any]] | None = None, version: str = "1.10.0") -> bytes:
    """Return the bytes of a small DoclingDocument (references filled in)."""
    for i, t in enumerate(texts):
        t.setdefault("self_ref", f"#/texts/{i}")
        t.setdefault("label", "text")
        t.setdefault("prov", [])
    for i, t in enumerate(tables or []):
        t.setdefault("self_ref", f"#/tables/{i}")
        t.setdefault("label", "table")
    refs = body if body is not None else [t["self_ref"] for t in texts] + \
        [t["self_ref"] for t in tables or []]
    return json.dumps({
        "schema_name": "DoclingDocument", "version": version, "name": "t",
        "body": {"self_ref": "#/body", "children": [{"$ref": r} for r in refs],
                 "label": "unspecified"},
        "groups": groups or [], "texts": texts, "tables": tables or [], "pictures": [],
        "pages": pages or {},
    }).encode()


def _parse(data: bytes, **limits: Any) -> Any:
    return parse("docling", data, limits=Limits(**limits))


def _at(layer: Any, text: str, kind: str | None = None) -> Any:
    start = layer.text.index(text)
    return next(e for e in layer.elements if e.char_start == start and e.kind != "page"
                and (kind is None or e.kind == kind))


def test_the_export_reads_as_headings_paragraphs_numbered_items_and_a_table() -> None:
    data = LEASE.read_bytes()
    layer = parse("docling", data)
    assert PARSER in IMPORT_KINDS and layer.parser == PARSER
    assert layer.version.startswith("1+") and len(layer.version) == 2 + 12  # export's hash
    assert layer.meta["docling"]["origin"]["filename"] == "lease_notice.html"
    rent = _at(layer, "The renewed term runs", "paragraph")
    assert rent.locator == "Lease renewal notice > Term and rent ¶1"
    # docling split the paragraph at <b>: read as one, no space before the comma
    assert "The monthly rent is 2,450 euros, payable" in layer.text
    # an <ol> item has no marker in docling's JSON: it is numbered as shown
    assert _at(layer, "1. The tenant shall keep").locator == "clause 1"
    assert _at(layer, "Table 1. Charges per year").kind == "paragraph"  # the caption
    table = _at(layer, "Charge\t2026-27", "table")
    assert table.locator == "table 1" and table.meta["caption"].startswith("Table 1. Charges")
    cell = _at(layer, "29,988", "cell")
    assert cell.locator == "table 1 / Base rent / 2027-28"
    span = _at(layer, "included in the base rent", "cell")
    assert span.meta["col_span"] == 3
    assert layer.geometry is None and all(e.page is None for e in layer.elements)


def test_prov_gives_each_character_its_page_and_a_top_left_box() -> None:
    texts = [
        {"label": "section_header", "level": 1, "text": "Fees",
         "prov": [{"page_no": 1, "bbox": {"l": 72, "t": 700, "r": 120, "b": 688,
                                          "coord_origin": "BOTTOMLEFT"}, "charspan": [0, 4]}]},
        {"text": "The fee is 106 euros per hour.",  # over two pages: two charspans
         "prov": [{"page_no": 1, "bbox": {"l": 72, "t": 60, "r": 300, "b": 40,
                                          "coord_origin": "BOTTOMLEFT"}, "charspan": [0, 14]},
                  {"page_no": 2, "bbox": {"l": 72, "t": 80, "r": 200, "b": 92,
                                          "coord_origin": "TOPLEFT"}, "charspan": [15, 30]}]},
    ]
    tables = [{"prov": [{"page_no": 2, "bbox": {"l": 72, "t": 600, "r": 400, "b": 500,
                                                "coord_origin": "BOTTOMLEFT"}}],
               "data": {"num_rows": 2, "num_cols": 2, "table_cells": [
                   _cell(0, 0, "Item", header=True), _cell(0, 1, "Fee", header=True),
                   _cell(1, 0, "Review", box=(72, 250, 150, 262)),
                   _cell(1, 1, "106", box=(200, 250, 240, 262))]}}]
    pages = {"1": {"page_no": 1, "size": {"width": 612, "height": 792}},
             "2": {"page_no": 2, "size": {"width": 612, "height": 792}}}
    layer = _parse(_doc(texts, tables=tables, pages=pages))
    head = _at(layer, "Fees", "heading")
    assert (head.page, head.bbox) == (1, (72.0, 92.0, 120.0, 104.0))  # 792 - 700, 792 - 688
    para = _at(layer, "The fee is", "paragraph")
    assert para.locator == "Fees ¶1" and para.page == 1
    a = layer.text.index("The fee is")
    assert layer.geometry.span_boxes(a, a + 30) == [(1, (72.0, 732.0, 300.0, 752.0)),
                                                  (2, (72.0, 80.0, 200.0, 92.0))]
    cell = next(e for e in layer.elements
                if e.kind == "cell" and layer.text[e.char_start:e.char_end] == "106")
    assert (cell.locator, cell.page, cell.bbox) == ("table 1 / Review / Fee", 2,
                                                    (200.0, 250.0, 240.0, 262.0))
    assert layer.page_count == 2


def _cell(r: int, c: int, text: str, *, header: bool = False, rows: int = 1, cols: int = 1,
          box: tuple[float, ...] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"text": text, "start_row_offset_idx": r, "end_row_offset_idx": r + rows,
                           "start_col_offset_idx": c, "end_col_offset_idx": c + cols,
                           "column_header": header}
    if box:
        out["bbox"] = dict(zip("ltrb", box, strict=True)) | {"coord_origin": "TOPLEFT"}
    return out


def test_furniture_and_notes_are_left_out_and_an_item_is_read_once() -> None:
    texts = [{"text": "Page 1 of 9", "label": "page_header", "content_layer": "furniture"},
             {"text": "A reviewer's comment.", "content_layer": "notes"},
             {"text": "The body text.", "children": [{"$ref": "#/texts/2"}]}]  # a cycle
    layer = _parse(_doc(texts, body=["#/texts/0", "#/texts/1", "#/texts/2", "#/texts/2"]))
    assert layer.text == "The body text."
    assert layer.meta["docling"]["skipped"] == {"furniture": 1, "notes": 1}


@pytest.mark.parametrize(("data", "reason", "says"), [
    (b"not json at all", "malformed", "not usable JSON"),
    (b"\xff\xfe{}", "malformed", "not UTF-8"),
    (b'{"schema_name": "Other", "version": "1.0.0"}', "unsupported_type", "not a DoclingDocument"),
    (b"[1, 2]", "unsupported_type", "not a DoclingDocument"),
    (_doc([{"text": "x"}], version="2.0.0"), "unsupported_type", "version '2.0.0'"),
    (_doc([{"text": 5}]), "malformed", "at texts/0/text"),
    (_doc([{"text": "x", "prov": [{"page_no": 0, "bbox": {"l": 0, "t": 0, "r": 1, "b": 1}}]}]),
     "malformed", "at texts/0/prov/0/page_no"),
    (_doc([{"text": "x"}], body=["#/texts/7"]), "malformed", "refers to #/texts/7"),
    (_doc([{"text": "x"}], body=["../../etc/passwd"]), "malformed", "at body/children/0"),
    (b'{"a":' * 70 + b"1" + b"}" * 70, "too_deep", "deeper than 64"),
    (b"[" * (MAX_CONTAINERS + 1), "over_limit", "objects and arrays"),
    (_doc([], tables=[{"data": {"num_rows": 10**6, "num_cols": 10**6}}]), "over_limit", "cells"),
    (_doc([{"text": "  "}]), "empty", "no text"),
], ids=["not-json", "not-utf8", "other-schema", "a-list", "version-2", "text-not-string",
        "page-0", "dangling-ref", "ref-path", "deep", "container-bomb", "grid-claim", "empty"])
def test_bad_input_is_refused_with_a_reason_that_says_what(data: bytes, reason: str,
                                                           says: str) -> None:
    with pytest.raises(ParseFailure) as err:
        _parse(data)
    assert err.value.reason == reason
    assert says in err.value.detail


def test_bytes_pages_and_text_past_the_limits_are_over_limit() -> None:
    doc = _doc([{"text": "Some words here.", "prov": [
        {"page_no": 7, "bbox": {"l": 0, "t": 0, "r": 1, "b": 1}}]}],
        pages={"7": {"page_no": 7, "size": {"width": 10, "height": 10}}})
    for limits, says in (({"max_bytes": len(doc) - 1}, "byte limit"),
                         ({"max_pages": 6}, "page 7"), ({"max_text_chars": 5}, "exceeds")):
        with pytest.raises(ParseFailure) as err:
            _parse(doc, **limits)
        assert (err.value.reason, says in err.value.detail) == ("over_limit", True)


@pytest.mark.shared_data("docling_testdata")
def test_every_docling_test_export_reads_with_its_tables_and_geometry() -> None:
    files = shared_files("docling_testdata", "*/groundtruth/*.json")
    assert len(files) >= 20
    for f in files:
        raw = json.loads(f.read_bytes())
        layer = parse("docling", f.read_bytes())
        cells = [e for e in layer.elements if e.kind == "cell"]
        tables = [t for t in raw["tables"] if t["data"]["table_cells"]]
        nested = _nested(raw)  # read on their own unless their cell holds their text
        read = len([e for e in layer.elements if e.kind == "table"])
        assert len([t for t in tables if t["self_ref"] not in nested]) <= read <= len(tables)
        assert all(layer.text[e.char_start:e.char_end].strip() for e in cells), f.name
        if raw["origin"]["mimetype"] == "application/pdf":
            assert layer.geometry is not None and layer.page_count == len(raw["pages"]), f.name


def _nested(raw: dict[str, Any]) -> set[str]:
    """Return the references of the tables under other tables' children (rich cells)."""
    groups = {g["self_ref"]: g for g in raw["groups"]}
    out: set[str] = set()
    stack = [c["$ref"] for t in raw["tables"] for c in t["children"]]
    while stack:
        ref = stack.pop()
        if ref.startswith("#/tables/"):
            out.add(ref)
        elif ref in groups:
            stack += [c["$ref"] for c in groups[ref]["children"]]
    return out
