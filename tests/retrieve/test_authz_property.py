"""Authorization before candidate generation, checked against a pure-Python oracle.

The oracle knows tenants, users, groups, ACLs (empty = invisible), revisions, tombstones
and validity; it never reads pincite's indexes. Every generated (principal, query) must
return only items the oracle allows, hand a spy reranker only candidates the oracle
allows, and still find every allowed document that holds the query's unique word.
"""

from __future__ import annotations

import itertools
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import pincite
from pincite.model import Principal
from pincite.retrieve.search import UNIVERSES
from tests.corpus import EMB, add, items_json, publish

TENANTS = ("t1", "t2")
USERS = ("u1", "u2", "u3")
GROUPS = ("g1", "g2")
ENTRIES = ("*", "user:u1", "user:u2", "user:u3", "group:g1", "group:g2")
VOCAB = ("invoice", "payment", "warranty", "penalty", "delivery", "garantía", "plazo",
         "contrato", "notice", "interest")
PRINCIPALS = [Principal(t, u, tuple(g)) for t in TENANTS for u in USERS
              for g in ((), ("g1",), ("g2",), ("g1", "g2"))]


@dataclass
class Doc:
    tenant: str
    acl: tuple[str, ...]
    words: tuple[str, ...]
    revise_before: tuple[str, ...] | None   # a second revision indexed with the first
    revise_after: tuple[str, ...] | None    # a revision committed after the build
    delete: bool
    new_acl: tuple[str, ...] | None         # an ACL change after the build


@dataclass
class Tally:
    queries: int = 0
    items: int = 0
    candidates: int = 0
    unauthorized_items: int = 0
    unauthorized_candidates: int = 0
    missed: int = 0
    generated: int = 0
    unauthorized_generated: int = 0
    cross_tenant: int = 0
    seen: list[str] = field(default_factory=list)


acl_st = st.lists(st.sampled_from(ENTRIES), max_size=3, unique=True).map(tuple)
words_st = st.lists(st.sampled_from(VOCAB), min_size=2, max_size=5).map(tuple)
doc_st = st.builds(Doc, st.sampled_from(TENANTS), acl_st, words_st,
                   st.none() | words_st, st.none() | words_st, st.booleans(),
                   st.none() | acl_st)
scenario_st = st.lists(doc_st, min_size=3, max_size=7)


def _allows(acl: tuple[str, ...], p: Principal) -> bool:
    return any(e == "*" or e == f"user:{p.subject}" or (e.startswith("group:") and e[6:] in p.groups)
               for e in acl)


def _text(i: int, rev: int, words: tuple[str, ...]) -> str:
    return f"# Document {i}\n\nuniq{i}x{rev} " + " ".join(words) + f" common{i % 2}.\n"


