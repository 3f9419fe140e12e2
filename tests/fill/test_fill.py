"""`pincite fill` on examples/workbook: every written cell cited and verified, ambiguity
stops a write, unresolved cells carry a reason, the target is never written, a document
the principal cannot see is never a source, and what must be refused is refused."""

from __future__ import annotations

import hashlib
import json
import zipfile

import pytest
from openpyxl import load_workbook

import pincite
from pincite.errors import InvalidTarget, NotFound, OutputUnwritable, UsageError
from pincite.fill import target as target_mod
from pincite.fill.program import validate_write
from pincite.library import fill_workbook
from pincite.model import Principal
from tests.commands import invoke
from tests.corpus import EXAMPLES

WB = EXAMPLES / "workbook"
TARGET = WB / "operating-model.xlsx"
DOCS = ["workbook/annual-report.pdf", "workbook/key-figures.xlsx"]
ANA = Principal.parse("demo:ana:analysts")

EXPECTED_WRITES = {
    "B4": "1102.3", "C4": "1248.6",        # Revenue ← "Net sales"
    "B5": "-731.9", "C5": "-812.4",        # Cost of sales, "(812.4)"
    "B6": "370.4", "C6": "436.2",          # Gross profit
    "B7": "171.2", "C7": "198.7",          # EBITDA, not "Adjusted EBITDA"
    "B8": "118.6", "C8": "142.9",          # Operating profit (EBIT)
    "B9": "80.4",                          # Net income 2023: both sources agree
    "B11": "118.9", "C11": "131.2",        # Capital expenditure ← "Inversiones…" (thousands)
    "B12": "1874.2", "C12": "2015.8",      # Total assets, "31 Dec 2024"
    "B13": "187.9", "C13": "221.3",        # Cash ← "Cash and cash equivalents"
    "B14": "455", "C14": "402.6",          # Net debt
}
EXPECTED_UNRESOLVED = {
    "C9": "ambiguous",      # Net income 2024: 96.0 (report) against 95,480 thousand (key figures)
    "B15": "no_candidate",  # Dividends paid: in no source
    "C15": "no_candidate",
}


def _ingest(lib, tenant: str = "demo", acl: tuple[str, ...] = ("group:analysts",)) -> None:
    for name in ("annual-report.pdf", "key-figures.xlsx"):
        lib.ingest_bytes((WB / name).read_bytes(), source_id=f"workbook/{name}", tenant=tenant,
                         acl=list(acl), name=name, sandbox=False)


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    root = tmp_path_factory.mktemp("fill")
    lib = pincite.open(root / "store", create=True)
    _ingest(lib)
    before = hashlib.sha256(TARGET.read_bytes()).hexdigest()
    res = fill_workbook(lib, ANA, TARGET, DOCS, out=root / "out", marks=WB / "marks.csv",
                   trace=root / "out" / "trace.jsonl")
    assert hashlib.sha256(TARGET.read_bytes()).hexdigest() == before  # never written
    yield lib, res, root
    lib.close()


def test_every_write_is_the_expected_value_cited_and_verified(filled):
    _lib, res, _root = filled
    a = res.audit
    got = {w["cell_id"].split("!")[1]: w["value"] for w in a["writes"]}
    assert got == EXPECTED_WRITES
    for w in a["writes"]:
        assert w["citations"] and all(c["quote_verified"] for c in w["citations"]), w
        assert w["source_fact_ids"] == [c["fact_id"] for c in w["citations"]]
    assert a["summary"]["verified"] == a["summary"]["written"] == len(EXPECTED_WRITES)
    capex = next(w for w in a["writes"] if w["cell_id"].endswith("!C11"))
    assert capex["conversion"] == {"kind": "rescale", "from": "thousands", "to": "millions",
                                   "factor": "1000000"}
    assert capex["citations"][0]["quote"] == "131200"


