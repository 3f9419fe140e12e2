"""The LangChain adapter as LangChain uses it: a Runnable whose principal is checked on
every call, with the async and batch paths of the framework. (The framework is imported
inside the tests: every pytest worker collects this module.)"""

from __future__ import annotations

import asyncio

import pytest

from pincite import Principal
from pincite.errors import PrincipalRequired
from tests.integrations.adapter_harness import FINANCE, GLOBEX, QUERY, retriever


def test_the_principal_is_checked_on_every_call_not_only_when_built(tender_lib):
    r = retriever("langchain", tender_lib, FINANCE)
    assert r.principal == Principal.parse(FINANCE)
    assert {d.metadata["doc_id"] for d in r.invoke(QUERY)} == {"pliego.pdf@r1"}
    r.principal = Principal.parse(GLOBEX)  # a retriever is a mutable pydantic model
    assert {d.metadata["doc_id"] for d in r.invoke(QUERY)} == {"corrigendum.pdf@r1"}
    r.principal = None
    with pytest.raises(PrincipalRequired):
        r.invoke(QUERY)


def test_a_missing_principal_is_refused_by_pincite_not_by_pydantic(tender_lib):
    from pincite.integrations.langchain import PinciteRetriever

    with pytest.raises(PrincipalRequired, match="langchain"):
        PinciteRetriever(library=tender_lib)


def test_ainvoke_and_batch_return_what_invoke_returns(tender_lib):
    from langchain_core.documents import Document

    r = retriever("langchain", tender_lib, FINANCE, k=3)
    docs = r.invoke(QUERY)
    assert len(docs) == 3 and all(isinstance(d, Document) for d in docs)
    ids = [d.id for d in docs]
    assert [d.id for d in asyncio.run(r.ainvoke(QUERY))] == ids
    assert [[d.id for d in out] for out in r.batch([QUERY, QUERY])] == [ids, ids]
