"""`pincite review list` names each item's document (SOURCE@REVISION) in its own column,
and lists nothing of a source the caller cannot read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import invoke

ANA = "acme:ana:legal"
DOC = b"""# Terms

1. FEES

1.1 The annual fee is 450,000 EUR.
"""
# a threshold no extraction reaches: the fee goes to review
SCHEMA = """name: fees
fields:
  - name: fee
    type: money
    synonyms: {en: ["annual fee"]}
    tau_show: 0.999
    tau_flag: 0.998
"""


@pytest.fixture(scope="module")
def queued(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store whose review queue holds the fee of fees.md (acme, group legal only)."""
    tmp = tmp_path_factory.mktemp("review-list")
    store, doc, schema = tmp / "s", tmp / "fees.md", tmp / "schema.yaml"
    doc.write_bytes(DOC)
    schema.write_text(SCHEMA, encoding="utf-8")
    assert invoke("ingest", str(doc), "--tenant", "acme", "--acl", "group:legal",
                  "--no-publish", store=store).returncode == 0
    r = invoke("extract", "fees.md", "--schema", str(schema), "--as", ANA, store=store)
    assert r.returncode == 0 and "new review items 1" in r.stdout, r.stdout + r.stderr
    return store


def test_each_line_names_the_items_document(queued):
    as_json = invoke("review", "list", "--as", ANA, "--json", store=queued)
    items = json.loads(as_json.stdout)
    assert len(items) == 1
    item = items[0]
    text = invoke("review", "list", "--as", ANA, store=queued)
    assert text.returncode == 0, text.stderr
    (line,) = text.stdout.splitlines()
    cols = line.split()
    # id, state, reason, document, field, confidence, due
    assert cols[:5] == [str(item["id"]), "open", "low_confidence", "fees.md@r1", "fee"]
    assert f"{item['source_id']}@{item['revision_id']}" == "fees.md@r1"


def test_a_caller_who_cannot_read_the_document_lists_nothing(queued, monkeypatch):
    bob = invoke("review", "list", "--as", "acme:bob:sales", store=queued)
    assert (bob.returncode, bob.stdout) == (0, "")
    assert "fees.md" not in bob.stderr
    assert "acting as acme:bob:sales, who can read 0 sources in tenant acme" in bob.stderr
    monkeypatch.delenv("PINCITE_AS", raising=False)
    nobody = invoke("review", "list", "--json", store=queued)
    assert (nobody.returncode, json.loads(nobody.stdout)) == (0, [])
    assert "acme" not in nobody.stderr and "acting as default:local" in nobody.stderr
