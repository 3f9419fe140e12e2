"""SQL of ACL entries, tenant epochs, tombstones, chunks, index generations, their
lexical tables, vectors (pgvector) and the published pointer (PostgreSQL)."""

from __future__ import annotations

MIGRATION_INDEX = """
"""
