"""Deletion: a tombstone is honoured at once on every surface; purge leaves no byte behind."""

from __future__ import annotations

import pytest

import pincite
from pincite.errors import NotFound
from pincite.index.generations import check_generation
from pincite.model import Citation, Principal
from pincite.retrieve.search import UNIVERSES
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


def test_purge_leaves_no_byte_of_the_source_and_keeps_the_rest_serving(lib):
    _corpus(lib)
    sid = f"side-{CANARY}.md"
    add(lib, "more.md", "# More\n\nAnother clause on payment of invoices.\n")
    publish(lib)  # two generations hold the source
    root = lib.store.root
    assert _bytes_on_disk(root)
    lib.delete(ANA, sid)
    before = lib.search(ANA, "governing law", embedder=EMB)
    result = lib.delete(ANA, sid, purge=True)
    assert result.purged and result.removed["generations"] == 2 and result.removed["blobs"] == 1
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
