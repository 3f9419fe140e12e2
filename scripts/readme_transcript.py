"""Write the README's `make run` transcript from a real run (run after changing the CLI's output).

The commands are read from the Makefile's `run` target, so the transcript shows exactly what
`make run` runs. Each `pincite` command runs as its own process of the installed command, over
examples/, on a store and a reports folder in a fresh temporary directory, with the embedder
`make run` gets (MiniLM when the `embed` extra is installed). The output is masked where it
varies between runs or checkouts: temporary paths, sha256 digests, run and case ids, times.

Usage: python scripts/readme_transcript.py [--write | --check]
  (no flag)  print the transcript block
  --write    replace the block between the README's transcript markers
  --check    exit 1 when the README's block differs from a fresh run
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAKEFILE = ROOT / "Makefile"
BEGIN = "<!-- transcript: begin (scripts/readme_transcript.py --write) -->"
END = "<!-- transcript: end -->"
WIDTH = 100  # JSON lines longer than this are folded after ", " (nothing is cut)


@dataclass(frozen=True)
class Step:
    """One line of the `run` recipe: a `pincite` command (with its display form) or an echo."""

    shown: str                 # as the transcript prints it (the Makefile's line breaks)
    argv: tuple[str, ...] = ()  # the pincite arguments, variables still unexpanded
    tee: str | None = None      # `| tee [-a] FILE`: the file stdout is copied to
    append: bool = False
    may_fail: bool = False      # a `-` recipe line: make goes on when it fails
    echo: bool = False


def recipe(makefile: Path = MAKEFILE, target: str = "run") -> list[str]:
    """Return the recipe lines of `target`, continuation lines joined (their breaks kept as '\\n')."""
    lines = makefile.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{target}:"))
    out: list[str] = []
    pending: list[str] = []
    for line in lines[start + 1:]:
        if not line.startswith("\t") and not pending:
            break
        text = line.strip()
        if text.endswith("\\"):
            pending.append(text[:-1].rstrip())
            continue
        out.append("\n".join([*pending, text]))
        pending = []
    return out


def steps(makefile: Path = MAKEFILE) -> list[Step]:
    """Return the steps of `make run`: every `$(PINCITE)` command and every echo, in order."""
    found: list[Step] = []
    for line in recipe(makefile):
        body = line.lstrip("@-")
        may_fail = line.startswith("-") or line.startswith("@-")
        if body.startswith("mkdir "):
            continue  # the script makes its own folders
        if body.startswith("echo "):
            [text] = shlex.split(body[len("echo "):])
            found.append(Step(shown=text, echo=True))
            continue
        if not body.startswith("$(PINCITE) "):
            raise SystemExit(f"Makefile run: a line this script cannot replay: {line!r}")
        command, _, tee = body.partition(" | tee ")
        shown = command.replace("$(PINCITE)", "pincite", 1)
        append = tee.startswith("-a ")
        if tee:
            shown += " | tee " + tee
        found.append(Step(shown=shown, argv=tuple(shlex.split(command.replace("\n", " "))[1:]),
                          tee=tee.removeprefix("-a ").strip() or None, append=append,
                          may_fail=may_fail))
    return found


def make_vars(makefile: Path = MAKEFILE) -> dict[str, str]:
    """Return the Makefile's `NAME ?= value` defaults (STORE, RUNDIR)."""
    pattern = re.compile(r"^(\w+)\s*\?=\s*(\S+)\s*$", re.M)
    return dict(pattern.findall(makefile.read_text(encoding="utf-8")))


def pincite_command() -> list[str]:
    """Return the installed `pincite` command beside this interpreter (as make run calls it)."""
    script = Path(sys.executable).parent / "pincite"
    if not script.is_file():
        raise SystemExit(f"{script} is missing: install pincite (make run) first")
    return [str(script)]


MASKS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(r"\b[0-9a-f]{64}\b"), "<sha256>"),
    (re.compile(r"\brun-[0-9a-f]+-[0-9a-f]+\b"), "run-<id>"),
    (re.compile(r"\bcase-[0-9a-f]{8,}\b"), "case-<id>"),
    # a digest's first 12 hex digits (sources), not a word that happens to be hex
    (re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{12}\b"), "<sha12>"),
    (re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)?"), "<time>"),
    (re.compile(r"\b\d+:\d\d:\d\d\b"), "<elapsed>"),          # rich's elapsed column
    (re.compile(r"\b\d+(?:\.\d+)? ?(?:ms|s)\b(?!\w)"), "<secs>"),
]


