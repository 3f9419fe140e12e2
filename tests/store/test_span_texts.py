"""`Store.span_texts`: a bundle's quotes in one read, each in its own tenant's wall, in
order; a span whose layer is not the tenant's (or is gone) reads as "" (both backends)."""

from __future__ import annotations

from pincite.model import Principal
from pincite.store import ChunkRecord
from tests.corpus import ANA, EMB, PLIEGO_ES, TERMS_EN, add, publish

BOB = Principal.parse("globex:bob:legal")


def _chunk(tenant: str, source_id: str, revision_id: str, layer: str) -> ChunkRecord:
    return ChunkRecord("ch_x", tenant, source_id, revision_id, layer, "p", "para", 0, 0, "l", None,
                       (), "l", None, None, None, (), "", "d")


def test_span_texts_reads_every_quote_in_order_and_nothing_across_tenants(lib):
    add(lib, "terms.md", TERMS_EN)
    add(lib, "pliego.md", PLIEGO_ES, tenant="globex")
    publish(lib)
    a = lib.search(ANA, "governed laws", embedder=EMB, k=1).items[0]
    b = lib.search(BOB, "penalidad por demoras", embedder=EMB, k=1).items[0]
    text_a = lib.document(ANA, a.doc_id)[1].text
    text_b = lib.document(BOB, b.doc_id)[1].text
    mine = _chunk("acme", a.source_id, a.revision_id, a.text_layer)
    theirs = _chunk("globex", b.source_id, b.revision_id, b.text_layer)
    spans = [(mine, a.char_start, a.char_end), (theirs, 3, 40), (mine, 0, 12),
             (_chunk("acme", a.source_id, a.revision_id, "no-such-layer"), 0, 5),
             # acme naming globex's layer: the tenant's wall and filter find no row
             (_chunk("acme", b.source_id, b.revision_id, b.text_layer), 0, 5)]
    got = lib.store.span_texts(spans)
    assert got == [a.quote, text_b[3:40], text_a[0:12], "", ""]
    assert got[0] == text_a[a.char_start:a.char_end] and len(got[1]) == 37
    assert lib.store.span_texts([]) == []
