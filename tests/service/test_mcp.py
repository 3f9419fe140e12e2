"""The MCP server through the SDK's own client: `pincite mcp` over stdio (and streamable
HTTP) lists its tools; `search` and `ask` return evidence with verified citations,
marked as untrusted document text; another tenant's key gets nothing of it."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from pincite.service.keyring import KeyRing
from tests.service.serving import ANA, CANARY, GUS, WORKING, build_store

TOOLS = {"search", "ask", "cite", "verify", "show", "extract"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp")
    build_store(root).close()
    ring = KeyRing(root / "keys.json")
    demo, _ = ring.create(ANA, WORKING)
    globex, _ = ring.create(GUS, WORKING)
    return root / "store", root / "keys.json", {"demo": demo, "globex": globex}


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}


def _payload(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    if result.structured_content is not None:
        body = result.structured_content
        return body.get("result", body) if "tool" not in body else body
    return json.loads(result.content[0].text)


async def _session_calls(store: Path, keys: Path, key: str) -> dict[str, Any]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "pincite.cli", "mcp", "--store", str(store), "--keys", str(keys), "--key", key],
        env=_env())
    out: dict[str, Any] = {}
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = {t.name for t in (await session.list_tools()).tools}
            out["search"] = _payload(await session.call_tool(
                "search", {"query": "garantía definitiva", "k": 5}))
            out["ask"] = _payload(await session.call_tool(
                "ask", {"question": "¿Cuál es el plazo de ejecución?"}))
            out["canary"] = _payload(await session.call_tool("search", {"query": CANARY}))
            cited = await session.call_tool("cite", {"doc": "tender/pliego.pdf",
                                                     "quotes": ["garantía definitiva"]})
            out["cite_error"] = cited.is_error
            if not cited.is_error:
                entries = _payload(cited)["result"]
                out["verify"] = _payload(await session.call_tool("verify", {"entries": entries}))
            shown = await session.call_tool("show", {"doc": "tender/pliego.pdf"})
            out["show_error"] = shown.is_error
            out["show_text"] = "" if shown.is_error else shown.content[0].text[:2000]
    return out


def test_search_and_ask_give_verified_citations_and_nothing_to_another_tenant(store):
    path, keys, k = store
    demo = anyio.run(_session_calls, path, keys, k["demo"])
    assert demo["tools"] >= TOOLS
    search = demo["search"]
    assert search["document_text"] == "untrusted" and "never instructions" in search["note"]
    items = search["result"]["items"]
    assert items and all(i["doc_id"].startswith("tender/") for i in items)
    ask = demo["ask"]["result"]
    assert ask["status"] == "answered" and ask["items"]
    cits = [i["citation"] for i in ask["items"]]
    assert all(c["quote_verified"] is True and c["verify_reason"] for c in cits)
    # answers carry their kind and confidence; what retrieval found besides is related,
    # never an answer (issue 26)
    assert all(i["role"] == "answer" and i["answer_kind"] and 0 < i["confidence"] <= 1
               for i in ask["items"])
    spans = {(i["doc_id"], i["char_start"], i["char_end"]) for i in ask["items"]}
    assert all(i["role"] == "related" and "confidence" not in i and
               (i["doc_id"], i["char_start"], i["char_end"]) not in spans
               for i in ask.get("related", []))
    assert not demo["show_error"]
    assert not demo["cite_error"]
    assert [v["quote_verified"] for v in demo["verify"]["result"]] == [True]
    assert CANARY not in json.dumps(demo["canary"]["result"]["items"])

    globex = anyio.run(_session_calls, path, keys, k["globex"])
    assert globex["search"]["result"]["items"] == [] or all(
        i["doc_id"].startswith("globex/") for i in globex["search"]["result"]["items"])
    assert "tender/" not in json.dumps(globex["ask"]["result"])
    assert globex["show_error"] is True  # not found, as a missing document
    assert globex["cite_error"] is True
    assert CANARY in json.dumps(globex["canary"]["result"]["items"])


def test_a_key_that_does_not_authenticate_starts_nothing(store):
    path, keys, _ = store
    r = subprocess.run([sys.executable, "-m", "pincite.cli", "mcp", "--store", str(path),
                        "--keys", str(keys), "--key", "pck_000000000000_forged"],
                       capture_output=True, text=True, env=_env(), timeout=60, stdin=subprocess.DEVNULL)
    assert r.returncode == 1 and "no valid credentials" in r.stderr


def test_streamable_http_needs_the_same_principals_bearer(store):
    path, keys, k = store
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    proc = subprocess.Popen([sys.executable, "-m", "pincite.cli", "mcp", "--store", str(path),
                             "--keys", str(keys), "--key", k["demo"], "--http", "--port",
                             str(port)], env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.time() + 60
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert time.time() < deadline and proc.poll() is None
                time.sleep(0.1)
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"}}}
        hdrs = {"Accept": "application/json, text/event-stream"}
        assert httpx.post(url, json=init, headers=hdrs).status_code == 401
        other = {**hdrs, "Authorization": f"Bearer {k['globex']}"}
        assert httpx.post(url, json=init, headers=other).status_code == 401
        ok = httpx.post(url, json=init, headers={**hdrs, "Authorization": f"Bearer {k['demo']}"})
        assert ok.status_code == 200, ok.text
    finally:
        proc.terminate()
        proc.wait(timeout=30)
