"""`pincite keys` keeps keys.json in an existing store's directory: a mistyped `--store`
is refused and creates nothing (issue 25: it created the directory and a keys file there)."""

from __future__ import annotations

import json

import pincite
from tests.commands import invoke

NO_ENV = {"PINCITE_KEYS": None, "PINCITE_STORE": None}


def test_keys_create_refuses_a_store_that_does_not_exist(tmp_path):
    real = tmp_path / "store"
    pincite.open(real, create=True).close()
    typo = tmp_path / "stroe"
    for args in (("create", "--tenant", "acme", "--user", "ana", "--scope", "read"),
                 ("list",), ("revoke", "0123456789ab")):
        run = invoke("keys", *args, store=typo, env=NO_ENV)
        assert run.returncode != 0 and "Traceback" not in run.stderr, run.stderr
        assert run.stderr.startswith("error: no pincite store at") and "--store" in run.stderr
        assert not typo.exists()
    made = invoke("keys", "create", "--tenant", "acme", "--user", "ana", "--scope", "read",
                  "--json", store=real, env=NO_ENV)
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["key"].startswith("pck_")
    assert (real / "keys.json").is_file()
    listed = invoke("keys", "list", "--json", store=real, env=NO_ENV)
    assert listed.returncode == 0 and json.loads(listed.stdout)["tenant"] == "acme"


def test_an_explicit_keys_file_needs_no_store(tmp_path):
    path = tmp_path / "elsewhere" / "keys.json"
    run = invoke("keys", "create", "--tenant", "acme", "--user", "ana", "--scope", "read",
                 "--keys", str(path), store=tmp_path / "nostore", env=NO_ENV)
    assert run.returncode == 0, run.stderr
    assert path.is_file() and not (tmp_path / "nostore").exists()
