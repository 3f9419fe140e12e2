"""`pincite fill` writes audit.xlsx beside audit.json: it reads back equal to audit.json,
its cells are data (never formulas), a resumed fill keeps its bytes, and nothing is
written outside --out."""

from __future__ import annotations

import copy
import io
import json
import os
import zipfile
from decimal import Decimal

import pytest
from openpyxl import load_workbook

import pincite
from pincite.fill.output import audit_workbook
from tests.commands import invoke
from tests.fill.test_fill import DOCS, TARGET, WB, _ingest


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    root = tmp_path_factory.mktemp("auditxlsx")
    lib = pincite.open(root / "store", create=True)
    _ingest(lib)
    lib.close()
    cwd = os.getcwd()
    os.chdir(root)
    try:
        r = invoke("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
                   "--out", str(root / "out"), "--marks", str(WB / "marks.csv"),
                   store=root / "store")
    finally:
        os.chdir(cwd)
    assert r.returncode == 0, r.stderr
    return root


def _rows(ws) -> list[dict]:
    rows = list(ws.iter_rows())
    head = [c.value for c in rows[0]]
    return [dict(zip(head, r, strict=True)) for r in rows[1:]]


def _same(cell, want) -> None:
    """A cell holds a JSON value: a scalar as itself, null as empty, a list or object as
    its JSON text."""
    if isinstance(want, dict | list):
        assert json.loads(cell.value) == want
    else:
        assert cell.value == want, (cell.coordinate, cell.value, want)


def test_audit_xlsx_reads_back_equal_to_audit_json(filled):
    out = filled / "out"
    a = json.loads((out / "audit.json").read_text())
    html = (out / "report.html").read_text()
    assert a["artifacts"]["audit_workbook"] == "audit.xlsx"
    wb = load_workbook(out / "audit.xlsx")
    assert wb.sheetnames == ["summary", "writes", "citations", "unresolved", "rejected", "errors"]
    meta = {r["key"].value: r["value"] for r in _rows(wb["summary"])}
    for k, v in a.items():
        if isinstance(v, dict):
            for kk, vv in v.items():
                _same(meta.pop(f"{k}.{kk}"), vv)
        elif not isinstance(v, list):
            _same(meta.pop(k), v)
    assert meta == {}
    writes = _rows(wb["writes"])
    assert len(writes) == len(a["writes"]) == a["summary"]["written"] > 0
    cites = _rows(wb["citations"])
    assert len(cites) == sum(len(w["citations"]) for w in a["writes"])
    for w, row in zip(a["writes"], writes, strict=True):
        assert set(row) == (set(w) - {"citations"}) | {"report"}
        for k, v in w.items():
            if k == "value":  # a number, exactly the decimal of the JSON
                assert row[k].data_type == "n"
                assert Decimal(repr(row[k].value)) == Decimal(v)
            elif k != "citations":
                _same(row[k], v)
        target = row["report"].hyperlink.target
        assert target.startswith("report.html#cell-")
        assert f"id='{target.split('#')[1]}'" in html  # the write's row of the report
        mine = [c for c in cites if c["cell_id"].value == w["cell_id"]]
        assert [c["n"].value for c in mine] == list(range(1, len(w["citations"]) + 1))
        for c, want in zip(mine, w["citations"], strict=True):
            for k, v in want.items():
                _same(c[k], v)
    for part in ("unresolved", "rejected", "errors"):
        rows = _rows(wb[part])
        assert len(rows) == len(a[part])
        for want, row in zip(a[part], rows, strict=True):
            for k, v in want.items():
                _same(row[k], v)
    unresolved = _rows(wb["unresolved"])
    assert unresolved and all(f"id='{r['report'].hyperlink.target.split('#')[1]}'" in html
                              for r in unresolved)


def test_audit_xlsx_cells_are_never_formulas(filled):
    a = json.loads((filled / "out" / "audit.json").read_text())
    bad = copy.deepcopy(a)
    bad["writes"][0]["citations"][0]["quote"] = "=cmd|' /C calc'!A0"
    bad["writes"][0]["origin"] = "@SUM(1)"
    bad["unresolved"][0]["reason"] = "+1+2"
    bad["errors"].append({"code": "-2+3", "cell_id": "#N/A"})
    data = audit_workbook(bad)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        sheets = [z.read(n) for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
    assert sheets and not any(b"<f>" in s or b"<f " in s for s in sheets)
    wb = load_workbook(io.BytesIO(data))
    assert _rows(wb["citations"])[0]["quote"].value == "=cmd|' /C calc'!A0"
    assert _rows(wb["writes"])[0]["origin"].value == "@SUM(1)"
    assert _rows(wb["unresolved"])[0]["reason"].value == "+1+2"
    assert _rows(wb["errors"])[-1]["cell_id"].value == "#N/A"
    for ws in wb:
        for row in ws.iter_rows():
            for c in row:
                assert c.data_type in ("s", "n", "b"), (ws.title, c.coordinate, c.data_type)


def test_a_resumed_fill_keeps_the_audit_xlsx_and_writes_only_under_out(filled):
    out = filled / "out"
    first = (out / "audit.xlsx").read_bytes()
    assert first == audit_workbook(json.loads((out / "audit.json").read_text()))
    r = invoke("fill", "--target", str(TARGET), *DOCS, "--as", "demo:ana:analysts",
               "--out", str(out), "--marks", str(WB / "marks.csv"), "--json",
               store=filled / "store")
    assert r.returncode == 0, r.stderr
    assert "outputs" in json.loads(r.stdout)["skipped"]
    assert (out / "audit.xlsx").read_bytes() == first
    assert sorted(p.name for p in filled.iterdir()) == ["out", "store"]
