"""`extract --out` writes report.docx beside report.html: the dictamen for Word, read back
with python-docx — one row per field equal to records.json and worded as report.html, on a
landscape page with fixed column widths where Evidence is the widest, the same bytes for
the same records, control characters replaced, and nothing written outside --out (a link
planted at report.docx is replaced, not written through)."""

from __future__ import annotations

import copy
import html
import io
import json
import os
import re
import zipfile

import docx
import pytest
from docx.enum.section import WD_ORIENT
from docx.oxml.ns import qn
from docx.shared import Cm

import pincite
from pincite.extract.wordreport import report_docx
from pincite.model import Principal
from pincite.vocab import Outcome
from tests.commands import invoke
from tests.corpus import files_under

ANA = "acme:ana:legal"
OUTSIDE = "outside.docx"
DOC = b"""# Terms

1. FEES

1.1 The annual fee is 450,000 EUR.

2. TERM

2.1 The payment term is 30 days.
"""
# thresholds set so that one field of each outcome comes out of this document
SCHEMA = {"name": "fees", "fields": [
    {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]},
     "tau_show": 0.999, "tau_flag": 0.1},
    {"name": "term", "type": "number", "synonyms": {"en": ["payment term"]},
     "tau_show": 0.999, "tau_flag": 0.998},
    {"name": "deposit", "type": "money", "synonyms": {"en": ["security deposit"]}},
    {"name": "fee_shown", "type": "money", "hard": True, "synonyms": {"en": ["annual fee"]},
     "tau_show": 0.5, "tau_flag": 0.1},
]}
NAMES = ["records.csv", "records.json", "records.xlsx", "report.docx", "report.html"]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    root = tmp_path_factory.mktemp("docx")
    lib = pincite.open(root / "store", create=True)
    lib.ingest_bytes(DOC, source_id="fees.md", tenant="acme", acl=["group:legal"],
                     name="fees.md", sandbox=False)
    lib.close()
    (root / "schema.json").write_text(json.dumps(SCHEMA))
    out = root / "out"
    out.mkdir()
    (root / OUTSIDE).write_text("keep")
    os.symlink(root / OUTSIDE, out / "report.docx")  # planted: must not be written through
    before = files_under(root, root / "store")
    r = invoke("extract", "--schema", str(root / "schema.json"), "fees.md", "--as", ANA,
               "--out", str(out), store=root / "store")
    assert r.returncode == 0, r.stderr
    return root, out, before, files_under(root, root / "store")


def _html_cell(page: str, field: str, n: int) -> str:
    """Return the text of the `n`th cell (0-based) of a field's row of report.html."""
    row = page.split(f'id="f-{field}"', 1)[1].split("</tr>", 1)[0]
    cell = row.split("<td", n + 1)[n + 1].split("</td>", 1)[0]
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell.split(">", 1)[1])))


def _badge(page: str, field: str) -> str:
    """Return the outcome's word on a field's badge in report.html."""
    row = page.split(f'id="f-{field}"', 1)[1].split("</tr>", 1)[0]
    return html.unescape(re.search(r'<span class="badge [^"]*"[^>]*>([^<]*)</span>', row)[1])


def _paras(cell) -> list[str]:
    return [p.text for p in cell.paragraphs]


def test_one_row_per_field_equal_to_records_json(run):
    _root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    page = (out / "report.html").read_text()
    table = docx.Document(str(out / "report.docx")).tables[0]
    rows = table.rows
    assert [c.text for c in rows[0].cells] == ["Field", "Outcome", "Value", "Evidence", "Where"]
    assert len(rows) == len(doc["records"]) + 1
    assert {r["outcome"] for r in doc["records"]} == set(Outcome)  # every outcome's word
    for rec, row in zip(doc["records"], rows[1:], strict=True):
        field, outcome, value, evidence, where = (_paras(c) for c in row.cells)
        assert field[0] == rec["field"]
        assert ("disqualifying" in field) is bool(rec.get("hard"))
        assert outcome[0] == _badge(page, rec["field"]) and rec["reason"] in outcome[1]
        shown = _html_cell(page, rec["field"], 2).strip()  # the value as report.html shows it
        assert shown.startswith(value[0]) and value[0], (rec["field"], value, shown)
        if rec["outcome"] == Outcome.REVIEW:
            assert value[1] == "candidate, not shown as fact"
        quotes = [t for t in evidence if t.startswith("\u201c")]
        assert quotes == [f"\u201c{p['quote']}\u201d" for p in rec["provenance"]]
        for p in rec["provenance"]:
            assert ("verified" if p["quote_verified"] else "not verified") in evidence
            assert p["doc_id"] in where and "@r" in p["doc_id"] and p["locator"] in where
    flagged = [r for r in doc["records"] if r["outcome"] == Outcome.FLAG]
    assert flagged and all(_paras(rows[1 + doc["records"].index(r)].cells[1])[0] == "flagged"
                           for r in flagged)


