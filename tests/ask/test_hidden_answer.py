"""An answer resting on text a reader does not see is marked (issue 14, class 14): `ask`
cites a `display:none` paragraph with `hidden_text` on its citation, in its JSON and after
the locator in its text output; `search` marks the passage too; a visible answer carries
no mark."""

from __future__ import annotations

import json
from pathlib import Path

from tests.commands import invoke

WHO = ("--as", "acme:ana:legal")
FEE = "2.1 The annual fee is 450,000 EUR, payable in January."


def _store(tmp_path: Path, style: str) -> Path:
    page = tmp_path / "fees.html"
    page.write_text(
        "<html><body><h1>Terms</h1><p>1.1 This agreement sets the fees between the parties.</p>"
        "<p>1.2 Payments are made by bank transfer to the account of the provider.</p>"
        f'<p{style}>{FEE}</p><p>3.1 The agreement is governed by the law of Spain.</p>'
        "</body></html>", encoding="utf-8")
    store = tmp_path / "s"
    for args in (("ingest", str(page), "--id", "fees.html", "--tenant", "acme",
                  "--acl", "group:legal", *WHO),
                 ("index", "build", "--embedder", "hash", "--publish")):
        res = invoke(*args, store=store)
        assert res.returncode == 0, res.stderr
    return store


def test_ask_marks_an_answer_in_a_display_none_paragraph(tmp_path):
    store = _store(tmp_path, ' style="display:none"')
    text = invoke("ask", "What is the annual fee?", *WHO, store=store)
    assert text.returncode == 0, text.stderr
    first = text.stdout.splitlines()[0]
    assert first.startswith("1. fees.html@r1  clause 2.1 [hidden_text]  chars "), text.stdout
    assert FEE in text.stdout and "flags: hidden_text" in text.stdout
    doc = json.loads(invoke("ask", "What is the annual fee?", *WHO, "--json", store=store).stdout)
    assert doc["status"] == "answered" and "hidden_text" in doc["flags"]
    (item,) = doc["items"]
    assert item["citation"]["quote"] == FEE and item["citation"]["quote_verified"]
    assert item["citation"]["flags"] == ["hidden_text"] and "hidden_text" in item["flags"]
    found = invoke("search", "annual fee", *WHO, store=store)
    assert found.stdout.splitlines()[0].endswith("[hidden_text]"), found.stdout


def test_ask_leaves_a_visible_answer_unmarked(tmp_path):
    store = _store(tmp_path, "")
    text = invoke("ask", "What is the annual fee?", *WHO, store=store)
    assert text.stdout.splitlines()[0].startswith("1. fees.html@r1  clause 2.1  chars ")
    assert "hidden_text" not in text.stdout
    doc = json.loads(invoke("ask", "What is the annual fee?", *WHO, "--json", store=store).stdout)
    assert "hidden_text" not in json.dumps(doc)
    assert "hidden_text" not in invoke("search", "annual fee", *WHO, store=store).stdout
