"""Canonical tables: header detection, row/column paths, cues, locators, bounds."""

from __future__ import annotations

import hashlib
import io
import re
import time
import zipfile

import docx
import openpyxl
import pytest
from docx.oxml import OxmlElement
from hypothesis import given, settings
from hypothesis import strategies as st

from pincite.cite.locate import LocatorIndex
from pincite.limits import Limits
from pincite.model import MEDIA_TYPES, Element, Principal, TextLayer
from pincite.parse import parse
from pincite.parse.layout import LayerBuilder
from pincite.parse.tables.cues import cell_kind, find_entity, find_scale, find_unit, period_grain
from pincite.parse.tables.grid_layer import sheet_ref
from pincite.parse.tables.structure import analyse

# ---- helpers ---------------------------------------------------------------------------


def cells(layer: TextLayer) -> list[Element]:
    return [e for e in layer.elements if e.kind == "cell"]


def tables(layer: TextLayer) -> list[Element]:
    return [e for e in layer.elements if e.kind == "table"]


def by_text(layer: TextLayer, text: str) -> Element:
    (e,) = [e for e in cells(layer) if layer.text[e.char_start:e.char_end] == text]
    return e


def by_locator(layer: TextLayer, locator: str) -> str:
    (e,) = [e for e in cells(layer) if e.locator == locator]
    return layer.text[e.char_start:e.char_end]


def check_cells(layer: TextLayer) -> None:
    """Every cell slices back to its text, has a unique locator, and the locator index
    returns that locator at its start."""
    index = LocatorIndex.build(layer)
    seen = set()
    for e in cells(layer):
        text = layer.text[e.char_start:e.char_end]
        assert text.strip() and text == text.strip()
        assert index.locator_at(e.char_start) == e.locator
        assert e.locator not in seen
        seen.add(e.locator)
        assert e.meta is not None and "grid_row" in e.meta


def timed(fn):  # type: ignore[no-untyped-def]
    # CPU time: the parser's work, not the wait for a core (`make test` runs more pytest
    # workers than the machine has cores)
    t = time.process_time()
    out = fn()
    return out, time.process_time() - t


NESTED = [
    ["Metric", "FY2024", "", "FY2023"],
    ["", "Actual", "Budget", "Actual"],
    ["Revenue", "", "", ""],
    ["  Product", "60.0", "55.0", "50.1"],
    ["  Services", "44.8", "40.0", "41.1"],
    ["Total revenue", "104.8", "95.0", "91.2"],
]


# ---- the builder and the analysis -------------------------------------------------------


def test_nested_headers_indentation_and_locators() -> None:
    b = LayerBuilder("t", "2")
    b.heading("Atlas Foods FY2024 report", 1)
    b.table(NESTED, spans={(0, 1): (1, 2)}, caption="Atlas Foods FY2024 Summary ($ in millions)")
    layer = b.build()
    check_cells(layer)
    e = by_text(layer, "44.8")
    assert e.row_path == ("Revenue", "Services")
    assert e.column_path == ("FY2024", "Actual")
    assert e.locator == "table 1 / Revenue > Services / FY2024 > Actual"
    assert by_text(layer, "40.0").locator == "table 1 / Revenue > Services / FY2024 > Budget"
    assert by_text(layer, "41.1").locator == "table 1 / Revenue > Services / FY2023 > Actual"
    # a row back at the outer indentation leaves the group
    assert by_text(layer, "104.8").row_path == ("Total revenue",)
    # header cells: r/c locators, the header kind and their own path
    fy = by_text(layer, "FY2024")
    assert fy.locator == "table 1 r1c2" and fy.meta["header"] == "column"
    assert fy.meta["col_span"] == 2
    assert by_text(layer, "Budget").column_path == ("FY2024", "Budget")
    services = by_text(layer, "Services")
    assert services.meta["header"] == "row" and services.row_path == ("Revenue", "Services")
    assert services.locator == "table 1 r5c1"
    (t,) = tables(layer)
    assert t.meta == {
        "caption": "Atlas Foods FY2024 Summary ($ in millions)",
        "title_path": ["Atlas Foods FY2024 report", "Atlas Foods FY2024 Summary ($ in millions)"],
        "intro": "Atlas Foods FY2024 report", "unit": "USD", "scale": "millions",
        "period_grain": "fiscal_year", "entity": "Atlas Foods", "header_rows": 2,
        "header_cols": 1, "n_rows": 6, "n_cols": 4, "sheet": None,
    }
    # text assembly is unchanged: tabs, newlines, a blank line before the table
    assert layer.text.endswith("Metric\tFY2024\t\tFY2023\n\tActual\tBudget\tActual\nRevenue\t\t\t\n"
                               "Product\t60.0\t55.0\t50.1\nServices\t44.8\t40.0\t41.1\n"
                               "Total revenue\t104.8\t95.0\t91.2")


