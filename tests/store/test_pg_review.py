"""Extraction records and the review queue at the store level, on both backends.

Every test runs on SQLite and on PostgreSQL (an embedded server) and asserts the same
answers: ids, order, statuses, labels, incidents. No ingest is needed (the record and
review tables hold no foreign key to sources), so these run before the other concerns of
the PostgreSQL backend exist.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from pincite.store import QueueEntry, SQLiteStore, StampRule
from pincite.store.sqlite.review_store import LabelRow

SHA = "ab" * 32
NEW_SHA = "cd" * 32
T0 = "2026-03-01T10:00:00.000000+00:00"
NO_STAMP = StampRule(0, 10.0)


def ts(seconds: float) -> str:
    """Return T0 + seconds as the store's ISO text."""
    from datetime import datetime, timedelta

    return (datetime.fromisoformat(T0) + timedelta(seconds=seconds)).isoformat(timespec="microseconds")


@pytest.fixture(params=["sqlite", "postgresql"])
def rstore(request: pytest.FixtureRequest, tmp_path) -> Iterator[Any]:
    """A fresh store on each backend."""
    if request.param == "sqlite":
        store: Any = SQLiteStore(tmp_path / "s")
    else:
        from pincite.store.postgres import PostgresStore

        store = PostgresStore(request.getfixturevalue("pg_server").fresh_database(),
                              root=tmp_path / "cache")
    yield store
    store.close()


def entry(i: int, *, source: str = "doc.md", sha: str = SHA, case: str = "case-1", hard: bool = False,
          due: str | None = None, evidence: list[dict[str, Any]] | None = None, field: str | None = None,
          reason: str = "low_confidence") -> QueueEntry:
    name = field or f"f{i:03d}"
    cand = {"field": name, "type": "number", "value": i, "status": "present", "confidence": 0.5,
            "provenance": [], "outcome": "review", "reason": reason,
            "extractor": {"name": "x", "version": "1.0", "run_id": "run-1"}}
    return QueueEntry(case_id=case, source_id=source, revision_id="r1", doc_sha256=sha, field=name,
                      reason=reason, candidate=cand, evidence=evidence or [], hard=hard, due_at=due,
                      run_id="run-1", extractor_version="1.0", confidence=0.5)


def record(field: str, value: Any, *, conf: float | None = 0.9, status: str = "present",
           doc: str = "doc.md@r1", review: Any = None) -> dict[str, Any]:
    r = {"field": field, "value": value, "status": status, "outcome": "show", "reason": "ok",
         "confidence": conf, "provenance": [{"doc_id": doc, "quote": "q"}],
         "extractor": {"name": "x", "version": "1.0", "run_id": "run-1"}}
    if review is not None:
        r["review"] = review
    return r


def run(run_id: str = "run-1", case: str = "case-1", docs: Any = None, **kw: Any) -> dict[str, Any]:
    return {"run_id": run_id, "case_id": case, "schema_name": "s", "schema_digest": "0",
            "extractor": {"name": "x", "version": "1.0"},
            "docs": docs if docs is not None else [{"doc_id": "doc.md@r1", "doc_sha256": SHA}], **kw}


def claim(store: Any, who: str, at: float, *, lease: float = 60, visible: Any = ("doc.md",),
          tenant: str = "t", **kw: Any) -> dict[str, Any] | None:
    return store.claim_review_item(tenant, who, visible, now=ts(at), lease_until=ts(at + lease), **kw)


def decide(store: Any, item_id: int, who: str, at: float, decision: str = "accept",
           stamp: StampRule = NO_STAMP, rec: Any = None) -> Any:
    return store.decide_review_item("t", item_id, who, decision=decision, corrected=None,
                                    not_stated=False, record=rec, now=ts(at), stamp=stamp)


# ---- records ------------------------------------------------------------------------------


