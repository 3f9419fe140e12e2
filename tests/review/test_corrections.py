"""A reviewer's correction passes the checks an extracted value passes (issue 14, class
13): the field's type, its range, the schema's postconditions and that its quote states it;
otherwise it is refused and nothing is stored."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import pincite
from pincite.errors import InvalidCorrection
from pincite.extract.run import run_extraction
from pincite.extract.schema import load_schema
from pincite.review.queue import ReviewQueue
from tests.commands import invoke
from tests.corpus import TENDER_DOCS, tender_library
from tests.review.queues import ANA, strict_schema

MONEY = "economic_solvency.min_annual_turnover"  # hard, money
PERCENT = "guarantee.definitive"                 # hard, percent, max 10
COUNT = "technical_solvency.min_similar_contracts"  # number; the test adds `<= 5`


def _library(tmp_path: Path, store_url: str):
    lib = tender_library(store_url)
    path = strict_schema(tmp_path)
    text = path.read_text(encoding="utf-8").replace(
        "postconditions:\n", f"postconditions:\n  - check: {COUNT} <= 5\n"
        "    message: at most five similar contracts\n", 1)
    path.write_text(text, encoding="utf-8")
    # the count is stated three times and SHOWn at confidence 1.0: queue it as an audit
    run_extraction(lib.store, ANA, load_schema(path), TENDER_DOCS, route=False,
                   audit=lambda q: q.field == COUNT)
    return lib


def _claim(q: ReviewQueue, field: str) -> tuple[dict, str]:
    it = q.next(field=field)
    assert it is not None and it["field"] == field, field
    return it, it["evidence"][0]["quote"]


def test_a_correction_that_fails_type_range_or_postcondition_is_refused(tmp_path, store_url):
    lib = _library(tmp_path, store_url)
    q = ReviewQueue(lib.store, ANA)
    cases = [(MONEY, "banana", "type:money"),
             (MONEY, {"amount": float("nan"), "currency": "EUR"}, "not_finite"),
             (PERCENT, {"percent": 50}, "max:10"),
             (COUNT, 50, f"postcondition:{COUNT} <= 5")]
    for field, bad, code in cases:
        it, quote = _claim(q, field)
        before = lib.store.field_record("demo", it["case_id"], field)
        with pytest.raises(InvalidCorrection, match=code.replace("<", r"\<")) as err:
            q.decide(it["id"], "correct", value=bad, quote=quote)
        assert field in err.value.message and "--value" in err.value.message
        assert lib.store.field_record("demo", it["case_id"], field) == before
        assert q.item(it["id"])["state"] == "open"  # still claimed, not decided
        q.release(it["id"])
    for field in (MONEY, PERCENT, COUNT):
        it, quote = _claim(q, field)
        value = it["candidate"]["value"]  # what the quote states
        q.decide(it["id"], "correct", value=value, quote=quote)
        rec = lib.store.field_record("demo", it["case_id"], field)
        assert rec["value"] == value and rec["reason"] == "reviewer_corrected"
    lib.close()


def test_a_correction_its_quote_does_not_state_is_refused(tmp_path, store_url):
    """The model-backed extractor once SHOWed 999,999 beside "The purchase price is 100
    euros"; a reviewer's correction passes the same value-in-quote check."""
    lib = _library(tmp_path, store_url)
    q = ReviewQueue(lib.store, ANA)
    it, quote = _claim(q, MONEY)
    stated = it["candidate"]["value"]
    assert stated["amount"] > 0 and f"{stated['amount']:,}".replace(",", ".") in quote
    before = lib.store.field_record("demo", it["case_id"], MONEY)
    for wrong in ({**stated, "amount": 999999}, {**stated, "currency": "USD"}):
        with pytest.raises(InvalidCorrection, match="value_not_in_quote") as err:
            q.decide(it["id"], "correct", value=wrong, quote=quote)
        assert "--quote" in err.value.message
    assert lib.store.field_record("demo", it["case_id"], MONEY) == before
    q.decide(it["id"], "correct", value=stated, quote=quote)
    assert lib.store.field_record("demo", it["case_id"], MONEY)["value"] == stated
    lib.close()


def test_review_decide_refuses_banana_on_a_money_field(tmp_path, store_url):
    lib = _library(tmp_path, store_url)
    it, quote = _claim(ReviewQueue(lib.store, ANA), MONEY)
    before = lib.store.field_record("demo", it["case_id"], MONEY)
    lib.close()
    who = ("--as", "demo:ana:analysts")
    bad = invoke("review", "decide", str(it["id"]), "--decision", "correct", "--value", '"banana"',
                 "--quote", quote, *who, store=store_url)
    assert bad.returncode == 2 and "type:money" in bad.stderr and "Traceback" not in bad.stderr
    listed = invoke("review", "list", "--json", *who, store=store_url)
    (mine,) = [i for i in json.loads(listed.stdout) if i["id"] == it["id"]]
    assert mine["state"] == "open"
    lib = pincite.open(store_url)
    assert lib.store.field_record("demo", it["case_id"], MONEY) == before  # nothing stored
    lib.close()