def test_section_rows_group_until_total_or_next_section() -> None:
    grid = [
        ["", "2019", "2018"],
        ["", "$'000", "$'000"],
        ["Current", "", ""],
        ["Trade payables", "3,486", "4,184"],
        ["Accrued expenses", "6,706", "2,717"],
        ["Total current", "10,192", "6,901"],
        ["Deferred revenue", "1", "2"],
        ["Non-current", "", ""],
        ["Leases", "5", "6"],
        ["", "15", "16"],
    ]
    s = analyse(grid)
    assert (s.header_rows, s.header_cols) == (2, 1)
    assert s.section_rows == {2, 7}
    assert s.row_path(3) == ("Current", "Trade payables")
    assert s.row_path(5) == ("Current", "Total current")
    assert s.row_path(6) == ("Deferred revenue",)  # the total closed the section
    assert s.row_path(8) == ("Non-current", "Leases")
    assert s.row_path(9) == ()  # an unlabeled row invents no label
    assert s.column_path(1) == ("2019", "$'000")
    assert (s.scale, s.period_grain) == ("thousands", "fiscal_year")


def test_tatqa_like_headers_written_as_plain_cells() -> None:
    grid = [
        ["Reconciliation (in thousands)", "Years Ended December 31,", ""],
        ["", "2019", "2018"],
        ["Gross profit, as reported", "$ 315,652", "$365,607"],
        ["Adjustments:", "", ""],
        ["Stock-based compensation", "525", "742"],
    ]
    s = analyse(grid)
    assert (s.header_rows, s.header_cols) == (2, 1)
    assert s.column_path(1) == ("Years Ended December 31,", "2019")
    assert s.column_path(2) == ("2018",)  # no span in the markup: nothing is carried
    assert s.row_path(4) == ("Adjustments:", "Stock-based compensation")
    assert (s.unit, s.scale) == ("USD", "thousands")
    # footnoted years and "2019 %" are headers too
    s = analyse([["", "2019 (1)", "2018", "2019 %"], ["Charges", "$94.2", "$394.0", "(3)%"]])
    assert s.header_rows == 1 and s.column_path(3) == ("2019 %",)


def test_value_column_zero_is_no_stub_and_text_tables_use_row_zero() -> None:
    s = analyse([["1", "2"], ["3", "4"]])
    assert (s.header_rows, s.header_cols) == (0, 0)
    s = analyse([["Name", "Role"], ["Ana", "Counsel"], ["Bo", "Partner"]])
    assert (s.header_rows, s.header_cols) == (1, 1)
    assert s.row_path(1) == ("Ana",) and s.column_path(1) == ("Role",)


def test_missing_sides_fall_back_to_positions() -> None:
    b = LayerBuilder("t", "2")
    b.table([["", "10", "20"], ["Fees", "1", "2"], ["", "3", "4"]])
    layer = b.build()
    check_cells(layer)
    assert by_locator(layer, "table 1 / Fees / c2") == "1"
    assert by_locator(layer, "table 1 r3c2") == "3"  # neither side: the place
    # the same paths twice stay unique
    b = LayerBuilder("t", "2")
    b.table([["", "2024", "2024"], ["Fees", "1", "2"], ["Fees", "3", "4"]])
    locs = [e.locator for e in cells(b.build()) if not (e.meta or {}).get("header")]
    assert locs == ["table 1 / Fees / 2024", "table 1 / Fees / 2024 #2",
                    "table 1 / Fees / 2024 #3", "table 1 / Fees / 2024 #4"]


