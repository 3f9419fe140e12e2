"""Shared fixtures: real SQLite stores in tmp_path, principals; the loud-skip plugin."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import pincite
from pincite.model import Principal

# Index generations built by `ingest` in tests use the model-free hash embedder.
os.environ.setdefault("PINCITE_EMBEDDER", "hash")

pytest_plugins = ["pytester", "tests.golden", "tests.loud_skips"]


@pytest.fixture
def lib(tmp_path: Path):
    library = pincite.open(tmp_path / "store", create=True)
    yield library
    library.close()


@pytest.fixture
def ana() -> Principal:
    return Principal.parse("acme:ana:legal")
