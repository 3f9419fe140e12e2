"""A LangChain retriever over pincite: `PinciteRetriever(library=…, principal=…)`, a
`langchain_core` `BaseRetriever` whose `Document`s hold only verified passages.

Each document's `page_content` is the document's own characters at the cited span, its
`id` the evidence id, and its `metadata` `VerifiedHit.metadata()` (doc_id, doc_sha256,
locator, char_start/char_end, page, quote, quote_verified, verify_reason, flags, ranks,
scores — `scores["fused"]` orders them and is not a probability — and citation). The
principal is checked when the retriever is built and again on every call: setting it to
None afterwards refuses the next call (`PrincipalRequired`).
"""

from __future__ import annotations

from typing import Any

from ..errors import MissingExtra, PrincipalRequired
from .verified_search import DEFAULT_EXCLUDED, DEFAULT_K, EvidenceSource

try:
    from langchain_core.callbacks import CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
    from pydantic import model_validator
except ImportError:
    raise MissingExtra("langchain-core", "langchain") from None

NAME = "PinciteRetriever (langchain)"


class PinciteRetriever(BaseRetriever):
    """Retrieve a principal's verified evidence from a pincite library as LangChain documents."""

    library: Any
    principal: Any
    k: int = DEFAULT_K
    filters: dict[str, Any] | None = None
    as_of: str | None = None
    exclude_flags: tuple[str, ...] = DEFAULT_EXCLUDED

    @model_validator(mode="before")
    @classmethod
    def _refuse_without_a_principal(cls, data: Any) -> Any:
        if isinstance(data, dict):
            if data.get("principal") is None:
                raise PrincipalRequired(NAME)
            src = _source(data)
            data = {**data, "principal": src.principal, "k": src.k,
                    "exclude_flags": src.exclude_flags}
        return data

    def _get_relevant_documents(self, query: str, *,
                                run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        evidence = _source(dict(self)).search(query)
        return [Document(id=hit.evidence_id, page_content=hit.text, metadata=hit.metadata())
                for hit in evidence.hits]


def _source(fields: dict[str, Any]) -> EvidenceSource:
    return EvidenceSource.build(NAME, fields.get("library"), fields.get("principal"),
                                k=fields.get("k", DEFAULT_K), filters=fields.get("filters"),
                                as_of=fields.get("as_of"),
                                exclude_flags=fields.get("exclude_flags", DEFAULT_EXCLUDED))