def test_save_extraction_is_idempotent_and_a_review_stands_while_the_documents_do(rstore):
    recs = [record("fee", 5), record("term", 30)]
    assert rstore.save_extraction("t", run(checks={"c": 1}), recs, [entry(1), entry(2)], T0) == 2
    # the same documents again: no new item, and a reviewed record is kept
    reviewed = record("fee", 7, review={"decision": "correct", "by": "ana"})
    assert rstore.save_extraction("t", run("run-1b"), [reviewed], [entry(1)], ts(1)) == 0
    assert rstore.field_record("t", "case-1", "fee")["value"] == 7
    assert rstore.save_extraction("t", run("run-2"), [record("fee", 9)], [], ts(2)) == 0
    assert rstore.field_record("t", "case-1", "fee")["value"] == 7  # same docs: the review stands
    new_docs = [{"doc_id": "doc.md@r2", "doc_sha256": NEW_SHA}]
    rstore.save_extraction("t", run("run-3", docs=new_docs), [record("fee", 11)], [], ts(3))
    assert rstore.field_record("t", "case-1", "fee")["value"] == 11  # a new revision: replaced
    assert [r["field"] for r in rstore.field_records("t", "case-1")] == ["fee", "term"]
    assert rstore.field_record("t", "case-1", "nope") is None
    got = rstore.extraction_run("t", "run-1")
    assert got == {"run_id": "run-1", "case_id": "case-1", "schema_name": "s", "schema_digest": "0",
                   "extractor": {"name": "x", "version": "1.0"},
                   "docs": [{"doc_id": "doc.md@r1", "doc_sha256": SHA}], "created_at": T0,
                   "checks": {"c": 1}}
    assert rstore.extraction_run("t", "run-1b")["checks"] is None
    assert rstore.extraction_span("t") == (T0, ts(3), 4)
    assert rstore.extraction_span("other") == (None, None, 0)
    assert rstore.case_source_ids("t", "case-1") == {"doc.md"}
    assert rstore.case_source_ids("t", "never") == set()


def test_a_guard_refuses_the_write_and_nothing_is_stored(rstore):
    rstore.save_extraction("t", run(), [record("fee", 5, doc="secret.md@r1")], [], T0)

    def guard(held: set[str]) -> None:
        assert held == {"doc.md", "secret.md"}
        raise PermissionError("may not read secret.md")

    with pytest.raises(PermissionError):
        rstore.save_extraction("t", run("run-2"), [record("fee", 6)], [entry(1)], ts(1), guard=guard)
    assert rstore.extraction_run("t", "run-2") is None
    assert rstore.review_items("t") == []
    assert rstore.field_record("t", "case-1", "fee")["value"] == 5


def test_another_tenant_sees_and_claims_nothing(rstore):
    rstore.save_extraction("t", run(), [record("fee", 5)], [entry(1)], T0)
    assert rstore.review_items("u") == [] and rstore.review_item("u", 1) is None
    assert rstore.field_records("u", "case-1") == [] and rstore.extraction_run("u", "run-1") is None
    assert claim(rstore, "mallory", 1, tenant="u") is None
    assert rstore.decide_review_item("u", 1, "mallory", decision="accept", corrected=None,
                                     not_stated=False, record=None, now=ts(1),
                                     stamp=StampRule()).status == "not_found"
    assert rstore.purge_records_of_source("u", "doc.md") == 0
    assert rstore.review_item("t", 1)["state"] == "open"


def test_field_confidences_and_all_records(rstore):
    recs = [record("fee", 5, conf=0.8), record("term", None, conf=None, status="absent"),
            record("cap", 3, conf=0.4, review={"candidate": {"status": "present", "outcome": "flag"}})]
    rstore.save_extraction("t", run(source_ids=["extra.md"]), recs, [], T0)
    assert rstore.field_confidences("t") == [
        {"field": "cap", "extractor_version": "1.0", "confidence": 0.4, "outcome": "flag",
         "source_ids": ["doc.md", "extra.md"]},
        {"field": "fee", "extractor_version": "1.0", "confidence": 0.8, "outcome": "show",
         "source_ids": ["doc.md", "extra.md"]}]
    assert [(c, s, r["field"]) for c, s, r in rstore.all_field_records("t")] == [
        ("case-1", ["doc.md", "extra.md"], "cap"), ("case-1", ["doc.md", "extra.md"], "fee"),
        ("case-1", ["doc.md", "extra.md"], "term")]


