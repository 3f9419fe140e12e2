"""Review and the case (issue 14, class 3): `review decide --doc` names one of the item's
case documents — any other is refused with a clear error and nothing is decided; an item
whose case holds a document the reviewer may not read is "not found"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pincite.errors import DocumentNotInCase, NotFound
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.model import Principal
from pincite.review.queue import ReviewQueue
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS, tender_library
from tests.review.queues import ANA, strict_schema


def _claimed(tmp_path: Path, store_url: str):
    lib = tender_library(store_url)
    lib.ingest([EXAMPLES / TENDER_DOCS[0]], tenant="demo", acl=["group:analysts"],
               source_id="other/pliego.pdf", sandbox=False)
    run_extraction(lib.store, ANA, load_schema(strict_schema(tmp_path)), [TENDER_DOCS[0]],
                   route=False)
    q = ReviewQueue(lib.store, ANA)
    it = q.next()
    assert it is not None
    return lib, q, it, it["evidence"][0]["quote"]


def test_decide_refuses_a_document_outside_the_items_case(tmp_path, store_url):
    lib, q, it, quote = _claimed(tmp_path, store_url)
    value = it["candidate"].get("value")
    with pytest.raises(DocumentNotInCase, match="--doc"):
        q.decide(it["id"], "correct", value=value, quote=quote, doc="other/pliego.pdf")
    assert q.item(it["id"])["state"] == "open"
    # naming the case's own document (bare or with its revision) is fine
    q.decide(it["id"], "correct", value=value, quote=quote, doc=TENDER_DOCS[0])
    lib.close()


def test_review_decide_doc_outside_the_case_through_the_cli(tmp_path, store_url):
    lib, _q, it, quote = _claimed(tmp_path, store_url)
    lib.close()
    value = json.dumps(it["candidate"].get("value"))
    res = invoke("review", "decide", str(it["id"]), "--decision", "correct", "--value", value,
                 "--quote", quote, "--doc", "other/pliego.pdf", "--as", "demo:ana:analysts",
                 store=store_url)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "not a document of" in res.stderr and TENDER_DOCS[0] in res.stderr


def test_items_of_a_case_holding_an_unreadable_document_are_not_found(tmp_path, store_url):
    """Deciding writes the case's record: an item is seen, claimed and decided only by a
    principal who may read every document of its case — not by a reader of the item's own
    document alone, who would overwrite a record resting on a document it cannot read."""
    lib = tender_library(store_url)
    lib.ingest_bytes(b"# Memo\n\nThe legal team reviewed the tender on 3 March 2026.\n",
                     source_id="legal/memo.md", tenant="demo", acl=["group:legal"],
                     name="memo.md", sandbox=False)
    both = Principal.parse("demo:lia:legal,analysts")
    res = run_extraction(lib.store, both, load_schema(strict_schema(tmp_path)),
                         [TENDER_DOCS[0], "legal/memo.md"], route=False)
    case = res.run["case_id"]
    mine = [i for i in ReviewQueue(lib.store, both).items() if i["case_id"] == case]
    assert mine and all(i["source_id"] == TENDER_DOCS[0] for i in mine)
    ana = ReviewQueue(lib.store, ANA)
    assert [i for i in ana.items() if i["case_id"] == case] == []
    assert ana.next() is None  # nothing else is queued: the case's items are not ana's
    first = mine[0]["id"]
    with pytest.raises(NotFound):
        ana.item(first)
    before = lib.store.field_record("demo", case, mine[0]["field"])
    lib.close()
    who = ("--as", "demo:ana:analysts")
    listed = invoke("review", "list", "--json", *who, store=store_url)
    assert listed.returncode == 0 and json.loads(listed.stdout) == [], listed.stdout
    decided = invoke("review", "decide", str(first), "--decision", "accept", *who,
                     store=store_url)
    assert decided.returncode != 0 and "not found" in decided.stderr
    import pincite

    with pincite.open(store_url) as lib2:
        assert lib2.store.field_record("demo", case, mine[0]["field"]) == before
        assert ReviewQueue(lib2.store, both).next() is not None  # lia still may
