"""SQL of extraction runs, field records and the review queue (PostgreSQL)."""

from __future__ import annotations

MIGRATION_RECORDS = """
"""
