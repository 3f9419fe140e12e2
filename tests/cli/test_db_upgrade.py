"""`pincite db upgrade` on both backends, and `make pg`'s script (scripts/pg_local.py)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import psycopg

from pincite.store.postgres.pg_connection import redact, schema_version
from pincite.store.postgres.pg_schema import PG_MIGRATIONS
from pincite.store.sqlite.backend import MIGRATIONS
from tests.commands import invoke

ROOT = Path(__file__).resolve().parents[2]


def test_upgrade_creates_then_reports_current_on_postgresql(pg_server):
    url = pg_server.fresh_database(migrated=False)
    first = invoke("db", "upgrade", "--json", env={"PINCITE_STORE": url})
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout) == {"store": redact(url),
                                        "backend": "postgresql", "before": 0,
                                        "after": len(PG_MIGRATIONS), "changed": True}
    again = invoke("--store", url, "db", "upgrade")
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:] == [
        f"before:  schema version {len(PG_MIGRATIONS)}",
        f"after:   schema version {len(PG_MIGRATIONS)}", "already current"]
    with psycopg.connect(url) as c:
        assert schema_version(c) == len(PG_MIGRATIONS)
        # the wall is up on this concern's tables too
        walled = {r[0] for r in c.execute(
            "SELECT relname FROM pg_class WHERE relforcerowsecurity AND relname LIKE 'review%'")}
        assert walled == {"review_queue", "review_claims", "review_labels", "review_incidents",
                          "review_settings"}


def test_upgrade_migrates_an_old_sqlite_file_and_says_from_which_version(tmp_path):
    store = tmp_path / "s"
    store.mkdir()
    with sqlite3.connect(store / "pincite.db") as c:  # a store made by pincite at version 4
        for step in MIGRATIONS[:4]:
            assert isinstance(step, str)
            c.executescript(step)
        c.execute("PRAGMA user_version=4")
    res = invoke("db", "upgrade", "--json", store=store)
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout) == {"store": str(store), "backend": "sqlite", "before": 4,
                                      "after": len(MIGRATIONS), "changed": True}
    with sqlite3.connect(store / "pincite.db") as c:
        assert "checks" in {r[1] for r in c.execute("PRAGMA table_info(extraction_runs)")}


def test_upgrade_refuses_what_it_cannot_upgrade(tmp_path, pg_url):
    bad = invoke("--store", "mysql://db/x", "db", "upgrade")
    assert bad.returncode == 2 and "unknown store URL scheme 'mysql'" in bad.stderr
    a_file = tmp_path / "f"
    a_file.write_text("not a store")
    res = invoke("db", "upgrade", store=a_file)
    assert res.returncode == 1 and "cannot be a pincite store" in res.stderr
    with psycopg.connect(pg_url, autocommit=True) as c:
        c.execute("INSERT INTO pincite_schema (version, applied_at) VALUES (%s, 'x')",
                  (len(PG_MIGRATIONS) + 1,))
    newer = invoke("db", "upgrade", env={"PINCITE_STORE": pg_url})
    assert newer.returncode == 1 and "is newer than this pincite supports" in newer.stderr
    down = invoke("db", "upgrade", env={"PINCITE_STORE": "postgresql://nobody@/x?host=/nonexistent"})
    assert down.returncode == 1 and "cannot connect to postgresql://nobody@/x" in down.stderr


def test_make_pg_prints_a_url_that_works_and_stops_on_interrupt(tmp_path):
    data = tmp_path / "pg"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "pg_local.py"), "--dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        url = None
        deadline = time.time() + 90
        assert proc.stdout is not None
        while url is None and time.time() < deadline:
            line = proc.stdout.readline()
            assert line, f"the script ended early: {proc.stderr.read() if proc.stderr else ''}"
            if line.startswith("postgresql://"):
                url = line.strip()
        assert url is not None and url.endswith(f"?host={data / 'data'}")
        with psycopg.connect(url) as c:
            assert schema_version(c) == len(PG_MIGRATIONS)
            assert c.execute("SELECT current_database()").fetchone() == ("pincite",)
        proc.send_signal(signal.SIGINT)
        # (a test run started as a background job inherits SIGINT ignored: the script sets
        # its own handler, or this wait would hang)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for stream in (proc.stdout, proc.stderr):
            if stream is not None:
                stream.close()
    assert not (data / "data" / "postmaster.pid").exists()  # the server stopped with it
