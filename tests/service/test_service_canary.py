"""An open release canary routes its cohort in the service as it does in the CLI: search
and ask over HTTP, and the MCP tools, serve a cohort member from the canary's generation
and everyone else from the published one (one decision: `Library.canary_for`)."""

from __future__ import annotations

import json

import anyio
import httpx

from pincite.service.auth import Authenticator
from pincite.service.mcp_tools import build_mcp
from tests.corpus import EMB
from tests.service.serving import ANA, build_store, running

QUESTION = "¿Cuál es el plazo de ejecución?"


def _route(releases, gen: str) -> None:
    """Write the route `pincite release canary` leaves (`release.ops.Releases.canary`)."""
    releases.mkdir(exist_ok=True)
    (releases / "canary.json").write_text(json.dumps({
        "cohort": "pilot", "generation": gen, "principals": [str(ANA)],
        "release_id": "rel-0001", "at": "2026-12-01T00:00:00.000000+00:00"}), "utf-8")


def _served_from(c: httpx.Client, headers: dict[str, str]) -> tuple[str, str]:
    s = c.get("/search", params={"q": "garantía definitiva"}, headers=headers)
    a = c.get("/ask", params={"q": QUESTION}, headers=headers)
    assert s.status_code == 200 and a.status_code == 200, (s.text, a.text)
    assert s.json()["items"] and a.json()["status"] == "answered"
    return s.json()["generation"], a.json()["generation"]


def _mcp_served_from(server) -> tuple[str, str]:
    async def calls() -> tuple[str, str]:
        out = []
        for tool, args in (("search", {"query": "garantía definitiva"}),
                           ("ask", {"question": QUESTION})):
            result = await server.call_tool(tool, args)
            assert not result.is_error, result.content
            out.append(json.loads(result.content[0].text)["result"]["generation"])
        return out[0], out[1]

    return anyio.run(calls)


def test_the_cohort_is_served_from_the_canary_and_everyone_else_from_the_published(tmp_path):
    lib = build_store(tmp_path)
    published = lib.pointer()[0]
    canary = lib.build_index(EMB).gen_id  # built, not published
    assert canary != published
    releases = tmp_path / "releases"
    _route(releases, canary)
    try:
        with running(tmp_path, lib=lib, releases=releases) as svc, \
                httpx.Client(base_url=svc.base, timeout=60) as c:
            # ana (both of her keys) is in the cohort; lea of demo and gus of globex are not
            served = {who: _served_from(c, svc.auth(who))
                      for who in ("demo", "demo-read", "demo-admin")}
            assert served == {"demo": (canary, canary), "demo-read": (canary, canary),
                              "demo-admin": (published, published)}
            g = c.get("/search", params={"q": "Globex"}, headers=svc.auth("globex")).json()
            assert g["generation"] == published
            # the CLI's decision for the same principal is the same one
            assert lib.canary_for(ANA, releases) == canary
            auth = Authenticator(keys=svc.ring)
            assert _mcp_served_from(build_mcp(lib, auth, svc.keys["demo"], releases)) == (
                canary, canary)
            assert _mcp_served_from(build_mcp(lib, auth, svc.keys["demo-admin"], releases)) \
                == (published, published)
            # promotion or rollback removes the route: everyone reads the published again
            (releases / "canary.json").unlink()
            assert _served_from(c, svc.auth("demo")) == (published, published)
            # a damaged route file routes nobody rather than failing every query
            (releases / "canary.json").write_text("{not json", "utf-8")
            assert _served_from(c, svc.auth("demo")) == (published, published)
    finally:
        lib.close()


def test_without_releases_configured_the_records_beside_the_store_route(tmp_path):
    lib = build_store(tmp_path)
    published = lib.pointer()[0]
    canary = lib.build_index(EMB).gen_id
    _route(tmp_path / "store" / "releases", canary)  # `<store>/releases`, as the CLI reads
    try:
        with running(tmp_path, lib=lib) as svc, httpx.Client(base_url=svc.base,
                                                              timeout=60) as c:
            assert _served_from(c, svc.auth("demo")) == (canary, canary)
            assert _served_from(c, svc.auth("demo-admin")) == (published, published)
    finally:
        lib.close()
