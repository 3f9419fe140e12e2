"""`pincite verify` exit codes: 0 every entry `ok`, 3 every entry verifies but one is
`superseded` (its source has a newer revision), 1 one does not verify — the JSON lines
say the same per entry."""

from __future__ import annotations

import json

from tests.commands import invoke

ANA = "acme:ana:legal"
QUOTE = "governed by the laws of Spain"


def _doc(fee: str) -> bytes:
    return (f"# Terms\n\n1. FEES\n\n1.1 The annual fee is {fee}.\n\n2. LAW\n\n"
            f"2.1 This Agreement is {QUOTE}.\n").encode()


def _cite(store, tmp_path, name: str) -> dict:
    r = invoke("cite", "terms.md", "--quote", QUOTE, "--as", ANA, "--json", store=store)
    assert r.returncode == 0, r.stderr
    entry = json.loads(r.stdout)
    (tmp_path / name).write_text(json.dumps(entry), encoding="utf-8")
    return entry


def test_a_superseded_citation_exits_3_and_a_bad_one_still_exits_1(tmp_path):
    store, doc = tmp_path / "s", tmp_path / "terms.md"
    doc.write_bytes(_doc("450,000 EUR"))
    ingest = ["ingest", str(doc), "--id", "terms.md", "--tenant", "acme", "--acl",
              "group:legal", "--as", ANA, "--no-publish"]
    assert invoke(*ingest, store=store).returncode == 0
    old = _cite(store, tmp_path, "old.json")
    ok = invoke("verify", str(tmp_path / "old.json"), "--as", ANA, store=store)
    assert ok.returncode == 0, ok.stderr  # r1 is still the newest

    doc.write_bytes(_doc("500,000 EUR"))
    assert invoke(*ingest, store=store).returncode == 0  # r2
    new = _cite(store, tmp_path, "new.json")
    assert (old["doc_id"], new["doc_id"]) == ("terms.md@r1", "terms.md@r2")

    sup = invoke("verify", str(tmp_path / "old.json"), "--as", ANA, "--json", store=store)
    assert sup.returncode == 3, sup.stderr
    line = json.loads(sup.stdout)
    assert (line["quote_verified"], line["verify_reason"]) == (True, "superseded")

    assert invoke("verify", str(tmp_path / "new.json"), "--as", ANA,
                  store=store).returncode == 0
    both = tmp_path / "both.json"
    both.write_text(json.dumps([old, new]), encoding="utf-8")
    mixed = invoke("verify", str(both), "--as", ANA, "--json", store=store)
    assert mixed.returncode == 3
    assert [json.loads(x)["verify_reason"] for x in mixed.stdout.splitlines()] == [
        "superseded", "ok"]

    # a bad entry beside a superseded one: 1, the failure wins
    bad = {**new, "char_start": new["char_start"] + 1}
    worse = tmp_path / "worse.json"
    worse.write_text(json.dumps([old, bad]), encoding="utf-8")
    failed = invoke("verify", str(worse), "--as", ANA, "--json", store=store)
    assert failed.returncode == 1
    reasons = [json.loads(x) for x in failed.stdout.splitlines()]
    assert reasons[0]["verify_reason"] == "superseded" and not reasons[1]["quote_verified"]
    # another tenant cannot verify it at all (and is told who it acted as)
    other = invoke("verify", str(tmp_path / "old.json"), "--as", "globex:eve", store=store)
    assert other.returncode == 1 and "unknown_document" in other.stdout
    assert "acme" not in other.stderr


def test_the_exit_codes_are_in_the_cli_reference():
    from tests.corpus import ROOT

    section = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8").split(
        "## `pincite verify`", 1)[1].split("## `", 1)[0]
    assert "3 every entry verifies but" in " ".join(section.split())
