"""Authorized hybrid retrieval: analyzer, BM25 and RRF against their formulas, the rerank
hook under faults, filters without underfill, budgets, as-of, evidence items."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincite.cite.verifier import Verifier
from pincite.errors import UsageError
from pincite.index.analyze import analyze, analyze_query, fold, tenant_key
from pincite.model import Principal
from pincite.retrieve.bm25 import bm25
from pincite.retrieve.fusion import rrf
from pincite.retrieve.search import UNIVERSES
from tests.corpus import ANA, EMB, PLIEGO_ES, TERMS_EN, add, doc_ids, publish

# ---- analyzer ------------------------------------------------------------------------------


def test_spanish_and_english_words_meet_their_inflections_and_accents():
    assert analyze("garantías", "es") == analyze("GARANTIA", "es") == analyze("garantía", "es")
    assert analyze("adjudicaciones", "es") == analyze("adjudicación", "es")
    assert analyze("payments", "en") == analyze("payment", "en")
    assert analyze("terminated", "en") == analyze("termination", "en")
    assert analyze("Ünïcödé_under", None) == ["unicode", "under"]
    assert fold("ﬁnal Ñandú") == "final nandu"


def test_query_terms_hold_every_languages_form_and_skip_stop_words():
    qt = analyze_query("the garantías of payments", "acme")
    key = tenant_key("acme")
    assert qt.words == ("garantias", "payments")
    assert {key + "garanti", key + "garantias"} <= set(qt.groups[0])
    assert key + "payment" in qt.groups[1]
    assert analyze_query("the of", "acme").words == ("the", "of")  # nothing else left


def test_spanish_query_finds_spanish_passage_without_accents(lib):
    add(lib, "pliego.md", PLIEGO_ES)
    add(lib, "terms.md", TERMS_EN)
    publish(lib)
    b = lib.search(ANA, "penalidad por demoras", embedder=EMB, channels=("bm25",))
    assert doc_ids(b)[0] == "pliego.md@r1"
    assert b.items[0].scores["bm25_coverage"] == 1.0


@pytest.mark.parametrize("query", ['"a" OR NEAR(', "payment*", "tenant: acme", "NOT law",
                                   "^interest", '"""', "payment AND (law OR", "-- ; DROP TABLE x"])
def test_fts_syntax_in_queries_is_plain_text(lib, query):
    add(lib, "terms.md", TERMS_EN)
    publish(lib)
    b = lib.search(ANA, query, embedder=EMB)
    assert "degraded" not in b.flags
    words = {w for w in analyze(query, None)}
    for item in b.items:
        if item.ranks["bm25"] is not None:
            assert words & set(analyze(item.quote, "en")) | words & set(analyze(item.quote, None))


# ---- BM25 and RRF against their formulas ----------------------------------------------------


def test_bm25_matches_the_formula():
    postings = [{1: 2, 2: 1}, {2: 3}]
    lengths = {1: 10, 2: 20}
    n, avgdl, k1, b = 5, 12.0, 1.2, 0.75
    got = bm25(postings, lengths, n, avgdl, k1, b)

    def term(tf: int, df: int, dl: int) -> float:
        idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
        return idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

    assert got[1] == pytest.approx(term(2, 2, 10))
    assert got[2] == pytest.approx(term(1, 2, 20) + term(3, 1, 20))


def test_lexical_scores_are_computed_over_the_visible_universe(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    publish(lib)
    b = lib.search(ANA, "interest", embedder=EMB, channels=("bm25",), k=50)
    rows = lib.store.authorized_rows(
        __import__("pincite.store.sqlite.index_store", fromlist=["AuthScope"]).AuthScope(
            b.generation, "acme", ("*", "user:ana", "group:legal")))
    ntok = [r[1] for r in rows]
    top = b.items[0]
    tokens = analyze(lib.store.chunk_texts([top.chunk_id])[top.chunk_id], top.lang)
    tf, dl = tokens.count("interest"), len(tokens)
    n, avgdl = len(rows), sum(ntok) / len(ntok)
    idf = math.log(1 + (n - 1 + 0.5) / (1 + 0.5))
    want = idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl))
    assert top.scores["bm25"] == pytest.approx(want)


ids = st.text(alphabet="abcdefgh", min_size=1, max_size=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(ids, max_size=8), min_size=1, max_size=4),
       st.floats(min_value=0.5, max_value=100), st.data())