def test_unresolved_cells_keep_reason_and_candidates(filled):
    _lib, res, _root = filled
    got = {u["cell_id"].split("!")[1]: u["reason"] for u in res.audit["unresolved"]}
    assert got == EXPECTED_UNRESOLVED
    amb = next(u for u in res.audit["unresolved"] if u["reason"] == "ambiguous")
    assert sorted(c["value"] for c in amb["candidates"]) == ["95.48", "96"]


def test_the_filled_copy_holds_values_comments_and_highlights(filled):
    _lib, res, root = filled
    wb = load_workbook(root / "out" / "operating-model.filled.xlsx")
    ws = wb["Operating Model"]
    assert ws["C4"].value == 1248.6
    text = ws["C4"].comment.text
    assert "source: workbook/annual-report.pdf@r1" in text and "quote: 1,248.6" in text
    assert "page: 1" in text and "locator: table 1 / Net sales / 2024" in text
    assert ws["B12"].comment.text.count("page: 2") == 1
    assert ws["C9"].value is None and "unresolved: ambiguous" in ws["C9"].comment.text
    assert ws["C9"].fill.fgColor.rgb == "FFFFE699"
    assert ws["B10"].value == "=B6/B4"  # the formula row is never overwritten


def test_coverage_honours_marks_and_reports_the_rest(filled):
    _lib, res, root = filled
    cov = json.loads((root / "out" / "coverage.json").read_text())
    states = {o["obligation_id"]: o["state"] for o in cov["obligations"]}
    assert states["obl_annual-report-pdf_t1_r5_adjusted-ebitda"] == "schema_not_representable"
    assert [e["obligation_id"] for e in res.audit["errors"]] == [
        "obl_key-figures-xlsx_t1_r3_resultado-del-ejercicio"]
    assert res.audit["errors"][0]["code"] == "unresolved_source_coverage"
    assert res.audit["summary"]["unresolved_source_coverage"] == 1


def test_artifacts_and_spans(filled):
    _lib, res, root = filled
    out = root / "out"
    for name in ("target.json", "facts.json", "table_retrieval.json", "table_alignment.json",
                 "candidates.json", "fill_program.json", "coverage.json", "marks.csv",
                 "audit.json", "report.html"):
        assert (out / name).is_file(), name
    route = json.loads((out / "table_retrieval.json").read_text())["routes"][0]
    assert set(route["tables"][0]["channel_ranks"]) == {"filters", "fts", "vectors"}
    spans = [json.loads(x) for x in (out / "trace.jsonl").read_text().splitlines()]
    by = {}
    for s in spans:
        by.setdefault(s["name"], []).append(s["attributes"])
    need = {"solve.exec": ["document.count", "target.cells", "output.writes", "output.unresolved"],
            "facts.build": ["source.pages", "source.tables", "facts.total", "facts.table_cell"],
            "retrieval.tables": ["target.table", "recall.filters", "recall.fts", "recall.vector",
                                 "fused.tables", "reranked.tables"],
            "alignment.table": ["target.table", "source.table", "row.mapped", "column.mapped",
                                "ambiguous.axes"],
            "candidate.rank": ["target.cell", "winner.fact_id", "winner.score", "winner.margin"],
            "coverage.validate": ["obligations.high_signal", "obligations.unresolved"]}
    for name, keys in need.items():
        assert name in by, name
        assert any(all(k in attrs for k in keys) for attrs in by[name]), (name, by[name][0])
    root_attrs = by["solve.exec"][0]
    assert root_attrs["artifact.fill_program"] == "fill_program.json"
    assert root_attrs["output.writes"] == len(EXPECTED_WRITES)
    assert all(a["artifact.path"] for n in need if n != "solve.exec" for a in by[n])


