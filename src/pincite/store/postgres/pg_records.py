"""PgRecordTables of the PostgreSQL backend (see the SQLite backend's counterpart)."""

from __future__ import annotations


class PgRecordTables:
    """To be written: the protocol methods of this concern, on PostgreSQL."""
