"""Write docs/cli.md from the commands' own --help (run after changing the CLI).

Usage: python scripts/gen_cli_docs.py [--check]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def commands() -> list[list[str]]:
    """Return every command path of the CLI, read from the app itself."""
    import typer.main

    from pincite.cli.app import app

    root = typer.main.get_command(app)
    out: list[list[str]] = [[]]

    def walk(group: Any, prefix: list[str]) -> None:
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            cmd = group.get_command(ctx, name)
            out.append([*prefix, name])
            if hasattr(cmd, "list_commands"):
                walk(cmd, [*prefix, name])

    walk(root, [])
    return out


def help_text(args: list[str]) -> str:
    env = {**os.environ, "COLUMNS": "100", "TERM": "dumb", "NO_COLOR": "1"}
    out = subprocess.run([sys.executable, "-m", "pincite.cli", *args, "--help"],
                         capture_output=True, text=True, env=env, check=True)
    return out.stdout.rstrip()


# the one paragraph of prose above the sections: what every long command shows on stderr
PROGRESS = """**Progress.** Long commands say how far they are on stderr, never on stdout, so `--json`
output is the same with progress or without it. When stderr is a terminal they show a Rich
display that is cleared when they end: `ingest` counts documents, and the pages of a PDF as
they are read and those read by OCR; `release promote` its steps; `eval acceptance` its
groups; `eval ask-cuad`, `ask-tatqa` and `ask-tenders` documents and cases; `eval ocr` its
variants, scans and pages. When stderr is not a terminal (piped, redirected, CI) they write
plain lines instead, never carriage returns: one as each named document or step starts
(`ingest: document 2/5 pliego.pdf`, `release promote: step 3/5 measure freshness and
deletion`) and, for cases, one at each tenth done. `PINCITE_PROGRESS=off` turns it off,
`plain` asks for the lines on a terminal too; `auto` (the default) chooses as above."""


def render() -> str:
    parts = ["# CLI reference", "",
             "Generated from `--help` by `scripts/gen_cli_docs.py`; do not edit by hand.", "",
             PROGRESS, ""]
    for args in commands():
        title = " ".join(["pincite", *args])
        parts += [f"## `{title}`", "", "```", help_text(args), "```", ""]
    return "\n".join(parts)


def main() -> None:
    target = ROOT / "docs" / "cli.md"
    text = render()
    if "--check" in sys.argv:
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            sys.exit("docs/cli.md is stale: run python scripts/gen_cli_docs.py")
        return
    target.write_text(text, encoding="utf-8")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
