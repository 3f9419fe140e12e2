"""Index generations: what a query reads, built in the shadow and published atomically.

- `analyze`      the lexical analyzer (what a word becomes in the BM25 postings)
- `segment`      retrieval units (chunks) from a text layer's elements
- `policy`       the ranking policy record a generation names
- `generations`  build, check, publish, roll back, prune; the manifest
- `deletion`     tombstones at once; purge removes every copy of the bytes
"""
