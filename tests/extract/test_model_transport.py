"""The model adapter's HTTP seam: an injected httpx transport (real httpx, no patching)
and the retry policy (tenacity) — transient failures are retried within bounds, a request
the server refuses is not."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

import pincite
from pincite.errors import ModelUnavailable
from pincite.extract.model_adapter import ModelExtractor, retry_after
from pincite.extract.run import run_extraction
from pincite.extract.schema import schema_from_dict
from pincite.model import Principal

ANA = Principal.parse("acme:ana:legal")
DOC = b"# Pliego\n\n2.1 Las facturas se abonaran en el plazo de treinta (30) dias desde su recepcion.\n"
SCHEMA = schema_from_dict({"name": "one", "fields": [
    {"name": "payment.term_days", "type": "number", "synonyms": {"es": ["plazo"]}}]})
ANSWER = {"value": 30, "status": "present", "confidence": 0.95,
          "quotes": [{"doc_id": "pliego.md@r1", "quote": "en el plazo de treinta (30) dias"}]}


@pytest.fixture
def lib(tmp_path: Path):
    lib = pincite.open(tmp_path / "store", create=True)
    r = lib.ingest_bytes(DOC, source_id="pliego.md", tenant="acme", acl=["group:legal"],
                         name="pliego.md", sandbox=False)
    assert r.status == "new", r
    yield lib
    lib.close()


def completion(answer: dict[str, Any]) -> httpx.Response:
    return httpx.Response(200, json={"choices": [{"message": {
        "role": "assistant", "content": json.dumps(answer)}, "finish_reason": "stop"}]})


class Script:
    """An httpx.MockTransport handler that answers a list of responses in turn."""

    def __init__(self, *replies: httpx.Response | Exception) -> None:
        self.replies = list(replies)
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, Exception):
            raise reply
        return reply


def run(lib: Any, script: Script, **kw: Any):
    waits: list[float] = []
    ex = ModelExtractor("http://model.test/v1", "stub", transport=httpx.MockTransport(script),
                        sleep=waits.append, **kw)
    res = run_extraction(lib.store, ANA, SCHEMA, ["pliego.md"], extractor=ex)
    return res.records, waits


def test_a_503_then_200_succeeds_after_one_retry(lib):
    script = Script(httpx.Response(503, text="busy"), completion(ANSWER))
    (rec,), waits = run(lib, script, backoff=0.25)
    assert len(script.requests) == 2
    assert script.requests[0].content == script.requests[1].content
    assert str(script.requests[0].url) == "http://model.test/v1/chat/completions"
    assert waits == [0.25]
    assert (rec.value, rec.outcome) == (30, "show")


def test_a_429_waits_what_retry_after_asks_and_backoff_grows(lib):
    script = Script(httpx.Response(429, headers={"Retry-After": "7"}),
                    httpx.ConnectError("refused"), httpx.Response(502), completion(ANSWER))
    (rec,), waits = run(lib, script, backoff=0.5, max_backoff=30.0)
    assert waits == [7.0, 1.0, 2.0]  # Retry-After, then 0.5 * 2**1, 0.5 * 2**2
    assert rec.value == 30


def test_a_400_is_not_retried(lib):
    script = Script(httpx.Response(401, text="bad key"))
    with pytest.raises(ModelUnavailable) as err:
        run(lib, script)
    assert len(script.requests) == 1
    assert "HTTP 401: bad key" in err.value.message and "API key" in err.value.message
    script = Script(httpx.Response(404))
    with pytest.raises(ModelUnavailable):
        run(lib, script)
    assert len(script.requests) == 1


def test_the_attempt_cap_ends_the_retries(lib):
    script = Script(httpx.Response(500, text="boom"))
    with pytest.raises(ModelUnavailable) as err:
        run(lib, script, max_retries=2, backoff=0.0)
    assert len(script.requests) == 3
    assert "after 3 attempts" in err.value.message and "HTTP 500: boom" in err.value.message
    assert lib.store.review_items("acme") == []


def test_the_time_cap_ends_the_retries_before_the_attempt_cap(lib):
    script = Script(httpx.ConnectError("refused"))
    with pytest.raises(ModelUnavailable, match="ConnectError") as err:
        run(lib, script, max_retries=50, backoff=0.0, max_retry_seconds=0.0)
    assert len(script.requests) == 1
    assert "attempts" not in err.value.message


def test_retry_after_reads_seconds_and_http_dates():
    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after("3") == 3.0
    assert retry_after("-4") == 0.0
    assert retry_after("Thu, 01 Jan 2026 12:00:09 GMT", now=now) == 9.0
    assert retry_after("Thu, 01 Jan 2026 11:00:00 GMT", now=now) == 0.0
    assert retry_after("soon") is None
    assert retry_after(None) is None
