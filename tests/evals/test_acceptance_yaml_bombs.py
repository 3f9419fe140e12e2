"""YAML BOMBS (`pincite eval acceptance --group "YAML BOMBS"`): clean without a plant, and
it counts the hostile files a loader without its guards lets through."""

from __future__ import annotations

import yaml

from pincite.evals.acceptance import yaml_bombs
from tests.evals.test_acceptance import _bad, _run


def test_yaml_bombs_is_clean_without_a_plant():
    got = _run(yaml_bombs.run_yaml_bombs)
    assert got[yaml_bombs.F_REFUSED][0] >= 50 and got[yaml_bombs.F_BENIGN][0] == 4
    assert all(bad == 0 for _tried, bad in got.values()), got


def test_yaml_bombs_sees_loaders_that_use_plain_safe_load(monkeypatch):
    from pincite import limits
    from pincite.extract import schema
    from pincite.service import keyring

    def plain(raw, what, **_kw):  # type: ignore[no-untyped-def]
        return yaml.safe_load(raw)

    for module in (limits, schema, keyring):
        monkeypatch.setattr(module, "load_guarded", plain)
    # the shapes plain safe_load reads quickly (nesting 5,000 deep takes it a minute)
    every = yaml_bombs.hostile_files
    monkeypatch.setattr(yaml_bombs, "hostile_files", lambda entry: {
        k: v for k, v in every(entry).items() if k.startswith(("alias", "not ", "a YAML"))})
    monkeypatch.setattr(yaml_bombs, "LEVELS", 4)
    got = _run(yaml_bombs.run_yaml_bombs)
    assert _bad(got, yaml_bombs.F_REFUSED) > 0
    assert _bad(got, yaml_bombs.F_BENIGN) == 0  # the plant reads benign files as before
