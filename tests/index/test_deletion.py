"""Deletion: a tombstone is honoured at once on every surface; purge leaves no byte behind."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

import pincite
from pincite.errors import NotFound
from pincite.extract.schema import schema_from_dict
from pincite.index.generations import check_generation
from pincite.model import Citation, Principal
from pincite.retrieve.search import UNIVERSES
from tests.commands import invoke
from tests.corpus import ANA, EMB, PLIEGO_ES, TERMS_EN, add, doc_ids, items_json, publish

BOB = Principal.parse("acme:bob")            # same tenant, not in the ACL
EVE = Principal.parse("globex:eve:legal")    # another tenant, same group name
CANARY = "zqxcanary7731"
SECRET = f"""# Side letter {CANARY}

1. PAYMENT

1.1 The payment of the {CANARY} bonus is due within thirty days of the invoice.
"""
QUERIES = ["payment invoice days", CANARY, "governing law", "garantía definitiva"]


def _corpus(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    add(lib, f"side-{CANARY}.md", SECRET)
    add(lib, "globex.md", TERMS_EN, tenant="globex")
    return publish(lib)


def _surfaces(lib, sid: str) -> dict[str, bool]:
    """Which surfaces still show source `sid` to ana."""
    hits = {}
    for ch in (("bm25",), ("dense",), ("bm25", "dense")):
        found = any(i.source_id == sid for q in QUERIES
                    for i in lib.search(ANA, q, embedder=EMB, k=50, channels=ch).items)
        hits["+".join(ch)] = found
    hits["ask"] = any(i.source_id == sid for q in QUERIES
                      for i in lib.ask(ANA, q, embedder=EMB).items)
    hits["sources"] = any(s.source_id == sid for s in lib.sources(ANA))
    try:
        lib.document(ANA, sid)
        hits["show"] = True
    except NotFound:
        hits["show"] = False
    try:
        lib.cite(ANA, sid, "payment")
        hits["cite"] = True
    except NotFound:
        hits["cite"] = False
    return hits


def test_delete_is_honoured_at_once_everywhere(lib):
    gen = _corpus(lib)
    sid = f"side-{CANARY}.md"
    assert all(_surfaces(lib, sid).values())
    old = lib.cite(ANA, sid, f"payment of the {CANARY} bonus")
    assert old.quote_verified
    for p in (ANA, BOB, EVE):
        lib.search(p, CANARY, embedder=EMB)  # warm every cache
    with pytest.raises(NotFound):
        lib.delete(BOB, sid)  # cannot read it: not found
    with pytest.raises(NotFound):
        lib.delete(EVE, sid)
    result = lib.delete(ANA, sid)
    assert result.through_revision == "r1" and not result.purged
    assert lib.store.pointer()[0] == gen  # nothing was rebuilt
    assert not any(_surfaces(lib, sid).values())
    # verify: the tenant's readers learn it was deleted, everyone else learns nothing
    assert lib.verify(ANA, [old])[0].verify_reason == "source_deleted"
    assert not lib.verify(ANA, [old])[0].quote_verified
    assert lib.verify(BOB, [old])[0].verify_reason == "unknown_document"
    assert lib.verify(EVE, [old])[0].verify_reason == "unknown_document"
    with pytest.raises(NotFound):
        lib.delete(ANA, sid)  # already gone


def test_rollback_and_as_of_never_resurrect(lib):
    _corpus(lib)
    sid = f"side-{CANARY}.md"
    add(lib, "more.md", "# More\n\nAnother clause on payment of invoices.\n")
    publish(lib)
    rev = lib.store.revisions("acme", sid)[0]
    lib.delete(ANA, sid)
    lib.rollback_index()
    assert not any(_surfaces(lib, sid).values())
    b = lib.search(ANA, CANARY, embedder=EMB, as_of=rev.valid_from, k=50)
    assert sid not in {i.source_id for i in b.items}
    lib.build_index(EMB)  # a new build leaves it out entirely
    assert not any(_surfaces(lib, sid).values())


def test_deleted_equals_never_ingested(tmp_path):
    with pincite.open(tmp_path / "a", create=True) as a, pincite.open(tmp_path / "b", create=True) as b:
        _corpus(a)
        a.delete(ANA, f"side-{CANARY}.md")
        add(b, "terms.md", TERMS_EN)
        add(b, "pliego.md", PLIEGO_ES)
        add(b, "globex.md", TERMS_EN, tenant="globex")
        publish(b)
        for q in QUERIES:
            ra = a.search(ANA, q, embedder=EMB, k=10)
            rb = b.search(ANA, q, embedder=EMB, k=10)
            assert items_json(ra) == items_json(rb) and ra.flags == rb.flags, q


def test_reingest_after_delete_starts_fresh(lib):
    _corpus(lib)
    sid = f"side-{CANARY}.md"
    old = lib.cite(ANA, sid, "bonus")
    lib.delete(ANA, sid)
    r = add(lib, sid, SECRET.replace("thirty", "forty"), acl=["user:ana"])
    assert r.status == "new" and r.revision_id == "r2"
    publish(lib)
    assert set(doc_ids(lib.search(ANA, CANARY, embedder=EMB, channels=("bm25",)))) == {f"{sid}@r2"}
    assert lib.verify(ANA, [old])[0].verify_reason == "source_deleted"
    assert [s.acl for s in lib.sources(ANA) if s.source_id == sid] == [("user:ana",)]


def _bytes_on_disk(root) -> dict[str, int]:
    needle = CANARY.encode()
    found = {}
    for p in root.rglob("*"):
        if p.is_file():
            data = p.read_bytes()
            n = data.count(needle) + data.count(CANARY.encode("utf-16-le"))
            if n:
                found[str(p.relative_to(root))] = n
    return found


def _canary_places(store) -> dict[str, int]:
    """Where the canary rests: the SQLite store's files, or the PostgreSQL tables' rows
    (every table, read as the superuser past the tenant wall)."""
    if store.backend == "sqlite":
        return _bytes_on_disk(store.root)
    import psycopg

    found = {}
    with psycopg.connect(store.url, autocommit=True) as c:
        tables = [r[0] for r in c.execute("SELECT tablename FROM pg_tables "
                                          "WHERE schemaname = current_schema()")]
        for t in tables:
            n = c.execute(f'SELECT count(*) FROM "{t}" x WHERE strpos(x::text, %s) > 0 '
                          "OR strpos(x::text, %s) > 0",  # text, or bytea shown as hex
                          (CANARY, CANARY.encode().hex())).fetchone()[0]
            if n:
                found[t] = n
    return found


def test_purge_leaves_no_byte_of_the_source_and_keeps_the_rest_serving(lib):
    _corpus(lib)
    sid = f"side-{CANARY}.md"
    add(lib, "more.md", "# More\n\nAnother clause on payment of invoices.\n")
    publish(lib)  # two generations hold the source
    root = lib.store.root
    assert _canary_places(lib.store)
    lib.delete(ANA, sid)
    before = lib.search(ANA, "governing law", embedder=EMB)
    result = lib.delete(ANA, sid, purge=True)
    assert result.purged and result.removed["generations"] == 2 and result.removed["blobs"] == 1
    assert _canary_places(lib.store) == {}
    assert _bytes_on_disk(root) == {}
    for g in lib.generations():
        assert not check_generation(lib.store, g.gen_id), g.gen_id
    assert items_json(lib.search(ANA, "governing law", embedder=EMB)) == items_json(before)
    lib.rollback_index()
    assert not any(_surfaces(lib, sid).values())
    old = Citation(f"{sid}@r1", "0" * 64, "markdown@2", "clause 1.1", None, None, 0, 5, "x")
    assert lib.verify(ANA, [old])[0].verify_reason == "source_deleted"
    assert lib.verify(BOB, [old])[0].verify_reason == "unknown_document"


def test_a_deleted_source_can_be_purged_later_by_a_reader(lib):
    _corpus(lib)
    sid = f"side-{CANARY}.md"
    lib.delete(ANA, sid)
    with pytest.raises(NotFound):
        lib.delete(BOB, sid, purge=True)
    assert lib.delete(ANA, sid, purge=True).purged
    assert _bytes_on_disk(lib.store.root) == {}
    UNIVERSES.clear()
    assert not any(_surfaces(lib, sid).values())


KEEP, GONE = "qzkeepcanary5521", "qzgonecanary8830"
KEEP_ID, GONE_ID = "main-terms-qk.md", "side-letter-qg.md"


def _fees(canary: str, fee: str, day: int) -> str:
    return (f"# Fees {canary}\n\n2.1 The annual fee is {fee} EUR, {canary} rate.\n\n"
            f"2.2 The contract was signed on {day} March 2027 in {canary} hall.\n")


def _grep(root, needles: dict[str, list[bytes]]) -> dict[str, list[str]]:
    """Every file under the store (database, -wal, -shm, blobs, index files) that holds a needle."""
    found: dict[str, list[str]] = {}
    for p in sorted(root.rglob("*")):
        if p.is_file():
            data = p.read_bytes()
            for name, forms in needles.items():
                if any(f in data for f in forms):
                    found.setdefault(name, []).append(str(p.relative_to(root)))
    return found


def _forms(text: str) -> list[bytes]:
    return [text.encode(), text.encode("utf-16-le")]


def test_purge_scrubs_the_source_from_rows_of_other_documents(lib):
    """Issue 14, class 2: review items, labels and runs of the document that stays quote the
    purged one; after `delete --purge` no byte of its text, id or sha256 is left anywhere."""
    if lib.store.backend != "sqlite":
        pytest.skip("reads the SQLite store's files; the PostgreSQL purge is checked row by "
                    "row in test_purge_leaves_no_byte_of_the_source_and_keeps_the_rest_serving")
    add(lib, KEEP_ID, _fees(KEEP, "450,000", 3))
    add(lib, GONE_ID, _fees(GONE, "731,913", 4))
    schema = schema_from_dict({"name": "fees", "fields": [
        {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]}},
        {"name": "signing", "type": "date", "synonyms": {"en": ["signed on"]}}]})
    lib.extract(ANA, schema, [KEEP_ID, GONE_ID])
    items = lib.store.review_items("acme")
    assert {(i["source_id"], i["reason"]) for i in items} == {(KEEP_ID, "conflicting")}
    assert len(items) == 2 and all(GONE in str(i) for i in items)  # both quote the other one
    queue = lib.review_queue(ANA)
    first = queue.next()
    assert first is not None
    queue.decide(first["id"], "accept")  # a label now quotes it too
    publish(lib)
    sha = lib.store.revisions("acme", GONE_ID)[0].sha256
    root = lib.store.root
    needles = {"canary": _forms(GONE), "id": _forms(GONE_ID), "sha256": [*_forms(sha), bytes.fromhex(sha)],
               "value it stated": _forms("731913")}
    assert set(_grep(root, needles)) == set(needles)
    lib.close()

    r = invoke("delete", GONE_ID, "--as", str(ANA), "--purge", "--json", store=root)
    assert r.returncode == 0, r.stderr
    assert _grep(root, needles) == {}
    assert "canary" in _grep(root, {"canary": _forms(KEEP)})  # the other document stays

    with pincite.open(root) as after:
        left = {i["id"]: i for i in after.store.review_items("acme")}
        assert set(left) == {i["id"] for i in items}  # the items of the kept document stay
        # what the purged document said is a tombstone; the decided item keeps its decision,
        # the undecided one stays in the queue for a reviewer
        assert {"purged": True} in left[first["id"]]["evidence"]
        assert left[first["id"]]["state"] == "decided"
        assert {i["state"] for k, i in left.items() if k != first["id"]} == {"open"}
        assert after.search(ANA, KEEP, embedder=EMB).items
        pytest.importorskip("fastapi")
        from pincite.service.review_page import create_app
        from tests.service.clients import page_client

        page = page_client(create_app(after, ANA))
        for item_id, item in left.items():
            r = page.get(f"/items/{item_id}")
            assert r.status_code == 200 and "was purged" in r.text and GONE not in r.text
            k = item["evidence"].index({"purged": True})
            assert page.get(f"/items/{item_id}/evidence/{k}/page/1.png").status_code == 404
    # the undecided item is still a reviewer's to claim and decide on what is left
    r = invoke("review", "next", "--as", str(ANA), "--json", store=root)
    assert r.returncode == 0, r.stderr
    nxt = json.loads(r.stdout)
    assert nxt["id"] != first["id"] and {"purged": True} in nxt["evidence"]
    r = invoke("review", "decide", str(nxt["id"]), "--decision", "accept", "--as", str(ANA), store=root)
    assert r.returncode == 0, r.stderr
    assert _grep(root, needles) == {}


def _purge_places() -> set[str]:
    """The places named in docs/concepts.md, Deletion: what a purge has to find."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "concepts.md").read_text()
    section = text.split("## Deletion", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"`([^`]+)`", section))


