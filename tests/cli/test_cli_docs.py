"""docs/cli.md is what `scripts/gen_cli_docs.py` writes.

Each command's section holds that command's `--help`, run as its own process the way the
script runs it (one test per command, so `pytest -n` spreads the ~70 processes over its
workers), and the file is the script's rendering of those sections: header, titles, order.
Together: the script would write the file as it is.
"""

from __future__ import annotations

import importlib.util
import re
from types import ModuleType

import pytest

from tests.corpus import ROOT

DOC = ROOT / "docs" / "cli.md"
SECTION = re.compile(r"^## `pincite(?P<args>[^`]*)`\n\n```\n(?P<help>.*?)\n```$", re.M | re.S)
STALE = "docs/cli.md is stale: run python scripts/gen_cli_docs.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_cli_docs",
                                                  ROOT / "scripts" / "gen_cli_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _script()


def _sections() -> dict[tuple[str, ...], str]:
    return {tuple(m["args"].split()): m["help"]
            for m in SECTION.finditer(DOC.read_text(encoding="utf-8"))}


@pytest.mark.parametrize("args", [pytest.param(tuple(a), id=" ".join(["pincite", *a]))
                                  for a in GEN.commands()])
def test_each_command_section_is_its_current_help(args: tuple[str, ...]) -> None:
    assert _sections().get(args) == GEN.help_text(list(args)), STALE


def test_the_reference_is_the_scripts_rendering_of_those_sections(monkeypatch) -> None:
    sections = _sections()
    monkeypatch.setattr(GEN, "help_text", lambda args: sections[tuple(args)])
    assert GEN.render() == DOC.read_text(encoding="utf-8"), STALE