def test_dropped_rows_and_columns_keep_grid_positions() -> None:
    b = LayerBuilder("t", "2")
    b.table([["", "", "", ""], ["Item", "", "2024", ""], ["", "", "", ""], ["Fee", "", "7", ""]])
    layer = b.build()
    assert layer.text == "Item\t2024\nFee\t7"
    e = by_text(layer, "7")
    assert (e.row, e.col) == (2, 2)
    assert (e.meta["grid_row"], e.meta["grid_col"]) == (3, 2)
    assert e.locator == "table 1 / Fee / 2024"


@pytest.mark.parametrize(("text", "kind"), [
    ("1,234.5", "value"), ("(12,168)", "value"), ("$ 315,652", "value"), ("41.6%", "value"),
    ("—", "value"), ("n/a", "value"), ("1.30 (1)", "value"), ("€5", "value"),
    ("2019", "period"), ("FY2024", "period"), ("2025A", "period"), ("Q3 2025", "period"),
    ("December 31, 2019", "period"), ("2018 (4)", "period"), ("2024-25", "period"),
    ("Revenue", "text"), ("$'000", "text"), ("$ million", "text"), ("", "empty"),
])
def test_cell_kinds(text: str, kind: str) -> None:
    assert cell_kind(text) == kind


@pytest.mark.parametrize(("text", "scale"), [
    ("(in millions, except per share data)", "millions"), ("$ in millions", "millions"),
    ("(In thousands)", "thousands"), ("$'000", "thousands"), ("€m", "millions"),
    ("in billions of dollars", "billions"), ("Importes en miles de euros", "thousands"),
    ("Cifras en millones de euros", "millions"), ("miles de millones", "billions"),
    ("USD m", "millions"), ("(000s)", "thousands"), ("Revenue by segment", None),
])
def test_scales(text: str, scale: str | None) -> None:
    assert find_scale(text) == scale


@pytest.mark.parametrize(("text", "unit"), [
    ("$ in millions", "USD"), ("(in thousands of €)", "EUR"), ("EUR m", "EUR"),
    ("US$", "USD"), ("£m", "GBP"), ("miles de euros", "EUR"), ("% Change", "%"),
    ("A$ million", "AUD"), ("Revenue", None),
])
def test_units(text: str, unit: str | None) -> None:
    assert find_unit(text) == unit


def test_period_grains_and_entities() -> None:
    assert period_grain([("FY2024", "Actual"), ("FY2023",)]) == "fiscal_year"
    assert period_grain([("2025",), ("2024A",)]) == "fiscal_year"
    assert period_grain([("2024", "Q1"), ("2024", "Q2")]) == "quarter"
    assert period_grain([("Q3 2025",), ("Q2 2025",)]) == "quarter"
    assert period_grain([("H1 2024",), ("H2 2024",)]) == "half"
    assert period_grain([("Jan 2024",), ("Feb 2024",)]) == "month"
    assert period_grain([("Actual",), ("Budget",)]) == "none"
    assert find_entity("Atlas Foods FY2024 Summary") == "Atlas Foods"
    assert find_entity("Selected financial data of Acme Widgets, Inc.") == "Acme Widgets, Inc."
    assert find_entity("Consolidated balance sheet") is None


def test_sheet_refs_are_quoted_like_excel() -> None:
    assert sheet_ref("Sheet1", "B4") == "Sheet1!B4"
    assert sheet_ref("My Sheet", "B4") == "'My Sheet'!B4"
    assert sheet_ref("O'Brien", "A1") == "'O''Brien'!A1"
    assert sheet_ref("2024", "A1") == "'2024'!A1"
    assert sheet_ref("A1", "A1") == "'A1'!A1"