def _run_scenario(docs: list[Doc], tally: Tally) -> None:
    with tempfile.TemporaryDirectory() as d, pincite.open(Path(d) / "s", create=True) as lib:
        for i, doc in enumerate(docs):
            add(lib, f"s{i}.md", _text(i, 1, doc.words), tenant=doc.tenant, acl=doc.acl)
            if doc.revise_before:
                add(lib, f"s{i}.md", _text(i, 2, doc.revise_before), tenant=doc.tenant, acl=doc.acl)
        publish(lib)
        # changes after the build: authorization must follow them at once
        current: dict[int, tuple[str, tuple[str, ...]]] = {}
        for i, doc in enumerate(docs):
            rev = "r2" if doc.revise_before else "r1"
            acl = doc.acl
            if doc.revise_after:
                add(lib, f"s{i}.md", _text(i, 9, doc.revise_after), tenant=doc.tenant, acl=doc.acl)
                rev = "r3" if doc.revise_before else "r2"
            if doc.new_acl is not None:
                lib.store.set_acl(doc.tenant, f"s{i}.md", doc.new_acl)
                acl = doc.new_acl
            if doc.delete:
                lib.store.add_tombstone(doc.tenant, f"s{i}.md", 9, "2000-01-01T00:00:00+00:00",
                                        "test", acl)
                continue
            current[i] = (rev, acl)
        indexed_rev = {i: ("r2" if doc.revise_before else "r1") for i, doc in enumerate(docs)}
        conn = lib.store.conn

        def owner(evidence_id: str) -> tuple[str, str, str]:
            row = conn.execute("SELECT tenant, source_id, revision_id FROM chunks WHERE chunk_id=?",
                               ("ch_" + evidence_id[3:],)).fetchone()
            return tuple(row)  # type: ignore[return-value]

        def ord_owner(gen: str, ord_: int) -> tuple[str, str, str]:
            row = conn.execute(
                "SELECT c.tenant, c.source_id, c.revision_id FROM generation_chunks gc JOIN chunks c "
                "ON c.chunk_id = gc.chunk_id WHERE gc.gen_id=? AND gc.ord=?", (gen, ord_)).fetchone()
            return tuple(row)  # type: ignore[return-value]

        # spies at the candidate generators' seam: every row they hand to ranking
        generated: list[tuple[str, int]] = []
        store = lib.store
        rows_fn, postings_fn = store.authorized_rows, store.authorized_postings

        def rows_spy(scope):
            out = rows_fn(scope)
            generated.extend((scope.gen_id, r[0]) for r in out)
            return out

        def postings_spy(scope, terms):
            out = postings_fn(scope, terms)
            generated.extend((scope.gen_id, r[1]) for r in out)
            return out

        store.authorized_rows, store.authorized_postings = rows_spy, postings_spy  # type: ignore[method-assign]
        UNIVERSES.clear()

        for p in PRINCIPALS:
            allowed = {(docs[i].tenant, f"s{i}.md", rev) for i, (rev, acl) in current.items()
                       if docs[i].tenant == p.tenant and _allows(acl, p)}
            findable = [i for i in current if (docs[i].tenant, f"s{i}.md", current[i][0]) in allowed
                        and current[i][0] == indexed_rev[i]]
            # every document's unique word (visible or not), and shared words
            queries = [f"uniq{i}x{2 if docs[i].revise_before else 1}" for i in range(len(docs))]
            queries += ["payment warranty", "garantías del contrato"]
            for q in queries:
                spy: list[str] = []

                def reranker(query, cands, spy=spy):
                    spy.extend(c.evidence_id for c in cands)
                    return [c.evidence_id for c in cands]

                generated.clear()
                b = lib.search(p, q, embedder=EMB, k=10, reranker=reranker)
                gen_rows = [ord_owner(g, o) for g, o in generated]
                tally.generated += len(gen_rows)
                tally.unauthorized_generated += sum(1 for x in gen_rows if x not in allowed)
                tally.queries += 1
                got = [(p.tenant, i.source_id, i.revision_id) for i in b.items]
                tally.items += len(got)
                tally.candidates += len(spy)
                tally.unauthorized_items += sum(1 for x in got if x not in allowed)
                cands = [owner(e) for e in spy]
                tally.unauthorized_candidates += sum(1 for x in cands if x not in allowed)
                tally.cross_tenant += sum(1 for x in cands if x[0] != p.tenant)
                if q.startswith("uniq") and int(q[4:].split("x")[0]) in findable:
                    if f"s{q[4:].split('x')[0]}.md" not in {x[1] for x in got}:
                        tally.missed += 1


def test_authorized_universe_matches_the_oracle():
    tally = Tally()

    @settings(max_examples=32, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(scenario_st)
    def run(docs):
        _run_scenario(docs, tally)

    run()
    print(f"AUTHZ {tally.queries} queries: {tally.unauthorized_items} unauthorized items, "
          f"{tally.unauthorized_candidates} unauthorized candidates, {tally.cross_tenant} "
          f"cross-tenant, {tally.unauthorized_generated} unauthorized rows generated; "
          f"{tally.items} items, {tally.candidates} candidates, {tally.generated} rows checked")
    assert tally.queries >= 4000
    assert tally.unauthorized_items == tally.unauthorized_candidates == tally.cross_tenant == 0
    assert tally.unauthorized_generated == 0 and tally.generated > 0
    assert tally.missed == 0
    assert tally.items > 0 and tally.candidates > 0


# ---- non-interference: documents a principal cannot see change nothing -----------------------

QUERIES = ["invoice payment terms", "warranty penalty", "garantía del contrato", "plazo de entrega",
           "notice interest"]


def test_hidden_documents_stuffed_with_query_terms_change_nothing(tmp_path):
    ana = Principal.parse("acme:ana:legal")
    with pincite.open(tmp_path / "s", create=True) as lib:
        for i, words in enumerate(itertools.islice(itertools.permutations(VOCAB, 4), 12)):
            add(lib, f"v{i}.md", f"# Visible {i}\n\nClause {i}: " + " ".join(words) + ".\n")
        publish(lib)
        before = [lib.search(ana, q, embedder=EMB, k=10) for q in QUERIES]
        asked = [lib.ask(ana, q, embedder=EMB).to_dict() for q in QUERIES]
        stuffed = " ".join(QUERIES * 3)
        for i in range(500):
            tenant, acl = (("acme", ["user:bob"]) if i % 2 else ("globex", ["group:legal"]))
            add(lib, f"h{i:03d}.md", f"# Hidden {i}\n\n{stuffed} h{i}.\n", tenant=tenant, acl=acl)
        publish(lib)
        after = [lib.search(ana, q, embedder=EMB, k=10) for q in QUERIES]
        assert all(b.generation != a.generation for a, b in zip(before, after, strict=True))
        assert [items_json(b) for b in after] == [items_json(b) for b in before]
        assert [b.flags for b in after] == [b.flags for b in before]
        assert [lib.ask(ana, q, embedder=EMB).to_dict()["items"] for q in QUERIES] == \
            [a["items"] for a in asked]
        assert sum(len(b.items) for b in before) > 0
