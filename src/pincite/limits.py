"""Resource limits for untrusted input: what a single ingest may cost."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds enforced on every input; exceeding one quarantines the file as `over_limit`
    (or `zip_bomb` / `timeout`)."""

    max_bytes: int = 200 * 1024 * 1024
    max_pages: int = 5000
    max_text_chars: int = 50_000_000
    max_zip_entries: int = 10_000
    max_zip_inflated: int = 1024 * 1024 * 1024
    max_zip_ratio: float = 200.0
    max_xml_part_bytes: int = 256 * 1024 * 1024
    max_table_cells: int = 2_000_000
    max_sheet_rows: int = 1_000_000
    max_sheet_cols: int = 16_384
    max_html_depth: int = 512
    parse_seconds: float = 120.0
    parse_cpu_seconds: int = 300
    parse_memory_bytes: int = 3 * 1024 * 1024 * 1024