def mask(text: str, paths: dict[str, str]) -> str:
    """Return `text` with the run's temporary paths shown as the Makefile names them, and
    digests, ids and times masked."""
    for real, shown in sorted(paths.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(real, shown)
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    return text


def fold(line: str, width: int = WIDTH) -> list[str]:
    """Return a JSON line folded after ", " into lines of at most `width` (others unchanged)."""
    if len(line) <= width or not line.startswith("{"):
        return [line]
    out, current = [], ""
    for part in re.split(r"(?<=, )", line):
        if current and len(current) + len(part) > width:
            out.append(current.rstrip())
            current = " "
        current += part
    return [*out, current]


@dataclass(frozen=True)
class Ran:
    """What one step left: exit code, stdout alone (what tee copies) and both streams as a
    terminal shows them."""

    returncode: int
    stdout: str
    output: str


Runner = Callable[[list[str], dict[str, str], bool], Ran]


def run_process(argv: list[str], env: dict[str, str], tee: bool) -> Ran:
    """Run `pincite ARGV` as its own process of the installed command, as make does."""
    # one pipe for both streams keeps their order as a terminal shows it; a step that tees
    # gets two, since tee copies stdout alone (its stderr is shown after)
    proc = subprocess.run([*pincite_command(), *argv], cwd=ROOT, env=env, text=True,
                          stdout=subprocess.PIPE, timeout=600,
                          stderr=subprocess.PIPE if tee else subprocess.STDOUT)
    return Ran(proc.returncode, proc.stdout, proc.stdout + (proc.stderr or ""))


def run_in_process(argv: list[str], env: dict[str, str], tee: bool) -> Ran:
    """Run `pincite ARGV` in this interpreter through Typer's runner (the same app and
    arguments; a test's fast path, checked against the README a real run wrote)."""
    from typer.testing import CliRunner

    from pincite.cli import app

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        # the runner sets these variables for the run and puts the old values back
        unset: dict[str, str | None] = {k: None for k in os.environ if k not in env}
        result = CliRunner().invoke(app, argv, env={**unset, **env}, catch_exceptions=False)
    finally:
        os.chdir(cwd)
    output = result.stdout + result.stderr if tee else result.output
    return Ran(result.exit_code, result.stdout, output)


def run_steps(work: Path, makefile: Path = MAKEFILE, runner: Runner = run_process) -> str:
    """Run `make run`'s steps with the store and reports in `work`; return the masked
    transcript (commands prefixed with `$ `, each followed by its stdout and stderr)."""
    names = make_vars(makefile)
    store, rundir = work / names["STORE"], work / names["RUNDIR"]
    rundir.mkdir(parents=True)
    expand = {"$(STORE)": str(store), "$(RUNDIR)": str(rundir)}
    shown_vars = {"$(STORE)": names["STORE"], "$(RUNDIR)": names["RUNDIR"]}
    env = {k: v for k, v in os.environ.items() if not k.startswith("PINCITE_") and k != "COLUMNS"}
    env |= {"PYTHONUNBUFFERED": "1", "TERM": "dumb", "NO_COLOR": "1"}
    paths = {str(store): names["STORE"], str(rundir): names["RUNDIR"], str(ROOT) + "/": ""}
    lines: list[str] = []
    for step in steps(makefile):
        shown = _expand(step.shown, shown_vars)
        if step.echo:
            lines.append(shown)
            continue
        lines.append("$ " + shown.replace("\n", " \\\n    "))
        ran = runner([_expand(a, expand) for a in step.argv], env, step.tee is not None)
        if ran.returncode != 0 and not step.may_fail:
            so_far = "\n".join(lines)
            raise SystemExit(f"{so_far}\nmake run's step failed ({ran.returncode}):\n{ran.output}")
        if step.tee:
            target = Path(_expand(step.tee, expand))
            with target.open("a" if step.append else "w", encoding="utf-8") as f:
                f.write(ran.stdout)
        for line in mask(ran.output, paths).splitlines():
            lines.extend(fold(line.rstrip()))
        if ran.returncode != 0:
            lines.append(f"(exit {ran.returncode}; make goes on)")
    return "\n".join(lines)


def _expand(arg: str, values: dict[str, str]) -> str:
    for var, value in values.items():
        arg = arg.replace(var, value)
    return arg


def transcript(makefile: Path = MAKEFILE, runner: Runner = run_process) -> str:
    """Return the README's transcript block (a fenced console block) from a fresh run."""
    work = Path(tempfile.mkdtemp(prefix="pincite-readme-"))
    try:
        body = run_steps(work, makefile, runner)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return f"```console\n{body}\n```"


def readme_block(text: str) -> str:
    """Return what the README holds between the transcript markers."""
    if text.count(BEGIN) != 1 or text.count(END) != 1:
        raise SystemExit(f"README.md must hold the markers {BEGIN!r} and {END!r} once each")
    return text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n")


def with_block(text: str, block: str) -> str:
    """Return the README text with `block` between the transcript markers."""
    readme_block(text)  # the markers are there, once each
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{block}\n{END}{tail}"


def main() -> None:
    block = transcript()
    if "--write" in sys.argv:
        README.write_text(with_block(README.read_text(encoding="utf-8"), block), encoding="utf-8")
        print("wrote the transcript block of README.md", file=sys.stderr)
    elif "--check" in sys.argv:
        if readme_block(README.read_text(encoding="utf-8")) != block:
            sys.exit("README.md's transcript is stale: run python scripts/readme_transcript.py --write")
    else:
        print(block)


if __name__ == "__main__":
    main()
