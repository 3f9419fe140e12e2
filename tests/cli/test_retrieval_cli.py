"""The retrieval CLI: ingest publishes, search/ask/delete JSON contracts, index commands."""

from __future__ import annotations

import json

from tests.commands import invoke
from tests.corpus import PLIEGO_ES, TERMS_EN

ANA = "acme:ana:legal"


def _store(tmp_path, publish: bool = True):
    store = tmp_path / "s"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "terms.md").write_text(TERMS_EN, encoding="utf-8")
    (tmp_path / "docs" / "pliego.md").write_text(PLIEGO_ES, encoding="utf-8")
    args = ["ingest", str(tmp_path / "docs"), "--tenant", "acme", "--acl", "group:legal"]
    out = invoke(*args, *([] if publish else ["--no-publish"]), store=store)
    assert out.returncode == 0, out.stderr
    return store, out


def test_ingest_publishes_a_generation_unless_told_not_to(tmp_path):
    store, out = _store(tmp_path)
    assert "published generation g000001" in out.stderr
    again = invoke("ingest", str(tmp_path / "docs"), "--tenant", "acme", "--as", ANA, store=store)
    assert "index up to date" in again.stderr
    other = tmp_path / "other"
    other.mkdir()
    store2, out2 = _store(other, publish=False)
    assert "published" not in out2.stderr
    s = invoke("search", "payment", "--as", ANA, "--json", store=store2)
    assert json.loads(s.stdout)["flags"] == ["no_generation"]


def test_search_json_contract(tmp_path):
    store, _ = _store(tmp_path)
    out = invoke("search", "garantía definitiva", "--as", ANA, "--k", "2", "--json", store=store)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert set(d) >= {"items", "flags", "generation", "ranking_policy", "embedding_space"}
    item = d["items"][0]
    assert set(item) >= {"evidence_id", "source_id", "revision_id", "doc_sha256", "char_start",
                         "char_end", "quote", "page", "ranks", "scores", "flags", "locator"}
    assert item["source_id"] == "pliego.md" and set(item["ranks"]) >= {"bm25", "dense", "fused"}
    human = invoke("search", '"a" OR NEAR(', "--as", ANA, store=store)
    assert human.returncode == 0, human.stderr
    nobody = invoke("search", "payment", "--as", "acme:zed", "--json", store=store)
    assert json.loads(nobody.stdout)["items"] == []
    bad = invoke("search", "payment", "--as", "not a principal", store=store)
    assert bad.returncode == 2 and bad.stderr.startswith("error:")


def test_ask_answers_with_a_verified_citation_or_says_not_found(tmp_path):
    store, _ = _store(tmp_path)
    out = invoke("ask", "Which laws govern the agreement?", "--as", ANA, "--json", store=store)
    d = json.loads(out.stdout)
    assert d["status"] == "answered"
    c = d["items"][0]["citation"]
    assert c["quote_verified"] and "governed by the laws of Spain" in c["quote"]
    ver = tmp_path / "c.json"
    ver.write_text(json.dumps(c), encoding="utf-8")
    assert invoke("verify", str(ver), "--as", ANA, store=store).returncode == 0
    none = invoke("ask", "What is the airspeed of an unladen swallow?", "--as", ANA, store=store)
    assert none.stdout.strip() == "not found in the documents you can see"
    other = invoke("ask", "Which laws govern the agreement?", "--as", "globex:eve:legal",
                    "--json", store=store)
    assert json.loads(other.stdout)["status"] == "not_found"


def test_delete_then_verify_says_source_deleted(tmp_path):
    store, _ = _store(tmp_path)
    cite = invoke("cite", "terms.md", "--quote", "governed by the laws of Spain", "--as", ANA,
                   "--json", store=store)
    (tmp_path / "c.json").write_text(cite.stdout, encoding="utf-8")
    assert invoke("delete", "terms.md", "--as", "acme:zed", store=store).returncode == 1
    out = invoke("delete", "terms.md", "--as", ANA, "--json", store=store)
    assert json.loads(out.stdout)["through_revision"] == "r1"
    v = invoke("verify", str(tmp_path / "c.json"), "--as", ANA, "--json", store=store)
    assert v.returncode == 1 and json.loads(v.stdout)["verify_reason"] == "source_deleted"
    v = invoke("verify", str(tmp_path / "c.json"), "--as", "acme:zed", "--json", store=store)
    assert json.loads(v.stdout)["verify_reason"] == "unknown_document"
    assert invoke("show", "terms.md", "--as", ANA, store=store).returncode == 1
    s = invoke("search", "governed laws Spain", "--as", ANA, "--json", store=store)
    assert all(i["source_id"] != "terms.md" for i in json.loads(s.stdout)["items"])
    p = invoke("delete", "terms.md", "--as", ANA, "--purge", "--json", store=store)
    assert p.returncode == 0 and json.loads(p.stdout)["purged"] is True


def test_index_build_publish_list_show_diff_rollback(tmp_path):
    store, _ = _store(tmp_path)
    b = invoke("index", "build", "--json", store=store)
    d = json.loads(b.stdout)
    assert d["state"] == "ready" and d["gen_id"] == "g000002" and not d["published"]
    lst = [json.loads(x) for x in invoke("index", "list", "--json", store=store).stdout.splitlines()]
    assert [(g["gen_id"], g["pointer"]) for g in lst] == [("g000001", "current"), ("g000002", None)]
    diff = invoke("index", "diff", "g000001", "g000002", "--query", "payment", "--as", ANA,
                   "--json", store=store)
    rec = json.loads(diff.stdout)
    assert rec["entered"] == [] and rec["left"] == [] and rec["overlap"] > 0
    assert invoke("index", "publish", "g000002", store=store).returncode == 0
    show = invoke("index", "show", "--check", "--json", store=store)
    assert show.returncode == 0 and json.loads(show.stdout)["problems"] == []
    rb = invoke("index", "rollback", "--json", store=store)
    assert json.loads(rb.stdout)["current"] == "g000001"
    assert invoke("index", "publish", "g000099", store=store).returncode == 1
    pr = invoke("index", "prune", "--keep", "1", "--json", store=store)
    assert json.loads(pr.stdout) == {"dropped": []}  # current and previous are always kept
