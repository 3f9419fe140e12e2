"""The three retriever adapters, each through its real framework: only the principal's
verified evidence, nothing of another tenant or of a source the user cannot read, no
run without a principal, and nothing that does not verify."""

from __future__ import annotations

import json
import shutil

import pytest

import pincite
from pincite import Citation, Principal, UsageError
from pincite.errors import PrincipalRequired
from pincite.integrations.verified_search import EvidenceSource
from tests.integrations.adapter_harness import (
    ADAPTERS,
    FINANCE,
    GLOBEX,
    LEGAL,
    NOBODY,
    QUERY,
    TENDER,
    retrieve,
    retriever,
    run,
)
from tests.tamper import rewrite_blob

P = Principal.parse


def _shas(lib, principal: str) -> set[str]:
    p = P(principal)
    return {r.sha256 for s in lib.sources(p) for r in lib.revisions(p, s.source_id)}


@pytest.mark.parametrize("name", ADAPTERS)
def test_each_adapter_returns_the_principals_verified_evidence(tender_lib, name):
    p = P(FINANCE)
    hits = retrieve(name, tender_lib, FINANCE)
    bundle = tender_lib.search(p, QUERY)
    assert [h.record_id for h in hits] == [i.evidence_id for i in bundle.items]  # all verify
    assert hits and {h.metadata["doc_id"] for h in hits} == {"pliego.pdf@r1"}
    for h in hits:
        md = h.metadata
        rev, layer = tender_lib.document(p, md["doc_id"])
        assert h.text == md["quote"] == layer.text[md["char_start"]:md["char_end"]]
        assert md["doc_sha256"] == rev.sha256 and md["quote_verified"] is True
        assert md["verify_reason"] == "ok" and md["page"] >= 1 and md["locator"]
        assert isinstance(md["flags"], list) and "hidden_text" not in md["flags"]
        again = tender_lib.verify(p, [Citation.from_dict(md["citation"])])[0]
        assert again.quote_verified and again.locator == md["locator"]
        json.dumps(md)  # JSON-ready, as vector stores and tracers need
    if name != "langchain":  # a LangChain Document has no score: metadata["scores"] has it
        assert [h.score for h in hits] == [i.scores["fused"] for i in bundle.items]


@pytest.mark.parametrize("name", ADAPTERS)
def test_another_tenant_gets_nothing_of_this_tenants_evidence(tender_lib, name):
    acme, globex = _shas(tender_lib, LEGAL) | _shas(tender_lib, FINANCE), _shas(tender_lib, GLOBEX)
    assert acme and globex and not acme & globex
    theirs = retrieve(name, tender_lib, GLOBEX)
    assert theirs and {h.metadata["doc_sha256"] for h in theirs} <= globex
    assert {h.metadata["doc_id"] for h in theirs} == {"corrigendum.pdf@r1"}
    ours = retrieve(name, tender_lib, FINANCE)
    assert ours and {h.metadata["doc_sha256"] for h in ours} <= acme
    assert retrieve(name, tender_lib, NOBODY) == []


@pytest.mark.parametrize("name", ADAPTERS)
def test_a_user_who_cannot_read_a_source_gets_none_of_its_text(tender_lib, name):
    pliego = tender_lib.document(P(FINANCE), "pliego.pdf")[1].text
    anuncio = tender_lib.document(P(LEGAL), "anuncio.html")[1].text
    only_pliego = [para for para in pliego.split("\n\n") if len(para) > 40 and para not in anuncio]
    assert len(only_pliego) > 5
    query = "presupuesto base de licitación valor estimado plazo de presentación de ofertas"

    def seen(principal: str) -> str:
        hits = retrieve(name, tender_lib, principal, query, k=50)
        return "\n".join(h.text + json.dumps(h.metadata, ensure_ascii=False) for h in hits)

    legal, finance = seen(LEGAL), seen(FINANCE)
    assert "anuncio.html@r1" in legal and "pliego.pdf" not in legal
    assert [para for para in only_pliego if para in legal] == []
    assert [para for para in only_pliego if para in finance]  # the same check can see it


@pytest.mark.parametrize("name", ADAPTERS)
def test_without_a_principal_an_adapter_refuses_to_be_built(tender_lib, name):
    for missing in (None, "", "   "):
        with pytest.raises(PrincipalRequired, match="needs a principal") as exc:
            retriever(name, tender_lib, missing)
        assert exc.value.code == "principal_required" and exc.value.status == 400
    with pytest.raises(UsageError, match="invalid principal"):
        retriever(name, tender_lib, "acme")
    with pytest.raises(UsageError, match="needs a library to search"):
        retriever(name, None, LEGAL)
    with pytest.raises(UsageError, match="needs a library to search"):
        retriever(name, str(tender_lib.url), LEGAL)  # a path is not an opened library
    for k in (0, 1001, "3", True):
        with pytest.raises(UsageError, match="k must be a whole number"):
            retriever(name, tender_lib, LEGAL, k=k)
    with pytest.raises(UsageError, match="unknown flag 'hiden_text'"):
        retriever(name, tender_lib, LEGAL, exclude_flags=("hiden_text",))
    assert len(retrieve(name, tender_lib, FINANCE, k=1)) == 1


@pytest.mark.parametrize("name", ADAPTERS)
def test_hidden_text_is_left_out_unless_asked_for(tender_lib, name):
    query = "Texto oculto de prueba"
    assert tender_lib.search(P(LEGAL), query).items[0].flags == ("hidden_text",)
    shown = retrieve(name, tender_lib, LEGAL, query)
    assert shown and not [h for h in shown if "oculto" in h.text or "hidden_text" in h.metadata["flags"]]
    asked = retrieve(name, tender_lib, LEGAL, query, exclude_flags=())
    assert "oculto" in asked[0].text and "hidden_text" in asked[0].metadata["flags"]
    assert asked[0].metadata["quote_verified"] is True


def test_evidence_that_no_longer_verifies_is_never_returned(tender_lib, tmp_path):
    shutil.copytree(tender_lib.url, tmp_path / "store")  # the shared store stays as it is
    lib = pincite.open(tmp_path / "store")
    try:
        p = P(FINANCE)
        [rev] = lib.revisions(p, "pliego.pdf")
        built = {name: retriever(name, lib, FINANCE) for name in ADAPTERS}
        assert all(run(name, r, QUERY) for name, r in built.items())
        rewrite_blob(lib.store, "acme", rev.sha256, (TENDER / "corrigendum" / "pliego.pdf").read_bytes())
        assert lib.search(p, QUERY).items  # search still finds the passages ...
        for name, r in built.items():       # ... none of which verifies any more
            assert run(name, r, QUERY) == [], name
        evidence = EvidenceSource.build("test", lib, FINANCE).search(QUERY)
        assert evidence.hits == () and evidence.dropped
        assert {reason for _, reason in evidence.dropped} == {"document_changed"}
        assert retrieve("langchain", lib, LEGAL)  # another source is untouched
    finally:
        lib.close()
