"""MCP SCOPES: over streamable HTTP, each MCP tool runs with the calling credential's scopes.

`pincite mcp --http` runs over real HTTP on 127.0.0.1, started with a key of tenant
`acme` that holds read, ingest and review. Every tool (search, ask, cite, verify, show,
extract) is then called by keys of the same principal that lack the tool's scope (read
only: no extract; review only: nothing; ingest only: no read tool), by those holding it,
and by another tenant's key.

The promises: a call whose request credential lacks the tool's scope is refused
(`forbidden`), whatever the server key holds; another tenant's key is refused (401) and
its answers carry nothing of the first tenant; calls whose credential holds the scope
are served (the check is not vacuous).
"""

from __future__ import annotations

import json
from typing import Any

from .harness import Drivers, Size, Workspace
from .loopback import OTHER, OWN, McpSession, serve, service_figures, tenants
from .scoreboard import Scoreboard

GROUP = "MCP SCOPES"
F_REFUSED = "tool calls run by a credential that lacks the tool's scope"
F_CROSS = "tool calls by another tenant's key served, or its answers holding this tenant's text"
F_OWN = "tool calls by a credential holding the scope refused (not vacuous)"
NEEDS = {"search": "read", "ask": "read", "cite": "read", "verify": "read", "show": "read",
         "extract": "ingest"}
SCHEMA = {"name": "law", "fields": [{"name": "governing_law", "type": "text",
                                     "synonyms": {"en": ["governed by the laws of"]}}]}


def _arguments(tool: str) -> dict[str, Any]:
    """The arguments of one call of `tool` over acme's document."""
    calls: dict[str, dict[str, Any]] = {
        "search": {"query": "governed by the laws of Spain", "k": 3},
        "ask": {"question": "Which law governs the agreement?"},
        "cite": {"doc": "terms.md", "quotes": ["governed by the laws of Spain"]},
        "verify": {"entries": [{"doc_id": "terms.md@r1", "doc_sha256": "0" * 64,
                                "text_layer": "x", "locator": "p", "char_start": 0,
                                "char_end": 5, "quote": "words"}]},
        "show": {"doc": "terms.md"},
        "extract": {"schema": SCHEMA, "docs": ["terms.md"]},
    }
    return calls[tool]


def run_mcp_scopes(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                   seed: int) -> None:
    """Run the MCP SCOPES group into `board`."""
    names = (F_REFUSED, F_CROSS, F_OWN)
    got = service_figures(board, GROUP, names, drivers, mcp=True)
    if got is None:
        return
    f = got
    t = tenants(ws, drivers, seed, "mcp")
    server_key, _ = t.key(drivers, OWN, "read", "ingest", "review")
    held = {("read",): t.key(drivers, OWN, "read")[0],
            ("review",): t.key(drivers, OWN, "review")[0],
            ("ingest",): t.key(drivers, OWN, "ingest")[0],
            ("read", "ingest", "review"): server_key}
    other_key, _ = t.key(drivers, OTHER, "read", "ingest")
    canary = t.canary["acme"]
    try:
        with serve(drivers.service.mcp(t.lib, t.keys, server_key), lifespan=True) as base:
            url = base + "/mcp"
            session = McpSession(url, server_key)
            try:
                for scopes, key in held.items():
                    for tool, need in NEEDS.items():
                        if need == "ingest" and scopes == ("read", "ingest", "review"):
                            continue  # the ingest-only key shows extract served
                        status, result, text = session.call(tool, _arguments(tool), key)
                        ran = status == 200 and result is not None and not result.get("isError")
                        where = f"{tool} with a key holding {'+'.join(scopes)}"
                        if need in scopes:
                            f[F_OWN].attempt(ran, f"{where} -> {status} {text[:160]}")
                        else:
                            refused = status in (401, 403) or (
                                status == 200 and bool(result) and "forbidden" in json.dumps(result))
                            f[F_REFUSED].attempt(refused and not ran,
                                                 f"{where} ran: {text[:160]}")
                for tool in NEEDS:
                    status, result, text = session.call(tool, _arguments(tool), other_key)
                    f[F_CROSS].attempt(status == 401 and canary not in text,
                                       f"{tool} with globex's key in acme's session -> "
                                       f"{status} {text[:120]}")
            finally:
                session.close()
            theirs = McpSession(url, other_key)
            theirs.close()
            f[F_CROSS].attempt(not theirs.opened, "globex's key opened a session on acme's "
                               "server")
    finally:
        t.close()
    board.note(GROUP, f"{len(NEEDS)} tools x {len(held)} keys of one principal (read, review, "
               "ingest, all three) and another tenant's key, over streamable HTTP")
