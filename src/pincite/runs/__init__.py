"""Durable runs: ingest and extraction as recorded steps that survive a crash.

- `engine`       the DBOS system database of a store, worker launch, the client
- `steps`        one recorded step: attempts counted, fault points around its body
- `ingest_flow`  acquire → inspect → parse → store per file, then segment_embed → publish
- `extract_flow` case → extract → validate → decide → write
- `worker`       `pincite worker`: heartbeats, recovery of dead workers' runs, drain
- `book`         enqueue runs and read their progress, as the principal that owns them

See docs/workers.md.
"""
