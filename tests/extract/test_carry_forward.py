"""Review decisions carry forward (issue 13, item 9): an accepted, corrected or not-stated
field stays decided when extraction runs again on the same bytes, and the record says so;
on a new revision the decision carries over while the passage it rests on is unchanged,
and the field is queued again (`passage_changed`) when it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

import pincite
from pincite.extract.run import run_extraction
from pincite.extract.schema import schema_from_dict
from pincite.review.queue import ReviewQueue
from tests.corpus import ANA

PLIEGO = """# Pliego

1. PAGO

1.1 Las facturas se abonarán en el plazo de treinta (30) días desde su recepción.

2. GARANTÍAS

2.1 La garantía definitiva será del 5 % del precio de adjudicación, IVA excluido.
"""
SCHEMA = schema_from_dict({"name": "mini", "fields": [
    {"name": "payment.term_days", "type": "number", "synonyms": {"es": ["plazo", "facturas"]},
     "tau_show": 0.999, "tau_flag": 0.999},
    {"name": "guarantee.definitive", "type": "percent",
     "synonyms": {"es": ["garantía definitiva"]}, "tau_show": 0.999, "tau_flag": 0.999},
]})


@pytest.fixture
def lib(tmp_path: Path):
    lib = pincite.open(tmp_path / "s", create=True)
    _ingest(lib, PLIEGO)
    yield lib
    lib.close()


def _ingest(lib, text: str) -> None:
    lib.ingest_bytes(text.encode(), source_id="pliego.md", tenant="acme", acl=["group:legal"],
                     name="pliego.md", sandbox=False)


def _run(lib):
    res = run_extraction(lib.store, ANA, SCHEMA, ["pliego.md"], route=False)
    return {r.field: r for r in res.records}, res


def _decide(lib, field: str, decision: str, **kw) -> dict:
    q = ReviewQueue(lib.store, ANA)
    it = q.next(field=field)
    assert it is not None, field
    q.decide(it["id"], decision, **kw)
    return it


def _open_items(lib, field: str) -> list[dict]:
    return [i for i in ReviewQueue(lib.store, ANA).items() if i["field"] == field and i["state"] == "open"]


def test_a_decision_stays_decided_on_the_same_bytes_and_says_so(lib):
    first, _ = _run(lib)
    assert first["payment.term_days"].outcome == "review"
    _decide(lib, "payment.term_days", "accept")
    quote = first["guarantee.definitive"].provenance[0].quote
    _decide(lib, "guarantee.definitive", "correct", value={"percent": 5}, quote=quote)
    again, res = _run(lib)
    term, guarantee = again["payment.term_days"], again["guarantee.definitive"]
    assert (term.outcome, term.reason) == ("show", "reviewer_accepted")
    assert (guarantee.outcome, guarantee.reason) == ("show", "reviewer_corrected")
    for r in (term, guarantee):
        assert r.review["carried_forward"]["basis"] == "same_bytes"
        assert r.review["carried_forward"]["from_run"]
        assert all(c.quote_verified for c in r.provenance)
        assert r.to_dict()["review"]["decision"] in ("accept", "correct")
    assert res.queued == 0 and not _open_items(lib, "payment.term_days")


def test_a_new_revision_keeps_a_decision_whose_passage_is_unchanged(lib):
    _run(lib)
    _decide(lib, "payment.term_days", "accept")
    _ingest(lib, PLIEGO + "\n3. OTROS\n\n3.1 El contrato se rige por la ley española.\n")
    again, _ = _run(lib)
    term = again["payment.term_days"]
    assert (term.outcome, term.reason) == ("show", "reviewer_accepted")
    assert term.review["carried_forward"]["basis"] == "passage_unchanged"
    (c,) = term.provenance
    assert c.doc_id == "pliego.md@r2" and c.quote_verified and "treinta (30) días" in c.quote
    assert not _open_items(lib, "payment.term_days")


def test_a_new_revision_that_changes_the_passage_sends_the_field_back_to_review(lib):
    _run(lib)
    _decide(lib, "payment.term_days", "accept")
    _ingest(lib, PLIEGO.replace("treinta (30) días", "sesenta (60) días"))
    again, _ = _run(lib)
    term = again["payment.term_days"]
    assert (term.outcome, term.reason) == ("review", "passage_changed")
    assert term.review is None and term.value == 60
    (item,) = _open_items(lib, "payment.term_days")
    assert item["revision_id"] == "r2" and item["reason"] == "passage_changed"


def test_not_stated_carries_while_the_new_revision_states_nothing(lib):
    _run(lib)
    _decide(lib, "guarantee.definitive", "correct", not_stated=True)
    same, _ = _run(lib)
    g = same["guarantee.definitive"]
    assert (g.outcome, g.reason, g.value) == ("abstain", "reviewer_not_stated", None)
    assert g.review["carried_forward"]["basis"] == "same_bytes"
    _ingest(lib, PLIEGO + "\n3. OTROS\n\n3.1 Nada más.\n")  # still states the guarantee
    changed, _ = _run(lib)
    assert (changed["guarantee.definitive"].outcome,
            changed["guarantee.definitive"].reason) == ("review", "passage_changed")
