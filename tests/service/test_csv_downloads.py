"""A CSV the service serves (a fill's `marks.csv`) runs nothing when a person opens it
(issue 25): a row label `=HYPERLINK(…)` copied from a hostile source workbook is escaped
the OWASP way, and the download is an attachment the browser may not sniff."""

from __future__ import annotations

import csv
import io

import httpx

import pincite
from pincite.evals.acceptance.formulas import hostile_labels, label_workbook
from pincite.model.cells import formula_start
from tests.service.serving import running

OCTETS = {"Content-Type": "application/octet-stream"}


def test_marks_csv_is_escaped_and_served_as_an_attachment(tmp_path):
    labels = hostile_labels("cnqformulaxyz")
    source = label_workbook("Figures", [("Revenue", 100.5, 120.25)]
                   + [(lab, 7 + i, 8 + i) for i, lab in enumerate(labels)], {5: "\t", 6: "\r"})
    target = label_workbook("Model", [("Revenue", None, None)], {})
    lib = pincite.open(tmp_path / "store", create=True)
    with running(tmp_path, lib=lib) as svc, httpx.Client(base_url=svc.base, timeout=120) as c:
        h = svc.auth("demo")
        up = c.post("/ingest", params={"source_id": "figures.xlsx", "acl": "group:analysts"},
                    content=source, headers={**h, **OCTETS})
        assert up.status_code == 200, up.text
        r = c.post("/fill", params={"docs": ["figures.xlsx"], "name": "model.xlsx"},
                   content=target, headers={**h, **OCTETS})
        assert r.status_code == 200, r.text
        fill_id = r.json()["out"]
        got = c.get(f"/fills/{fill_id}/files/marks.csv", headers=h)
    lib.close()
    assert got.status_code == 200
    assert got.headers["content-type"].startswith("text/csv")
    assert got.headers["content-disposition"].startswith("attachment")
    assert got.headers["x-content-type-options"] == "nosniff"
    rows = list(csv.reader(io.StringIO(got.text)))
    cells = [cell for row in rows for cell in row]
    assert not [cell for cell in cells if formula_start(cell)], got.text
    for i in range(len(labels)):  # every hostile label is there, escaped
        assert f"cnqformulaxyz{i}" in got.text
    assert any(cell.startswith("'=HYPERLINK(") for cell in cells)
