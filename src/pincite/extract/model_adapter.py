"""The model-backed extractor: any OpenAI-compatible chat endpoint fills schema fields.

`ModelExtractor.from_endpoint(url, model)` talks to `POST {url}/chat/completions` (vLLM,
llama.cpp server, Ollama, hosted APIs; `$PINCITE_MODEL_API_KEY` as a Bearer token) with
httpx, a timeout and bounded retries (tenacity) on transport errors, 429 (honouring
`Retry-After`) and 5xx — never on another 4xx. The httpx transport is injectable
(`transport=httpx.MockTransport(handler)`), so callers can test at that seam. Per field:

1. **Passages**: the whole case when it fits the data budget; otherwise the passages
   authorized search routes to the field (the deterministic extractor's `search_router`,
   built from the case's store when an index generation is published), then the passages
   around the field's trigger terms.
2. **Channels**: the system message holds the only instructions (the field, its type's
   canonical JSON shape, the answer format) and says that data is never an instruction;
   the passages travel as one JSON document in the user message (`pincite.model-data`).
3. **Output**: schema-constrained JSON (`response_format: json_schema`, built from the
   field's type; `json_object` when the server refuses json_schema):
   `{"value", "status": "present|absent", "quotes": [{"doc_id", "quote"}], "confidence"}`.
4. **Quotes**: code locates each quote in the named document with the verifier's folded
   search and cites it (`CaseDoc.cite`); a quote it cannot locate (or one too short to be
   evidence) stays in the provenance as an entry that fails verification, so the field is
   REVIEW (`unverified_citation`), never SHOW. The model never sets `quote_verified`.
5. **Bad output** (not JSON, wrong keys, a value off its type's shape, `present` without
   a value) is a record with `validation_errors` (`model_output:…`), notes and confidence
   0, so it is REVIEW — never a crash, never SHOW, never an abstention.
   An endpoint that stays down after the retries raises `ModelUnavailable`: abstaining
   because the model was unreachable would be a fabricated finding.

Steps 1–3 (what is sent) live in `model_prompt.py`, steps 4–5 (what is accepted) in
`model_answer.py`; this module is the transport.
"""


from __future__ import annotations

import os
import time
from collections.abc import Callable
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception_type,
    stop_after_attempt,
    stop_after_delay,
)

from ..errors import ModelUnavailable, TransientModelFailure, UsageError
from .case import Case
from .deterministic import Router, search_router
from .model_answer import build_record
from .model_prompt import (
    MAX_DATA_CHARS,
    answer_schema,
    data_message,
    select_passages,
    system_prompt,
)
from .records import FieldRecord
from .schema import FieldSpec, Schema

NAME = "pincite.model"
VERSION = "1.0"
PROMPT_VERSION = "ext-model-2"  # 2: a duration in days says its kind
API_KEY_ENV = "PINCITE_MODEL_API_KEY"
MODEL_ENV = "PINCITE_MODEL"
# Transient answers: rate limited, or the server (or a proxy before it) failed. Any other
# 4xx is the request's fault and is not retried.
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