def test_rrf_is_the_formula_and_deterministic(lists, k0, data):
    weights = [data.draw(st.floats(min_value=0, max_value=3)) for _ in lists]
    out = rrf(lists, k0, weights)
    want: dict[str, float] = {}
    for w, lst in zip(weights, lists, strict=True):
        seen: list[str] = []
        for x in lst:
            if x not in seen:
                seen.append(x)
        for r, x in enumerate(seen, start=1):
            want[x] = want.get(x, 0.0) + w / (k0 + r)
    assert dict(out) == pytest.approx(want)
    assert out == sorted(out, key=lambda p: (-p[1], p[0]))
    assert rrf(lists, k0, weights) == out


def test_rrf_refuses_bad_parameters():
    with pytest.raises(ValueError):
        rrf([["a"]], 0)
    with pytest.raises(ValueError):
        rrf([["a"]], 60, [1, 2])
    with pytest.raises(ValueError):
        rrf([["a"]], 60, [-1])


# ---- the evidence item --------------------------------------------------------------------------


def test_items_point_into_their_revision_and_cite_verifiably(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    publish(lib)
    b = lib.search(ANA, "governed laws", embedder=EMB, k=3)
    ver = Verifier(lib.store, ANA)
    for item in b.items:
        rev, layer = lib.document(ANA, item.doc_id)
        assert layer.text[item.char_start:item.char_end] == item.quote
        assert item.doc_sha256 == rev.sha256 and item.text_layer == layer.layer_id
        from pincite.model import Citation

        c = ver.verify(Citation(item.doc_id, item.doc_sha256, item.text_layer, item.locator,
                                item.page, item.bbox, item.char_start, item.char_end, item.quote))
        assert c.quote_verified, c.verify_reason
        assert set(item.ranks) >= {"bm25", "dense", "fused"}
        assert set(item.scores) >= {"bm25", "dense", "fused"}
    assert [i.ranks["fused"] for i in b.items] == sorted(i.ranks["fused"] for i in b.items)


def test_bad_arguments_are_usage_errors(lib):
    add(lib, "terms.md", TERMS_EN)
    publish(lib)
    for kw in ({"k": 0}, {"k": 5000}, {"as_of": "yesterday"}, {"filters": {"colour": ["x"]}},
               {"budgets": {"depth": -1}}, {"channels": ("sparkle",)}):
        with pytest.raises(UsageError):
            lib.search(ANA, "payment", embedder=EMB, **kw)
    with pytest.raises(UsageError):
        lib.search(ANA, "   ", embedder=EMB)


def test_budgets_truncate_and_say_so(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    publish(lib)
    b = lib.search(ANA, "payment", embedder=EMB, budgets={"max_quote_chars": 40})
    assert "truncated" in b.flags
    assert all(len(i.quote) <= 40 and i.char_end - i.char_start == len(i.quote) for i in b.items)
    assert any("truncated" in i.flags for i in b.items)
    b = lib.search(ANA, "payment", embedder=EMB, budgets={"max_total_chars": 300})
    assert "truncated" in b.flags and sum(len(i.quote) for i in b.items) <= 300


# ---- as-of ---------------------------------------------------------------------------------------


def test_as_of_selects_the_revision_valid_at_that_time(lib):
    add(lib, "terms.md", TERMS_EN)
    time.sleep(0.002)
    add(lib, "terms.md", TERMS_EN.replace("thirty (30)", "sixty (60)"))
    publish(lib)
    r1, r2 = lib.store.revisions("acme", "terms.md")
    now = lib.search(ANA, "invoices payable", embedder=EMB)
    assert {i.doc_id for i in now.items} == {"terms.md@r2"}
    at_r1 = lib.search(ANA, "invoices payable", embedder=EMB, as_of=r1.valid_from)
    assert {i.doc_id for i in at_r1.items} == {"terms.md@r1"}
    assert all("superseded" in i.flags for i in at_r1.items)
    at_r2 = lib.search(ANA, "invoices payable", embedder=EMB, as_of=r2.valid_from)  # boundary
    assert {i.doc_id for i in at_r2.items} == {"terms.md@r2"}
    before = lib.search(ANA, "invoices payable", embedder=EMB, as_of="2000-01-01T00:00:00Z")
    assert before.items == () and "underfilled" in before.flags


# ---- the rerank hook -------------------------------------------------------------------------------


def _corpus(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES)
    add(lib, "secret.md", "# Secret\n\nThe secret payment schedule is weekly.\n", acl=["user:bob"])
    publish(lib)


def test_reranker_sees_only_authorized_fused_candidates_and_reorders(lib):
    _corpus(lib)
    seen = []

    def rev(query, cands):
        seen.extend(cands)
        return [c.evidence_id for c in reversed(cands)]

    base = lib.search(ANA, "payment", embedder=EMB, k=3)
    b = lib.search(ANA, "payment", embedder=EMB, k=3, reranker=rev)
    assert seen and all("secret" not in c.text for c in seen)
    assert not {"degraded", "timeout"} & set(b.flags)
    assert [i.ranks["rerank"] for i in b.items] == [1, 2, 3][:len(b.items)]
    assert [i.evidence_id for i in b.items] != [i.evidence_id for i in base.items] or len(seen) == 1


@pytest.mark.parametrize("behaviour,flag", [
    ("raise", "degraded"), ("foreign", "degraded"), ("nan", "degraded"),
    ("duplicate", "degraded"), ("slow", "timeout"), ("garbage", "degraded"),
])
def test_reranker_faults_serve_first_stage_order_flagged(lib, behaviour, flag):
    _corpus(lib)

    def bad(query, cands):
        ids = [c.evidence_id for c in cands]
        if behaviour == "raise":
            raise RuntimeError("model server down")
        if behaviour == "foreign":
            return ["ev_not_yours", *ids]
        if behaviour == "nan":
            return [(i, float("nan")) for i in ids]
        if behaviour == "duplicate":
            return ids + ids[:1]
        if behaviour == "slow":
            time.sleep(1.0)
            return ids
        return [object()]

    base = lib.search(ANA, "payment", embedder=EMB, k=3)
    t = time.perf_counter()
    b = lib.search(ANA, "payment", embedder=EMB, k=3, reranker=bad, budgets={"rerank_ms": 100})
    assert time.perf_counter() - t < 0.9
    assert flag in b.flags and "degraded" in b.flags
    assert [i.evidence_id for i in b.items] == [i.evidence_id for i in base.items]
    assert all("rerank" not in i.ranks for i in b.items)


def test_reranker_scores_order_and_partial_lists_keep_first_stage_tail(lib):
    _corpus(lib)
    base = lib.search(ANA, "payment", embedder=EMB, k=4)
    last = base.items[-1].evidence_id
    b = lib.search(ANA, "payment", embedder=EMB, k=4, reranker=lambda q, c: [(last, 9.0)])
    assert b.items[0].evidence_id == last and b.items[0].scores["rerank"] == 9.0
    assert [i.evidence_id for i in b.items[1:]] == [i.evidence_id for i in base.items[:-1]]


# ---- filters: selective, exact, never silently underfilled ----------------------------------------


def test_selective_filters_have_exact_recall_and_flag_underfill(lib):
    n = 400
    for i in range(n):
        acl = ["group:legal"] if i % 7 else ["user:bob"]  # some of them ana cannot see
        add(lib, f"d{i:04d}.md", f"# Note {i}\n\nDelivery note {i} about invoice payment "
                                 f"schedule w{i % 13} and warranty v{i % 5}.\n", acl=acl)
    publish(lib)
    visible = [i for i in range(n) if i % 7]
    for share in (0.001, 0.01, 0.1):
        chosen = [f"d{i:04d}.md" for i in range(0, n, max(1, int(1 / share)))][: max(1, int(n * share))]
        allowed = {s for s in chosen if int(s[1:5]) % 7}
        for k in (1, 10):
            b = lib.search(ANA, "invoice payment warranty", embedder=EMB, k=k,
                           filters={"source_ids": chosen})
            got = {i.source_id for i in b.items}
            assert got <= allowed
            assert len(b.items) == min(k, len(allowed))  # exact: recall 1.0 of the eligible set
            assert ("underfilled" in b.flags) == (len(allowed) < k)
    b = lib.search(ANA, "delivery", embedder=EMB, k=1000, filters={"source_prefix": "d00"})
    assert {i.source_id for i in b.items} == {f"d{i:04d}.md" for i in visible if i < 100}


def test_universe_cache_is_keyed_by_principal_and_epoch(lib):
    _corpus(lib)
    UNIVERSES.clear()
    bob = Principal.parse("acme:bob")
    lib.search(ANA, "payment", embedder=EMB)
    misses = UNIVERSES.misses
    lib.search(ANA, "payment schedule", embedder=EMB)
    assert UNIVERSES.misses == misses  # same principal, same state: cached
    b = lib.search(bob, "payment", embedder=EMB)
    assert UNIVERSES.misses == misses + 1 and doc_ids(b) == ["secret.md@r1"]
    # revocation (by bob holding acl:admin): the next query misses
    lib.set_acl(Principal.parse("acme:bob:acl.admin"), "secret.md", ["user:carol"])
    b = lib.search(bob, "payment", embedder=EMB)
    assert b.items == () and UNIVERSES.misses == misses + 2


# ---- the in-memory authorized universe equals the reference SQL statement ------------------


def test_universe_arrays_match_the_reference_sql(lib):
    from pincite.store.sqlite.index_store import AuthScope

    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES, acl=("group:legal", "user:bob"))
    add(lib, "secret.md", TERMS_EN.replace("Spain", "Andorra"), acl=("user:bob",))
    add(lib, "open.md", "# Open\n\n1. PAYMENT\n\n1.1 Payment of invoices in thirty days.\n",
        acl=("*",))
    add(lib, "open.md", "# Open\n\n1. PAYMENT\n\n1.1 Payment of invoices in sixty days.\n",
        acl=("*",))
    add(lib, "g.md", TERMS_EN, tenant="globex")
    gen = publish(lib)
    r1, r2 = lib.store.revisions("acme", "open.md")[:2]
    # changes after the build: authorization must follow them
    add(lib, "terms.md", TERMS_EN.replace("thirty", "forty"))
    lib.store.set_acl("acme", "secret.md", ("group:legal",))
    lib.store.add_tombstone("acme", "pliego.md", 9, "2000-01-01T00:00:00+00:00", "t", ("*",))
    entries_of = {"ana": ("*", "user:ana", "group:legal"), "bob": ("*", "user:bob"),
                  "none": ()}
    filters = [{}, {"source_ids": ("open.md", "secret.md")}, {"source_prefix": "te"},
               {"kinds": ("clause",)}, {"langs": ("en",)}, {"media_types": ("text/markdown",)},
               {"media_types": ("application/pdf",)}, {"langs": ("",)}]
    times = [None, r1.valid_from, r2.valid_from, "2000-01-01T00:00:00.000000+00:00",
             "2999-01-01T00:00:00.000000+00:00"]
    terms = sorted({t for q in ("payment invoices days", "garantía plazo", "governing law")
                    for t in analyze_query(q, "acme").terms})
    seen = 0
    for tenant in ("acme", "globex", "nobody"):
        for entries in entries_of.values():
            for at in times:
                for f in filters:
                    scope = AuthScope(gen, tenant, entries, at, f.get("source_ids"),
                                      f.get("source_prefix"), f.get("kinds"), f.get("langs"),
                                      f.get("media_types"))
                    got = list(lib.store.authorized_rows(scope))
                    assert got == lib.store.authorized_rows_sql(scope), (tenant, entries, at, f)
                    post = sorted(lib.store.authorized_postings(scope, terms))
                    assert post == sorted(lib.store.authorized_postings_sql(scope, terms))
                    seen += len(got)
    assert seen > 0
    # a purge rewrites the generation's rows file; the universe still equals the SQL one
    lib.delete(ANA, "open.md", purge=True)
    for at in times:
        scope = AuthScope(gen, "acme", entries_of["ana"], at)
        assert list(lib.store.authorized_rows(scope)) == lib.store.authorized_rows_sql(scope)
        assert sorted(lib.store.authorized_postings(scope, terms)) == \
            sorted(lib.store.authorized_postings_sql(scope, terms))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 40), st.integers(1, 9), max_size=25), min_size=1,
                max_size=5),
       st.floats(0.5, 3.0), st.floats(0.0, 1.0))
def test_array_bm25_is_the_reference_formula(groups, k1, b):
    import numpy as np

    from pincite.retrieve.bm25 import bm25_arrays

    lengths = {d: 5 + (d * 7) % 31 for d in range(41)}
    n, avgdl = 60, 17.5
    want = bm25(groups, lengths, n, avgdl, k1, b)
    arrs = [(np.array(sorted(g), dtype=np.int64), np.array([g[d] for d in sorted(g)], dtype=np.int64))
            for g in groups]
    got, share = bm25_arrays(arrs, np.array([lengths[d] for d in range(41)]), n, avgdl, k1, b)
    docs = np.flatnonzero(share).tolist()
    assert docs == sorted(want)
    assert {d: got[d] for d in docs} == pytest.approx(want)
    for d in docs:
        assert share[d] == sum(1 for g in groups if d in g) / len(groups)
