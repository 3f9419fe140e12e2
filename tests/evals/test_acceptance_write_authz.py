"""WRITE AUTHZ (`pincite eval acceptance`): clean on main, and it counts the take-over of
issue 25 when the write rule is planted away — so the group cannot pass vacuously."""

from __future__ import annotations

from pincite.evals.acceptance import write_authz
from tests.evals.test_acceptance import _bad, _run


def test_write_authz_is_clean_and_not_vacuous():
    got = _run(write_authz.run_write_authz)
    assert all(bad == 0 for _t, bad in got.values()), got
    assert got[write_authz.F_CHANGED][0] >= 30 and got[write_authz.F_ALLOWED][0] >= 6


def test_write_authz_sees_an_ingest_that_never_asks(monkeypatch):
    from pincite.sources import authority

    real = authority.authorize_write

    def planted(store, principal, source_id, *, acl=None, must_exist=False):
        # the 2a71066 ingest path: nothing asked unless the source must exist
        return real(store, principal, source_id, acl=acl, must_exist=True) if must_exist else None

    monkeypatch.setattr(authority, "authorize_write", planted)
    monkeypatch.setattr("pincite.sources.ingest.authorize_write", planted)
    monkeypatch.setattr("pincite.runs.book.authorize_write", planted)
    got = _run(write_authz.run_write_authz)
    assert _bad(got, write_authz.F_CHANGED) > 0 and _bad(got, write_authz.F_ORACLE) > 0


def test_write_authz_sees_acl_changes_by_any_reader(monkeypatch):
    from pincite import model
    from pincite.sources import authority

    monkeypatch.setattr(authority, "may_change_acl", lambda src, p: True)
    monkeypatch.setattr(model, "may_change_acl", lambda src, p: True)
    got = _run(write_authz.run_write_authz)
    assert _bad(got, write_authz.F_ACL) > 0 and _bad(got, write_authz.F_CHANGED) == 0
