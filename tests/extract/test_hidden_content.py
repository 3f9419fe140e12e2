"""A field resting on text a reader does not see (display:none, 1-px or white text) is marked
`hidden_text` on its citations, its record, its review item and its report cell, and is at
best FLAG: never SHOWn as fact."""

from __future__ import annotations

import pytest

from pincite.extract.report import render_report
from pincite.extract.run import run_extraction
from pincite.extract.schema import schema_from_dict

SCHEMA = schema_from_dict({
    "name": "fees", "fields": [
        {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]},
         "tau_show": 0.5, "tau_flag": 0.3},
        {"name": "term", "type": "number", "synonyms": {"en": ["payment term"]}},
    ]})

VISIBLE = "<p>2.1 The annual fee is 450,000 EUR.</p>"
HIDDEN_FEES = {
    "display_none": '<p style="display:none">2.1 The annual fee is 450,000 EUR.</p>',
    "span_display_none": '<p>2.1 The annual fee is <span style="display: none">450,000 EUR</span>.</p>',
    "one_px_white": '<p style="font-size:1px;color:#fff">2.1 The annual fee is 450,000 EUR.</p>',
    "white": '<p><span style="color: white">2.1 The annual fee is 450,000 EUR.</span></p>',
    "font_white": '<p><font color="#FFFFFF">2.1 The annual fee is 450,000 EUR.</font></p>',
    "tiny": '<p style="font-size:0.5pt">2.1 The annual fee is 450,000 EUR.</p>',
}


def _html(body: str) -> bytes:
    return (f"<html><body><h1>Terms</h1><p>1.1 This agreement sets the fees.</p>{body}"
            "</body></html>").encode()


def _ingest(lib, sid: str, body: str) -> None:
    res = lib.ingest_bytes(_html(body), source_id=sid, tenant="acme", acl=["group:legal"],
                           name=sid, sandbox=False)
    assert res.status in ("new", "revised"), res


def test_a_visible_fee_is_shown_without_a_mark(lib, ana):
    _ingest(lib, "v.html", VISIBLE)
    fee = next(r for r in run_extraction(lib.store, ana, SCHEMA, ["v.html"], persist=False).records
               if r.field == "fee")
    assert fee.value == {"amount": 450000, "currency": "EUR"}
    assert (fee.outcome, fee.reason, fee.flags) == ("show", "above_tau_show", ())
    assert "flags" not in fee.to_dict() and "flags" not in fee.provenance[0].to_dict()


@pytest.mark.parametrize("kind", sorted(HIDDEN_FEES))
def test_a_hidden_fee_is_flagged_never_shown(lib, ana, kind, tmp_path):
    _ingest(lib, "h.html", HIDDEN_FEES[kind])
    res = run_extraction(lib.store, ana, SCHEMA, ["h.html"])
    fee = next(r for r in res.records if r.field == "fee")
    assert fee.value == {"amount": 450000, "currency": "EUR"}
    assert (fee.outcome, fee.reason) == ("flag", "hidden_text")
    assert fee.flags == ("hidden_text",) and fee.to_dict()["flags"] == ["hidden_text"]
    assert fee.provenance[0].quote_verified and fee.provenance[0].flags == ("hidden_text",)
    assert fee.provenance[0].to_dict()["flags"] == ["hidden_text"]
    # the stored record says so too
    stored = lib.store.field_record("acme", res.run["case_id"], "fee")
    assert stored["flags"] == ["hidden_text"] and stored["outcome"] == "flag"
    assert stored["provenance"][0]["flags"] == ["hidden_text"]
    # and the report cell
    html = render_report({"run": res.run, "records": [r.to_dict() for r in res.records]},
                         res.case, SCHEMA)
    row = html.split('id="f-fee"', 1)[1].split("</tr>", 1)[0]
    assert 'class="hidden-text"' in row and "hidden_text" in row
    other = html.split('id="f-term"', 1)[1].split("</tr>", 1)[0]
    assert 'class="hidden-text"' not in other


def test_a_hidden_passage_is_marked_on_the_review_item(lib, ana):
    # a visible and a hidden figure disagree: the queued item's evidence says which is hidden
    _ingest(lib, "a.html", '<p style="display:none">2.1 The annual fee is 500,000 EUR.</p>')
    _ingest(lib, "b.html", VISIBLE)
    run_extraction(lib.store, ana, SCHEMA, ["a.html", "b.html"])
    [item] = [i for i in lib.store.review_items("acme") if i["field"] == "fee"]
    flags = {e["doc_id"]: e.get("flags", []) for e in item["evidence"]}
    assert flags == {"a.html@r1": ["hidden_text"], "b.html@r1": []}
    cand = {c["doc_id"]: c.get("flags", []) for c in item["candidate"]["provenance"]}
    assert cand == flags
    assert item["candidate"]["flags"] == ["hidden_text"]


def test_a_citation_read_back_cannot_claim_or_drop_the_flag(lib, ana):
    from pincite.cite.verifier import Verifier
    from pincite.model import Citation

    _ingest(lib, "h.html", HIDDEN_FEES["display_none"] + "<p>3.1 Visible words here.</p>")
    v = Verifier(lib.store, ana)
    hidden = v.cite("h.html", "The annual fee is 450,000 EUR")
    shown = v.cite("h.html", "Visible words here")
    assert hidden.flags == ("hidden_text",) and shown.flags == ()
    forged = {**shown.to_dict(), "flags": ["hidden_text"]}
    stripped = {k: x for k, x in hidden.to_dict().items() if k != "flags"}
    assert v.verify(Citation.from_dict(forged)).flags == ()
    assert v.verify(Citation.from_dict(stripped)).flags == ("hidden_text",)


def test_the_review_page_marks_the_hidden_passage(lib, ana):
    pytest.importorskip("fastapi")
    from pincite.service.review_page import create_app
    from tests.service.clients import page_client

    _ingest(lib, "a.html", '<p style="display:none">2.1 The annual fee is 500,000 EUR.</p>')
    _ingest(lib, "b.html", VISIBLE)
    run_extraction(lib.store, ana, SCHEMA, ["a.html", "b.html"])
    [item] = [i for i in lib.store.review_items("acme") if i["field"] == "fee"]
    html = page_client(create_app(lib, ana)).get(f"/items/{item['id']}").text
    sections = html.split('<section class="evidence card"')[1:]
    marked = ['>hidden text</span>' in s for s in sections]
    assert marked == [True, False]