# ---- formats ----------------------------------------------------------------------------


def test_html_th_scope_rowspan_colspan() -> None:
    page = b"""<h2>Revenue</h2><p>Figures for Acme.</p>
    <table><caption>Acme Corp. revenue (EUR thousands)</caption>
    <thead><tr><th rowspan="2">Segment</th><th rowspan="2">Line</th>
      <th colspan="2">FY2024</th><th>FY2023</th></tr>
    <tr><th>Actual</th><th>Budget</th><th>Actual</th></tr></thead>
    <tbody>
    <tr><th scope="row" rowspan="2">Revenue</th><th scope="row">Product</th>
      <td>60</td><td>55</td><td>50</td></tr>
    <tr><th scope="row">Services</th><td>44.8</td><td>40</td><td>41</td></tr>
    <tr><td style="padding-left:0">Costs</td><td></td><td>(10)</td><td>(9)</td><td>(8)</td></tr>
    </tbody></table>"""
    layer = parse("html", page)
    check_cells(layer)
    assert layer.layer_id == "html@3"
    assert by_locator(layer, "table 1 / Revenue > Services / FY2024 > Actual") == "44.8"
    assert by_locator(layer, "table 1 / Revenue > Product / FY2024 > Budget") == "55"
    assert by_locator(layer, "table 1 / Revenue > Services / FY2023 > Actual") == "41"
    assert by_locator(layer, "table 1 / Costs / FY2024 > Actual") == "(10)"
    seg = by_text(layer, "Segment")
    assert seg.meta["header"] == "column" and seg.meta["row_span"] == 2
    assert by_text(layer, "Revenue").meta["row_span"] == 2
    (t,) = tables(layer)
    assert (t.meta["header_rows"], t.meta["header_cols"]) == (2, 2)
    assert (t.meta["unit"], t.meta["scale"], t.meta["entity"]) == ("EUR", "thousands", "Acme Corp.")
    assert t.meta["caption"] == "Acme Corp. revenue (EUR thousands)"
    assert t.meta["intro"] == "Revenue"


def test_html_plain_td_headers_are_detected_and_indents_read() -> None:
    page = b"""<table>
    <tr><td></td><td>Q1 2025</td><td>Q2 2025</td></tr>
    <tr><td>Revenue</td><td>10</td><td>12</td></tr>
    <tr><td style="padding-left:12pt">Services</td><td>4</td><td>5</td></tr>
    <tr><td>&nbsp;&nbsp;&nbsp;Licences</td><td>6</td><td>7</td></tr>
    </table>"""
    layer = parse("html", page)
    check_cells(layer)
    assert by_locator(layer, "table 1 / Revenue > Services / Q2 2025") == "5"
    assert by_locator(layer, "table 1 / Revenue > Licences / Q1 2025") == "6"
    assert tables(layer)[0].meta["period_grain"] == "quarter"


def _merge_docx() -> bytes:
    doc = docx.Document()
    doc.add_heading("Budget", 1)
    doc.add_paragraph("Table 1 - Budget (in millions of EUR)")
    t = doc.add_table(rows=4, cols=4)
    values = [["Line", "FY2024", "", "FY2023"], ["", "Actual", "Budget", "Actual"],
              ["Revenue", "10", "11", "9"], ["", "1", "2", "3"]]
    for r, row in enumerate(values):
        for c, v in enumerate(row):
            if v:
                t.cell(r, c).text = v
    t.cell(0, 1).merge(t.cell(0, 2))  # gridSpan
    t.cell(0, 0).merge(t.cell(1, 0))  # vMerge
    t.cell(2, 0).merge(t.cell(3, 0))
    for r in (0, 1):
        tr_pr = t.rows[r]._tr.get_or_add_trPr()
        tr_pr.append(OxmlElement("w:tblHeader"))
    out = io.BytesIO()
    doc.save(out)
    return out.getvalue()


