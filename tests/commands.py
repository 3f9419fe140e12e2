"""Running the `pincite` command from tests: in-process through Typer's runner, or as a process.

`invoke` is the default: it runs `pincite.cli.app` in this interpreter and returns the same
fields as a completed process (`returncode`, `stdout`, `stderr`). `run_cli` starts
`python -m pincite.cli` and is kept for tests where the process boundary is the point
(startup, `-m pincite.cli`, fault injection that kills the process).
"""

from __future__ import annotations

import os
import subprocess
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from pincite.cli import app


@dataclass(frozen=True)
class CliResult:
    """What one in-process run of the command left: exit code and both streams."""

    returncode: int
    stdout: str
    stderr: str


def _argv(args: tuple[str, ...], store: Path | str | None) -> list[str]:
    return (["--store", str(store)] if store is not None else []) + list(args)


def invoke(*args: str, store: Path | str | None = None, env: dict[str, str] | None = None,
           input: str | None = None) -> CliResult:
    """Return the result of `pincite ARGS` run in-process (no fault injection unless `env` asks)."""
    full_env: dict[str, str | None] = {"PINCITE_FAULTS": None, **(env or {})}
    result = CliRunner().invoke(app, _argv(args, store), env=full_env, input=input,
                                catch_exceptions=True)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return CliResult(result.exit_code, result.stdout, stderr)


def run_cli(*args: str, store: Path | str | None = None, env: dict[str, str] | None = None,
            input: str | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Return the completed `python -m pincite.cli ARGS` process (no fault injection unless asked)."""
    full_env = {k: v for k, v in os.environ.items() if k != "PINCITE_FAULTS"} | (env or {})
    return subprocess.run([sys.executable, "-m", "pincite.cli", *_argv(args, store)],
                          capture_output=True, text=True, env=full_env, input=input,
                          timeout=timeout)


def command_paths() -> list[tuple[str, ...]]:
    """Return every command path of the CLI (the root, each group, each subcommand), read from the app."""
    import typer
    import typer.main

    found: list[tuple[str, ...]] = [()]

    def walk(group: Any, prefix: tuple[str, ...]) -> None:
        ctx = typer.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            found.append((*prefix, name))
            if hasattr(command, "list_commands"):  # a group
                walk(command, (*prefix, name))

    walk(typer.main.get_command(app), ())
    return found
