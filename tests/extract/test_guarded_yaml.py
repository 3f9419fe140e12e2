"""An extraction schema is read by the guarded loader wherever it arrives: a file given to
`pincite extract --schema`, the schema of `POST /extract` and the MCP `extract` tool's
argument. A 1.4 KB alias bomb, YAML nested 5,000 deep (block and flow), numbers that are
not finite and non-plain tags are refused with a clear message, no traceback, no 500 and a
bounded Python heap; an invalid schema's message names "the schema", never a temporary
path of the server's."""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from pincite.service.auth import Authenticator
from pincite.service.mcp_tools import build_mcp
from tests.commands import invoke
from tests.corpus import add, publish
from tests.service.serving import running

AS = ("--as", "demo:ana:analysts")
DOC = "fees.md"
TEXT = "# Fees\n\nThe annual fee is EUR 1,200, payable in advance.\n"
HEAP_BOUND = 32 * 1024 * 1024  # a refused schema costs a few MiB at most


def alias_bomb(levels: int = 19, width: int = 9) -> str:
    """Return a billion-laughs YAML schema: a valid schema whose free-form value holds
    `levels` anchors, each a list of `width` aliases of the one before (width**levels
    leaves once expanded)."""
    lines = ["  - &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"  - &a{i} [{', '.join([f'*a{i - 1}'] * width)}]" for i in range(1, levels)]
    return ("name: fees\nfields:\n  - name: fee\n    type: money\n"
            "    synonyms: {en: [annual fee]}\n    value_patterns:\n"
            "      - pattern: 'annual fee'\n        value:\n"
            + "\n".join(" " * 8 + x for x in lines) + "\n")


def with_value(value: str) -> str:
    """Return a valid schema whose free-form `value` is `value` (a flow node)."""
    return ("name: fees\nfields:\n  - name: fee\n    type: money\n"
            "    synonyms: {en: [annual fee]}\n    value_patterns:\n"
            f"      - pattern: 'never stated anywhere'\n        value: {value}\n")


DEEP_BLOCK = ("name: fees\nfields:\n  - name: fee\n    type: money\n"
              "    description: x\n    examples:\n      " + "- " * 5000 + "x\n")
DEEP_FLOW = with_value("[" * 5000 + "]" * 5000)
NAN_MAX = ("name: fees\nfields:\n  - name: fee\n    type: money\n"
           "    synonyms: {en: [annual fee]}\n    max: .nan\n")
HUGE_MAX = NAN_MAX.replace(".nan", "1e400")
INVALID = "name: fees\nfields:\n  - name: fee\n    type: moneyy\n"

HOSTILE = {"alias bomb": (alias_bomb(), "YAML aliases"),
           "5,000 deep, block": (DEEP_BLOCK, "nests too deeply"),
           "5,000 deep, flow": (DEEP_FLOW, "nests too deeply"),
           ".nan": (NAN_MAX, "finite"),
           "1e400": (HUGE_MAX, "finite"),
           "'1e400' quoted": (NAN_MAX.replace(".nan", "'1e400'"), "finite"),
           "!!binary": (with_value("!!binary aGVsbG8="), "not plain data")}


def test_the_bomb_is_the_size_the_finding_names():
    assert 1300 <= len(alias_bomb().encode()) <= 1500


def _heap(call: Callable[[], Any]) -> tuple[Any, int]:
    """Return what `call` returned and the Python heap's peak while it ran."""
    tracemalloc.start()
    try:
        return call(), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    """A store holding one small document of tenant demo, readable by group analysts."""
    import pincite

    root = tmp_path_factory.mktemp("guarded") / "store"
    lib = pincite.open(root, create=True)
    add(lib, DOC, TEXT, tenant="demo", acl=("group:analysts",))
    publish(lib)
    lib.close()
    return root


# ---- the CLI ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(HOSTILE))
def test_the_cli_refuses_a_hostile_schema_file_cleanly(store, tmp_path, name):
    text, words = HOSTILE[name]
    schema = tmp_path / "hostile.yaml"
    schema.write_text(text, "utf-8")
    invoke("extract", "--schema", str(tmp_path / "missing.yaml"), DOC, *AS, store=store)  # warm
    r, peak = _heap(lambda: invoke("extract", "--schema", str(schema), DOC, *AS, "--json",
                                   store=store))
    assert r.returncode == 2, (r.returncode, r.stdout[:200], r.stderr[-400:])
    assert "Traceback" not in r.stderr and r.stdout == ""
    assert r.stderr.startswith(f"error: {schema}") and words in r.stderr, r.stderr
    assert peak < HEAP_BOUND, peak


def test_the_cli_still_reads_a_plain_schema(store, tmp_path):
    schema = tmp_path / "plain.yaml"
    schema.write_text(with_value("[1, 2]"), "utf-8")
    r = invoke("extract", "--schema", str(schema), DOC, *AS, "--json", store=store)
    assert r.returncode == 0, r.stderr
    assert [x["field"] for x in json.loads(r.stdout)["records"]] == ["fee"]


# ---- POST /extract over HTTP -------------------------------------------------------------


@pytest.fixture(scope="module")
def svc(store, tmp_path_factory) -> Iterator[Any]:
    import pincite

    lib = pincite.open(store)
    try:
        with running(tmp_path_factory.mktemp("guarded-http"), lib=lib) as s:
            yield s
    finally:
        lib.close()


def _post(svc: Any, schema: Any) -> httpx.Response:
    return httpx.post(svc.base + "/extract", json={"schema": schema, "docs": [DOC]},
                      headers=svc.auth("demo"), timeout=120)


def test_an_invalid_schema_over_http_names_the_schema_not_a_server_path(svc):
    r = _post(svc, INVALID)
    assert r.status_code == 400, r.text
    message = r.json()["error"]["message"]
    assert message.startswith("the schema: ") and "fields/0/type" in message, message
    assert "/tmp" not in message and "pincite-" not in message and "schema.yaml" not in message
    r = _post(svc, json.loads(json.dumps({"name": "fees", "fields": [{"name": "fee",
                                                                      "type": "moneyy"}]})))
    assert r.status_code == 400 and r.json()["error"]["message"].startswith("the schema: ")
    assert "/tmp" not in r.text and "schema.json" not in r.text


@pytest.mark.parametrize("name", list(HOSTILE))
def test_post_extract_refuses_a_hostile_schema_with_400(svc, name):
    text, words = HOSTILE[name]
    _post(svc, INVALID)  # warm: the refusal path's modules are imported
    r, peak = _heap(lambda: _post(svc, text))
    assert r.status_code == 400, (r.status_code, r.text[:300])
    body = r.json()["error"]
    assert body["code"] == "invalid_schema" and words in body["message"], body
    assert body["message"].startswith("the schema")
    assert len(r.content) < 4096 and peak < HEAP_BOUND, (len(r.content), peak)


def test_post_extract_refuses_a_json_schema_with_nan_or_deep_nesting(svc):
    nan = {"name": "fees", "fields": [{"name": "fee", "type": "money", "max": float("nan")}]}
    body = json.dumps({"schema": nan, "docs": [DOC]})  # Python writes NaN, as some clients do
    r = httpx.post(svc.base + "/extract", content=body, timeout=120,
                   headers={**svc.auth("demo"), "Content-Type": "application/json"})
    assert r.status_code == 400 and "not a number JSON allows" in r.text, r.text
    deep: Any = 1
    for _ in range(60):  # under the front door's JSON depth, over a schema's
        deep = {"a": deep}
    r = _post(svc, {"name": "fees", "fields": [{"name": "fee", "type": "money",
                                                 "value_patterns": [{"pattern": "x",
                                                                     "value": deep}]}]})
    assert r.status_code == 400 and "nests deeper" in r.json()["error"]["message"], r.text


# ---- the MCP extract tool ------------------------------------------------------------------


def test_the_mcp_extract_tool_refuses_a_hostile_schema(store, tmp_path):
    from mcp import Client

    import pincite
    from pincite.model import Principal
    from pincite.service.keyring import KeyRing
    from pincite.service.scopes import Scope

    ring = KeyRing(tmp_path / "keys.json")
    key, _ = ring.create(Principal.parse("demo:ana:analysts"), (Scope.READ, Scope.INGEST))
    lib = pincite.open(store)

    async def calls() -> dict[str, Any]:
        server = build_mcp(lib, Authenticator(keys=ring), key)
        out: dict[str, Any] = {}
        async with Client(server) as client:
            for name, (text, _words) in {"invalid": (INVALID, ""), **HOSTILE}.items():
                tracemalloc.start()
                try:
                    got = await client.call_tool("extract", {"schema": text, "docs": [DOC]})
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                out[name] = (got, peak)
            out["plain"] = await client.call_tool("extract", {"schema": with_value("[1]"),
                                                              "docs": [DOC]}), 0
        return out

    try:
        got = anyio.run(calls)
    finally:
        lib.close()
    plain, _ = got["plain"]
    assert not plain.is_error, plain.content
    invalid, _ = got["invalid"]
    assert invalid.is_error and "/tmp" not in invalid.content[0].text
    for name, (_text, words) in HOSTILE.items():
        result, peak = got[name]
        assert result.is_error, (name, str(result.content)[:300])
        text = result.content[0].text  # "Error executing tool extract: {code, message}"
        error = json.loads(text[text.index("{"):])
        assert error["code"] == "invalid_schema" and words in error["message"], (name, error)
        assert peak < HEAP_BOUND, (name, peak)
