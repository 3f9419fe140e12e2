"""The embedded SQLite backend of the `Store` protocol.

`backend.SQLiteStore` is the store; it mixes in the tables of one concern each
(`index_store`, `records_store`, `review_store`, `authorized`), whose statements live in
the `*_sql` modules. `connection` opens files and runs migrations; `universe` and
`universe_rows` hold the authorized-universe arrays; `postings` the packed lexical
postings; `embeddings` the embedding cache rows; `fsck` checks a store.
"""