def test_non_finite_confidences_read_back_alike(rstore):
    """SQLite stores a NaN REAL as NULL and keeps infinities; PostgreSQL must answer the same."""
    nan, inf = float("nan"), float("inf")
    q = entry(1)
    rstore.save_extraction("t", run(), [record("fee", 5, conf=nan), record("cap", 1, conf=inf)],
                           [QueueEntry(**{**{f: getattr(q, f) for f in q.__slots__}, "confidence": nan})],
                           T0)
    assert rstore.review_items("t")[0]["confidence"] is None
    assert rstore.field_confidences("t") == [
        {"field": "cap", "extractor_version": "1.0", "confidence": inf, "outcome": "show",
         "source_ids": ["doc.md"]}]  # the NaN one has no confidence: left out
    rstore.add_review_labels("t", [LabelRow("fee", "1.0", nan, True, decided_at=T0, seconds=nan)])
    (label,) = rstore.review_labels("t")
    assert label["confidence"] is None and label["seconds"] is None


# ---- claims -------------------------------------------------------------------------------


def test_claims_follow_queue_order_and_skip_what_is_held(rstore):
    entries = [entry(1), entry(2, hard=True), entry(3, due="2026-04-01"), entry(4, due="2026-03-15"),
               entry(5, field="x5")]
    rstore.save_extraction("t", run(), [], entries, T0)
    order = [claim(rstore, f"r{k}", 1)["field"] for k in range(5)]
    assert order == ["f002", "f004", "f003", "f001", "x5"]
    assert claim(rstore, "r9", 1) is None
    # a reviewer's own live claim comes back first, renewed
    again = claim(rstore, "r0", 2, lease=100)
    assert again["field"] == "f002" and again["lease_until"] == ts(102)
    assert rstore.review_claims("t", again["id"])[-1]["lease_until"] == ts(102)


def test_an_expired_lease_is_reclaimable_and_the_late_decision_is_refused(rstore):
    rstore.save_extraction("t", run(), [], [entry(1)], T0)
    a = claim(rstore, "ana", 0, lease=10)
    assert claim(rstore, "bob", 5) is None
    b = claim(rstore, "bob", 10)  # the lease ran out at exactly 10
    assert b["id"] == a["id"] and b["claimed_by"] == "bob"
    assert decide(rstore, a["id"], "ana", 11).status == "not_claimed"
    assert [(c["reviewer"], c["ended"]) for c in rstore.review_claims("t", a["id"])] == [
        ("ana", "expired"), ("bob", None)]
    res = decide(rstore, b["id"], "bob", 12)
    assert res.status == "ok" and res.item["state"] == "decided" and res.label["accepted"]
    assert res.label["seconds"] == 2.0 and res.label["item_id"] == b["id"]
    assert decide(rstore, b["id"], "bob", 13).status == "decided"
    assert decide(rstore, 999, "bob", 13).status == "not_found"
    assert rstore.review_claims("t")[-1]["ended"] == "decided"


def test_a_lease_that_ran_out_refuses_its_holder(rstore):
    rstore.save_extraction("t", run(), [], [entry(1)], T0)
    a = claim(rstore, "ana", 0, lease=10)
    assert decide(rstore, a["id"], "ana", 10).status == "lease_expired"
    assert not rstore.release_review_item("t", a["id"], "ana", ts(10))
    c = claim(rstore, "ana", 20, lease=10)
    assert rstore.release_review_item("t", c["id"], "ana", ts(21))
    assert not rstore.release_review_item("t", c["id"], "ana", ts(21))
    assert rstore.review_item("t", c["id"])["claimed_by"] is None
    assert [c["ended"] for c in rstore.review_claims("t", a["id"])] == ["expired", "released"]


