"""The LlamaIndex adapter as LlamaIndex uses it: nodes a model reads with their pointer,
nothing of the bookkeeping embedded, the async path the same as the sync one. (The
framework is imported inside the tests: every pytest worker collects this module.)"""

from __future__ import annotations

import asyncio

from tests.integrations.adapter_harness import FINANCE, QUERY, retriever


def test_nodes_show_a_model_the_pointer_and_embed_only_the_text(tender_lib):
    from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

    r = retriever("llamaindex", tender_lib, FINANCE)
    nodes = r.retrieve(QueryBundle(QUERY))
    assert nodes and all(isinstance(n, NodeWithScore) for n in nodes)
    node = nodes[0].node
    md = node.metadata
    shown = node.get_content(MetadataMode.LLM)
    assert shown.endswith(md["quote"]) and f"doc_id: {md['doc_id']}" in shown
    assert f"locator: {md['locator']}" in shown and md["doc_sha256"] not in shown
    assert node.get_content(MetadataMode.EMBED) == md["quote"] == node.get_content()
    assert node.node_id == md["evidence_id"] and str(r.principal) == FINANCE


def test_aretrieve_returns_what_retrieve_returns(tender_lib):
    r = retriever("llamaindex", tender_lib, FINANCE, k=3)
    sync = [(n.node.node_id, n.score) for n in r.retrieve(QUERY)]
    asynced = [(n.node.node_id, n.score) for n in asyncio.run(r.aretrieve(QUERY))]
    assert len(sync) == 3 and sync == asynced
