"""Every command path of the CLI has help with an example, and a section in docs/cli.md.

The paths are read from the Typer app itself (root, groups, subcommands), so a new command
is checked without editing this file.
"""

from __future__ import annotations

import re

import pytest

from tests.commands import command_paths, invoke
from tests.corpus import ROOT

PATHS = command_paths()

# Help texts without an `Example:` today; the CLI's owners add them and these flip to pass.


def _name(path: tuple[str, ...]) -> str:
    return " ".join(("pincite", *path))


def test_the_walk_finds_groups_and_their_subcommands() -> None:
    assert len(PATHS) == len(set(PATHS)) >= 40
    assert {("ingest",), ("eval", "cuad"), ("index", "rollback"), ("review", "decide")} <= set(PATHS)


@pytest.mark.parametrize("path", [pytest.param(p, id=_name(p)) for p in PATHS])
def test_help_exits_0_and_shows_an_example(path: tuple[str, ...]) -> None:
    out = invoke(*path, "--help")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Usage: pincite")
    assert "Example:" in out.stdout


def test_every_command_path_has_a_section_in_the_cli_docs() -> None:
    doc = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## `(pincite[^`]*)`$", doc, flags=re.M))
    assert {_name(p) for p in PATHS} - sections == set()
    # and no section for a command that no longer exists
    assert sections - {_name(p) for p in PATHS} == set()
