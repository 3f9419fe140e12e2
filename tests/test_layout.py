"""The tree shows the pipeline: packages per stage, the stage order enforced, no cycles.

The import contracts live in `pyproject.toml` (`[tool.importlinter]`); these tests run
them on the real package and on a copy with one bad import, so a contract that can no
longer fail fails here.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "pincite"
MAX_LINES = 500
LOOSE_ALLOWED = 8


def _lint_imports(src_dir: Path) -> subprocess.CompletedProcess[str]:
    """Run import-linter with the project's contracts over the package under `src_dir`."""
    code = ("import sys\nfrom importlinter.cli import lint_imports\n"
            "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))")
    env_path = str(src_dir)
    return subprocess.run([sys.executable, "-c", code, str(ROOT / "pyproject.toml")],
                          capture_output=True, text=True, timeout=300, cwd=src_dir,
                          env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})


def test_loose_modules_are_few_and_every_stage_is_a_package():
    loose = sorted(p.stem for p in PKG.glob("*.py"))
    assert len(loose) <= LOOSE_ALLOWED, loose
    for stage in ("sources", "parse", "cite", "facts", "values", "embed", "index",
                  "retrieve", "ask", "extract", "review", "store", "evals", "runs", "cli", "service"):
        assert (PKG / stage / "__init__.py").is_file(), stage


def test_no_file_name_is_used_twice():
    names = Counter(p.name for p in PKG.rglob("*.py")
                    if p.name not in ("__init__.py", "__main__.py"))
    assert [n for n, c in names.items() if c > 1] == []


def test_no_module_is_over_the_size_habit():
    long = {str(p.relative_to(PKG)): n for p in PKG.rglob("*.py")
            if (n := len(p.read_text("utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_no_backend_is_named_outside_the_store():
    hits = [f"{p.relative_to(PKG)}:{i}" for p in PKG.rglob("*.py")
            if "store" not in p.relative_to(PKG).parts[:1]
            for i, line in enumerate(p.read_text("utf-8").splitlines(), 1)
            if "SQLiteStore" in line]
    assert hits == []


def test_import_contracts_hold():
    out = _lint_imports(ROOT / "src")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


@pytest.mark.parametrize(("module", "bad_import", "contract"), [
    ("parse/text.py", "from ..library import Library", "stages import only the stages below"),
    ("parse/html.py", "from ..store import blobs", "parse never imports the store"),
    ("cli/options.py", "from ..store import open_store", "call only the facade"),
])
def test_the_contracts_fail_on_a_bad_fixture(tmp_path, module, bad_import, contract):
    shutil.copytree(PKG, tmp_path / "pincite", ignore=shutil.ignore_patterns("__pycache__"))
    target = tmp_path / "pincite" / module
    target.write_text(target.read_text("utf-8") + f"\n{bad_import}  # noqa\n", "utf-8")
    out = _lint_imports(tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert contract in out.stdout and "BROKEN" in out.stdout


def test_no_import_cycles():
    import grimp

    graph = grimp.build_graph("pincite", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 5000))
    for m in sorted(edges):
        if m not in index:
            visit(m)
    assert cycles == []
