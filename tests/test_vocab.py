"""The closed vocabularies: SQL built from them, stores and pages that speak them, one
exception for refused bytes, and one clock."""

from __future__ import annotations

import dataclasses
import pickle
import sqlite3
from datetime import UTC, datetime

import pytest

import pincite
from pincite import errors
from pincite.errors import ParseFailure, PinciteError
from pincite.model import Principal, timestamp, utc_now
from pincite.store import SQLiteStore
from pincite.store.sqlite.records_store import QueueEntry
from pincite.vocab import ClaimEnd, ReviewDecision, ReviewReason, ReviewState, sql_in
from tests.review.queues import Clock, synthetic_queue

R1 = Principal.parse("t:r1:rev")


def test_sql_in_writes_every_member_quoted_in_order() -> None:
    assert sql_in(ClaimEnd) == "'decided', 'released', 'expired'"


def test_the_queue_stores_every_review_reason_and_refuses_any_other(tmp_path) -> None:
    store = SQLiteStore(tmp_path / "s")
    [item_id] = synthetic_queue(store, 1)
    base = store.review_items("t")[0]
    entry = QueueEntry(case_id=base["case_id"], source_id=base["source_id"],
                       revision_id=base["revision_id"], doc_sha256=base["doc_sha256"],
                       field="x", reason="", candidate=base["candidate"], evidence=[],
                       hard=False, due_at=None, run_id="run-x", extractor_version="1.0",
                       confidence=0.5)
    run = {"run_id": "run-x", "case_id": base["case_id"], "schema_name": "synthetic",
           "schema_digest": "0", "extractor": {"name": "synthetic", "version": "1.0"},
           "docs": []}
    entries = [dataclasses.replace(entry, field=f"f-{r}", reason=r) for r in ReviewReason]
    store.save_extraction("t", run, [], entries, "2026-03-01T08:00:00+00:00")
    stored = {it["field"]: it["reason"] for it in store.review_items("t") if it["id"] != item_id}
    assert stored == {f"f-{r}": r.value for r in ReviewReason}
    with pytest.raises(sqlite3.IntegrityError):
        store.save_extraction("t", run, [], [dataclasses.replace(entry, field="bad",
                                                                   reason="not_a_reason")],
                              "2026-03-01T08:00:00+00:00")


def test_the_review_page_offers_the_vocabulary_and_posts_its_codes(tmp_path) -> None:
    pytest.importorskip("fastapi")
    from pincite.review.queue import ReviewQueue
    from pincite.service.review_page import create_app
    from tests.service.clients import page_client

    store = SQLiteStore(tmp_path / "s")
    [item_id] = synthetic_queue(store, 1)
    clock = Clock()
    ReviewQueue(store, R1, clock=clock).next()
    client = page_client(create_app(pincite.Library(store), R1, clock=clock))
    queue_html = client.get("/").text
    for s in ReviewState:
        assert f'<option value="{s.value}"' in queue_html
    for r in ReviewReason:
        assert f'<option value="{r.value}"' in queue_html
    item_html = client.get(f"/items/{item_id}").text
    for d in (ReviewDecision.ACCEPT, ReviewDecision.REJECT, ReviewDecision.ABSTAIN):
        assert f'data-decision="{d.value}"' in item_html
        assert f'decide({{decision: "{d.value}"}})' in item_html
    assert f'{{decision: "{ReviewDecision.CORRECT.value}", not_stated' in item_html
    res = client.post(f"/items/{item_id}/decide", json={"decision": "accept"},
                      headers={"accept": "application/json"})
    assert (res.status_code, res.json()["item"]["state"]) == (200, ReviewState.DECIDED.value)
    decided_html = client.get(f"/items/{item_id}").text
    assert 'class="badge ok" id="state">decided · accept</span>' in decided_html


def test_parse_failure_is_the_one_exception_for_refused_bytes() -> None:
    f = ParseFailure("zip_bomb", "entries overlap")
    back = pickle.loads(pickle.dumps(f))
    assert (type(back), back.reason, back.detail, str(back)) == (
        ParseFailure, "zip_bomb", "entries overlap", "zip_bomb: entries overlap")
    assert (f.code, f.status, f.to_dict()) == (
        "parse_failure", 422,
        {"error": {"code": "parse_failure", "message": "zip_bomb: entries overlap"}})
    with pytest.raises(ValueError):
        ParseFailure("corrupt", "not a quarantine reason")


def test_every_exception_is_in_the_tree_with_a_code_and_a_status() -> None:
    classes = [c for c in vars(errors).values()
               if isinstance(c, type) and issubclass(c, BaseException)]
    assert all(issubclass(c, PinciteError) for c in classes), classes
    codes = [c.code for c in classes]
    assert len(codes) == len(set(codes))
    assert all(400 <= c.status < 600 for c in classes)
    for c in classes:
        assert c.__name__ in (errors.__doc__ or ""), f"{c.__name__} is not drawn in the tree"


def test_one_clock_one_stored_form() -> None:
    t = datetime(2026, 3, 2, 9, 0, 1, 5, tzinfo=UTC)
    assert timestamp(t) == "2026-03-02T09:00:01.000005+00:00"
    before = datetime.now(UTC)
    now = utc_now()
    assert now.tzinfo is UTC and before <= now <= datetime.now(UTC)
    assert datetime.fromisoformat(timestamp()) >= now


def test_no_exception_class_is_defined_outside_the_errors_package() -> None:
    import ast
    from pathlib import Path

    import pincite

    root = Path(pincite.__file__).parent
    names = {c for c in vars(errors) if isinstance(getattr(errors, c), type)}
    outside = []
    for path in sorted(root.rglob("*.py")):
        if path.parent == root / "errors":  # the error tree's package
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(
                    isinstance(b, ast.Name) and (b.id in names or b.id.endswith(("Error",
                                                 "Exception"))) for b in node.bases):
                outside.append(f"{path.relative_to(root)}:{node.name}")
    assert outside == []


def test_the_sandbox_turns_a_refusal_without_a_quarantine_reason_into_an_error() -> None:
    from pincite.sources.sandbox import _loads

    assert _loads(pickle.dumps(("fail", "zip_bomb", "entries overlap"))) == (
        "fail", "zip_bomb", "entries overlap")
    assert _loads(pickle.dumps(("fail", "corrupt", "x"))) == (
        "error", "the parser worker sent a refusal without a quarantine reason")
