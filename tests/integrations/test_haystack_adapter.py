"""The Haystack adapter as Haystack uses it: a component whose verified documents flow
into the next component of a pipeline, with the pointer beside each passage. (The
framework is imported inside the tests: every pytest worker collects this module.)"""

from __future__ import annotations

from tests.integrations.adapter_harness import FINANCE, QUERY, retriever

TEMPLATE = ("{% for d in documents %}[{{ d.meta.doc_id }} {{ d.meta.locator }}] "
            "{{ d.content }}\n{% endfor %}Question: {{ question }}")


def test_verified_documents_flow_into_a_prompt_with_their_pointers(tender_lib):
    from haystack import Document, Pipeline
    from haystack.components.builders import PromptBuilder

    pipe = Pipeline()
    pipe.add_component("retriever", retriever("haystack", tender_lib, FINANCE, k=2))
    pipe.add_component("prompt", PromptBuilder(template=TEMPLATE,
                                               required_variables=["documents", "question"]))
    pipe.connect("retriever.documents", "prompt.documents")
    out = pipe.run({"retriever": {"query": QUERY}, "prompt": {"question": QUERY}},
                   include_outputs_from={"retriever"})
    docs = out["retriever"]["documents"]
    assert len(docs) == 2 and all(isinstance(d, Document) for d in docs)
    prompt = out["prompt"]["prompt"]
    for d in docs:
        assert f"[{d.meta['doc_id']} {d.meta['locator']}] {d.content}" in prompt
        assert d.content == d.meta["quote"] and d.meta["quote_verified"] is True


def test_top_k_at_run_time_overrides_the_default(tender_lib):
    r = retriever("haystack", tender_lib, FINANCE)
    assert len(r.run(query=QUERY)["documents"]) > 1
    assert [d.id for d in r.run(query=QUERY, top_k=1)["documents"]] == [
        r.run(query=QUERY)["documents"][0].id]