def test_docx_merged_cells_and_header_rows() -> None:
    layer = parse("docx", _merge_docx())
    check_cells(layer)
    assert layer.layer_id == "docx@2"
    assert by_locator(layer, "table 1 / Revenue / FY2024 > Budget") == "11"
    assert by_locator(layer, "table 1 / Revenue / FY2023 > Actual") == "9"
    # the vMerge carries the label down; the repeated path stays unique
    assert by_locator(layer, "table 1 / Revenue / FY2023 > Actual #2") == "3"
    line = by_text(layer, "Line")
    assert line.meta["header"] == "column" and line.meta["row_span"] == 2
    assert by_text(layer, "FY2024").meta["col_span"] == 2
    assert by_text(layer, "Revenue").meta["row_span"] == 2
    (t,) = tables(layer)
    assert t.meta["caption"] == "Table 1 - Budget (in millions of EUR)"
    assert (t.meta["unit"], t.meta["scale"]) == ("EUR", "millions")
    assert t.meta["title_path"] == ["Budget", "Table 1 - Budget (in millions of EUR)"]


def _xlsx() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Sheet1"
    ws["A1"] = "Revenue (USD thousands)"
    ws["A3"] = "Metric"
    ws["B3"] = "FY2024"
    ws.merge_cells("B3:C3")
    ws["D3"] = "FY2023"
    ws["B4"] = "Actual"
    ws["C4"] = "Budget"
    ws["D4"] = "Actual"
    ws["A5"] = "Revenue"
    for r, (label, vals) in enumerate([("Product", (60, 55, 50)), ("Services", (40, 45, 41))], 6):
        ws.cell(r, 1, label).alignment = openpyxl.styles.Alignment(indent=1)
        for c, v in enumerate(vals, 2):
            ws.cell(r, c, v)
    ws["A8"] = "Total"
    ws["B8"] = "=B6+B7"
    other = wb.create_sheet("My Sheet")
    other.append(["Item", "Amount"])
    other.append(["Fee", 5])
    out = io.BytesIO()
    wb.save(out)
    data = out.getvalue()
    # give the formula the cached value Excel would have written
    zin = zipfile.ZipFile(io.BytesIO(data))
    zout_buf = io.BytesIO()
    with zipfile.ZipFile(zout_buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                body = re.sub(rb"<f>B6\+B7</f><v\s*/?>(</v>)?", b"<f>B6+B7</f><v>100</v>", body)
                assert b"<v>100</v>" in body
            zout.writestr(info, body)
    return zout_buf.getvalue()


def test_xlsx_merged_refs_formulas_and_title_rows() -> None:
    layer = parse("xlsx", _xlsx())
    check_cells(layer)
    assert layer.layer_id == "xlsx@2"
    b7 = [e for e in cells(layer) if e.locator == "Sheet1!C7"][0]
    assert layer.text[b7.char_start:b7.char_end] == "45"
    assert b7.row_path == ("Revenue", "Services")
    assert b7.column_path == ("FY2024", "Budget")
    assert b7.meta["ref"] == "C7" and "header" not in b7.meta
    total = [e for e in cells(layer) if e.locator == "Sheet1!B8"][0]
    assert layer.text[total.char_start:total.char_end] == "100"  # the cached value
    assert total.flags == ("formula",)
    assert total.row_path == ("Total",) and total.column_path == ("FY2024", "Actual")
    assert [e for e in cells(layer) if e.locator == "Sheet1!B3"][0].meta["col_span"] == 2
    assert by_locator(layer, "'My Sheet'!B2") == "5"
    t1, t2 = tables(layer)
    assert t1.meta["caption"] == "Revenue (USD thousands)" and t1.meta["sheet"] == "Sheet1"
    assert (t1.meta["unit"], t1.meta["scale"], t1.meta["header_rows"]) == ("USD", "thousands", 3)
    assert t2.meta["sheet"] == "My Sheet"
    assert "formulas" in layer.flags


def test_csv_header_detection_and_indents() -> None:
    data = b"Line,2025A,2024A\nRevenue,,\n  Product,1,2\n  Services,3,4\nTotal,4,6\n"
    layer = parse("csv", data)
    check_cells(layer)
    assert layer.layer_id == "csv@2"
    assert by_locator(layer, "table 1 / Revenue > Services / 2024A") == "4"
    assert by_locator(layer, "table 1 / Total / 2025A") == "4"
    assert tables(layer)[0].meta["period_grain"] == "fiscal_year"


def test_markdown_header_row_and_intro_clause() -> None:
    md = (b"# Fees\n\n12. Payment\n\nThe fees (in thousands of euros) are:\n\n"
          b"| Item | 2024 |\n|---|---|\n| Fee | 450,000 |\n")
    layer = parse("markdown", md)
    check_cells(layer)
    assert layer.layer_id == "markdown@2"
    assert by_locator(layer, "table 1 / Fee / 2024") == "450,000"
    t = tables(layer)[0]
    assert (t.meta["unit"], t.meta["scale"]) == ("EUR", "thousands")  # from the text before
    assert t.meta["intro"] == "clause 12" and t.meta["title_path"] == ["Fees"]


# ---- citations --------------------------------------------------------------------------


def test_cell_citation_verifies_and_reparse_keeps_old_layer(store_url: str) -> None:
    from pincite.cite.verifier import Verifier, citation_for
    from pincite.sources.ingest import Ingestor, reparse_revision
    from pincite.store import open_store

    store = open_store(store_url)
    try:
        data = b"Line,FY2024,FY2023\nRevenue,10,9\n"
        sha = hashlib.sha256(data).hexdigest()
        # a revision parsed by the foundation's CSV parser (version 1, r/c locators)
        old_text = "Line\tFY2024\tFY2023\nRevenue\t10\t9"
        start = old_text.index("10")
        old = TextLayer("csv", "1", old_text, (
            Element("table", 0, len(old_text), "table 1"),
            Element("cell", start, start + 2, "table 1 r2c2", row=2, col=2),
        ))
        store.blobs.put("t", data, sha)
        rev, _ = store.commit_revision(tenant="t", source_id="fees.csv", sha256=sha,
                                       media_type=MEDIA_TYPES["csv"], size=len(data),
                                       at="2024-01-01T00:00:00Z", acl=("*",), flags=(), layer=old)
        ver = Verifier(store, Principal.parse("t:ana"))
        old_cite = citation_for(rev, ver.layer(rev, "csv@1"), start, start + 2)
        assert old_cite.locator == "table 1 r2c2"
        with Ingestor(store, tenant="t", acl=None) as ing:
            assert reparse_revision(ing, rev) == "csv@2"
        ver = Verifier(store, Principal.parse("t:ana"))
        loaded = ver.layer(rev)
        assert loaded is not None and loaded.layer.layer_id == "csv@2"
        e = [e for e in cells(loaded.layer) if e.locator == "table 1 / Revenue / FY2024"][0]
        new_cite = ver.verify(citation_for(rev, loaded, e.char_start, e.char_end))
        assert new_cite.quote == "10" and new_cite.verify_reason == "ok"
        assert new_cite.locator == "table 1 / Revenue / FY2024"
        assert ver.verify(old_cite).verify_reason == "ok"  # still verifies on its own layer
        assert ver.cite("fees.csv", "9").locator == "table 1 / Revenue / FY2023"
    finally:
        store.close()


# ---- properties and bounds ----------------------------------------------------------------

_CELL = st.sampled_from(["", "", "Revenue", "  Services", "FY2024", "2023", "1,234", "(5)",
                         "—", "Total", "$ in millions", "a\tb", "x\ny", " ", "Q1 2025"])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_CELL, min_size=0, max_size=6), max_size=8),
       st.dictionaries(st.tuples(st.integers(0, 8), st.integers(0, 6)),
                       st.tuples(st.integers(1, 9), st.integers(1, 9)), max_size=4),
       st.sets(st.tuples(st.integers(0, 8), st.integers(0, 6)), max_size=6))
