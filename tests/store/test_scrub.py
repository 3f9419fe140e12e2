"""Scrubbing a purged source out of rows other documents keep."""

from __future__ import annotations

from pincite.store.scrub import scrub

SHA = "ab" * 32


def test_objects_resting_on_the_source_become_tombstones_and_nothing_else_changes():
    value = {"value": 5, "runner_up": {"value": 9, "ref": "fact_1"}, "source_ids": ["a.md", "data.md"],
             "provenance": [{"doc_id": "a.md@r2", "quote": "the fee"},
                            {"doc_id": "data.md@r1", "quote": "kept"},
                            {"doc_sha256": SHA, "quote": "by digest"},
                            {"source_id": "a.md", "label": "by id"}],
             "alternatives": [{"value": 9, "provenance": [{"doc_id": "a.md@r1"}]},
                              {"value": 7, "provenance": [{"doc_id": "b.md@r1"}, {"doc_id": "a.md@r1"}]}],
             "docs": [{"doc_id": "a.md", "doc_sha256": "cd" * 32}]}
    out, changed = scrub(value, "a.md", [SHA])
    assert changed
    assert out == {"value": 5, "runner_up": None, "source_ids": ["data.md"],
                   "provenance": [{"purged": True}, {"doc_id": "data.md@r1", "quote": "kept"},
                                  {"purged": True}, {"purged": True}],
                   "alternatives": [{"purged": True},  # the value only the purged one stated
                                    {"value": 7, "provenance": [{"doc_id": "b.md@r1"}, {"purged": True}]}],
                   "docs": [{"purged": True}]}
    assert scrub(out, "a.md", [SHA]) == (out, False)  # a rerun after a crash changes nothing


def test_a_record_that_never_quoted_the_source_keeps_its_runner_up():
    value = {"value": 5, "runner_up": {"value": 9}, "provenance": [{"doc_id": "data.md@r1"}]}
    assert scrub(value, "a.md", [SHA]) == (value, False)
