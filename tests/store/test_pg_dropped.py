"""The test server's databases are dropped when a test ends: a run of the suite must not
leave gigabytes of PostgreSQL databases in its temp dir."""

from __future__ import annotations

from urllib.parse import urlsplit

import psycopg


def _databases(pg_server) -> set[str]:
    with psycopg.connect(pg_server.url(), autocommit=True) as c:
        return {r[0] for r in c.execute("SELECT datname FROM pg_database")}


def test_drop_removes_the_database_its_url_names_even_with_a_connection_open(pg_server):
    url = pg_server.fresh_database()
    name = urlsplit(url).path.lstrip("/")
    left_open = psycopg.connect(url)
    try:
        assert name in _databases(pg_server)
        pg_server.drop(url)
        assert name not in _databases(pg_server)
    finally:
        left_open.close()
