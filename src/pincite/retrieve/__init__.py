"""Authorized retrieval: candidate generators that only see the caller's authorized
universe, rank fusion, the rerank hook, and evidence bundles.

- `filters`  the filters a query may carry (a typed record)
- `dense`    the dense channel over the universe: exact scan or the HNSW walk
- `bm25`     BM25 over the universe's statistics (reference form and array form)
- `fusion`   weighted reciprocal rank fusion and convex combination (pure functions)
- `rerank`   a caller's reranker run on fused, authorized candidates, with a deadline
- `bundle`   `EvidenceItem`, `EvidenceBundle`: what a search returns
- `search`   `search(store, query, principal, …) -> EvidenceBundle`
- `diff`     `index diff`: a query set run against two generations
"""
