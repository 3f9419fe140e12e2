"""MCP over streamable HTTP runs each tool call with the credential of the request that
carries it, never the server key's: a read-only key cannot `extract`, a key without
`read` runs no read tool, and another tenant's key is refused and sees nothing. Over real
HTTP on 127.0.0.1, the app built as `pincite mcp --http` builds it."""

from __future__ import annotations

import json

import pytest

from pincite.evals.acceptance.loopback import McpSession, serve
from pincite.service.acceptance_apps import mcp_app
from pincite.service.keyring import KeyRing
from pincite.service.scopes import Scope
from tests.service.serving import ANA, CANARY, make_keys, small_store

SCHEMA = {"name": "law", "fields": [{"name": "governing_law", "type": "text",
                                     "synonyms": {"en": ["governed by the laws of"]}}]}
CALLS = {
    "search": {"query": "governed by the laws of Spain", "k": 3},
    "ask": {"question": "Which law governs the agreement?"},
    "cite": {"doc": "demo/terms.md", "quotes": ["governed by the laws of Spain"]},
    "verify": {"entries": []},
    "show": {"doc": "demo/terms.md"},
    "extract": {"schema": SCHEMA, "docs": ["demo/terms.md"]},
}
NEEDS = {"search": Scope.READ, "ask": Scope.READ, "cite": Scope.READ, "verify": Scope.READ,
         "show": Scope.READ, "extract": Scope.INGEST}


@pytest.fixture(scope="module")
def mcp(tmp_path_factory):
    root = tmp_path_factory.mktemp("mcp-scopes")
    lib = small_store(root)
    ring = KeyRing(root / "keys.json")
    keys = make_keys(ring)
    keys["demo-review"], _ = ring.create(ANA, (Scope.REVIEW,))  # ana's, without read
    try:
        with serve(mcp_app(lib, ring.path, keys["demo"]), lifespan=True) as base:
            yield base + "/mcp", keys
    finally:
        lib.close()


def _refused(result: dict | None) -> bool:
    return bool(result and result.get("isError")) and "forbidden" in json.dumps(result)


def test_a_read_only_key_cannot_extract_on_a_server_started_with_ingest(mcp):
    url, keys = mcp
    session = McpSession(url, keys["demo-read"])
    try:
        assert session.opened
        status, result, _ = session.call("extract", CALLS["extract"], keys["demo-read"])
        assert status == 200 and _refused(result), result
        for tool in ("search", "show", "cite"):
            status, result, _ = session.call(tool, CALLS[tool], keys["demo-read"])
            assert status == 200 and not result["isError"], (tool, result)
        # the same session, a request carrying the key with ingest: that call may extract
        status, result, _ = session.call("extract", CALLS["extract"], keys["demo"])
        assert status == 200 and not result["isError"], result
    finally:
        session.close()


def test_each_tool_needs_its_scope_from_the_calling_credential(mcp):
    url, keys = mcp
    session = McpSession(url, keys["demo-review"])
    try:
        for tool, args in CALLS.items():
            status, result, _ = session.call(tool, args, keys["demo-review"])
            assert status == 200 and _refused(result), (tool, NEEDS[tool], result)
    finally:
        session.close()


def test_another_tenants_key_is_refused_and_sees_nothing(mcp):
    url, keys = mcp
    refused = McpSession(url, keys["globex"])
    refused.close()
    assert not refused.opened
    session = McpSession(url, keys["demo"])
    try:
        for tool, args in CALLS.items():
            status, result, text = session.call(tool, args, keys["globex"])
            assert status == 401 and result is None, (tool, status)
            assert "Spain" not in text and CANARY not in text
    finally:
        session.close()
