"""A read that finds nothing, by a caller who can read no source at all, says on stderr who
the caller was taken to be — and nothing about other tenants; stdout and exit codes stay
what they were, and a caller who can read some source never gets the line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.commands import invoke

DOC = b"""# Terms

1. FEES

1.1 The annual fee is 450,000 EUR.

2. LAW

2.1 This Agreement is governed by the laws of Spain.
"""
SCHEMA = """name: terms
fields:
  - name: fee
    type: money
    synonyms: {en: ["annual fee"]}
"""
ANA = "acme:ana:legal"
HINT = ("who can read 0 sources in tenant {tenant} — pass --as TENANT:USER[:GROUP] or set "
        "PINCITE_AS")


@pytest.fixture(scope="module")
def acme(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A store with one source of tenant acme that only group legal may read, and a
    citation into it made by ana."""
    tmp = tmp_path_factory.mktemp("whoami")
    store, doc, schema = tmp / "s", tmp / "terms.md", tmp / "schema.yaml"
    doc.write_bytes(DOC)
    schema.write_text(SCHEMA, encoding="utf-8")
    r = invoke("ingest", str(doc), "--tenant", "acme", "--acl", "group:legal", store=store)
    assert r.returncode == 0 and "new" in r.stdout, r.stdout + r.stderr
    cited = invoke("cite", "terms.md", "--quote", "governed by the laws of Spain", "--as", ANA,
                   "--json", store=store)
    assert cited.returncode == 0, cited.stderr
    cite = tmp / "c.json"
    cite.write_text(cited.stdout, encoding="utf-8")
    return {"store": store, "schema": schema, "cite": cite}


def _reads(acme: dict[str, Path]) -> dict[str, tuple[list[str], int]]:
    """Every read command, with what it finds for the source, and its exit code when the
    caller cannot see it."""
    return {
        "sources": (["sources"], 0),
        "quarantined": (["sources", "--quarantined"], 0),
        "show": (["show", "terms.md"], 1),
        "tables": (["tables", "terms.md"], 1),
        "facts": (["facts", "terms.md"], 1),
        "cite": (["cite", "terms.md", "--quote", "laws of Spain"], 1),
        "verify": (["verify", str(acme["cite"])], 1),
        "search": (["search", "governing law Spain"], 0),
        "ask": (["ask", "What law governs the agreement?"], 0),
        "extract": (["extract", "terms.md", "--schema", str(acme["schema"])], 1),
        "review list": (["review", "list"], 0),
    }


READS = ["sources", "quarantined", "show", "tables", "facts", "cite", "verify", "search",
         "ask", "extract", "review list"]


@pytest.mark.parametrize("name", READS)
def test_a_read_without_as_says_who_the_caller_was_taken_to_be(acme, name, monkeypatch):
    monkeypatch.delenv("PINCITE_AS", raising=False)
    args, code = _reads(acme)[name]
    r = invoke(*args, store=acme["store"])
    assert r.returncode == code, r.stderr
    hint = "acting as default:local, " + HINT.format(tenant="default")
    assert hint in r.stderr.splitlines()
    assert hint not in r.stdout
    # the line names the caller's tenant only: nothing of acme or of its source's ACL
    assert "acme" not in r.stderr and "legal" not in r.stderr


@pytest.mark.parametrize("name", ["show", "verify"])
def test_with_json_the_hint_stays_off_stdout(acme, name, monkeypatch):
    monkeypatch.delenv("PINCITE_AS", raising=False)
    args, code = _reads(acme)[name]
    r = invoke(*args, "--json", store=acme["store"])
    assert r.returncode == code
    for line in r.stdout.splitlines():
        json.loads(line)  # stdout is still JSON lines only
    assert "acting as default:local" in r.stderr


@pytest.mark.parametrize("name", ["sources", "show"])
def test_a_wrong_group_or_tenant_gets_the_hint_for_its_own_tenant(acme, name, monkeypatch):
    args, code = _reads(acme)[name]
    wrong_group = invoke(*args, "--as", "acme:bob:sales", store=acme["store"])
    assert wrong_group.returncode == code
    # acme holds a source bob cannot read: the line counts only what bob can read
    assert f"acting as acme:bob:sales, {HINT.format(tenant='acme')}" in wrong_group.stderr
    assert "legal" not in wrong_group.stderr
    monkeypatch.setenv("PINCITE_AS", "globex:ana:legal")
    wrong_tenant = invoke(*args, store=acme["store"])
    assert wrong_tenant.returncode == code
    assert f"acting as globex:ana:legal, {HINT.format(tenant='globex')}" in wrong_tenant.stderr
    assert "acme" not in wrong_tenant.stderr


@pytest.mark.parametrize("args,code", [
    (["sources", "--quarantined"], 0),           # nothing quarantined
    (["show", "missing.md"], 1),                  # a document that does not exist
    (["cite", "missing.md", "--quote", "x"], 1),
    (["search", "How many moons does Jupiter have?", "--source", "other.md"], 0),
    (["review", "list"], 0),                      # no review item
])
def test_a_caller_who_can_read_a_source_gets_no_hint(acme, args, code):
    r = invoke(*args, "--as", ANA, store=acme["store"])
    assert r.returncode == code, r.stderr
    assert "acting as" not in r.stderr and "acting as" not in r.stdout


def test_reads_that_find_something_print_what_they_did_before(acme, monkeypatch):
    monkeypatch.delenv("PINCITE_AS", raising=False)
    listed = invoke("sources", "--as", ANA, "--json", store=acme["store"])
    assert listed.returncode == 0 and json.loads(listed.stdout)["source_id"] == "terms.md"
    assert listed.stderr == ""
    blind = invoke("sources", "--json", store=acme["store"])
    assert (blind.returncode, blind.stdout) == (0, "")