def test_validate_write_is_the_seed_gate(filled):
    _lib, res, _root = filled
    facts = {f["fact_id"]: f for f in res.artifacts["facts"]["facts"]}
    w = dict(res.audit["writes"][0])
    assert validate_write(w, facts) == {"ok": True}
    assert validate_write({**w, "source_fact_ids": []}, facts)["error"] == "missing_source_fact"
    assert validate_write({**w, "source_fact_ids": ["fact_nope"]}, facts)["error"] == "unknown_source_fact"
    assert validate_write({**w, "value": "1102.4"}, facts)["error"] == "value_not_supported_by_citation"
    for bad in ("nan", "inf", "-Infinity", "1e999999999"):
        assert validate_write({**w, "value": bad}, facts)["error"] in (
            "non_finite_value", "value_not_supported_by_citation")
    # a derived value names its formula and cites every input
    gp = next(x for x in res.audit["writes"] if x["cell_id"].endswith("!C6"))
    rev = next(x for x in res.audit["writes"] if x["cell_id"].endswith("!C4"))
    cos = next(x for x in res.audit["writes"] if x["cell_id"].endswith("!C5"))
    derived = {"cell_id": "x", "value": "436.2", "formula": "sum", "conversion": gp["conversion"],
               "source_fact_ids": rev["source_fact_ids"] + cos["source_fact_ids"]}
    assert validate_write(derived, facts) == {"ok": True}
    assert validate_write({**derived, "formula": "difference"}, facts)["error"] == \
        "value_not_supported_by_citation"


def test_a_document_the_principal_cannot_see_is_never_a_source(tmp_path):
    lib = pincite.open(tmp_path / "s", create=True)
    _ingest(lib)
    # a board-only deck states another revenue; analysts must never get it
    secret = load_workbook(WB / "key-figures.xlsx")
    secret.active["B4"] = 9_999_900
    secret.save(tmp_path / "board.xlsx")
    lib.ingest_bytes((tmp_path / "board.xlsx").read_bytes(), source_id="board.xlsx",
                     tenant="demo", acl=["group:board"], name="board.xlsx", sandbox=False)
    with pytest.raises(NotFound):
        fill_workbook(lib, ANA, TARGET, [*DOCS, "board.xlsx"], out=tmp_path / "o1")
    with pytest.raises(NotFound):  # another tenant sees nothing at all
        fill_workbook(lib, Principal.parse("other:eve"), TARGET, DOCS, out=tmp_path / "o2")
    res = fill_workbook(lib, Principal.parse("demo:bo:analysts,board"), TARGET, [*DOCS, "board.xlsx"],
                   out=tmp_path / "o3")
    docs = {d["doc_id"] for d in res.artifacts["facts"]["documents"]}
    assert "board.xlsx@r1" in docs
    c4 = {u["cell_id"]: u for u in res.audit["unresolved"]}.get("Operating Model!C4")
    assert c4 is not None and c4["reason"] == "ambiguous"  # 9,999.9 against 1,248.6
    lib.close()


