"""Test at the model seam: a scripted, local OpenAI-compatible chat completions server.

The production adapter (`pincite.extract.model_adapter.ModelExtractor`) and this fake
share one protocol — real HTTP, real chat-completions JSON — so a test (yours or ours)
exercises the same code path a deployment does, without a model. The test scripts the
answers: a function from the request to the assistant's content.

    from pincite.testing import ScriptedChatServer, Reply

    def script(req):
        if req.data["field"] == "payment.term_days":
            return {"value": 30, "status": "present", "confidence": 0.9,
                    "quotes": [{"doc_id": "terms.md@r1", "quote": "payable within thirty (30) days"}]}
        return Reply(status=503)

    with ScriptedChatServer(script) as server:
        extractor = ModelExtractor.from_endpoint(server.url, "stub")
        ...
        assert server.requests[0].system.startswith("You extract")

The script returns a `str` (the content, sent as is — invalid JSON included), a `dict`
(serialized as the content) or a `Reply` (any status, headers or raw body: a 500, a 429
with `Retry-After`, a body that is not a chat completion). Requests are checked for what
the protocol requires (`model`, `messages` with roles and content, a well-formed
`response_format`); a malformed one gets the OpenAI error envelope with HTTP 400 and is
recorded in `server.rejected`. What this proves: the client speaks the protocol and
handles its answers. What it does not: anything about a real model's quality.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatRequest", "Reply", "ScriptedChatServer", "chat_completion"]

ROLES = ("system", "developer", "user", "assistant", "tool")
FORMATS = ("text", "json_object", "json_schema")


@dataclass(frozen=True)
class ChatRequest:
    """One chat completions request as the server received it."""

    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def model(self) -> str:
        return str(self.body.get("model"))

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages") or [])

    def contents(self, role: str) -> list[str]:
        """Return the text of every message with `role`, in order."""
        out = []
        for m in self.messages:
            if m.get("role") == role:
                c = m.get("content")
                out.append(c if isinstance(c, str) else
                           "".join(p.get("text", "") for p in c or [] if isinstance(p, dict)))
        return out

    @property
    def system(self) -> str:
        """The system (and developer) instructions, joined."""
        return "\n".join(self.contents("system") + self.contents("developer"))

    @property
    def data(self) -> dict[str, Any]:
        """The last user message parsed as JSON (pincite sends its passages that way)."""
        return json.loads(self.contents("user")[-1])  # type: ignore[no-any-return]

    @property
    def response_format(self) -> str | None:
        fmt = self.body.get("response_format")
        return fmt.get("type") if isinstance(fmt, dict) else None


@dataclass
class Reply:
    """A scripted answer other than a plain 200: a status, headers, content or raw body."""

    status: int = 200
    content: str | dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    finish_reason: str = "stop"


Script = Callable[[ChatRequest], "str | dict[str, Any] | Reply"]


def chat_completion(content: str | None, model: str, finish_reason: str = "stop") -> dict[str, Any]:
    """Return a chat completion object with one choice holding `content`."""
    n = len(content or "")
    return {
        "id": "chatcmpl-" + uuid.uuid4().hex[:24], "object": "chat.completion",
        "created": int(time.time()), "model": model, "system_fingerprint": "pincite-testing",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                     "logprobs": None, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 0, "completion_tokens": n // 4, "total_tokens": n // 4},
    }


def protocol_errors(body: Any) -> list[str]:
    """Return what a chat completions request body lacks or gets wrong (empty when valid)."""
    if not isinstance(body, dict):
        return ["the body must be a JSON object"]
    errs = []
    if not isinstance(body.get("model"), str) or not body["model"]:
        errs.append("`model` must be a non-empty string")
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs:
        errs.append("`messages` must be a non-empty array")
    else:
        for i, m in enumerate(msgs):
            if not isinstance(m, dict) or m.get("role") not in ROLES:
                errs.append(f"messages[{i}].role must be one of {', '.join(ROLES)}")
            elif not isinstance(m.get("content"), (str, list)):
                errs.append(f"messages[{i}].content must be a string or an array of parts")
    fmt = body.get("response_format")
    if fmt is not None:
        if not isinstance(fmt, dict) or fmt.get("type") not in FORMATS:
            errs.append(f"response_format.type must be one of {', '.join(FORMATS)}")
        elif fmt["type"] == "json_schema":
            js = fmt.get("json_schema")
            if not isinstance(js, dict) or not isinstance(js.get("name"), str) \
                    or not isinstance(js.get("schema"), dict):
                errs.append("response_format.json_schema needs `name` and a `schema` object")
    for key in ("temperature", "top_p"):
        if key in body and (isinstance(body[key], bool) or not isinstance(body[key], (int, float))):
            errs.append(f"`{key}` must be a number")
    return errs


class ScriptedChatServer:
    """A real HTTP server on 127.0.0.1 speaking OpenAI chat completions, scripted by a test.

    `url` is the `/v1` base URL to give the client. `requests` holds every well-formed
    chat request in arrival order; `rejected` the bodies refused as malformed.
    `json_schema=False` makes it refuse `response_format: json_schema` with HTTP 400, as
    servers without structured output do. `api_key` makes it demand that Bearer token.
    """

    def __init__(self, script: Script, *, model: str = "stub", json_schema: bool = True,
                 api_key: str | None = None) -> None:
        self.script = script
        self.model = model
        self.json_schema = json_schema
        self.api_key = api_key
        self.requests: list[ChatRequest] = []
        self.rejected: list[Any] = []
        self.errors: list[BaseException] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self._server is None:
            raise RuntimeError("the server is not running; use it as a context manager")
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def start(self) -> ScriptedChatServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True,
                                        name="pincite-scripted-chat")
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = self._thread = None

    def __enter__(self) -> ScriptedChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---- request handling (called from the server's threads) ---------------------------

    def _answer(self, method: str, path: str, headers: dict[str, str],
                raw: bytes) -> tuple[int, dict[str, str], bytes]:
        if self.api_key is not None and headers.get("authorization") != f"Bearer {self.api_key}":
            return _error(401, "invalid API key", "invalid_api_key")
        if method == "GET" and path.rstrip("/") == "/v1/models":
            return _json(200, {"object": "list", "data": [
                {"id": self.model, "object": "model", "created": 0, "owned_by": "pincite"}]})
        if method != "POST" or path.rstrip("/") != "/v1/chat/completions":
            return _error(404, f"no route {method} {path}", "not_found")
        if "application/json" not in headers.get("content-type", ""):
            return _error(400, "Content-Type must be application/json", "invalid_request")
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        problems = protocol_errors(body)
        if problems:
            with self._lock:
                self.rejected.append(body)
            return _error(400, "; ".join(problems), "invalid_request")
        if not self.json_schema and (body.get("response_format") or {}).get("type") == "json_schema":
            with self._lock:
                self.rejected.append(body)
            return _error(400, "response_format json_schema is not supported", "invalid_request")
        req = ChatRequest(path, headers, body)
        with self._lock:
            self.requests.append(req)
        try:
            out = self.script(req)
        except Exception as exc:  # a broken script is a 500 the test can inspect
            with self._lock:
                self.errors.append(exc)
            return _error(500, f"script raised {type(exc).__name__}: {exc}", "server_error")
        reply = out if isinstance(out, Reply) else Reply(content=out)
        if reply.body is not None:
            return reply.status, reply.headers, reply.body
        if reply.status != 200:
            status, hdrs, data = _error(reply.status, f"scripted HTTP {reply.status}", "scripted")
            return status, {**hdrs, **reply.headers}, data
        content = reply.content
        text = json.dumps(content, ensure_ascii=False) if isinstance(content, dict) else content
        status, hdrs, data = _json(200, chat_completion(text, body["model"], reply.finish_reason))
        return status, {**hdrs, **reply.headers}, data


def _json(status: int, obj: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(obj).encode()


def _error(status: int, message: str, code: str) -> tuple[int, dict[str, str], bytes]:
    kind = "invalid_request_error" if status < 500 else "server_error"
    return _json(status, {"error": {"message": message, "type": kind, "param": None, "code": code}})


def _handler(server: ScriptedChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self, method: str) -> None:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            headers = {k.lower(): v for k, v in self.headers.items()}
            status, hdrs, data = server._answer(method, self.path, headers, raw)
            self.send_response(status)
            for k, v in hdrs.items():
                self.send_header(k, v)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            self._serve("POST")

        def do_GET(self) -> None:  # noqa: N802
            self._serve("GET")

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # quiet: no output outside the CLI

    return Handler
