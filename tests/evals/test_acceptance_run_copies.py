"""DURABLE-RUN COPIES: the group is clean on this code and counts the ids and digests a
purge leaves in the durable-runs database when the purge of that database is undone."""

from __future__ import annotations

import pytest

pytest.importorskip("dbos")

from pincite.evals.acceptance import run_copies  # noqa: E402
from pincite.index import deletion  # noqa: E402
from tests.evals.test_acceptance import _bad, _run  # noqa: E402


def test_the_group_is_clean_and_not_vacuous():
    got = _run(run_copies.run_run_copies)
    assert all(tried > 0 for tried, _bad in got.values()), got
    assert all(bad == 0 for _tried, bad in got.values()), got


def test_the_group_sees_references_left_when_the_runs_database_is_not_purged(monkeypatch):
    monkeypatch.setattr(deletion, "purge_run_copies", lambda *a, **k: {})
    got = _run(run_copies.run_run_copies)
    assert _bad(got, run_copies.F_REFS) > 0
    # the runs recorded references only: no text to leave, purged or not
    assert _bad(got, run_copies.F_TEXT) == 0 and _bad(got, run_copies.F_RUNS) == 0
