"""What every group of the acceptance suite is given: the size of the run, the drivers of
the surfaces above the evals layer, and a fresh temporary workspace.

The suite sits in the `evals` layer, below the facade, the CLI and the review service, so
the command that runs it hands those in as `Drivers`: `open_library` (the facade), `cli`
(the `pincite` command run in this process), `process` (the argv that runs it as its own
process, for `kill -9`) and `review_app` (the review page's app, None without the
`review` extra). Every store the suite touches lives under one temporary directory made
for the run — never the user's store — and is removed afterwards.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...embed import HashEmbedder

# The environment of every CLI run: the model-free embedder, no fault injection, and no
# store, principal or model endpoint inherited from the user's shell.
CLI_ENV: dict[str, str | None] = {"PINCITE_EMBEDDER": "hash", "PINCITE_FAULTS": None,
                                  "PINCITE_AS": None, "PINCITE_STORE": None,
                                  "PINCITE_MODEL_ENDPOINT": None, "PINCITE_MODEL": None}
EMBEDDER = HashEmbedder()


@dataclass(frozen=True)
class Size:
    """How many attempts each group makes (`small` for `make test`, `large` for releases)."""

    name: str
    tenants: int             # AUTHZ: tenants, each with one canary document per ACL shape
    queries: int             # AUTHZ: random (principal, query) searches through the facade
    asks: int                # AUTHZ: random (principal, question) asks
    cli_calls: int           # AUTHZ: random CLI reads (search, ask, show, cite, sources)
    hidden_docs: int         # NONINTERF: documents the principal cannot see, stuffed
    deletions: int           # DELETION: deleted-and-purged documents
    revise_cycles: int       # REVISIONS
    payloads: int | None     # INJECTION: own payloads used (None: all)
    bipia: int | None        # INJECTION: BIPIA attack strings used (None: all)
    kills_per_point: int     # DURABILITY: kill -9 at each fault point, this many times
    random_kills: int        # DURABILITY: kill -9 at a random moment of a long ingest
    review_ops: str          # REVIEW: the alphabet of each reviewer's two-step scripts
    review_stress_seconds: float  # REVIEW: threads racing on one store (0: none)


SIZES = {
    "small": Size("small", tenants=3, queries=600, asks=120, cli_calls=40, hidden_docs=60,
                  deletions=2, revise_cycles=4, payloads=16, bipia=15, kills_per_point=1,
                  random_kills=1, review_ops="NDR", review_stress_seconds=0.0),
    "large": Size("large", tenants=5, queries=6000, asks=1500, cli_calls=300,
                  hidden_docs=500, deletions=8, revise_cycles=25, payloads=None, bipia=None,
                  kills_per_point=5, random_kills=10, review_ops="NDRE",
                  review_stress_seconds=8.0),
}


@dataclass(frozen=True)
class CliRun:
    """One run of the `pincite` command: exit code, both streams, and the traceback of an
    exception that escaped it (None when it ended cleanly, with any exit code)."""

    returncode: int
    stdout: str
    stderr: str
    traceback: str | None = None

    @property
    def output(self) -> str:
        """Everything the command printed."""
        return self.stdout + self.stderr

    def json(self) -> Any:
        """Return stdout as one JSON value (None when it is not JSON)."""
        try:
            return json.loads(self.stdout)
        except ValueError:
            return None

    def json_lines(self) -> list[Any]:
        """Return the JSON values of stdout, one per line (lines that are not JSON skipped)."""
        out = []
        for line in self.stdout.splitlines():
            try:
                out.append(json.loads(line))
            except ValueError:
                continue
        return out


CliDriver = Callable[[Sequence[str], Mapping[str, str | None]], CliRun]


@dataclass(frozen=True)
class Drivers:
    """The surfaces above the evals layer, handed in by the command that runs the suite."""

    open_library: Callable[..., Any]      # (url, create=False) -> the facade's Library
    cli: CliDriver                        # (argv, env) -> CliRun, in this process
    process: tuple[str, ...]              # argv prefix that runs the CLI as a process
    review_app: Callable[..., Any] | None = None  # (library, principal) -> ASGI app
    service: Any = None  # `loopback.ServiceDriver`: the service's apps (None without them)


class Workspace:
    """A fresh temporary directory holding every store and file of one run."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="pincite-acceptance-"))
        self._n = 0

    def path(self, name: str) -> Path:
        """Return a new path under the workspace (not created), unique per call."""
        self._n += 1
        return self.root / f"{self._n:03d}-{name}"

    def folder(self, name: str) -> Path:
        """Return a new, empty folder under the workspace."""
        p = self.path(name)
        p.mkdir(parents=True)
        return p

    def close(self) -> None:
        """Remove the workspace and everything in it."""
        shutil.rmtree(self.root, ignore_errors=True)

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def run_cli(drivers: Drivers, store: Path, *args: str,
            env: Mapping[str, str | None] | None = None) -> CliRun:
    """Return the run of `pincite --store STORE ARGS` in this process (hash embedder, no
    fault injection, nothing inherited from the user's environment)."""
    return drivers.cli(["--store", str(store), *args], {**CLI_ENV, **(env or {})})


def clean_error(run: CliRun) -> bool:
    """Whether a refused command ended as the CLI promises: no traceback, a non-zero exit
    and exactly one `error: …` line on stderr."""
    lines = run.stderr.strip().splitlines()
    return (run.traceback is None and "Traceback (most recent call last)" not in run.output
            and run.returncode not in (0, None) and len(lines) == 1
            and lines[0].startswith("error: "))


def files_under(root: Path) -> list[Path]:
    """Every regular file under `root` (the database, its -wal and -shm, blobs, indexes)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink())
