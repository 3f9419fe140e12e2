"""A LlamaIndex retriever over pincite: `PinciteRetriever(library, principal)`, a
`llama_index.core` `BaseRetriever` whose `NodeWithScore`s hold only verified passages.

Each node's text is the document's own characters at the cited span; its metadata is
`VerifiedHit.metadata()` (doc_id, doc_sha256, locator, char_start/char_end, page, quote,
quote_verified, verify_reason, flags, ranks, scores, citation). Only `doc_id`, `locator`
and `page` are shown to a model beside the text, and no metadata is embedded. The score
is the fused rank score (weighted RRF), an ordering signal and not a probability.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..errors import MissingExtra
from .verified_search import DEFAULT_EXCLUDED, DEFAULT_K, SHOWN_TO_MODEL, EvidenceSource

try:
    from llama_index.core.callbacks import CallbackManager
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
except ImportError:
    raise MissingExtra("llama-index-core", "llamaindex") from None


class PinciteRetriever(BaseRetriever):
    """Retrieve a principal's verified evidence from a pincite library as LlamaIndex nodes."""

    def __init__(self, library: Any, principal: Any, *, k: int = DEFAULT_K,
                 filters: Mapping[str, Any] | None = None, as_of: str | None = None,
                 exclude_flags: Collection[str] = DEFAULT_EXCLUDED,
                 callback_manager: CallbackManager | None = None, verbose: bool = False) -> None:
        self._source = EvidenceSource.build("PinciteRetriever (llamaindex)", library, principal,
                                            k=k, filters=filters, as_of=as_of,
                                            exclude_flags=exclude_flags)
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    @property
    def principal(self) -> Any:
        """Return the principal this retriever searches and verifies as."""
        return self._source.principal

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        evidence = self._source.search(query_bundle.query_str)
        out = []
        for hit in evidence.hits:
            md = hit.metadata()
            node = TextNode(id_=hit.evidence_id, text=hit.text, metadata=md,
                            excluded_embed_metadata_keys=list(md),
                            excluded_llm_metadata_keys=[k for k in md if k not in SHOWN_TO_MODEL])
            out.append(NodeWithScore(node=node, score=hit.score))
        return out
