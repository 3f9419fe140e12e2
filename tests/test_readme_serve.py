"""The README's "Serve it" section, run as written: after `make run` (here: the example tender
in `./pincite-store`), its `pincite keys create` and `pincite serve` commands, run as
processes of the installed `pincite`, answer its curl with the key and refuse it without
(401); a wrong key is refused and another tenant's key gets nothing of tenant demo; and its
MCP client configuration starts a server the MCP SDK's client searches through."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

from pincite.model import Principal
from pincite.service.keyring import KeyRing
from pincite.service.scopes import Scope
from tests.corpus import ROOT, tender_library

PINCITE = Path(sys.executable).parent / "pincite"  # the installed command, as make run leaves it


def section() -> str:
    """Return the README's "Serve it" section."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    match = re.search(r"^## Serve it\n(.*?)^## ", text, re.S | re.M)
    assert match, "README.md has no '## Serve it' section"
    return match.group(1)


def shell_lines(prefix: str) -> list[str]:
    """Return the section's console lines that start with `$ PREFIX` (the prompt dropped)."""
    return [line[2:] for line in section().splitlines() if line.startswith("$ " + prefix)]


def keys_create_argv() -> list[str]:
    """Return the argv of the README's `export PINCITE_KEY=$(pincite keys create …)`."""
    [line] = shell_lines("export PINCITE_KEY=$(")
    inner = line[len("export PINCITE_KEY=$("):].removesuffix(")")
    argv = shlex.split(inner)
    assert argv[:3] == ["pincite", "keys", "create"], argv
    return argv[1:]


def serve_argv(port: int) -> list[str]:
    """Return the argv of the README's `pincite serve …` on `port` instead of its own."""
    [line] = shell_lines("pincite serve")
    argv = shlex.split(line.removesuffix("&"))[1:]
    at = argv.index("--port")
    argv[at + 1] = str(port)
    return argv


def curls() -> list[tuple[str, bool]]:
    """Return each README curl's URL and whether it sends the key."""
    out = []
    for line in shell_lines("curl "):
        argv = shlex.split(line.replace("$PINCITE_KEY", "KEY"))
        out.append((argv[-1], "Authorization: Bearer KEY" in argv))
    return out


def mcp_config(store: Path, key: str) -> dict[str, Any]:
    """Return the README's MCP client entry with this checkout's paths and `key` filled in."""
    [block] = re.findall(r"```json\n(.*?)```", section(), re.S)
    entry = json.loads(block)["mcpServers"]["pincite"]
    assert entry["command"] == "/path/to/pincite/.venv/bin/pincite", entry
    entry["command"] = str(PINCITE)
    entry["args"] = [str(store) if a == "/path/to/pincite/pincite-store" else a
                     for a in entry["args"]]
    assert entry["env"] == {"PINCITE_KEY": "pck_…"}, entry
    entry["env"] = {**os.environ, "PINCITE_KEY": key}
    return entry


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serving(cwd: Path, port: int) -> Iterator[str]:
    """Run the README's `pincite serve` in `cwd` on `port` until its /healthz answers; yield
    its base URL."""
    proc = subprocess.Popen([str(PINCITE), *serve_argv(port)], cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if proc.poll() is not None:
                raise AssertionError(f"pincite serve exited {proc.returncode}: "
                                     f"{proc.stderr.read() if proc.stderr else ''}")
            assert time.monotonic() < deadline, "pincite serve did not answer in 60 s"
            time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr:
            proc.stderr.close()


async def _mcp_search(entry: dict[str, Any], query: str) -> tuple[set[str], dict[str, Any]]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env=entry["env"])
    with open(os.devnull, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write), \
                ClientSession(read, write) as session:
            await session.initialize()
            tools = {t.name for t in (await session.list_tools()).tools}
            result = await session.call_tool("search", {"query": query, "k": 3})
            assert not result.is_error, result.content
            return tools, json.loads(result.content[0].text)


@pytest.fixture(scope="module")
def after_make_run(tmp_path_factory) -> Path:
    """A folder holding what `make run` leaves to the next commands: the example tender in
    `./pincite-store`, tenant demo, readable by group analysts."""
    assert PINCITE.is_file(), f"{PINCITE} is missing: the test drives the installed command"
    cwd = tmp_path_factory.mktemp("after-make-run")
    tender_library(cwd / "pincite-store").close()
    return cwd


def test_the_readme_key_and_server_answer_its_curl_and_refuse_without_the_key(after_make_run):
    cwd = after_make_run
    made = subprocess.run([str(PINCITE), *keys_create_argv()], cwd=cwd, capture_output=True,
                          text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    key = made.stdout.strip()
    assert re.fullmatch(r"pck_[0-9a-f]{12}_\S+", key), made.stdout  # stdout is the key alone
    assert "demo:ana:analysts" in made.stderr and "shown only now" in made.stderr
    stored = (cwd / "pincite-store" / "keys.json").read_text(encoding="utf-8")
    assert key.split("_", 2)[2] not in stored  # only its hash is kept
    # another tenant's key, and a key that was never made
    other, _ = KeyRing(cwd / "pincite-store" / "keys.json").create(
        Principal("other", "eve", ("analysts",)), (Scope.READ,))
    never = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    urls = curls()
    assert [with_key for _, with_key in urls] == [True, False], urls
    port = _free_port()
    with serving(cwd, port) as base:
        for url, with_key in urls:
            assert url.startswith("http://127.0.0.1:8080/"), url
            url = base + url.removeprefix("http://127.0.0.1:8080")
            if with_key:
                r = httpx.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=60)
                assert r.status_code == 200, r.text
                body = r.json()
                assert body["schema_name"] == "pincite.evidence_bundle"
                assert body["items"], body
                assert {i["source_id"] for i in body["items"]} <= {
                    "tender/pliego.pdf", "tender/anexo-tecnico.docx", "tender/anuncio.html"}
                assert "tender/pliego.pdf" in {i["source_id"] for i in body["items"]}
                for bad in (never, "not-a-key"):
                    refused = httpx.get(url, headers={"Authorization": f"Bearer {bad}"})
                    assert refused.status_code == 401, refused.text
                eve = httpx.get(url, headers={"Authorization": f"Bearer {other}"})
                assert eve.status_code == 200 and eve.json()["items"] == [], eve.text
            else:
                r = httpx.get(url, timeout=60)
                assert r.status_code == 401, r.text
                assert r.json()["error"]["code"] == "unauthenticated"
                assert "items" not in r.text


def test_the_readme_mcp_configuration_searches_as_its_key(after_make_run):
    store = after_make_run / "pincite-store"
    ring = KeyRing(store / "keys.json")
    key, _ = ring.create(Principal("demo", "ana", ("analysts",)), (Scope.READ,))
    tools, found = anyio.run(_mcp_search, mcp_config(store, key), "solvencia económica")
    assert {"search", "ask", "cite", "verify", "show", "extract"} <= tools
    assert found["document_text"] == "untrusted"
    items = found["result"]["items"]
    assert items and items[0]["source_id"] == "tender/pliego.pdf", found
    # another tenant's key gets nothing over MCP: tests/service/test_mcp.py
