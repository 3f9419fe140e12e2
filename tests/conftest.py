"""Shared fixtures: real SQLite stores in tmp_path, principals, a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pincite
from pincite.model import Principal

# Index generations built by `ingest` in tests use the model-free hash embedder.
os.environ.setdefault("PINCITE_EMBEDDER", "hash")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
EXAMPLES = ROOT / "examples"


@pytest.fixture
def lib(tmp_path: Path):
    library = pincite.open(tmp_path / "store")
    yield library
    library.close()


@pytest.fixture
def ana() -> Principal:
    return Principal.parse("acme:ana:legal")


def run_cli(*args: str, store: Path | None = None, env: dict[str, str] | None = None,
            input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `python -m pincite.cli ARGS` in a subprocess and return the completed process."""
    full_env = {**os.environ, **(env or {})}
    full_env.pop("PINCITE_FAULTS", None) if env is None or "PINCITE_FAULTS" not in env else None
    cmd = [sys.executable, "-m", "pincite.cli"]
    if store is not None:
        cmd += ["--store", str(store)]
    return subprocess.run(cmd + list(args), capture_output=True, text=True, env=full_env,
                          input=input, timeout=timeout)
