"""SQL of the embedding cache: spaces and vectors by (scope, space, input digest)."""

from __future__ import annotations

MIGRATION_EMBEDDINGS = """
"""
