"""`--review`: unresolved cells go to the review queue, and a reviewer's pick becomes a
write on the next fill, cited and checked by `validate_write` like any other."""

from __future__ import annotations

import pytest

import pincite
from pincite.errors import NotFound
from pincite.library import fill_workbook
from pincite.model import Principal
from tests.fill.test_fill import ANA, DOCS, TARGET, _ingest


def test_unresolved_cells_are_queued_and_a_reviewers_pick_is_written(tmp_path):
    lib = pincite.open(tmp_path / "s", create=True)
    _ingest(lib)
    res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", review=True)
    assert res.queued == 3
    q = lib.review_queue(ANA)
    items = {i["field"]: i for i in q.items()}
    assert set(items) == {"cell.Operating Model!C9", "cell.Operating Model!B15",
                          "cell.Operating Model!C15"}
    c9 = items["cell.Operating Model!C9"]
    assert c9["reason"] == "conflicting" and c9["candidate"]["value"] == 96.0
    assert len(c9["evidence"]) == 2 and all(e["quote_verified"] for e in c9["evidence"])
    # another tenant's reviewer sees none of it
    assert lib.review_queue(Principal.parse("other:eve")).items() == []
    # the same fill again queues nothing new (one item per document version and field)
    again = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", review=True)
    assert len(q.items()) == 3 and again.audit["summary"]["written"] == 19

    # the reviewer takes the key figures' 95,480 thousand, quoted as the workbook prints it
    claimed = q.next()
    assert claimed["field"] == "cell.Operating Model!C9"
    q.decide(claimed["id"], "correct", value=95480, quote="95480",
             doc="workbook/key-figures.xlsx")
    res = fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", review=True)
    assert "program" in res.ran  # a new decision is a new input: the writes are redone
    w = next(w for w in res.audit["writes"] if w["cell_id"] == "Operating Model!C9")
    assert (w["value"], w["origin"], w["reviewer"]) == ("95.48", "review", "ana")
    assert w["conversion"]["kind"] == "rescale"
    assert w["citations"][0]["doc_id"] == "workbook/key-figures.xlsx@r1"
    assert w["citations"][0]["quote_verified"]
    assert res.audit["summary"]["written"] == 20
    lib.close()


def test_review_needs_the_documents_to_be_visible(tmp_path):
    lib = pincite.open(tmp_path / "s", create=True)
    _ingest(lib, acl=("group:board",))
    with pytest.raises(NotFound):
        fill_workbook(lib, ANA, TARGET, DOCS, out=tmp_path / "o", review=True)
    lib.close()