def test_any_grid_keeps_the_contract(grid: list[list[str]], spans: dict, heads: set) -> None:
    b = LayerBuilder("p", "2")
    b.paragraph("Before.")
    b.table(grid, spans=spans, header_cells=heads)
    b.paragraph("After.")
    layer = b.build()
    check_cells(layer)
    for e in cells(layer):
        assert all(p.strip() for p in e.row_path + e.column_path)


def test_ten_thousand_column_header_is_linear() -> None:
    header = ",".join(["Item"] + [f"FY{2000 + i % 50}-{i}" for i in range(10_000)])
    row = ",".join(["Fee"] + [str(i) for i in range(10_000)])
    data = (header + "\n" + row + "\n" + row.replace("Fee", "Tax") + "\n").encode()
    layer, seconds = timed(lambda: parse("csv", data))
    assert seconds < 10
    (t,) = tables(layer)
    assert t.meta["n_cols"] == 10_001 and t.meta["header_rows"] == 1
    assert by_locator(layer, "table 1 / Tax / FY2049-9999") == "9999"


def test_colspan_million_and_span_storms_are_bounded() -> None:
    page = ("<table><tr><th colspan=1000000>Wide</th></tr>"
            + "<tr>" + "<td rowspan=65534 colspan=1000>x</td>" * 50 + "</tr>"
            + "<tr><td>Fee</td><td>1</td></tr></table>").encode()
    layer, seconds = timed(lambda: parse("html", page))
    assert seconds < 10
    assert "truncated" in layer.flags
    check_cells(layer)
    # overlapping spans handed straight to the builder cost a bounded amount of work
    b = LayerBuilder("p", "2")
    grid = [["h"] * 300 for _ in range(300)]
    storm = {(r, c): (300, 300) for r in range(0, 300, 3) for c in range(0, 300, 3)}
    _, seconds = timed(lambda: b.table(grid, spans=storm))
    assert seconds < 10