def test_refusals(tmp_path, filled, monkeypatch):
    lib, _res, _root = filled
    csv = tmp_path / "model.csv"
    csv.write_text("a,b\n")
    with pytest.raises(InvalidTarget, match="not an .xlsx"):
        fill_workbook(lib, ANA, csv, DOCS, out=tmp_path / "o")
    fake = tmp_path / "fake.xlsx"
    with zipfile.ZipFile(fake, "w") as z:
        z.writestr("hello.txt", "not a workbook")
    with pytest.raises(InvalidTarget, match="no xl/workbook.xml"):
        fill_workbook(lib, ANA, fake, DOCS, out=tmp_path / "o")
    junk = tmp_path / "junk.xlsx"
    junk.write_bytes(b"\x00" * 100)
    with pytest.raises(InvalidTarget, match="not a ZIP"):
        fill_workbook(lib, ANA, junk, DOCS, out=tmp_path / "o")
    with pytest.raises(InvalidTarget, match="cannot be read"):
        fill_workbook(lib, ANA, tmp_path / "missing.xlsx", DOCS, out=tmp_path / "o")
    big = tmp_path / "big.xlsx"
    big.write_bytes(b"PK" + b"\x00" * (target_mod.MAX_TARGET_BYTES + 1))
    with pytest.raises(InvalidTarget, match="more than the limit"):
        fill_workbook(lib, ANA, big, DOCS, out=tmp_path / "o")
    monkeypatch.setattr(target_mod, "MAX_UNPACKED_BYTES", 1 << 20)  # the limit, made small
    bomb = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/workbook.xml", "<workbook/>")
        z.writestr("xl/worksheets/sheet1.xml", b"\0" * (target_mod.MAX_UNPACKED_BYTES + 1))
    with pytest.raises(InvalidTarget, match="once unpacked"):
        fill_workbook(lib, ANA, bomb, DOCS, out=tmp_path / "o")
    monkeypatch.setattr(target_mod, "MAX_SCAN_CELLS", 20)  # the model has 15 × 3 cells
    with pytest.raises(InvalidTarget, match="operating-model.xlsx: more than 20 cells to read"):
        fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o")
    monkeypatch.undo()
    copy = tmp_path / "model.xlsx"
    copy.write_bytes(TARGET.read_bytes())
    with pytest.raises(OutputUnwritable, match="holds the target"):
        fill_workbook(lib, ANA, copy, DOCS, out=tmp_path)  # the filled copy would sit beside the target
    (tmp_path / "afile").write_text("x")
    with pytest.raises(OutputUnwritable, match="is a file"):
        fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "afile")
    marks = tmp_path / "marks.csv"
    marks.write_text("obligation_id,status,target_table,reason\nobl_x,ignored,t,r\n")
    with pytest.raises(UsageError, match="not one of"):
        fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", marks=marks)


def test_cli_fill_prints_the_summary_and_json(tmp_path):
    store = tmp_path / "s"
    lib = pincite.open(store, create=True)
    _ingest(lib)
    lib.close()
    r = invoke("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
               "--out", str(tmp_path / "o"), "--marks", str(WB / "marks.csv"), store=store)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == (
        "fill operating-model.xlsx: 22 cells, 19 written (19 verified), 3 unresolved, "
        "0 rejected; coverage: 13 high-signal obligations, 1 unresolved")
    r = invoke("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
               "--out", str(tmp_path / "o"), "--marks", str(WB / "marks.csv"), "--json",
               store=store)
    doc = json.loads(r.stdout)
    assert doc["skipped"] == ["compile", "facts", "route", "rank", "program", "coverage",
                              "outputs"] and doc["ran"] == []
    r = invoke("fill", "--target", str(tmp_path / "nope.ods"), *DOCS, "--as",
               "demo:ana:analysts", store=store)
    assert r.returncode == 2 and "not an .xlsx" in r.stderr


def test_the_filled_copy_is_reproducible(tmp_path, monkeypatch):
    """The same target and program give the same bytes at any save time: every ZIP entry is
    dated 1980-01-01 and the properties keep the target's `modified`."""
    import io
    import time

    from openpyxl import Workbook

    from pincite.fill.output import filled_workbook

    wb = Workbook()
    wb.active.title = "Model"
    wb.active["A1"], wb.active["B1"] = "Revenue", None
    buf = io.BytesIO()
    wb.save(buf)
    stated = load_workbook(io.BytesIO(buf.getvalue())).properties.modified
    program = {"writes": [{"cell_id": "Model!B1", "value": "1250"}], "unresolved": []}
    copies = []
    for now in (1_000_000_000.0, 1_700_000_000.0):
        monkeypatch.setattr(time, "time", lambda now=now: now)
        copies.append(filled_workbook(buf.getvalue(), program, {}))
    assert copies[0] == copies[1]
    with zipfile.ZipFile(io.BytesIO(copies[0])) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert f'W3CDTF">{stated:%Y-%m-%dT%H:%M:%SZ}</dcterms:modified>' in core
    assert load_workbook(io.BytesIO(copies[0]))["Model"]["B1"].value == 1250
