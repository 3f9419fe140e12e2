"""`review decide --doc` names one of the item's case documents (issue 14, class 3): a
document outside the case is refused with a clear error, and nothing is decided."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import DocumentNotInCase
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.review.queue import ReviewQueue
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS, tender_library
from tests.review.queues import ANA, strict_schema


def _claimed(tmp_path: Path):
    lib = tender_library(tmp_path / "s")
    lib.ingest([EXAMPLES / TENDER_DOCS[0]], tenant="demo", acl=["group:analysts"],
               source_id="other/pliego.pdf", sandbox=False)
    run_extraction(lib.store, ANA, load_schema(strict_schema(tmp_path)), [TENDER_DOCS[0]],
                   route=False)
    q = ReviewQueue(lib.store, ANA)
    it = q.next()
    assert it is not None
    words = it["evidence"][0]["quote"].split()
    return lib, q, it, " ".join(words[: min(6, len(words))])


def test_decide_refuses_a_document_outside_the_items_case(tmp_path):
    lib, q, it, quote = _claimed(tmp_path)
    value = it["candidate"].get("value")
    with pytest.raises(DocumentNotInCase, match="--doc"):
        q.decide(it["id"], "correct", value=value, quote=quote, doc="other/pliego.pdf")
    assert q.item(it["id"])["state"] == "open"
    # naming the case's own document (bare or with its revision) is fine
    q.decide(it["id"], "correct", value=value, quote=quote, doc=TENDER_DOCS[0])
    lib.close()


def test_review_decide_doc_outside_the_case_through_the_cli(tmp_path):
    lib, _q, it, quote = _claimed(tmp_path)
    lib.close()
    value = json.dumps(it["candidate"].get("value"))
    res = invoke("review", "decide", str(it["id"]), "--decision", "correct", "--value", value,
                 "--quote", quote, "--doc", "other/pliego.pdf", "--as", "demo:ana:analysts",
                 store=tmp_path / "s")
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "not a document of" in res.stderr and TENDER_DOCS[0] in res.stderr
