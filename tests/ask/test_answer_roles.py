"""Answer vs related (issue 26 item 1): an `ask` item is an *answer* only when the reader
judged that its span answers the question — with its kind and a measured confidence —
and everything else retrieval found is *related* ("may help; not checked as an answer"),
listed apart in the JSON (`related`), in the CLI's text under its own heading, and over
HTTP. `status` is `answered` only with at least one answer. A related passage is never
reported as an answer."""

from __future__ import annotations

import json

import httpx
import pytest

import pincite
from pincite.ask.confidence import answer_confidence, wilson_low
from pincite.model import Principal
from pincite.vocab import AnswerKind
from tests.commands import invoke
from tests.corpus import ANA, EMB, add, publish

TERMS = """# Payment terms

1. PAYMENT

1.1 Invoices are payable within thirty days of receipt.

1.2 Late invoices carry interest at the statutory rate.

2. DELIVERY

2.1 Goods are delivered to the buyer's warehouse in Leeds.
"""


def _check_roles(out: dict) -> None:
    assert out["status"] == ("answered" if out["items"] else "not_found")
    for it in out["items"]:
        assert it["role"] == "answer" and it["answer_kind"] in set(AnswerKind)
        assert 0.0 < it["confidence"] <= 1.0 and it["citation"]["quote_verified"]
    answers = {(i["doc_id"], i["char_start"], i["char_end"]) for i in out["items"]}
    for it in out["related"]:
        assert it["role"] == "related" and "answer_kind" not in it and "confidence" not in it
        assert it["citation"]["quote_verified"]
        assert (it["doc_id"], it["char_start"], it["char_end"]) not in answers


def test_answers_carry_kind_and_confidence_and_the_rest_is_related(lib):
    add(lib, "terms.md", TERMS)
    add(lib, "other.md", "# Invoices\n\nInvoices are sent by the warehouse in Leeds.\n")
    publish(lib)
    res = lib.ask(ANA, "When are invoices payable?", embedder=EMB)
    out = res.to_dict()
    _check_roles(out)
    assert res.status == "answered" and "thirty days" in res.items[0].citation["quote"]
    assert res.related and all("thirty days" not in i.citation["quote"] for i in res.related)
    none = lib.ask(ANA, "Which court settles disputes about patents?", embedder=EMB).to_dict()
    _check_roles(none)
    assert none["status"] == "not_found" and none["items"] == []


def test_confidence_is_a_measured_rate_not_a_score():
    assert wilson_low(0, 0) == 0.0 and wilson_low(10, 10) < 1.0
    assert wilson_low(99, 100) > wilson_low(9, 10)  # more evidence, more confidence
    for kind in AnswerKind:
        assert 0.0 < answer_confidence(kind) < 1.0


def test_the_cli_and_the_http_route_show_answers_first_and_related_apart(tmp_path):
    pytest.importorskip("fastapi")
    from tests.service.serving import WORKING, running

    lib = pincite.open(tmp_path / "store", create=True)
    add(lib, "terms.md", TERMS)
    add(lib, "late.md", "# Late payment\n\nInvoices paid late are reminded after a week.\n")
    publish(lib)
    q = "When are invoices payable?"
    text = invoke("ask", q, "--as", str(ANA), "--embedder", "hash", store=tmp_path / "store")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    head = next(i for i, ln in enumerate(lines) if ln.startswith("related passages"))
    assert lines[0].startswith("1. terms.md") and "confidence" in lines[0]
    assert any("thirty days" in ln for ln in lines[:head])
    assert all("thirty days" not in ln for ln in lines[head:])
    assert all(not ln[:1].isdigit() for ln in lines[head + 1:])  # no answer number there
    strict = invoke("ask", q, "--as", str(ANA), "--embedder", "hash", "--min-confidence", "1",
                    "--json", store=tmp_path / "store")
    assert json.loads(strict.stdout)["status"] == "not_found"
    js = invoke("ask", q, "--as", str(ANA), "--embedder", "hash", "--json",
                store=tmp_path / "store")
    _check_roles(json.loads(js.stdout))
    with running(tmp_path, lib=lib) as svc:
        key, _ = svc.ring.create(Principal.parse(str(ANA)), WORKING)
        r = httpx.get(svc.base + "/ask", params={"q": q},
                      headers={"Authorization": f"Bearer {key}"})
        assert r.status_code == 200
        body = r.json()
        _check_roles(body)
        assert body["items"] and body["related"]
        for bad in ("nan", "2", "-1"):
            r = httpx.get(svc.base + "/ask", params={"q": q, "min_confidence": bad},
                          headers={"Authorization": f"Bearer {key}"})
            assert r.status_code in (400, 422), (bad, r.status_code)
    lib.close()


def test_min_confidence_gives_low_answers_back_as_related(lib):
    add(lib, "terms.md", TERMS)
    publish(lib)
    q = "When are invoices payable?"
    full = lib.ask(ANA, q, embedder=EMB)
    assert full.status == "answered"
    conf = full.items[0].confidence
    same = lib.ask(ANA, q, embedder=EMB, min_confidence=conf)
    assert same.items == full.items  # at its own confidence an answer stays
    low = lib.ask(ANA, q, embedder=EMB, min_confidence=min(1.0, conf + 0.001))
    assert low.status == "not_found" and low.items == ()
    assert "under_min_confidence" in low.flags
    assert low.related[0].citation["quote"] == full.items[0].citation["quote"]
    assert low.related[0].role == "related" and low.related[0].confidence is None
    with pytest.raises(Exception, match="min_confidence"):
        lib.ask(ANA, q, embedder=EMB, min_confidence=float("nan"))
