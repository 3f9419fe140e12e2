"""Sources: acquiring bytes, inspecting them before any parser runs, the parser sandbox,
and ingestion as a publication protocol.

- `inspect.inspect` decides the media kind from the bytes and quarantines hostile or
  unreadable input (`errors.ParseFailure(reason, detail)`);
- `sandbox.ParserSandbox` runs a parser in a resource-limited child process;
- `ingest.Ingestor` composes them with the store.
"""
