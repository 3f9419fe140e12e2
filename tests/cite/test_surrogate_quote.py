"""A quote holding a lone surrogate (an undecodable byte: `cite --quote $'\\udc80'`, or
`"\\udc80"` in a JSON body) is a clean usage error, never a traceback or a 500 (issue 25)."""

from __future__ import annotations

import httpx
import pytest

import pincite
from pincite.errors import UsageError
from tests.commands import invoke
from tests.service.serving import ANA, running

TEXT = b"# Terms\n\n1. Payment\n\nInvoices are payable within thirty (30) days.\n"


def _lib(root):
    lib = pincite.open(root / "store", create=True)
    lib.ingest_bytes(TEXT, source_id="terms.md", tenant="demo", acl=["group:analysts"],
                     sandbox=False)
    return lib


@pytest.mark.parametrize("quote", ["\udc80", "Invoices are \udcff payable", "\ud800"])
def test_the_api_and_the_cli_refuse_a_lone_surrogate_in_a_quote(tmp_path, quote):
    lib = _lib(tmp_path)
    with pytest.raises(UsageError, match="surrogate"):
        lib.verifier(ANA).cite("terms.md", quote)
    lib.close()
    run = invoke("cite", "terms.md", "--quote", quote, "--as", str(ANA), store=tmp_path / "store")
    assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
    assert run.stderr.startswith("error: ") and "surrogate" in run.stderr


def test_cite_over_http_refuses_a_lone_surrogate_with_a_400(tmp_path):
    lib = _lib(tmp_path)
    with running(tmp_path, lib=lib) as svc, httpx.Client(base_url=svc.base, timeout=60) as c:
        h = {**svc.auth("demo"), "Content-Type": "application/json"}
        for body in (b'{"doc": "terms.md", "quotes": ["\\udc80"]}',
                     b'{"doc": "terms.md", "quotes": ["Invoices", "payable \\ud800 within"]}'):
            r = c.post("/cite", content=body, headers=h)
            assert r.status_code == 400, r.text
            assert "surrogate" in r.json()["error"]["message"]
        ok = c.post("/cite", json={"doc": "terms.md", "quotes": ["Invoices are payable"]},
                    headers=h)
        assert ok.status_code == 200 and ok.json()[0]["quote_verified"] is True
    lib.close()
