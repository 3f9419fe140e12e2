"""A source id that is a step of a path ('.', '..', 'x/..', './x') is refused as a usage
error on every way in: the Python API, the CLI (sync and --async) and `POST /ingest`,
where it was a 500 (the upload was spooled to a file named after it) (issue 25)."""

from __future__ import annotations

import httpx
import pytest

import pincite
from pincite.errors import UsageError
from tests.commands import invoke
from tests.service.serving import running

DOTTED = [".", "..", "x/..", "./x", "a/./b", "../etc/passwd"]


@pytest.mark.parametrize("source_id", DOTTED)
def test_the_api_and_the_cli_refuse_a_dotted_source_id(tmp_path, source_id):
    lib = pincite.open(tmp_path / "store", create=True)
    with pytest.raises(UsageError, match="'.' or '..' part"):
        lib.ingest_bytes(b"hello\n", source_id=source_id, tenant="demo", acl=["*"], sandbox=False)
    assert lib.store.sources("demo") == []
    lib.close()
    doc = tmp_path / "a.txt"
    doc.write_text("hello\n", "utf-8")
    for extra in ((), ("--async",)):
        run = invoke("ingest", str(doc), "--id", source_id, *extra, store=tmp_path / "store")
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
        assert "\nerror: invalid source id" in "\n" + run.stderr, run.stderr


def test_post_ingest_refuses_a_dotted_source_id_with_a_400(tmp_path):
    lib = pincite.open(tmp_path / "store", create=True)
    with running(tmp_path, lib=lib) as svc, httpx.Client(base_url=svc.base, timeout=60) as c:
        h = {**svc.auth("demo"), "Content-Type": "application/octet-stream"}
        for source_id in DOTTED:
            r = c.post("/ingest", params={"source_id": source_id}, content=b"hello\n", headers=h)
            assert r.status_code == 400, (source_id, r.text)
            assert r.json()["error"]["code"] == "usage"
        ok = c.post("/ingest", params={"source_id": "a.txt"}, content=b"hello\n", headers=h)
        assert ok.status_code == 200, ok.text
    lib.close()