def test_xlsx_merge_storm_is_bounded() -> None:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws["A1"] = "Item"
    ws["B1"] = 2024
    ws["A2"] = "Fee"
    ws["B2"] = 5
    out = io.BytesIO()
    wb.save(out)
    merges = "".join(f'<mergeCell ref="A{i}:Z{i + 2000}"/>' for i in range(1, 20_001))
    zin = zipfile.ZipFile(io.BytesIO(out.getvalue()))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            body = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                body = body.replace(b"</sheetData>",
                                    f'</sheetData><mergeCells count="20000">{merges}</mergeCells>'.encode())
            zout.writestr(info, body)
    layer, seconds = timed(lambda: parse("xlsx", buf.getvalue(), limits=Limits()))
    assert seconds < 10
    check_cells(layer)
    assert by_locator(layer, "Sheet!A1") == "Item"
    assert "Sheet!B2" not in {e.locator for e in cells(layer)}  # covered by a merge


def test_indent_staircases_and_header_floods_stay_bounded() -> None:
    rows = "".join(" " * i + f"r{i},{i}\n" for i in range(5_000)).encode()
    layer, seconds = timed(lambda: parse("csv", rows))
    assert seconds < 10
    assert max(len(e.row_path) for e in cells(layer)) <= 8
    page = ("<table>" + "<tr><th>h</th><th>2024</th></tr>" * 20_000
            + "<tr><td>Fee</td><td>1</td></tr></table>").encode()
    layer, seconds = timed(lambda: parse("html", page))
    assert seconds < 10
    (t,) = tables(layer)
    assert t.meta["header_rows"] <= 12
    assert max(len(e.column_path) for e in cells(layer)) <= 12


def test_key_value_table_of_th_td_pairs_has_no_header_row() -> None:
    grid = [["Tipo de contrato", "Servicios"], ["Procedimiento", "Procedimiento abierto"],
            ["Presupuesto base", "1.200.000,00 €"]]
    s = analyse(grid, header_cells={(0, 0), (1, 0), (2, 0)})
    assert (s.header_rows, s.header_cols) == (0, 1)
    assert s.row_path(1) == ("Procedimiento",)
    assert s.column_path(1) == ()