def test_every_table_and_file_kind_of_a_store_is_in_the_purge_list(lib):
    """A new table or index file is a new place a source can rest: it goes in the list."""
    if lib.store.backend != "sqlite":
        pytest.skip("reads the SQLite store's files; the PostgreSQL purge is checked row by "
                    "row in test_purge_leaves_no_byte_of_the_source_and_keeps_the_rest_serving")
    _corpus(lib)
    lib.ingest_bytes(b"%PDF-1.4 broken", source_id="bad.pdf", tenant="acme", acl=["group:legal"],
                     name="bad.pdf", sandbox=False)
    lib.extract(ANA, schema_from_dict({"name": "f", "fields": [
        {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]}}]}), ["terms.md"])
    root = lib.store.root
    kinds = set()
    for db in ("pincite.db", "embeddings.sqlite"):
        with sqlite3.connect(root / db) as c:
            kinds |= {re.sub(r"_g\d+$", "_<gen>", n) for (n,) in c.execute(
                "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'")}
    for p in root.rglob("*"):
        top = p.relative_to(root).parts[0]
        if p.is_file() and top == "indexes":
            kinds.add(re.sub(r"\d{3}", "<NNN>", p.name))
        elif p.is_file() and top in ("blobs", "quarantine"):
            kinds.add(top + "/")
    assert {"review_queue", "lex_<gen>", "vectors.f32", "rows.npz", "blobs/", "quarantine/"} <= kinds
    assert kinds - _purge_places() == set()
