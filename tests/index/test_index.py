"""Index generations: shadow build, integrity check, atomic publish, rollback, crashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import pincite
from pincite.embed import HashEmbedder
from pincite.errors import GenerationInvalid, IndexUnavailable, SpaceMismatch, UsageError
from pincite.index.generations import check_generation, prune
from pincite.index.policy import DEFAULT_POLICY, RankingPolicy
from pincite.store.ann import DEFAULT_ANN_POLICY
from pincite.store.vectors import vectors_path
from tests.corpus import ANA, EMB, PLIEGO_ES, TERMS_EN, add, doc_ids, items_json, publish
from tests.generation_damage import KINDS, damage

QUERIES = ["payment interest", "governing law Spain", "garantía definitiva", "plazo de ejecución",
           "terminate notice"]


def _results(lib, **kw):
    return [lib.search(ANA, q, embedder=EMB, k=5, **kw) for q in QUERIES]


def test_no_generation_gives_an_empty_flagged_bundle(lib):
    add(lib, "terms.md", TERMS_EN)
    b = lib.search(ANA, "payment", embedder=EMB)
    assert b.items == () and b.flags == ("no_generation",) and b.generation is None


def test_build_is_shadow_then_publish_switches_readers(lib):
    add(lib, "terms.md", TERMS_EN)
    g1 = publish(lib)
    add(lib, "pliego.md", PLIEGO_ES)
    built = lib.build_index(EMB)
    assert built.state == "ready" and not built.problems
    # built but not published: readers still see g1, and say it is stale
    b = lib.search(ANA, "garantía definitiva", embedder=EMB)
    assert b.generation == g1 and "stale" in b.flags and "pliego.md@r1" not in doc_ids(b)
    lib.publish_index(built.gen_id)
    b = lib.search(ANA, "garantía definitiva", embedder=EMB)
    assert b.generation == built.gen_id and "stale" not in b.flags
    assert doc_ids(b)[0] == "pliego.md@r1"
    cur, prev, _ = lib.store.pointer()
    assert (cur, prev) == (built.gen_id, g1)
    states = {g.gen_id: g.state for g in lib.generations()}
    assert states == {g1: "retired", built.gen_id: "published"}


def test_manifest_records_the_contract(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    gen = publish(lib)
    m = lib.generation(gen).manifest
    assert m["schema_name"] == "pincite.generation_manifest" and m["gen_id"] == gen
    assert m["segmenter"] == "seg-1" and m["policy_schema"] == "acl-v1"
    assert m["ranking_policy"]["name"] == DEFAULT_POLICY.name
    assert m["embedding_space"]["space_id"] == EMB.space.space_id
    assert m["analyzer"]["name"] == "snowball-fold-1" and m["analyzer"]["languages"] == ["en", "es"]
    assert m["parsers"] == ["markdown@2"] and m["revisions"] == "all"
    assert m["counts"]["chunks"] == m["counts"]["vectors"] > 0
    assert len(m["digests"]["vectors_sha256"]) == 64 and len(m["digests"]["chunk_list_sha256"]) == 64
    assert m["source_watermark"] and m["deletion_watermark"] is None
    # the ANN policy is part of the contract; two tenants' rows are far below its threshold
    vi = m["vector_index"]
    assert vi["policy"]["name"] == DEFAULT_ANN_POLICY.name and vi["partitions"] == []
    assert m["lexical"]["postings"] == f"post_{gen}" and len(m["lexical"]["postings_sha256"]) == 64


def test_incremental_build_reuses_chunks_embeddings_and_analysis(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    first = lib.update_index(EMB)
    c1 = first.manifest["counts"]
    assert c1["embedded"] == c1["chunks"] and c1["segmented_revisions"] == 2
    assert lib.update_index(EMB) is None  # nothing new: no generation
    add(lib, "extra.md", "# Extra\n\nA short note about the warranty period of two years.\n")
    second = lib.update_index(EMB)
    c2 = second.manifest["counts"]
    assert c2["segmented_revisions"] == 1 and c2["reused_revisions"] == 2
    assert c2["embedded"] == c2["chunks"] - c1["chunks"]
    assert c2["copied_lexical"] == c1["chunks"]


def test_rollback_restores_the_previous_generation_byte_identically(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    g1 = publish(lib)
    before = _results(lib)
    # a generation under another ranking policy, same revisions
    other = lib.build_index(EMB, policy=RankingPolicy(k0=1.0, weight_dense=0.2))
    lib.publish_index(other.gen_id)
    assert lib.generation().manifest["ranking_policy"]["name"] != "rrf-k60-bm25w1-densew1"
    lib.rollback_index()
    after = _results(lib)
    assert lib.store.pointer()[0] == g1
    assert [json.dumps(b.to_dict(), sort_keys=True) for b in after] == \
        [json.dumps(b.to_dict(), sort_keys=True) for b in before]
    # and after a new document: the items are the same bytes, the bundle says it is stale
    add(lib, "extra.md", "# Extra\n\nPayment of interest on late invoices under Spanish law.\n")
    publish(lib)
    lib.rollback_index()
    again = _results(lib)
    assert [items_json(b) for b in again] == [items_json(b) for b in before]
    assert all("stale" in b.flags for b in again)


def test_rollback_never_serves_a_superseded_revision_as_current(lib):
    add(lib, "terms.md", TERMS_EN)
    publish(lib)
    add(lib, "terms.md", TERMS_EN.replace("thirty (30)", "sixty (60)"))
    publish(lib)
    assert set(doc_ids(lib.search(ANA, "payable days", embedder=EMB))) == {"terms.md@r2"}
    lib.rollback_index()
    b = lib.search(ANA, "payable days", embedder=EMB)
    assert b.items == () and {"stale", "underfilled"} <= set(b.flags)
    # as of a time when r1 was valid, the old generation answers with r1
    r1 = lib.store.revisions("acme", "terms.md")[0]
    old = lib.search(ANA, "payable days", embedder=EMB, as_of=r1.valid_from)
    assert set(doc_ids(old)) == {"terms.md@r1"} and "superseded" in old.items[0].flags


def test_rollback_chain_and_no_previous(lib):
    add(lib, "terms.md", TERMS_EN)
    g1 = publish(lib)
    with pytest.raises(UsageError):
        lib.rollback_index()
    add(lib, "pliego.md", PLIEGO_ES)
    g2 = publish(lib)
    add(lib, "x.md", "# X\n\nSomething else entirely about warranties.\n")
    g3 = publish(lib)
    assert lib.rollback_index().gen_id == g2
    assert lib.store.pointer()[:2] == (g2, g1)
    assert lib.rollback_index().gen_id == g1
    assert lib.store.pointer()[:2] == (g1, None)
    lib.publish_index(g3)
    assert lib.store.pointer()[:2] == (g3, g1)


@pytest.mark.parametrize("kind", KINDS)
def test_integrity_check_refuses_a_damaged_generation(lib, kind):
    add(lib, "terms.md", TERMS_EN)
    g1 = publish(lib)
    add(lib, "pliego.md", PLIEGO_ES)
    built = lib.build_index(EMB)
    damage(lib.store, built.gen_id, kind)
    assert check_generation(lib.store, built.gen_id)
    with pytest.raises(GenerationInvalid):
        lib.publish_index(built.gen_id)
    assert lib.store.pointer()[0] == g1
    assert lib.store.generation(built.gen_id).state == "failed"
    assert "terms.md@r1" in doc_ids(lib.search(ANA, "payment", embedder=EMB))


def test_channel_damage_degrades_but_never_unfilters(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "secret.md", TERMS_EN.replace("Spain", "Andorra"), acl=["user:bob"])
    gen = publish(lib)
    damage(lib.store, gen, "vector_missing")
    b = lib.search(ANA, "governing law", embedder=EMB)
    assert {"degraded", "fallback"} <= set(b.flags)
    assert doc_ids(b) == ["terms.md@r1"] and b.items[0].ranks["dense"] is None
    damage(lib.store, gen, "postings_table")
    damage(lib.store, gen, "fts_table")
    with pytest.raises(IndexUnavailable):
        lib.search(ANA, "governing law", embedder=EMB)


def test_embedding_space_mismatch_is_refused(lib):
    add(lib, "terms.md", TERMS_EN)
    publish(lib)
    with pytest.raises(SpaceMismatch):
        lib.search(ANA, "payment", embedder=HashEmbedder(dimension=256))
    with pytest.raises(SpaceMismatch):
        lib.ask(ANA, "payment", embedder=HashEmbedder(dimension=64))
    # the generation's own space is found without naming it
    b = lib.search(ANA, "payment")
    assert b.items[0].ranks["dense"] == 1 and "fallback" not in b.flags


def test_prune_keeps_current_previous_and_newest(lib):
    add(lib, "terms.md", TERMS_EN)
    gens = [publish(lib)]
    for i in range(4):
        add(lib, f"n{i}.md", f"# Note {i}\n\nNote number {i} about deliveries.\n")
        gens.append(lib.build_index(EMB).gen_id)
        lib.publish_index(gens[-1])
    dropped = prune(lib.store, keep=3)
    assert dropped == gens[:2]
    for g in gens[:2]:
        assert lib.store.generation(g).state == "dropped"
        assert not vectors_path(lib.store.root, g).exists() and not lib.store.lexical_exists(g)
    assert lib.store.pointer()[:2] == (gens[4], gens[3])
    assert not check_generation(lib.store, gens[2])


_CHILD = """
import sys
import pincite
from pincite.embed import HashEmbedder
lib = pincite.open(sys.argv[1])
r = lib.build_index(HashEmbedder())
print(r.gen_id, flush=True)
lib.publish_index(r.gen_id)
print("published", flush=True)
"""


def _child(store: Path, fault: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PINCITE_FAULTS": f"{fault}=kill"}
    return subprocess.run([sys.executable, "-c", _CHILD, str(store)], capture_output=True,
                          text=True, env=env, timeout=120)


@pytest.mark.parametrize("fault,new_serves", [
    ("gen.vectors_fsync", False), ("gen.fts_written", False), ("gen.before_pointer_swap", False),
    ("gen.pointer_swap", False), ("gen.after_pointer_swap", True),
])
def test_kill_during_build_or_publish_leaves_old_or_new_never_a_mix(tmp_path, fault, new_serves):
    store = tmp_path / "s"
    with pincite.open(store, create=True) as lib:
        add(lib, "terms.md", TERMS_EN)
        g1 = publish(lib)
        old = [items_json(b) for b in _results(lib)]
        add(lib, "pliego.md", PLIEGO_ES)
    out = _child(store, fault)
    assert out.returncode == -9, out.stderr
    with pincite.open(store) as lib:
        cur = lib.store.pointer()[0]
        published = [g.gen_id for g in lib.generations() if g.state == "published"]
        assert published == [cur]
        assert not check_generation(lib.store, cur)
        now = _results(lib)
        if new_serves:
            assert cur != g1
            assert [items_json(b) for b in now] != old
            assert "pliego.md@r1" in doc_ids(lib.search(ANA, "garantía", embedder=EMB))
        else:
            assert cur == g1
            assert [items_json(b) for b in now] == old
        # the next build cleans what the killed one left, and publishing works
        r = lib.build_index(EMB)
        lib.publish_index(r.gen_id)
        states = {g.gen_id: g.state for g in lib.generations()}
        assert "building" not in states.values()
        assert "pliego.md@r1" in doc_ids(lib.search(ANA, "garantía", embedder=EMB))
        leftovers = [p.name for p in (store / "indexes").iterdir()]
        assert all(states[name] in ("published", "retired", "ready") for name in leftovers)
