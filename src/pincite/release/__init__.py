"""Retrieval releases: the contract, shadow, diff, canary, promote, rollback, the record."""
