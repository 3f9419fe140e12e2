"""A Haystack retriever over pincite: `PinciteRetriever(library, principal)`, a
`@component` whose `run(query, top_k)` returns `{"documents": [Document, …]}` holding only
verified passages.

Each document's `content` is the document's own characters at the cited span, its `id`
the evidence id, its `score` the fused rank score (weighted RRF: an ordering signal, not
a probability) and its `meta` `VerifiedHit.metadata()` (doc_id, doc_sha256, locator,
char_start/char_end, page, quote, quote_verified, verify_reason, flags, ranks, scores,
citation). Haystack sends usage telemetry unless HAYSTACK_TELEMETRY_ENABLED=False is set
before it is imported; pincite leaves that choice to you.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from ..errors import MissingExtra
from .verified_search import DEFAULT_EXCLUDED, DEFAULT_K, EvidenceSource, check_k

try:
    from haystack import Document, component
except ImportError:
    raise MissingExtra("haystack-ai", "haystack") from None


@component
class PinciteRetriever:
    """Retrieve a principal's verified evidence from a pincite library as Haystack documents."""

    def __init__(self, library: Any, principal: Any, *, top_k: int = DEFAULT_K,
                 filters: Mapping[str, Any] | None = None, as_of: str | None = None,
                 exclude_flags: Collection[str] = DEFAULT_EXCLUDED) -> None:
        self._source = EvidenceSource.build("PinciteRetriever (haystack)", library, principal,
                                            k=top_k, filters=filters, as_of=as_of,
                                            exclude_flags=exclude_flags)

    @property
    def principal(self) -> Any:
        """Return the principal this retriever searches and verifies as."""
        return self._source.principal

    @component.output_types(documents=list[Document])
    def run(self, query: str, top_k: int | None = None) -> dict[str, list[Document]]:
        """Return {"documents": the principal's verified passages for `query`, best first}."""
        evidence = self._source.search(query, check_k(top_k) if top_k is not None else None)
        return {"documents": [Document(id=hit.evidence_id, content=hit.text,
                                       meta=hit.metadata(), score=hit.score)
                              for hit in evidence.hits]}
