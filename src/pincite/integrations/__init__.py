"""Retriever adapters: pincite's verified evidence inside LlamaIndex, LangChain and Haystack.

    pincite.integrations.llamaindex   PinciteRetriever, a llama_index.core BaseRetriever
                                      returning NodeWithScore        pip install 'pincite[llamaindex]'
    pincite.integrations.langchain    PinciteRetriever, a langchain_core BaseRetriever
                                      returning Document             pip install 'pincite[langchain]'
    pincite.integrations.haystack     PinciteRetriever, a haystack @component returning
                                      {"documents": [Document]}     pip install 'pincite[haystack]'

Each takes a library (`pincite.open(STORE)`) and a principal, and refuses to be built
without one (`PrincipalRequired`). It searches as that principal only, verifies every
passage as that principal, and returns only the passages that verified, each with the
verified citation and its flags as metadata (`verified_search.VerifiedHit.metadata`).
Importing this package imports none of the frameworks; importing an adapter whose
framework is not installed raises `MissingExtra` naming the extra.
"""
