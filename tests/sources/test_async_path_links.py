"""A durable ingest's worker never follows a folder swapped for a link after the run was
enqueued (issue 25): the path the run recorded was resolved then, so a link in any
component of it now is `symlink`, quarantined unread — O_NOFOLLOW on the last component
alone let a swapped folder lead the worker to another user's file. Fails on 2a71066."""

from __future__ import annotations

import os
import shutil

import pytest

from pincite.errors import ParseFailure
from pincite.limits import Limits
from pincite.sources.acquire import open_bounded

pytest.importorskip("dbos")

from pincite.runs import steps  # noqa: E402
from pincite.runs.ingest_flow import ingest_one  # noqa: E402

SECRET = "SECRETPAYROLL4471"


def test_a_folder_swapped_for_a_link_after_enqueue_is_not_followed(lib, tmp_path, monkeypatch):
    mine, elsewhere = tmp_path / "in" / "mine", tmp_path / "elsewhere"
    mine.mkdir(parents=True)
    elsewhere.mkdir()
    (mine / "report.md").write_text("# Report\n\nQuarterly figures.\n", "utf-8")
    (elsewhere / "report.md").write_text(f"# Payroll\n\n{SECRET}\n", "utf-8")
    read_from = (mine / "report.md").resolve()
    spec = {"tenant": "acme", "owner": "ann", "groups": [], "acl": None, "new_acl": ["*"],
            "limits": Limits(), "sandbox": False, "publish": False,
            "inputs": [{"path": str(read_from), "source_id": "report.md", "name": "report.md",
                        "read_from": str(read_from), "reason": None, "detail": None}]}
    shutil.rmtree(mine)  # after the request: the folder becomes a link to another
    os.symlink(elsewhere, mine)
    monkeypatch.setitem(steps._WORKER, "store", lib.store)
    out = ingest_one(spec, spec["inputs"][0], lambda _name, body: body())
    assert (out["status"], out["reason"]) == ("quarantined", "symlink")
    assert lib.store.source("acme", "report.md") is None
    with pytest.raises(ParseFailure):
        open_bounded(read_from, 10_000, links_in_path=False)
    with open_bounded(elsewhere.resolve() / "report.md", 10_000, links_in_path=False) as f:
        assert f.size > 0  # a path without links opens
