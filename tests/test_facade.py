"""The facade covers every user-level operation: what the CLI and the review page call.

Real stores in tmp_path, the real tender example; the CLI's own tests check its output.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pincite
from pincite.errors import NotFound, UsageError
from tests.corpus import EXAMPLES

TENDER = EXAMPLES / "tender"
DOCS = ["tender/pliego.pdf", "tender/anexo-tecnico.docx", "tender/anuncio.html"]
ANA = pincite.Principal.parse("demo:ana:analysts")
TERMS = b"# Terms\n\n1. Law\n\n1.1 This agreement is governed by the laws of Spain.\n"


def _write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_ingest_publishes_a_generation_so_search_finds_the_document(tmp_path):
    f = _write(tmp_path / "in" / "terms.md", TERMS)
    ana = pincite.Principal.parse("acme:ana:legal")
    with pincite.open(tmp_path / "s", create=True) as lib:
        [r] = lib.ingest([f], tenant="acme", acl=["group:legal"], sandbox=False)
        assert r.status == "new"
        assert [g.state for g in lib.generations()] == ["published"]
        hits = lib.search(ana, "governing laws of Spain", k=3)
        assert [i.doc_id for i in hits.items] == ["terms.md@r1"]
        # the same bytes again: unchanged, and no new generation
        lib.ingest([f], tenant="acme", acl=["group:legal"], sandbox=False)
        assert len(lib.generations()) == 1


def test_ingest_with_publish_false_builds_nothing(tmp_path):
    f = _write(tmp_path / "in" / "terms.md", TERMS)
    with pincite.open(tmp_path / "s", create=True) as lib:
        lib.ingest([f], tenant="acme", acl=["*"], sandbox=False, publish=False)
        assert lib.generations() == []
        assert len(lib.search(pincite.Principal.parse("acme:ana"), "laws of Spain").items) == 0
        assert lib.update_index("hash") is not None  # what publish=True would have done


def test_ingest_without_acl_keeps_existing_acls_and_gives_new_sources_new_acl(tmp_path):
    a = _write(tmp_path / "in" / "a.md", TERMS)
    b = _write(tmp_path / "in" / "b.md", TERMS.replace(b"Spain", b"France"))
    with pincite.open(tmp_path / "s", create=True) as lib:
        lib.ingest([a], tenant="acme", acl=["group:legal"], sandbox=False, publish=False)
        with pytest.raises(UsageError, match="is new: give it an ACL"):
            lib.ingest([b], tenant="acme", acl=None, sandbox=False, publish=False)
        _write(a, TERMS + b"\n1.2 Amended.\n")
        out = lib.ingest([tmp_path / "in"], tenant="acme", acl=None, new_acl=["*"],
                         sandbox=False, publish=False)
        assert [(r.source_id, r.status) for r in out] == [("a.md", "revised"), ("b.md", "new")]
        acls = {s.source_id: s.acl for s in lib.store.sources("acme")}
        assert acls == {"a.md": ("group:legal",), "b.md": ("*",)}


def test_tables_facts_and_index_operations_through_the_facade(tmp_path):
    with pincite.open(tmp_path / "s", create=True) as lib:
        lib.ingest([TENDER / "pliego.pdf"], tenant="demo", acl=["group:analysts"],
                   source_id="tender/pliego.pdf", sandbox=False, embedder="hash")
        tables = lib.tables(ANA, "tender/pliego.pdf")
        assert [t.locator for t in tables] == ["table 1", "table 2"]
        money = lib.facts(ANA, "tender/pliego.pdf", types=["money"])
        assert money and {f.value_type for f in money} == {"money"}
        with pytest.raises(UsageError, match="unknown value type 'bogus'"):
            lib.facts(ANA, "tender/pliego.pdf", types=["bogus"])
        with pytest.raises(NotFound):
            lib.tables(pincite.Principal.parse("other:eve"), "tender/pliego.pdf")
        [g] = lib.generation_summaries()
        assert (g["gen_id"], g["pointer"], g["state"]) == ("g000001", "current", "published")
        assert lib.pointer()[:2] == ("g000001", None)
        assert lib.check_generation("g000001") == []
        built = lib.build_index("hash")
        lib.publish_index(built.gen_id)
        assert lib.pointer()[:2] == (built.gen_id, "g000001")
        assert lib.prune_index(1) == []


@pytest.fixture
def extracted(tmp_path):
    schema = tmp_path / "strict.yaml"
    schema.write_text((TENDER / "schema.yaml").read_text("utf-8")
                      .replace("  tau_show: 0.85", "  tau_show: 0.99")
                      .replace("  tau_flag: 0.6", "  tau_flag: 0.99"), "utf-8")
    lib = pincite.open(tmp_path / "s", create=True)
    for name in ("pliego.pdf", "anexo-tecnico.docx", "anuncio.html"):
        lib.ingest([TENDER / name], tenant="demo", acl=["group:analysts"],
                   source_id=f"tender/{name}", sandbox=False, publish=False)
    result = lib.extract(ANA, schema, DOCS, out=tmp_path / "out")
    yield lib, result, tmp_path / "out"
    lib.close()


def test_extract_writes_records_and_report_and_queues_review_items(extracted):
    lib, result, out = extracted
    written = json.loads((out / "records.json").read_text("utf-8"))
    assert written == pincite.library.records_json(result.records, run=result.run)
    report = (out / "report.html").read_text("utf-8")
    assert report.startswith("<!DOCTYPE html>") and result.run["case_id"] in report
    items = lib.review_queue(ANA).items(state="open")
    assert result.queued == len(items) > 0
    assert {r.field for r in result.records if r.outcome == "review"} <= {
        it["field"] for it in items}


def test_review_page_takes_form_fields_and_json_bodies(extracted):
    from pincite.service.review_page import create_app
    from tests.service.clients import page_client

    lib, _, _ = extracted
    client = page_client(create_app(lib, ANA))
    js = {"Accept": "application/json"}
    first = client.post("/next", headers=js).json()
    # a browser form: the value is JSON text, not_stated a checkbox; the answer is a redirect
    bad = client.post(f"/items/{first['id']}/decide", headers=js,
                      data={"decision": "correct", "value": "{not json"})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "usage"
    form = client.post(f"/items/{first['id']}/decide", follow_redirects=False,
                       data={"decision": "correct", "not_stated": "on"})
    assert form.status_code == 303
    assert form.headers["location"] == f"/items/{first['id']}?message=Saved%3A%20correct"
    decided = client.get(f"/items/{first['id']}.json").json()
    assert (decided["state"], decided["decision"]) == ("decided", "correct")
    # the page's script posts JSON
    second = client.post("/next", headers=js).json()
    ok = client.post(f"/items/{second['id']}/decide", headers=js, json={"decision": "reject"})
    assert ok.status_code == 200 and ok.json()["label"]["decision"] == "reject"
    assert client.get("/calibration.json").json() == lib.calibration(ANA)
    svg = client.get("/reliability.svg")
    assert svg.headers["content-type"] == "image/svg+xml" and svg.content.startswith(b"<?xml")
    assert lib.reliability_diagram(ANA, fmt="png").startswith(b"\x89PNG")
