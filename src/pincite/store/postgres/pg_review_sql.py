"""SQL of review claims (leases, `FOR UPDATE SKIP LOCKED`), labels, incidents and
settings (PostgreSQL)."""

from __future__ import annotations

MIGRATION_REVIEW = """
"""
