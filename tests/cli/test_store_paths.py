"""Store and output paths (issue 14, class 14): a read against a store that does not exist
is an error naming the path (only ingest creates a store); `--store FILE` and
`extract --out FILE` are clean errors, the latter before anything is recorded."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import pincite
from pincite.errors import NotAStore, StoreMissing
from tests.commands import invoke
from tests.corpus import EXAMPLES, TENDER_DOCS

SCHEMA = EXAMPLES / "tender" / "schema.yaml"
READS = [("sources",), ("sources", "--quarantined"), ("show", "a.txt"), ("search", "term"),
         ("ask", "what is the term?"), ("fsck",), ("index", "list"), ("review", "list"),
         ("calibrate",), ("cite", "a.txt", "--quote", "term")]


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_a_read_against_a_missing_store_names_the_path_and_creates_nothing(tmp_path, args):
    typo = tmp_path / "pincite-stroe"
    r = invoke(*args, store=typo)
    assert r.returncode != 0
    assert f"no pincite store at {typo}" in r.stderr and "Traceback" not in r.stderr
    assert not typo.exists()


def test_ingest_creates_the_store_and_reads_then_open_it(tmp_path: Path):
    store = tmp_path / "store"
    (tmp_path / "a.txt").write_text("1. TERM\n\n1.1 The term is ten (10) years.\n")
    r = invoke("ingest", str(tmp_path / "a.txt"), "--no-publish", store=store)
    assert r.returncode == 0, r.stderr
    r = invoke("sources", "--json", store=store)
    assert r.returncode == 0 and '"a.txt"' in r.stdout


def test_pincite_open_refuses_a_missing_store_unless_asked_to_create(tmp_path: Path):
    missing = tmp_path / "nope"
    with pytest.raises(StoreMissing, match="no pincite store at") as err:
        pincite.open(missing)
    assert err.value.path == str(missing) and not missing.exists()
    empty_dir = tmp_path / "empty"
    empty_dir.mkdir()
    with pytest.raises(StoreMissing):
        pincite.open(empty_dir)
    with pincite.open(missing, create=True) as lib:
        assert lib.sources(pincite.Principal.parse("default:local")) == []
    with pincite.open(missing) as lib:  # it exists now
        assert lib.sources(pincite.Principal.parse("default:local")) == []


@pytest.mark.parametrize("args", [("sources",), ("ingest", "{doc}"), ("fsck",)],
                         ids=lambda a: a[0])
def test_store_that_is_a_file_is_a_clean_error(tmp_path: Path, args):
    doc = tmp_path / "a.txt"
    doc.write_text("1. TERM\n\n1.1 The term is ten (10) years.\n")
    store = tmp_path / "store.txt"
    store.write_text("not a store")
    r = invoke(*(a.format(doc=doc) for a in args), store=store)
    assert r.returncode != 0
    assert "is a file, not a directory" in r.stderr and "Traceback" not in r.stderr
    assert store.read_text() == "not a store"
    with pytest.raises(NotAStore):
        pincite.open(store, create=True)
    with pytest.raises(NotAStore):  # a path below a file
        pincite.open(store / "sub", create=True)


def test_extract_out_that_is_a_file_fails_before_anything_is_recorded(tmp_path: Path):
    store = tmp_path / "s"
    r = invoke("ingest", str(EXAMPLES), "--tenant", "demo", "--acl", "group:analysts",
               "--no-publish", store=store)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out.html"
    out.write_text("keep me")
    r = invoke("extract", "--schema", str(SCHEMA), *TENDER_DOCS, "--as", "demo:ana:analysts",
               "--out", str(out), store=store)
    assert r.returncode == 2
    assert f"cannot write to {out}: it is a file, not a folder" in r.stderr
    assert "Traceback" not in r.stderr and out.read_text() == "keep me"
    with sqlite3.connect(store / "pincite.db") as db:
        for table in ("extraction_runs", "field_records", "review_queue"):
            assert db.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,), table


def test_pincite_store_names_a_postgres_database_read_refused_until_ingest(pg_server, tmp_path):
    """`$PINCITE_STORE=postgresql://…`: a read of an empty database names it (password
    redacted) and creates nothing; ingest creates the schema; reads then see it."""
    url = pg_server.fresh_database(migrated=False).replace("postgres:@", "postgres:pw%3Dx@", 1)
    env = {"PINCITE_STORE": url}
    for args in READS:
        r = invoke(*args, env=env)
        assert r.returncode == 1, (args, r.stderr)
        assert "no pincite store at postgresql://postgres:***@/" in r.stderr, r.stderr
        assert "pw" not in r.stderr and "Traceback" not in r.stderr
    import psycopg

    with psycopg.connect(url) as c:
        assert c.execute("SELECT to_regclass('pincite_schema')").fetchone() == (None,)
    (tmp_path / "a.txt").write_text("1. TERM\n\n1.1 The term is ten (10) years.\n")
    r = invoke("ingest", str(tmp_path / "a.txt"), "--no-publish", env=env)
    assert r.returncode == 0, r.stderr
    r = invoke("sources", "--json", env=env)
    assert r.returncode == 0 and '"a.txt"' in r.stdout