def test_visibility_field_filter_and_refused_cases(rstore):
    ev = [{"doc_id": "other.md@r3", "doc_sha256": SHA, "quote": "x"}]
    entries = [entry(1, evidence=ev), entry(2, case="case-2"), entry(3, source="hidden.md"),
               entry(4, field="wanted")]
    rstore.save_extraction("t", run(), [], entries, T0)
    assert claim(rstore, "a", 1, field="wanted")["field"] == "wanted"
    got = claim(rstore, "b", 1, case_ok=lambda case: case != "case-1")
    assert got["field"] == "f002"
    assert claim(rstore, "c", 1, case_ok=lambda case: case != "case-1") is None
    assert claim(rstore, "d", 1) is None  # f001 cites other.md, which d may not see
    assert claim(rstore, "e", 1, visible=("doc.md", "other.md"))["field"] == "f001"
    seen = rstore.visible_review_items("t", ["doc.md"])
    assert [i["field"] for i in seen] == ["f002", "wanted"]
    assert [i["field"] for i in rstore.visible_review_items("t", ["doc.md", "hidden.md", "other.md"])] == [
        "f001", "f002", "f003", "wanted"]


def test_decisions_write_labels_records_and_rubber_stamp_incidents(rstore):
    rstore.save_extraction("t", run(), [record("f000", 1)], [entry(i) for i in range(4)], T0)
    stamp = StampRule(3, 10.0)
    incidents = []
    for k in range(4):
        it = claim(rstore, "ana", 10 * k)
        res = decide(rstore, it["id"], "ana", 10 * k + 1, stamp=stamp,
                     rec=record(it["field"], 100 + k, review={"decision": "accept"}))
        incidents.append(res.incident_id)
        assert res.label["incident_id"] == res.incident_id
    assert incidents == [None, None, 1, 1]
    inc = rstore.review_incidents("t")
    assert [(i["id"], i["kind"], i["reviewer"], i["labels"], i["cleared_at"]) for i in inc] == [
        (1, "rubber_stamp", "ana", 4, None)]
    assert inc[0]["detail"]["last_seconds"] == [1.0, 1.0, 1.0]
    assert len(rstore.review_labels("t")) == 4 and rstore.review_labels("t", for_calibration=True) == []
    assert not rstore.clear_review_incident("t", 2, "boss", ts(99))
    assert not rstore.clear_review_incident("u", 1, "boss", ts(99))
    assert rstore.clear_review_incident("t", 1, "boss", ts(99))
    assert len(rstore.review_labels("t", for_calibration=True)) == 4
    assert rstore.field_record("t", "case-1", "f000")["value"] == 100
    assert rstore.field_record("t", "case-1", "f003")["value"] == 103
    n = rstore.add_review_labels("t", [LabelRow("fee", "1.0", 0.7, True, decided_at=T0),
                                       LabelRow("fee", "1.0", None, False, decision="reject",
                                                corrected={"v": 1}, decided_at=T0)])
    labels = rstore.review_labels("t")
    assert n == 2 and [(lb["id"], lb["item_id"], lb["accepted"]) for lb in labels[-2:]] == [
        (5, None, True), (6, None, False)]
    assert labels[-1]["corrected"] == {"v": 1}


def test_settings_round_trip(rstore):
    assert rstore.review_settings("t") == {}
    rstore.set_review_settings("t", {"audit_fraction": 0.25, "stamp_run": 5}, T0)
    rstore.set_review_settings("t", {"stamp_run": 7}, ts(1))
    assert rstore.review_settings("t") == {"audit_fraction": 0.25, "stamp_run": 7}
    assert rstore.review_settings("u") == {}


# ---- purge --------------------------------------------------------------------------------


