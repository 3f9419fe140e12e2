"""`run_acceptance`: every group of the acceptance suite against fresh temporary stores.

The groups run in a fixed order into one scoreboard; each is timed. The cases of
`../shared/RELIABILITY.md` that need machinery pincite does not have yet are recorded as
`not_applicable` with the reason (PostgreSQL row-level security, case A8, comes with the
PostgreSQL backend; schemathesis over the HTTP API, case F, with the API) — never passed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ...model.progress_report import Report, report_to
from ...vocab import ProgressUnit
from .authz import run_authz
from .bad_inputs import run_bad_inputs
from .durability import run_durability
from .erasure import run_erasure
from .fairness import run_fairness
from .formulas import run_formulas
from .harness import SIZES, Drivers, Size, Workspace
from .hostile_files import run_hostile_files
from .interleavings import run_interleavings
from .mcp_scopes import run_mcp_scopes
from .noninterference import run_noninterference
from .origin import run_origin
from .prompt_injection import run_injection
from .retrieval_faults import run_retrieval_faults
from .revisions import run_revisions
from .run_copies import run_run_copies
from .scoreboard import Scoreboard
from .sessions import run_sessions
from .size_limits import run_limits
from .symlinks import run_symlinks
from .token_dos import run_token_dos
from .write_authz import run_write_authz
from .yaml_bombs import run_yaml_bombs


def run_hostile(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size, seed: int,
                pdfs: Path | None = None) -> None:
    """HOSTILE: bad command lines, then hostile files."""
    run_bad_inputs(board, ws, drivers, size, seed)
    run_hostile_files(board, ws, drivers, size, seed, pdfs=pdfs)


Group = Callable[..., None]  # (board, workspace, drivers, size, seed, **options) -> None
GROUPS: dict[str, Group] = {
    "AUTHZ": run_authz,
    "WRITE AUTHZ": run_write_authz,
    "NONINTERF": run_noninterference,
    "DELETION": run_erasure,
    "REVISIONS": run_revisions,
    "RETRIEVAL": run_retrieval_faults,
    "INJECTION": run_injection,
    "CSRF/ORIGIN": run_origin,
    "TOKEN DOS": run_token_dos,
    "MCP SCOPES": run_mcp_scopes,
    "SESSIONS": run_sessions,
    "FAIRNESS": run_fairness,
    "SYMLINKS": run_symlinks,
    "LIMITS": run_limits,
    "HOSTILE": run_hostile,
    "DURABILITY": run_durability,
    "DURABLE-RUN COPIES": run_run_copies,
    "REVIEW": run_interleavings,
    "FORMULA INJECTION": run_formulas,
    "YAML BOMBS": run_yaml_bombs,
}
DEFAULT_SEED = 14


def check_selection(size: str, groups: Sequence[str]) -> list[str]:
    """Return the groups to run (all when none is named); raise UsageError for an unknown
    size or group."""
    if size not in SIZES:
        raise UsageError(f"unknown size {size!r}: use {' or '.join(SIZES)}")
    unknown = [g for g in groups if g.upper() not in GROUPS]
    if unknown:
        raise UsageError(f"unknown group(s) {', '.join(unknown)}: use {', '.join(GROUPS)}")
    return [g for g in GROUPS if not groups or g in {x.upper() for x in groups}]


def run_acceptance(drivers: Drivers, *, size: str = "small", groups: Sequence[str] = (),
                   seed: int = DEFAULT_SEED, bipia: Path | None = None,
                   pdfs: Path | None = None, report: Report | None = None) -> dict[str, Any]:
    """Run the acceptance groups (all, or those named) at `size`; return the report. Each
    group is reported to `report` as a step as it starts."""
    chosen = check_selection(size, groups)
    options: dict[str, dict[str, Any]] = {"INJECTION": {"bipia": bipia}, "HOSTILE": {"pdfs": pdfs}}
    board = Scoreboard()
    t0 = time.perf_counter()
    with Workspace() as ws:
        for k, name in enumerate(chosen):
            report_to(report, ProgressUnit.STEP, k, len(chosen), name)
            t = time.perf_counter()
            GROUPS[name](board, ws, drivers, SIZES[size], seed, **options.get(name, {}))
            board.seconds[name] = time.perf_counter() - t
        report_to(report, ProgressUnit.STEP, len(chosen), len(chosen))
    if not groups:
        board.not_applicable("AUTHZ", "PostgreSQL row-level security as a second wall (A8)",
                             "no PostgreSQL backend yet (issue 15)")
        board.not_applicable("POISONING", "poisoned chunks winning silently (C6, I9)",
                             "evidence bundles carry no conflict, echo or single-source "
                             "flags yet")
        board.not_applicable("API", "schemathesis cases over the HTTP API (F)",
                             "no HTTP API yet (issue 17)")
    return board.to_dict(size=size, seed=seed, groups_run=chosen,
                         seconds=round(time.perf_counter() - t0, 2))
