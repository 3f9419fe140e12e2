"""The README cannot go stale: its `make run` transcript is what the commands print now
(`scripts/readme_transcript.py` replays them), the script replays exactly what make runs,
every command and command group of the CLI has a line in the README's command table with
each of its subcommands, every docs/ page is linked, and the quick start is two commands.
(The README's Python example runs in tests/test_readme_example.py, its "Serve it" section
in tests/test_readme_serve.py.)"""

from __future__ import annotations

import difflib
import importlib.util
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import typer
import typer.main

from pincite.cli import app
from tests.corpus import ROOT

README = ROOT / "README.md"
STALE = "README.md's transcript is stale: run python scripts/readme_transcript.py --write"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readme_transcript",
                                                  ROOT / "scripts" / "readme_transcript.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


GEN = _script()


def _readme() -> str:
    return README.read_text(encoding="utf-8")


def test_the_transcript_is_what_make_run_prints_now():
    from pincite.embed.factory import minilm_installed

    # make run's store is embedded by MiniLM (the embed extra, which the dev extra holds);
    # with the hash embedder search and ask would print other ranks
    assert minilm_installed(), "the transcript is make run's: install pincite[dev]"
    fresh = GEN.transcript(runner=GEN.run_in_process)
    held = GEN.readme_block(_readme())
    if fresh != held:
        diff = "\n".join(difflib.unified_diff(held.splitlines(), fresh.splitlines(),
                                              "README.md", "a run now", lineterm=""))
        pytest.fail(f"{STALE}\n{diff}")


def _make_n(makefile: Path, store: str, rundir: str) -> list[list[str]]:
    """Return the commands `make -n run` prints (the venv step taken as done), as tokens."""
    # under `make test` this make is a sub-make: without --no-print-directory it prints
    # "make[1]: Entering directory …" lines, and MAKEFLAGS carries the parent's flags
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    out = subprocess.run(["make", "--no-print-directory", "-n", "-o", "venv-run", "-f",
                          str(makefile), "run", f"STORE={store}", f"RUNDIR={rundir}"], cwd=ROOT,
                         check=True, capture_output=True, text=True, env=env).stdout
    return [shlex.split(cmd) for cmd in out.replace("\\\n", " ").splitlines() if cmd.strip()]


def test_the_script_replays_exactly_what_make_run_runs():
    store, rundir = "/s/pincite-store", "/r/reports/run"
    made = [cmd for cmd in _make_n(ROOT / "Makefile", store, rundir) if cmd[0] != "mkdir"]
    replayed = []
    for step in GEN.steps():
        if step.echo:
            replayed.append(["echo", step.shown])
            continue
        argv = [GEN._expand(a, {"$(STORE)": store, "$(RUNDIR)": rundir}) for a in step.argv]
        tee = ([] if step.tee is None else
               ["|", "tee", *(["-a"] if step.append else []), step.tee.replace("$(RUNDIR)", rundir)])
        replayed.append([".venv/bin/pincite", *argv, *tee])
    assert made == replayed
    assert sum(not s.echo for s in GEN.steps()) >= 10  # not vacuous: the demo's commands


def test_a_changed_output_makes_the_block_stale_and_write_brings_it_back(tmp_path):
    def makefile(command: str) -> Path:
        path = tmp_path / f"Makefile.{command.split()[0]}"
        path.write_text("STORE ?= pincite-store\nRUNDIR ?= reports/run\n\nrun: venv-run\n"
                        "\t@mkdir -p $(RUNDIR)\n\t@echo \"--- the keys:\"\n"
                        f"\t$(PINCITE) --store $(STORE) {command} --help\n", encoding="utf-8")
        return path

    before = GEN.transcript(makefile("keys"), runner=GEN.run_in_process)
    assert before.startswith("```console\n--- the keys:\n$ pincite --store pincite-store keys --help\n")
    assert "revoke" in before  # the command's output is in the block
    readme = GEN.with_block(f"# x\n\n{GEN.BEGIN}\n{GEN.END}\n\nmore\n", before)
    assert GEN.readme_block(readme) == before and readme.endswith(f"{GEN.END}\n\nmore\n")
    after = GEN.transcript(makefile("db"), runner=GEN.run_in_process)
    assert GEN.readme_block(readme) != after  # what the test above would report as stale
    assert GEN.readme_block(GEN.with_block(readme, after)) == after


