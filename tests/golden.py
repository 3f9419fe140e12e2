"""Golden files: compared by default, rewritten with `--regen-golden` or PINCITE_REGEN_GOLDEN=1.

Regeneration is refused when `CI` is set, so a CI run can only compare.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

REGEN_OPTION = "--regen-golden"
REGEN_ENV = "PINCITE_REGEN_GOLDEN"


def regen_requested(option: bool, env: Mapping[str, str]) -> bool:
    """Return whether golden files are to be rewritten: the option, or PINCITE_REGEN_GOLDEN=1."""
    return option or env.get(REGEN_ENV) == "1"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(REGEN_OPTION, action="store_true", default=False,
                     help=f"rewrite golden files instead of comparing (or {REGEN_ENV}=1)")


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI") and regen_requested(config.getoption(REGEN_OPTION), os.environ):
        raise pytest.UsageError(f"{REGEN_OPTION} / {REGEN_ENV} is refused when CI is set: "
                                "CI compares golden files, it never rewrites them")


@pytest.fixture
def regen_golden(request: pytest.FixtureRequest) -> bool:
    return regen_requested(request.config.getoption(REGEN_OPTION), os.environ)


def golden_text(obj: Mapping[str, Any], rows: str) -> str:
    """Return `obj` as JSON with its list `rows` written one item per line (short diffs)."""
    head = {k: v for k, v in obj.items() if k != rows}
    body = ",\n".join("    " + json.dumps(item, ensure_ascii=False) for item in obj[rows])
    text = json.dumps(head, ensure_ascii=False, indent=2)
    return f'{text[:-2]},\n  "{rows}": [\n{body}\n  ]\n}}\n'


def check_golden(path: Path, actual: str, regen: bool) -> None:
    """Compare `actual` with the golden file at `path`, or rewrite it when `regen` is on."""
    if regen:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        return
    assert path.exists(), f"{path} is missing: run pytest {REGEN_OPTION} to write it"
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert json.loads(actual) == expected, (
        f"{path.name} differs from the parser output; if the change is intended, "
        f"rerun with {REGEN_OPTION} and review the diff")