def test_purge_and_scrub_remove_every_trace_of_a_source(rstore):
    ev = [{"doc_id": "gone.md@r1", "doc_sha256": NEW_SHA, "quote": "secret"}]
    docs = [{"doc_id": "doc.md@r1", "doc_sha256": SHA}, {"doc_id": "gone.md@r1", "doc_sha256": NEW_SHA}]
    rstore.save_extraction("t", run(docs=docs), [record("fee", 5, doc="gone.md@r1"), record("term", 3)],
                           [entry(1, source="gone.md", sha=NEW_SHA), entry(2, evidence=ev)], T0)
    it = claim(rstore, "ana", 1, visible=("doc.md", "gone.md"))
    assert decide(rstore, it["id"], "ana", 2).status == "ok"
    # the order `index.deletion.purge` runs them in
    assert rstore.purge_review_of_source("t", "gone.md") == 2  # its claim and its label
    assert rstore.purge_records_of_source("t", "gone.md") == 2  # the fee record and its item
    assert rstore.scrub_source("t", "gone.md", [NEW_SHA]) == 2  # the other item and the run
    kept = rstore.review_items("t")
    assert len(kept) == 1 and kept[0]["evidence"] == [{"purged": True}] and kept[0]["state"] == "open"
    assert rstore.extraction_run("t", "run-1")["docs"][1] == {"purged": True}
    assert [r["field"] for r in rstore.field_records("t", "case-1")] == ["term"]
    assert rstore.review_labels("t") == [] and rstore.review_claims("t") == []
    assert rstore.scrub_source("t", "gone.md", [NEW_SHA]) == 0  # a rerun changes nothing


# ---- PostgreSQL only: the wall and the claim under contention ------------------------------


def test_the_tenant_wall_holds_without_the_tenant_filter(pg_url, tmp_path):
    from pincite.store.postgres import PostgresStore
    from pincite.store.postgres.pg_connection import transaction

    store = PostgresStore(pg_url, root=tmp_path)
    store.save_extraction("t", run(), [record("fee", 5)], [entry(1)], T0)
    store.save_extraction("u", run(), [record("fee", 6)], [entry(1)], T0)
    try:
        with transaction(store.conn, "u") as c:
            for table in ("review_queue", "field_records", "extraction_runs"):
                assert c.execute(f"SELECT DISTINCT tenant FROM {table}").fetchall() == [("u",)]
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                c.execute("INSERT INTO review_settings (tenant, key, value, updated_at) "
                          "VALUES ('t', 'k', '1', 'now')")
    finally:
        store.close()


def test_two_connections_never_claim_one_item(pg_url, tmp_path):
    """A claimer that holds its pick uncommitted: a second one skips it (no wait)."""
    from pincite.store.postgres import PostgresStore
    from pincite.store.postgres.pg_connection import connect, transaction
    from pincite.store.postgres.pg_review_sql import SQL_NEXT_CLAIMABLE

    store = PostgresStore(pg_url, root=tmp_path)
    store.save_extraction("t", run(), [], [entry(1), entry(2)], T0)
    store.conn.execute("SET lock_timeout = '2s'")  # a claim that waited would fail, not hang
    other = connect(pg_url)
    try:
        with transaction(other, "t") as c:
            p = {"tenant": "t", "now": ts(1), "visible": ["doc.md"], "field": None, "closed": []}
            held = c.execute(SQL_NEXT_CLAIMABLE, p).fetchone()[0]
            got = claim(store, "bob", 1)  # runs while `other` holds the row locked
            assert got is not None and got["id"] != held
            assert claim(store, "cat", 1) is None  # the only other row is held: skipped
    finally:
        other.close()
        store.close()
    again = PostgresStore(pg_url, root=tmp_path)
    try:
        assert claim(again, "cat", 2)["id"] == held  # committed nothing: free again
    finally:
        again.close()


def test_a_fresh_queue_is_claimed_through_the_queue_order_index(pg_url, tmp_path):
    """A queue filled a moment ago has no statistics yet: the claim must still walk the
    queue-order index (not pick every open item by source and sort them)."""
    from pincite.store.postgres import PostgresStore
    from pincite.store.postgres.pg_connection import transaction
    from pincite.store.postgres.pg_review_sql import SQL_NEXT_CLAIMABLE

    store = PostgresStore(pg_url, root=tmp_path)
    try:
        store.save_extraction("t", run(), [], [entry(i) for i in range(20_000)], T0)
        p = {"tenant": "t", "now": ts(1), "visible": ["doc.md"], "field": None, "closed": []}
        with transaction(store.conn, "t") as c:
            plan = "\n".join(r[0] for r in c.execute("EXPLAIN " + SQL_NEXT_CLAIMABLE, p))
        assert "review_queue_order" in plan and "Sort" not in plan, plan
    finally:
        store.close()
