"""The review queue: order, claims and leases, decisions closing the loop, stale items on
a new revision, the sample-audit stream, rubber stamps, principals — on real SQLite
stores and the real tender example."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

import pincite
from pincite.errors import InvalidCorrection, NotFound, QuoteNotFound, UsageError
from pincite.model import Principal
from pincite.review.queue import ReviewConflict, ReviewQueue, sample_audit_selector
from pincite.store import open_store
from tests.commands import invoke
from tests.corpus import EXAMPLES, tender_library
from tests.review.queues import ANA, Clock, extract_tender, synthetic_queue, valid_value

BOB = Principal.parse("demo:bob:analysts")
EVE = Principal.parse("demo:eve:outsiders")


# ---- order, claims, leases ------------------------------------------------------------------------


def test_claims_follow_queue_order_and_leases_expire(tmp_path, store_url):
    store = open_store(store_url)
    due = {0: None, 1: "2026-05-01", 2: "2026-04-01", 3: None, 4: "2026-04-01", 5: "2026-06-01"}
    ids = synthetic_queue(store, 6, hard=lambda i: i in (3, 5), due=lambda i: due[i])
    clock = Clock()
    r1 = Principal.parse("t:r1:rev")
    r2 = Principal.parse("t:r2:rev")
    q1 = ReviewQueue(store, r1, clock=clock)
    q2 = ReviewQueue(store, r2, clock=clock)
    # hard first (nearest deadline first among them, no deadline last), then the nearest
    # deadline, then the oldest (ties: insertion order)
    expected = [ids[5], ids[3], ids[2], ids[4], ids[1], ids[0]]
    first = q1.next(lease=60)
    assert first is not None and first["id"] == expected[0]
    assert first["claimed_by"] == "r1" and first["lease_until"] > first["claimed_at"]
    # the same reviewer gets their own live claim back; another reviewer the next item
    assert q1.next(lease=60)["id"] == expected[0]
    assert q2.next(lease=60)["id"] == expected[1]
    # r1's lease runs out: r2 may not take it while r2 still holds its own …
    clock.advance(61)
    again = q2.next(lease=60)
    assert again["id"] == expected[0]  # r2's lease also ran out; hard+due order puts ids[5] first
    with pytest.raises(ReviewConflict, match="do not hold"):
        q1.decide(expected[0], "accept")
    q2.decide(expected[0], "accept")
    with pytest.raises(ReviewConflict, match="already decided"):
        q2.decide(expected[0], "reject")
    claims = store.review_claims("t", expected[0])
    assert [c["ended"] for c in claims] == ["expired", "decided"]
    # a claim whose lease ran out cannot be decided even if nobody took it
    nxt = q1.next(lease=5)
    clock.advance(6)
    with pytest.raises(ReviewConflict, match="lease on review item"):
        q1.decide(nxt["id"], "accept")
    # release hands it back
    got = q1.next(lease=30)
    q1.release(got["id"])
    assert q2.next(lease=30)["id"] == got["id"]
    order = []
    q3 = ReviewQueue(store, Principal.parse("t:r3:rev"), clock=clock)
    while (it := q3.next(lease=30)) is not None:
        order.append(it["id"])
        q3.decide(it["id"], "reject")
    assert order == [i for i in expected if i not in (expected[0], got["id"])]
    assert q3.next() is None
    store.close()


def test_decisions_close_the_loop_on_the_tender(tmp_path, store_url):
    lib = tender_library(store_url)
    res = extract_tender(lib, tmp_path)
    assert res.queued >= 3
    clock = Clock(datetime.now(UTC))
    q = ReviewQueue(lib.store, ANA, clock=clock)
    items = q.items(state="open")
    assert items and all(it["due_at"] == "2027-01-15T14:00" for it in items)
    assert items[0]["hard"]  # hard conditions first
    # accept
    it = q.next()
    clock.advance(42)
    out = q.decide(it["id"], "accept")
    rec = lib.store.field_record("demo", it["case_id"], it["field"])
    assert rec["outcome"] == "show" and rec["reason"] == "reviewer_accepted"
    assert rec["review"]["decision"] == "accept" and rec["review"]["reviewer"] == "ana"
    assert rec["review"]["candidate"]["outcome"] == "review"
    assert out["label"]["accepted"] and out["label"]["extractor_version"] == it["extractor_version"]
    assert out["label"]["seconds"] == pytest.approx(42.0)
    # correct: needs a located quote or an explicit not-stated
    it = q.next()
    with pytest.raises(UsageError):
        q.decide(it["id"], "correct", value={"x": 1})
    with pytest.raises(QuoteNotFound):
        q.decide(it["id"], "correct", value={"x": 1}, quote="words that appear nowhere at all")
    ev = it["evidence"][0]
    quote = ev["quote"]  # it states the value (a correction's quote must: `extract.stated`)
    with pytest.raises(InvalidCorrection):  # not the shape of the field's type
        q.decide(it["id"], "correct", value={"corrected": True}, quote=quote)
    good = valid_value(it)
    out = q.decide(it["id"], "correct", value=good, quote=quote)
    rec = lib.store.field_record("demo", it["case_id"], it["field"])
    assert rec["value"] == good and rec["reason"] == "reviewer_corrected"
    (prov,) = rec["provenance"]
    assert prov["author"] == "reviewer:ana" and prov["quote_verified"] is True
    assert prov["quote"] == quote and prov["doc_sha256"] in {d.rev.sha256 for d in res.case.docs}
    assert not out["label"]["accepted"] and out["label"]["corrected"] == good
    # the corrected citation resolves through the verifier
    checked = lib.verify(ANA, [pincite.model.Citation.from_dict(prov)])
    assert checked[0].quote_verified
    # correct as "not in the document", and abstain, both render as not stated
    it = q.next()
    q.decide(it["id"], "correct", not_stated=True)
    rec = lib.store.field_record("demo", it["case_id"], it["field"])
    assert (rec["value"], rec["status"], rec["outcome"]) == (None, "absent", "abstain")
    it = q.next()
    out = q.decide(it["id"], "abstain")
    assert out["label"]["not_stated"]
    assert lib.store.field_record("demo", it["case_id"], it["field"])["outcome"] == "abstain"
    labels = lib.store.review_labels("demo")
    assert len(labels) == 4 and {lb["extractor_version"] for lb in labels} == {"1.0/rules-1"}
    lib.close()


def test_new_revision_marks_open_items_stale_and_the_next_run_requeues(tmp_path, store_url):
    lib = tender_library(store_url)
    extract_tender(lib, tmp_path)
    q = ReviewQueue(lib.store, ANA)
    claimed = q.next()
    on_pliego = [it for it in q.items(state="open") if any(
        e["doc_id"].startswith("tender/pliego.pdf@") for e in it["evidence"])]
    assert on_pliego
    # the corrigendum: new bytes under the same source id
    lib.ingest([EXAMPLES / "tender" / "corrigendum" / "pliego.pdf"], tenant="demo", acl=None,
               source_id="tender/pliego.pdf", sandbox=False)
    stale = {it["id"] for it in q.items(state="stale")}
    assert {it["id"] for it in on_pliego} <= stale
    if claimed["id"] in stale:
        with pytest.raises(ReviewConflict, match="stale"):
            q.decide(claimed["id"], "accept")
    new_sha = lib.store.latest_revision("demo", "tender/pliego.pdf").sha256
    res = extract_tender(lib, tmp_path)
    fresh = [it for it in q.items(state="open") if it["doc_sha256"] == new_sha]
    assert fresh and res.queued >= len(fresh)
    # a re-run on the same bytes does not double the queue
    assert extract_tender(lib, tmp_path).queued == 0
    lib.close()


def test_sample_audit_queues_a_stable_fraction_of_shown_records(tmp_path, store_url):
    lib = tender_library(store_url)
    q = ReviewQueue(lib.store, ANA)
    assert sample_audit_selector(lib.store, "demo") is None  # off by default
    admin = ReviewQueue(lib.store, Principal.parse("demo:lead:review.admin"))
    admin.set_settings(audit_fraction=1.0)
    res = extract_tender(lib, tmp_path, tau=0.5, audit=sample_audit_selector(lib.store, "demo"))
    shown = [r for r in res.records if r.outcome == "show"]
    audit = q.items(reason="sample_audit")
    assert shown and len(audit) == len(shown)
    assert {it["field"] for it in audit} == {r.field for r in shown}
    again = extract_tender(lib, tmp_path, tau=0.5, audit=sample_audit_selector(lib.store, "demo"))
    assert again.queued == 0
    with pytest.raises(UsageError):
        admin.set_settings(audit_fraction=1.5)
    lib.close()


def test_rubber_stamps_open_an_incident_that_holds_labels_out_of_calibration(tmp_path, store_url):
    store = open_store(store_url)
    synthetic_queue(store, 12, confidence=lambda i: 0.97)
    clock = Clock()
    lead = ReviewQueue(store, Principal.parse("t:lead:rev,review.admin"), clock=clock)
    lead.set_settings(stamp_run=3, stamp_seconds=10)
    q = ReviewQueue(store, Principal.parse("t:fast:rev"), clock=clock)

    def decide(seconds: float, decision: str = "accept") -> dict[str, Any]:
        it = q.next()
        clock.advance(seconds)
        return q.decide(it["id"], decision)

    assert decide(4)["incident"] is None
    assert decide(30)["incident"] is None          # a slow accept breaks the run
    assert decide(3)["incident"] is None
    assert decide(2, "reject")["incident"] is None  # so does a reject
    assert decide(2)["incident"] is None
    assert decide(2)["incident"] is None
    inc = decide(1)["incident"]                     # three fast accepts in a row
    assert inc is not None
    assert decide(1)["incident"] == inc             # the run goes on: same incident
    (incident,) = q.incidents()
    assert incident["labels"] == 4 and incident["reviewer"] == "fast" and not incident["cleared_at"]
    assert len(store.review_labels("t")) == 8
    assert len(store.review_labels("t", for_calibration=True)) == 4
    lead.clear_incident(inc)
    assert len(store.review_labels("t", for_calibration=True)) == 8
    with pytest.raises(NotFound):
        lead.clear_incident(inc)
    store.close()


def test_reviewers_see_only_what_their_acl_allows_and_revoked_decisions_are_refused(tmp_path, store_url):
    store = open_store(store_url)
    synthetic_queue(store, 3, source_id="open.md", acl="group:rev")
    hidden = synthetic_queue(store, 2, source_id="secret.md", acl="group:legal")
    rev = Principal.parse("t:ana:rev")
    q = ReviewQueue(store, rev)
    seen = q.items()
    assert len(seen) == 3 and {it["source_id"] for it in seen} == {"open.md"}
    with pytest.raises(NotFound):
        q.item(hidden[0])
    claimed = [q.next()]
    assert claimed[0]["source_id"] == "open.md"
    # another tenant sees nothing
    assert ReviewQueue(store, Principal.parse("other:ana:rev")).items() == []
    # revoke: the source's ACL no longer names the reviewer's group
    store.set_acl("t", "open.md", ("group:legal",))
    with pytest.raises(NotFound):
        q.decide(claimed[0]["id"], "accept")
    assert q.next() is None and q.items() == []
    legal = ReviewQueue(store, Principal.parse("t:lee:legal"))
    assert len(legal.items()) == 5
    store.close()


def test_cli_review_list_next_decide(tmp_path, store_url):
    store = store_url
    st = open_store(store)
    synthetic_queue(st, 2)
    st.close()
    who = ["--as", "t:ana:rev"]
    listed = invoke("review", "list", "--json", *who, store=store)
    assert listed.returncode == 0, listed.stderr
    assert len(json.loads(listed.stdout)) == 2
    got = invoke("review", "next", "--lease", "600", *who, store=store)
    item = json.loads(got.stdout)
    assert item["id"] and item["claimed_by"] == "ana"
    bad = invoke("review", "decide", str(item["id"]), "--decision", "correct", "--value", "7",
                  *who, store=store)
    assert bad.returncode == 2 and "--quote" in bad.stderr
    ok = invoke("review", "decide", str(item["id"]), "--decision", "correct", "--value", "30",
                 "--quote", "Payment within 30 days", "--json", *who, store=store)
    assert ok.returncode == 0, ok.stderr
    out = json.loads(ok.stdout)
    assert out["record"]["value"] == 30 and out["record"]["provenance"][0]["quote_verified"]
    other = invoke("review", "decide", str(item["id"]), "--decision", "accept",
                    "--as", "t:bob:rev", store=store)
    assert other.returncode == 1 and "already decided" in other.stderr
    second = json.loads(invoke("review", "next", *who, store=store).stdout)
    assert invoke("review", "decide", str(second["id"]), "--decision", "reject", *who,
                   store=store).returncode == 0
    assert invoke("review", "next", *who, store=store).stdout.strip() == "null"
    hidden = invoke("review", "list", "--json", "--as", "t:eve:outsiders", store=store)
    assert json.loads(hidden.stdout) == []
    cal = invoke("calibrate", "--json", *who, store=store)
    assert cal.returncode == 0 and json.loads(cal.stdout)["all"]["labels"] == 2
    h = invoke("review", "decide", "--help")
    assert h.returncode == 0 and "Example:" in h.stdout and "--not-stated" in h.stdout


def test_review_routes_answer_errors_with_one_envelope(tmp_path, store_url):
    from pincite.service.review_page import create_app
    from tests.service.clients import page_client

    store = open_store(store_url)
    ids = synthetic_queue(store, 2)
    hidden = synthetic_queue(store, 1, source_id="secret.md", acl="group:legal")
    client = page_client(create_app(pincite.Library(store), Principal.parse("t:ana:rev")))
    js = {"Accept": "application/json"}
    claimed = client.post("/next", headers=js).json()
    assert claimed["id"] == ids[0]
    cases = [
        ("get", f"/items/{hidden[0]}", None, 404, "not_found"),
        ("get", f"/items/{hidden[0]}.json", None, 404, "not_found"),
        ("get", f"/items/{hidden[0]}/evidence/0/page/1.png", None, 404, "not_found"),
        ("get", "/items/abc", None, 400, "usage"),
        ("get", "/no/such/page", None, 404, "not_found"),
        ("post", f"/items/{ids[1]}/decide", {"decision": "accept"}, 409, "review_conflict"),
        ("post", f"/items/{ids[0]}/decide", {"decision": "maybe"}, 400, "usage"),
        ("post", f"/items/{ids[0]}/decide", {"decision": "correct", "value": 1}, 400, "usage"),
        ("post", f"/items/{ids[0]}/decide", {"decision": "correct", "value": 1,
                                            "quote": "not in this document"}, 404,
         "quote_not_found"),
        ("post", f"/items/{hidden[0]}/release", None, 404, "not_found"),
        ("post", "/incidents/99/clear", None, 404, "not_found"),
    ]
    for method, path, body, status, code in cases:
        r = getattr(client, method)(path, headers=js, **({"json": body} if body else {}))
        assert r.status_code == status, (path, r.text)
        assert set(r.json()) == {"error"} and r.json()["error"]["code"] == code, (path, r.text)
        page = getattr(client, method)(path, **({"json": body} if body else {}))
        kind = "application/json" if path.endswith(".json") else "text/html"
        assert page.status_code == status and kind in page.headers["content-type"]
    ok = client.post(f"/items/{ids[0]}/decide", headers=js,
                     json={"decision": "correct", "value": 30, "quote": "Payment within 30 days"})
    assert ok.status_code == 200 and ok.json()["label"]["decision"] == "correct"
    assert client.get("/metrics").status_code == 200
    assert client.get("/reliability.svg").content.startswith(b"<?xml")
    assert client.get("/calibration.json").json()["all"]["labels"] == 1
    assert [it["id"] for it in client.get("/items.json").json()] == [ids[1], ids[0]]
    store.close()


def test_a_reviewed_record_stands_on_a_rerun_and_yields_to_a_new_revision(tmp_path, store_url):
    lib = tender_library(store_url)
    first = extract_tender(lib, tmp_path)
    case = first.run["case_id"]
    q = ReviewQueue(lib.store, ANA)
    item = q.next(lease=60)
    field = item["field"]
    q.decide(item["id"], "abstain")
    assert lib.store.field_record("demo", case, field)["reason"] == "reviewer_not_stated"
    # the same bytes again: the reviewer's decision stands
    extract_tender(lib, tmp_path)
    assert lib.store.field_record("demo", case, field)["reason"] == "reviewer_not_stated"
    # a corrected pliego: the record is the extractor's again, on the new bytes
    lib.ingest([EXAMPLES / "tender" / "corrigendum" / "pliego.pdf"], tenant="demo", acl=None,
               source_id="tender/pliego.pdf", sandbox=False)
    extract_tender(lib, tmp_path)
    rec = lib.store.field_record("demo", case, field)
    assert "review" not in rec and rec["reason"] != "reviewer_not_stated"
    lib.close()
