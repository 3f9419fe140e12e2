"""Atomic facts over built and real documents: values, paths, ids, and that every one verifies."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

import pincite
from pincite.cite.verifier import citation_for
from pincite.facts.atomic import extract_facts, fact_id, facts_json
from pincite.model import Principal, TextLayer
from pincite.parse.layout import LayerBuilder
from tests.corpus import EXAMPLES


def build_report(meta: dict | None = None, cell_meta: bool = False) -> TextLayer:
    b = LayerBuilder("test", "1")
    b.heading("Atlas Foods FY2024 report", 1)
    b.heading("Consolidated summary", 2)
    b.paragraph("1. Revenue reached USD 104.8 million in FY2024, up 14.9% on FY2023.")
    b.paragraph("2. The facility of not less than 450,000 EUR, excluding VAT, runs for "
                "ten (10) years from 14 August 2026.")
    b.table([["Metric", "FY2023", "FY2024"],
             ["Revenue", "91.2", "104.8"],
             ["Gross profit", "42.1", "(3.5)"],
             ["Comment", "flat", "see note 4"]])
    layer = b.build()
    # The table's structure is set here, whatever the layout builder guessed: `meta` for the
    # table, and for cells either nothing (no header info) or headers and paths.
    els = []
    for e in layer.elements:
        if e.kind == "table":
            e = replace(e, meta=meta)
        elif e.kind == "cell":
            header = "column" if e.row == 1 else "row" if e.col == 1 else None
            if cell_meta:
                e = replace(e, meta={"header": header} if header else None,
                            row_path=("Row", str(e.row)), column_path=("Col", str(e.col)))
            else:
                e = replace(e, meta=None, row_path=(), column_path=())
        els.append(e)
    return replace(layer, elements=tuple(els))


def by_value(facts, value):
    found = [f for f in facts if f.value == value]
    assert found, (value, [f.value for f in facts])
    return found[0]


def test_prose_facts_have_values_qualifiers_and_section_paths():
    layer = build_report()
    facts = extract_facts(layer, "atlas.pdf@r1", lang="en")
    for f in facts:
        assert layer.text[f.char_start:f.char_end] == f.value
        if f.qualifier is not None:
            assert layer.text[f.qualifier_start:f.qualifier_end] == f.qualifier
    rev = by_value(facts, "USD 104.8 million")
    assert (rev.origin_type, rev.value_type, rev.normalized_value, rev.currency) == (
        "prose", "money", "104800000", "USD")
    assert rev.section_path == ("Atlas Foods FY2024 report", "Consolidated summary", "clause 1")
    assert rev.locator == "clause 1"
    assert by_value(facts, "14.9%").normalized_value == "14.9"
    assert by_value(facts, "FY2023").normalized_value == "FY2023"
    fee = by_value(facts, "450,000 EUR")
    assert (fee.qualifier, fee.negated) == ("not less than", True)
    assert [q.kind for q in fee.qualifiers] == ["ge", "excl_tax"]
    term = by_value(facts, "ten (10) years")
    assert (term.value_type, term.normalized_value) == ("duration", "P10Y")
    assert by_value(facts, "14 August 2026").normalized_value == "2026-08-14"
    # the clause numbers "1." and "2." are structure, not values
    assert not [f for f in facts if f.value in ("1", "2")]
    assert "Revenue reached" in rev.search_text and "Consolidated summary" in rev.search_text


def test_cells_fall_back_to_row_one_and_column_one_as_headers():
    layer = build_report()
    facts = extract_facts(layer, "atlas.pdf@r1", lang="en")
    cells = [f for f in facts if f.origin_type == "table_cell"]
    assert "Metric" not in [f.value for f in cells] and "Revenue" not in [f.value for f in cells]
    c = by_value(cells, "104.8")
    assert (c.value_type, c.normalized_value) == ("number", "104.8")
    assert (c.row_path, c.column_path) == (("Revenue",), ("FY2024",))
    assert c.section_path == ("Atlas Foods FY2024 report", "Consolidated summary", "clause 2")
    cell = next(e for e in layer.elements if e.kind == "cell" and (e.row, e.col) == (2, 3))
    assert c.locator == cell.locator and (c.char_start, c.char_end) == (cell.char_start,
                                                                         cell.char_end)
    assert "Revenue" in c.search_text and "FY2024" in c.search_text
    neg = by_value(cells, "(3.5)")
    assert neg.normalized_value == "-3.5"
    text_cell = by_value(cells, "see note 4")
    assert text_cell.value_type == "text" and text_cell.normalized_value == "see note 4"
    assert by_value(cells, "flat").value_type == "text"


def test_table_scale_and_unit_apply_to_cells():
    layer = build_report(meta={"scale": "millions", "unit": "USD", "caption": "Summary"})
    facts = extract_facts(layer, "atlas.pdf@r1", lang="en")
    c = by_value([f for f in facts if f.origin_type == "table_cell"], "104.8")
    assert (c.value_type, c.normalized_value, c.currency, c.scale, c.unit) == (
        "money", "104800000", "USD", "millions", "USD")
    assert by_value(facts, "(3.5)").normalized_value == "-3500000"
    assert "Summary" in c.search_text
    # a prose value keeps its own scale
    assert by_value(facts, "USD 104.8 million").normalized_value == "104800000"


def test_cell_header_meta_and_paths_are_read_from_elements():
    layer = build_report(meta={"header_rows": 1, "header_cols": 1}, cell_meta=True)
    facts = [f for f in extract_facts(layer, "atlas.pdf@r1", lang="en")
             if f.origin_type == "table_cell"]
    c = by_value(facts, "91.2")
    assert (c.row_path, c.column_path) == (("Row", "2"), ("Col", "2"))
    assert "Metric" not in [f.value for f in facts]


def test_fact_ids_are_stable_and_distinct():
    layer = build_report()
    a = extract_facts(layer, "atlas.pdf@r1", lang="en")
    b = extract_facts(layer, "atlas.pdf@r1", lang="en")
    assert [f.fact_id for f in a] == [f.fact_id for f in b]
    assert len({f.fact_id for f in a}) == len(a)
    assert all(f.fact_id.startswith("fact_") for f in a)
    other = extract_facts(layer, "atlas.pdf@r2", lang="en")
    assert {f.fact_id for f in a}.isdisjoint(f.fact_id for f in other)
    f = a[0]
    assert f.fact_id == fact_id("atlas.pdf@r1", layer.layer_id, f.char_start, f.char_end,
                                f.value_type)


def test_type_filter_and_json():
    layer = build_report()
    money = extract_facts(layer, "atlas.pdf@r1", lang="en", types=["money"])
    assert money and {f.value_type for f in money} == {"money"}
    doc = facts_json(money)
    assert doc["schema_name"] == "pincite.facts" and doc["version"] == 1
    d = doc["facts"][0]
    assert {"fact_id", "origin_type", "value", "normalized_value", "value_type", "row_path",
            "column_path", "section_path", "page", "bbox", "char_start", "char_end",
            "search_text", "qualifier", "negated", "currency", "unit"} <= set(d)


def test_language_is_guessed_for_ambiguous_separators():
    b = LayerBuilder("test", "1")
    b.paragraph("El importe de la garantía es de 1.234 euros para el contratista y la "
                "administración, que se abonará con el precio del contrato.")
    es = extract_facts(b.build(), "g.txt@r1")
    assert by_value(es, "1.234 euros").normalized_value == "1234"
    b = LayerBuilder("test", "1")
    b.paragraph("The weight of the sample shall be 1.234 kg and the Supplier shall deliver "
                "it to the Buyer with the goods of the order.")
    en = extract_facts(b.build(), "g.txt@r1")
    assert by_value(en, "1.234 kg").normalized_value == "1.234"


def test_a_large_text_stays_bounded():
    b = LayerBuilder("test", "1")
    para = ("The fee of not less than 450,000 EUR excluding VAT is due within thirty (30) "
            "days of 14/08/2026, and 1,1,1,1 (1) (((( one one one 9999999999999 FY2024. ")
    for _ in range(2000):
        b.paragraph(para * 3)
    layer = b.build()
    t = time.process_time()  # CPU time: the work, not the wait for a core under `pytest -n`
    facts = extract_facts(layer, "big.txt@r1", lang="en")
    elapsed = time.process_time() - t
    assert len(layer.text) > 900_000
    assert len(facts) == 2000 * 3 * 6
    assert elapsed < 15, elapsed


# ---- real documents, ingested and verified -----------------------------------------------

@pytest.fixture(scope="module")
def tender(tmp_path_factory):
    lib = pincite.open(tmp_path_factory.mktemp("facts") / "s", create=True)
    files = [EXAMPLES / "tender" / n for n in ("pliego.pdf", "anexo-tecnico.docx", "anuncio.html")]
    results = lib.ingest(files, tenant="t", acl=["*"])
    assert all(r.status == "new" for r in results), results
    yield lib, Principal.parse("t:u")
    lib.close()


def facts_of(lib, principal, name):
    rev, layer = lib.document(principal, name)
    return rev, layer, extract_facts(layer, rev.doc_id)


@pytest.mark.parametrize("name", ["pliego.pdf", "anexo-tecnico.docx", "anuncio.html"])
def test_every_fact_of_a_real_document_verifies(tender, name):
    lib, p = tender
    rev, layer, facts = facts_of(lib, p, name)
    assert facts
    verifier = lib.verifier(p)
    loaded = verifier.layer(rev)
    assert loaded is not None
    for f in facts:
        assert layer.text[f.char_start:f.char_end] == f.value
        assert f.doc_id == rev.doc_id and f.text_layer == layer.layer_id
        c = verifier.verify(citation_for(rev, loaded, f.char_start, f.char_end))
        assert c.quote_verified and c.verify_reason == "ok", (f.value, c.verify_reason)
        assert c.locator == f.locator and c.page == f.page


def test_pliego_facts(tender):
    lib, p = tender
    _, _, facts = facts_of(lib, p, "pliego.pdf")
    turnover = [f for f in facts if f.qualifier == "igual o superior a"]
    assert len(turnover) == 1
    t = turnover[0]
    assert (t.value, t.value_type, t.normalized_value, t.currency) == (
        "450.000 euros", "money", "450000", "EUR")
    assert t.qualifiers[0].kind == "ge" and t.page == 2 and t.bbox is not None
    assert "7. SOLVENCIA" in t.section_path and t.section_path[-1] == "clause 7.1.a"
    deadline = [f for f in facts if f.value_type == "datetime"]
    assert [(f.value, f.normalized_value) for f in deadline] == [
        ("15 de enero de 2027 a las 14:00 horas", "2027-01-15T14:00")]
    months = by_value(facts, "veinticuatro (24) meses")
    assert (months.value_type, months.normalized_value) == ("duration", "P24M")
    guarantee = by_value(facts, "5 por ciento")
    assert (guarantee.value_type, guarantee.normalized_value) == ("percent", "5")
    assert guarantee.section_path[-1] == "clause 6.2"
    sub = by_value(facts, "40 por ciento")
    assert (sub.normalized_value, sub.qualifier) == ("40", "hasta un máximo del")
    budget = by_value(facts, "1.200.000,00 euros")
    assert budget.normalized_value == "1200000" and budget.qualifiers[-1].kind == "excl_tax"
    insurance = by_value(facts, "600.000 euros")
    assert (insurance.qualifier, insurance.negated) == ("no inferior a", True)
    penalty = by_value(facts, "300 euros")
    assert penalty.qualifiers[0].kind == "per_day"
    assert by_value(facts, "treinta (30) días").normalized_value == "P30D"
    # "artículos 156 a 158", "Ley 9/2017", "cláusula 9" are references, not values
    assert not {"156", "158", "9", "108", "2017"} & {f.value for f in facts}


def test_anuncio_cells(tender):
    lib, p = tender
    _, _, facts = facts_of(lib, p, "anuncio.html")
    cells = [f for f in facts if f.origin_type == "table_cell"]
    budget = by_value(cells, "1.200.000,00 €")
    assert (budget.value_type, budget.normalized_value, budget.currency) == (
        "money", "1200000", "EUR")
    assert budget.row_path == ("Presupuesto base (IVA excluido)",)
    deadline = by_value(cells, "15/01/2027 14:00")
    assert deadline.normalized_value == "2027-01-15T14:00"
