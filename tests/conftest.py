"""Shared fixtures: real SQLite stores in tmp_path, principals; the loud-skip plugin."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

import pincite
from pincite.model import Principal

# Index generations built by `ingest` in tests use the model-free hash embedder.
os.environ.setdefault("PINCITE_EMBEDDER", "hash")

pytest_plugins = ["pytester", "tests.golden", "tests.loud_skips", "tests.pg_server"]

# The contract suite: every test that takes `lib` runs on each backend named here
# ($PINCITE_TEST_STORES, comma-separated; both by default). A behaviour that differs
# between the backends is a bug.
STORES = [s for s in os.environ.get("PINCITE_TEST_STORES", "sqlite,postgresql").split(",") if s]


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The location of a fresh store on the parametrized backend (a PostgreSQL one is
    dropped when the test ends)."""
    if request.param == "postgresql":
        server = request.getfixturevalue("pg_server")
        url = server.fresh_database()
        yield url
        server.drop(url)
        return
    yield str(tmp_path / "store")


@pytest.fixture
def lib(store_url: str):
    library = pincite.open(store_url, create=True)
    yield library
    library.close()


@pytest.fixture
def ana() -> Principal:
    return Principal.parse("acme:ana:legal")
