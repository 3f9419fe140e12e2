"""Operating the service: health without credentials, readiness, Prometheus metrics,
JSON request logs that carry no document text and no query, and the time limit."""

from __future__ import annotations

import json
import logging

import httpx

from tests.service.serving import CANARY, build_store, running


def test_health_readiness_metrics_and_logs(tmp_path, caplog):
    caplog.set_level(logging.INFO, logger="pincite.service")
    with running(tmp_path) as svc, httpx.Client(base_url=svc.base) as c:
        assert c.get("/healthz").json() == {"ok": True}
        assert c.get("/readyz").status_code == 401
        ready = c.get("/readyz", headers=svc.auth("demo"))
        assert ready.status_code == 200 and ready.json()["ready"] is True
        assert c.get("/search", params={"q": CANARY}, headers=svc.auth("globex")).status_code == 200
        cited = c.post("/verify", headers=svc.auth("demo"), json={"entries": [{
            "doc_id": "tender/pliego.pdf@r1", "doc_sha256": "0" * 64, "text_layer": "x",
            "locator": "page 1", "char_start": 0, "char_end": 5, "quote": "words"}]})
        assert cited.status_code == 200 and cited.json()[0]["quote_verified"] is False
        m = c.get("/metrics", headers=svc.auth("operator")).text
        assert 'pincite_request_seconds_count{method="GET",route="/search",status="200"} 1.0' in m
        assert 'pincite_verification_failures_total{route="/verify"} 1.0' in m
        # refused at the front door, before any route: counted as such
        assert 'pincite_request_seconds_count{method="GET",route="(refused)",status="401"} 1.0' in m
    lines = [json.loads(r.getMessage()) for r in caplog.records if r.name == "pincite.service"]
    assert {(x["method"], x["route"], x["status"]) for x in lines} >= {
        ("GET", "/healthz", 200), ("GET", "/search", 200), ("GET", "(refused)", 401)}
    search = next(x for x in lines if x["route"] == "/search")
    assert search["tenant"] == "globex" and search["credential"].startswith("key:")
    text = caplog.text
    assert CANARY not in text and "words" not in text and "garant" not in text


def test_a_request_past_the_time_limit_is_answered_503(tmp_path):
    lib = build_store(tmp_path)
    try:
        with running(tmp_path, lib=lib, timeout=0.001) as svc:
            r = httpx.get(svc.base + "/search", params={"q": "garantía definitiva"},
                          headers=svc.auth("demo"))
            assert r.status_code == 503 and r.json()["error"]["code"] == "request_timeout"
            assert httpx.get(svc.base + "/healthz").status_code == 200
    finally:
        lib.close()


def test_purge_takes_the_admin_scope_and_then_nothing_answers(tmp_path):
    with running(tmp_path) as svc, httpx.Client(base_url=svc.base) as c:
        doc = {"source_id": "globex/supply.md", "purge": "true"}
        assert c.delete("/sources", params=doc, headers=svc.auth("globex")).status_code == 403
        assert c.delete("/sources", params=doc, headers=svc.auth("demo-admin")).status_code == 404
        r = c.delete("/sources", params=doc, headers=svc.auth("globex-admin"))
        assert r.status_code == 200 and r.json()["source_id"] == "globex/supply.md"
        assert c.get("/show", params={"doc": "globex/supply.md"},
                     headers=svc.auth("globex")).status_code == 404
        got = c.get("/search", params={"q": CANARY}, headers=svc.auth("globex")).json()
        assert got["items"] == []


def _gauges(c: httpx.Client, headers: dict[str, str]) -> dict[str, float]:
    """The depth gauges of one scrape, by their sample line's name and labels."""
    text = c.get("/metrics", headers=headers).text
    return {line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith(("pincite_review_queue_items{", "pincite_runs_waiting{"))}


def test_the_depth_gauges_follow_the_review_queue_and_the_runs(tmp_path):
    from tests.review.queues import synthetic_queue
    from tests.service.serving import ANA

    waiting = 'pincite_review_queue_items{state="waiting"}'
    claimed = 'pincite_review_queue_items{state="claimed"}'
    enqueued = 'pincite_runs_waiting{queue="ingest",status="ENQUEUED"}'
    with running(tmp_path) as svc, httpx.Client(base_url=svc.base) as c:
        adm = svc.auth("operator")
        first = _gauges(c, adm)
        assert first[claimed] == 0 and first[waiting] > 0 and first[enqueued] == 0
        assert set(first) == {waiting, claimed, enqueued,
                              'pincite_runs_waiting{queue="ingest",status="PENDING"}',
                              'pincite_runs_waiting{queue="extract",status="ENQUEUED"}',
                              'pincite_runs_waiting{queue="extract",status="PENDING"}'}
        item = c.post("/review/next", headers=svc.auth("demo")).json()
        g = _gauges(c, adm)
        assert (g[waiting], g[claimed]) == (first[waiting] - 1, 1)
        assert c.post(f"/review/items/{item['id']}/release",
                      headers=svc.auth("demo")).status_code == 200
        g = _gauges(c, adm)
        assert (g[waiting], g[claimed]) == (first[waiting], 0)
        # items of another tenant count too: the gauge names no tenant
        synthetic_queue(svc.lib.store, 3, tenant="globex", acl="group:staff")
        assert _gauges(c, adm)[waiting] == first[waiting] + 3
        (tmp_path / "later.md").write_text("# Later\n\nFor a worker.\n", "utf-8")
        book = svc.lib.runs(str(svc.store))
        try:
            for _ in range(2):
                book.submit_ingest(ANA, [tmp_path / "later.md"], tenant="demo", acl=None,
                                   new_acl=["group:analysts"])
        finally:
            book.close()
        assert _gauges(c, adm)[enqueued] == 2
        m = c.get("/metrics", headers=adm).text
        assert "demo" not in m and "globex" not in m  # no label names a tenant
        assert c.get("/metrics", headers=svc.auth("demo")).status_code == 403
        assert c.get("/metrics", headers=svc.auth("demo-admin")).status_code == 403
