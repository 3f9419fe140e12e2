"""Inside a tenant (issue 14, class 6): calibration and metrics count only readable
documents; clearing an incident and changing settings need `review:admin`, and a
reviewer never clears their own incident; settings refuse non-finite numbers."""

from __future__ import annotations

import math

import pytest

import pincite
from pincite.errors import Forbidden, NotFound, UsageError
from pincite.model import Principal
from pincite.review.queue import ReviewQueue
from pincite.store import Store, open_store
from tests.commands import invoke
from tests.review.queues import Clock, synthetic_queue

REV = Principal.parse("t:rita:rev")
LEGAL = Principal.parse("t:lena:legal")


def _decide_all(store: Store, who: Principal, clock: Clock) -> None:
    q = ReviewQueue(store, who, clock=clock)
    while (it := q.next()) is not None:
        clock.advance(60)
        q.decide(it["id"], "accept")


def test_calibration_and_metrics_count_only_readable_documents(tmp_path, store_url):
    store = open_store(store_url)
    synthetic_queue(store, 3, source_id="open.md", acl="group:rev", confidence=lambda i: 0.9)
    synthetic_queue(store, 5, source_id="secret.md", acl="group:legal", confidence=lambda i: 0.9)
    clock = Clock()
    _decide_all(store, REV, clock)
    _decide_all(store, LEGAL, clock)
    lib = pincite.open(store_url)
    assert lib.calibration(REV)["all"]["labels"] == 3
    assert lib.calibration(LEGAL)["all"]["labels"] == 5
    assert lib.calibration(Principal.parse("t:nobody"))["all"]["labels"] == 0
    metrics = lib.review_metrics(REV)
    assert metrics["calibration"]["all"]["labels"] == 3 and metrics["abstention"]["labels"] == 3
    assert sum(b["n"] for b in metrics["per_bin"]) == 3
    lib.close()
    store.close()


def test_only_another_review_admin_clears_an_incident(tmp_path, store_url):
    store = open_store(store_url)
    synthetic_queue(store, 4, confidence=lambda i: 0.97)
    clock = Clock()
    boss = ReviewQueue(store, Principal.parse("t:boss:rev,review.admin"), clock=clock)
    boss.set_settings(stamp_run=2, stamp_seconds=10)
    fast = ReviewQueue(store, Principal.parse("t:fast:rev,review.admin"), clock=clock)
    incident = None
    while (it := fast.next()) is not None:
        clock.advance(1)
        incident = fast.decide(it["id"], "accept")["incident"] or incident
    assert incident is not None
    with pytest.raises(Forbidden, match="your own"):
        fast.clear_incident(incident)           # an admin, but it is their own incident
    with pytest.raises(Forbidden, match="review:admin"):
        ReviewQueue(store, Principal.parse("t:peer:rev"), clock=clock).clear_incident(incident)
    with pytest.raises(NotFound):
        boss.clear_incident(incident + 100)
    assert not store.review_incidents("t")[0]["cleared_at"]
    boss.clear_incident(incident)
    assert store.review_incidents("t")[0]["cleared_by"] == "boss"
    store.close()


def test_settings_need_review_admin_and_finite_values_in_range(tmp_path, store_url):
    store = open_store(store_url)
    plain = ReviewQueue(store, Principal.parse("t:ana:rev"))
    with pytest.raises(Forbidden, match="review:admin"):
        plain.set_settings(stamp_run=0)
    assert plain.settings().stamp_run == 5  # unchanged
    assert plain.set_settings().stamp_run == 5  # reading needs no role
    admin = ReviewQueue(store, Principal.parse("t:lead:review.admin"))
    for bad in ({"stamp_seconds": math.nan}, {"stamp_seconds": math.inf},
                {"stamp_seconds": -1.0}, {"stamp_seconds": 1e9}, {"audit_fraction": math.nan},
                {"stamp_run": 10**30}, {"stamp_run": -1}):
        with pytest.raises(UsageError):
            admin.set_settings(**bad)
    assert admin.settings().to_dict() == {"audit_fraction": 0.0, "stamp_run": 5,
                                          "stamp_seconds": 10.0}
    assert admin.set_settings(stamp_seconds=3.5).stamp_seconds == 3.5
    store.close()


def test_review_settings_command_refuses_nan_and_non_admins(tmp_path, store_url):
    store = store_url
    open_store(store).close()
    nan = invoke("review", "settings", "--stamp-seconds", "nan", "--as", "t:lead:review.admin",
                 store=store)
    assert nan.returncode == 2 and "number of seconds" in nan.stderr
    plain = invoke("review", "settings", "--stamp-run", "0", "--as", "t:ana", store=store)
    assert plain.returncode == 1 and "review:admin" in plain.stderr
    assert "Traceback" not in nan.stderr + plain.stderr