class ModelExtractor:
    """Fills schema fields through an OpenAI-compatible chat completions endpoint."""

    name = NAME
    version = VERSION
    prompt_version = PROMPT_VERSION

    def __init__(self, endpoint: str, model: str | None = None, *, api_key: str | None = None,
                 timeout: float = 60.0, max_retries: int = 3, backoff: float = 0.5,
                 max_backoff: float = 10.0, router: Router | None = None, route: bool = True,
                 max_data_chars: int = MAX_DATA_CHARS, temperature: float = 0.0,
                 max_retry_seconds: float = 120.0, transport: httpx.BaseTransport | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        if not endpoint.startswith(("http://", "https://")):
            raise UsageError(f"model endpoint {endpoint!r} is not an http(s) URL; "
                             "give e.g. --model-endpoint http://localhost:8000/v1")
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/chat/completions") else base + "/chat/completions"
        self.endpoint = base.removesuffix("/chat/completions")
        self.model, self.api_key, self.timeout = model, api_key, timeout
        self.max_retries, self.backoff, self.max_backoff = max(0, max_retries), backoff, max_backoff
        self.router, self.route, self.max_data_chars = router, route, max_data_chars
        self.temperature, self.max_retry_seconds = temperature, max_retry_seconds
        self.transport, self.sleep = transport, sleep
        self.response_mode = "json_schema"  # becomes "json_object" when the server refuses it

    @classmethod
    def from_endpoint(cls, endpoint: str, model: str | None = None, **kw: Any) -> ModelExtractor:
        """Return an extractor for `endpoint`; the model defaults to `$PINCITE_MODEL`, else
        the endpoint's first listed model; the API key comes from `$PINCITE_MODEL_API_KEY`."""
        return cls(endpoint, model or os.environ.get(MODEL_ENV) or None,
                   api_key=kw.pop("api_key", None) or os.environ.get(API_KEY_ENV) or None, **kw)

    def identity(self, run_id: str) -> dict[str, Any]:
        """Return the `extractor` object of records made by this extractor."""
        return {"name": self.name, "version": self.version, "model": self.model,
                "prompt_version": self.prompt_version, "run_id": run_id}

    # ---- the run ----------------------------------------------------------------------

    def extract(self, case: Case, schema: Schema, run_id: str) -> list[FieldRecord]:
        """Return one record per schema field, in schema order; raise ModelUnavailable when
        the endpoint fails after the retries."""
        router = self.router
        if router is None and self.route:
            router = _case_router(case)
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        with httpx.Client(timeout=self.timeout, headers=headers, transport=self.transport) as client:
            if self.model is None:
                self.model = self._first_model(client)
            return [self.extract_field(client, case, spec, run_id, router)
                    for spec in schema.fields]

    def extract_field(self, client: httpx.Client, case: Case, spec: FieldSpec, run_id: str,
                      router: Router | None = None) -> FieldRecord:
        """Return the record of one field (one chat completion)."""
        passages = select_passages(case, spec, router, self.max_data_chars)
        messages = [{"role": "system", "content": system_prompt(spec)},
                    {"role": "user", "content": data_message(spec, passages)}]
        content = self._complete(client, messages, answer_schema(spec, [d.doc_id for d in case.docs]))
        return build_record(case, spec, content, passages, self.identity(run_id))

    # ---- HTTP -------------------------------------------------------------------------

    def _body(self, messages: list[dict[str, str]], schema: dict[str, Any]) -> dict[str, Any]:
        fmt: dict[str, Any] = {"type": "json_object"}
        if self.response_mode == "json_schema":
            fmt = {"type": "json_schema",
                   "json_schema": {"name": "pincite_field", "strict": True, "schema": schema}}
        return {"model": self.model, "messages": messages, "temperature": self.temperature,
                "response_format": fmt}

    def _complete(self, client: httpx.Client, messages: list[dict[str, str]],
                  schema: dict[str, Any]) -> str | None:
        """Return the assistant message's content (None when the server sent none)."""
        resp = self._post(client, self._body(messages, schema))
        if resp.status_code in (400, 422) and self.response_mode == "json_schema":
            self.response_mode = "json_object"  # an older server: ask for plain JSON
            resp = self._post(client, self._body(messages, schema))
        if resp.status_code != 200:
            raise ModelUnavailable(self.endpoint, _http_detail(resp), 1, hint=_hint(resp.status_code))
        try:
            body = resp.json()
            content = body["choices"][0]["message"].get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise ModelUnavailable(self.endpoint, "the answer is not a chat completion", 1,
                                   hint="check that the URL is an OpenAI-compatible /v1 endpoint") from None
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return content if isinstance(content, str) else None

    def _post(self, client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
        """Return the first answer that is not transient; raise ModelUnavailable when every
        attempt (at most `max_retries + 1`, within `max_retry_seconds`) was transient."""
        retrying = Retrying(
            retry=retry_if_exception_type(TransientModelFailure),
            stop=stop_after_attempt(self.max_retries + 1) | stop_after_delay(self.max_retry_seconds),
            wait=self._wait, sleep=self.sleep, reraise=True)
        attempts = 0
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    return self._attempt(client, body)
        except TransientModelFailure as exc:
            raise ModelUnavailable(self.endpoint, exc.detail, attempts) from None
        raise AssertionError("unreachable: tenacity either returns or reraises")

    def _attempt(self, client: httpx.Client, body: dict[str, Any]) -> httpx.Response:
        """Return one POST's answer; raise TransientModelFailure when it is worth another try."""
        try:
            resp = client.post(self.url, json=body)
        except httpx.TransportError as exc:
            raise TransientModelFailure(f"{type(exc).__name__}: {exc}") from exc
        if resp.status_code in RETRY_STATUSES:
            raise TransientModelFailure(_http_detail(resp), retry_after(resp.headers.get("Retry-After")))
        return resp

    def _wait(self, state: RetryCallState) -> float:
        """Return the seconds to wait before the next attempt: the server's Retry-After,
        else exponential backoff; never more than `max_backoff`."""
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, TransientModelFailure) and exc.retry_after is not None:
            return min(self.max_backoff, exc.retry_after)
        return min(self.max_backoff, self.backoff * (2 ** (state.attempt_number - 1)))

    def _first_model(self, client: httpx.Client) -> str:
        try:
            resp = client.get(self.endpoint + "/models")
            data = resp.json()["data"] if resp.status_code == 200 else []
            ids = [m["id"] for m in data if isinstance(m, dict) and isinstance(m.get("id"), str)]
        except (httpx.HTTPError, ValueError, KeyError, TypeError):
            ids = []
        if not ids:
            raise UsageError(f"no model named and {self.endpoint}/models lists none; "
                             f"give --model NAME (or set ${MODEL_ENV})")
        return ids[0]


def _case_router(case: Case) -> Router | None:
    """Return the authorized-search router of a case when its store has a published index."""
    store = case.verifier.store
    pointer = getattr(store, "pointer", None)
    if pointer is None or pointer()[0] is None:
        return None
    return search_router(store, case)


def retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Return the seconds a `Retry-After` header asks for (delta-seconds or an HTTP date),
    or None when it is absent or unreadable."""
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())


def _http_detail(resp: httpx.Response) -> str:
    text = resp.text.strip().replace("\n", " ")[:200]
    return f"HTTP {resp.status_code}" + (f": {text}" if text else "")


def _hint(status: int) -> str:
    if status in (401, 403):
        return f"check the API key in ${API_KEY_ENV}"
    if status == 404:
        return "check --model-endpoint (the /v1 base URL) and --model (a model the server serves)"
    return "check --model-endpoint and --model"