def test_a_failing_step_stops_the_transcript_unless_make_would_go_on(tmp_path):
    path = tmp_path / "Makefile"
    recipe = "STORE ?= pincite-store\nRUNDIR ?= reports/run\n\nrun:\n\t{}$(PINCITE) --store $(STORE) sources\n"
    path.write_text(recipe.format(""), encoding="utf-8")
    with pytest.raises(SystemExit, match="step failed"):  # no store there: sources refuses
        GEN.transcript(path, runner=GEN.run_in_process)
    path.write_text(recipe.format("-"), encoding="utf-8")
    assert "error:" in GEN.transcript(path, runner=GEN.run_in_process)


def test_masks_hide_what_varies_and_keep_what_the_reader_checks():
    work = "/tmp/pincite-readme-x1/pincite-store"
    text = (f"wrote {work}/a run-001a22d6e364d-aadbf0f11ac1 case case-cbd2bf2cf566 "
            f"{'3a6bf2facf68' + 'b' * 52} 3a6bf2facf68 0:00:03 2.5 s at 2026-12-05T02:21:14Z "
            "clause 7.1.a chars 2735-2767 g000001 conf 0.94 cafe")
    masked = GEN.mask(text, {work: "pincite-store"})
    assert masked == ("wrote pincite-store/a run-<id> case case-<id> <sha256> <sha12> <elapsed> "
                      "<secs> at <time> clause 7.1.a chars 2735-2767 g000001 conf 0.94 cafe")
    line = '{"a": "' + "x" * 60 + '", "b": 1, "c": "' + "y" * 60 + '", "d": [1, 2]}'
    folded = GEN.fold(line)
    assert len(folded) > 1 and all(len(x) <= GEN.WIDTH for x in folded)
    assert "".join(folded) == line  # nothing cut: each break is after a ", "


def _command_rows() -> list[str]:
    """Return the heads of the README's command table rows (`pincite …`)."""
    return re.findall(r"^\| `(pincite [^`]*)`", _readme(), re.M)


def _groups() -> dict[str, list[str]]:
    """Return every top-level command of the CLI with its subcommands (none for a command)."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    out = {}
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        subs = command.list_commands(typer.Context(command)) if hasattr(command, "list_commands") else []
        out[name] = list(subs)
    return out


def test_every_command_and_group_has_a_line_in_the_readme_with_its_subcommands():
    rows = _command_rows()
    groups = _groups()
    assert {"rank", "release", "serve", "keys", "mcp", "db"} <= set(groups)  # not vacuous
    missing = []
    for name, subs in groups.items():
        heads = [r for r in rows if re.match(rf"pincite {re.escape(name)}(\s|$)", r)]
        if not heads:
            missing.append(name)
            continue
        named = set(re.findall(r"[\w-]+", " ".join(h.split(" ", 2)[2] if h.count(" ") > 1
                                                  else "" for h in heads)))
        missing += [f"{name} {s}" for s in subs if s not in named]
    assert not missing, f"README.md's command table lacks: {', '.join(missing)}"


def test_every_docs_page_is_linked_from_the_readme():
    pages = sorted(p.name for p in (ROOT / "docs").glob("*.md"))
    assert {"postgres.md", "ranking.md", "releases.md", "service.md"} <= set(pages)
    text = _readme()
    unlinked = [p for p in pages if f"](docs/{p})" not in text]
    assert not unlinked, f"README.md links no {', '.join(unlinked)}"


def test_the_quick_start_is_make_run_and_make_test():
    match = re.search(r"^## Quick start\n\n```sh\n(.*?)```", _readme(), re.S | re.M)
    assert match, "README.md's quick start has no sh block"
    commands = [line.split("#")[0].strip() for line in match.group(1).splitlines()]
    assert [c for c in commands if c] == ["make run", "make test"]
