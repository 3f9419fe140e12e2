"""Scrubbing a purged source out of rows other documents keep."""

from __future__ import annotations

from pincite.store.scrub import scrub

SHA = "ab" * 32


def test_objects_resting_on_the_source_become_tombstones_and_nothing_else_changes():
    value = {"value": 5, "source_ids": ["a.md", "data.md"],
             "provenance": [{"doc_id": "a.md@r2", "quote": "the fee"},
                            {"doc_id": "data.md@r1", "quote": "kept"},
                            {"doc_sha256": SHA, "quote": "by digest"},
                            {"source_id": "a.md", "label": "by id"}],
             "docs": [{"doc_id": "a.md", "doc_sha256": "cd" * 32}]}
    out, changed = scrub(value, "a.md", [SHA])
    assert changed
    assert out == {"value": 5, "source_ids": ["data.md"],
                   "provenance": [{"purged": True}, {"doc_id": "data.md@r1", "quote": "kept"},
                                  {"purged": True}, {"purged": True}],
                   "docs": [{"purged": True}]}
    assert scrub(out, "a.md", [SHA]) == (out, False)  # a rerun after a crash changes nothing