def test_the_value_is_bold_within_its_quote(run):
    _root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    table = docx.Document(str(out / "report.docx")).tables[0]
    checked = 0
    for rec, row in zip(doc["records"], table.rows[1:], strict=True):
        vs = rec.get("value_span")
        if not vs:
            continue
        p = rec["provenance"][0]
        want = p["quote"][vs["char_start"] - p["char_start"]:vs["char_end"] - p["char_start"]]
        bold = [r.text for r in row.cells[3].paragraphs[0].runs if r.bold]
        assert bold == [want], rec["field"]
        checked += 1
    assert checked >= 2


def test_landscape_and_the_evidence_column_is_the_widest(run):
    _root, out, _b, _a = run
    d = docx.Document(str(out / "report.docx"))
    sec = d.sections[0]
    assert sec.orientation == WD_ORIENT.LANDSCAPE and sec.page_width > sec.page_height
    table = d.tables[0]
    assert table.autofit is False  # fixed layout: Word keeps the widths
    assert table._tbl.tblPr.find(qn("w:tblLayout")).get(qn("w:type")) == "fixed"
    grid = [c.width for c in table.columns]
    assert grid[3] == max(grid) and grid[3] >= Cm(10)
    assert sum(grid) <= sec.page_width - sec.left_margin - sec.right_margin
    for row in table.rows:
        widths = [c.width for c in row.cells]
        assert widths == grid  # set on every cell, not on the columns alone
        assert widths[3] >= Cm(10) and all(w < widths[3] for i, w in enumerate(widths) if i != 3)


def test_same_records_same_bytes(run):
    root, out, _b, _a = run
    doc = json.loads((out / "records.json").read_text())
    lib = pincite.open(root / "store")
    try:
        acquired = {d["doc_id"]: lib.document(Principal.parse(ANA), d["doc_id"])[0].acquired_at
                    for d in doc["run"]["docs"]}
    finally:
        lib.close()
    data = report_docx(doc, acquired)
    assert (out / "report.docx").read_bytes() == data == report_docx(copy.deepcopy(doc), acquired)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        assert {i.date_time for i in z.infolist()} == {(1980, 1, 1, 0, 0, 0)}
    core = docx.Document(io.BytesIO(data)).core_properties
    assert core.author == core.last_modified_by == "pincite"
    assert core.created.year == core.modified.year == 1980
    text = "\n".join(p.text for p in docx.Document(io.BytesIO(data)).paragraphs)
    for d in doc["run"]["docs"]:  # each document with its sha256 and date
        assert f"{d['doc_id']} · sha256 {d['doc_sha256']} · acquired {acquired[d['doc_id']]}" \
            in text
    assert report_docx(doc) != data  # the dates are part of the input, not the clock


def test_control_characters_do_not_break_it(run):
    """XML cannot hold most control characters (nor U+FFFF, nor a lone surrogate): each
    becomes U+FFFD and the document still opens."""
    _root, out, _b, _a = run
    doc = copy.deepcopy(json.loads((out / "records.json").read_text()))
    doc["records"][0]["provenance"][0]["quote"] = "bell\x07 and nul\x00"
    doc["records"][0]["value_span"] = None
    doc["records"][1]["value"] = "tab\tkept, vt\x0b, \uffff and \ud800"
    doc["records"][1]["outcome"] = Outcome.SHOW.value
    doc["run"]["case_id"] = "case\x1b"
    d = docx.Document(io.BytesIO(report_docx(doc)))
    rows = d.tables[0].rows
    assert rows[1].cells[3].paragraphs[0].text == "\u201cbell\ufffd and nul\ufffd\u201d"
    assert rows[2].cells[2].paragraphs[0].text == "tab\tkept, vt\ufffd, \ufffd and \ufffd"
    assert any("case\ufffd" in p.text for p in d.paragraphs)


def test_nothing_is_written_outside_out(run):
    root, out, before, after = run
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    assert changed and all(k.startswith("out/") for k in changed), changed
    assert (root / OUTSIDE).read_text() == "keep"  # the planted link was not written through
    assert not (out / "report.docx").is_symlink()
    assert sorted(p.name for p in out.iterdir()) == NAMES  # no temporary left


def test_a_folder_at_report_docx_is_refused_and_nothing_is_written(run, tmp_path):
    root, _out, _b, _a = run
    out = tmp_path / "out"
    (out / "report.docx").mkdir(parents=True)
    r = invoke("extract", "--schema", str(root / "schema.json"), "fees.md", "--as", ANA,
               "--out", str(out), store=root / "store")
    assert r.returncode != 0 and "report.docx: it is a folder" in r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["report.docx"]
