"""`pincite release …`: freeze, shadow, diff, canary, promote, rollback, status, sample.

Release records are versioned JSON files (and a rendered record.html) under `--releases
DIR`: by default `<store>/releases` for a store that is a path; a store given as a URL
(PostgreSQL) needs `--releases`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ..vocab import ProgressUnit
from .context import emit, library, principal, store_url
from .options import AsOpt, EmbedderOpt, JsonOpt, StoreOpt
from .progress_lines import shown

release_app = typer.Typer(
    help="Retrieval releases: freeze the contract, shadow a generation, dual-read, canary, "
    "promote, roll back; the release record (JSON + HTML) holds what each step measured.\n\n"
    "Example: pincite release status --json", no_args_is_help=True, rich_markup_mode=None)

ReleasesOpt = Annotated[Path | None, typer.Option(
    "--releases", help="Folder of release records (default: <store>/releases; required for a "
    "store given as a URL).")]


def register(app: typer.Typer) -> None:
    """Add the `release` command group to `app`."""
    app.add_typer(release_app, name="release")


def _show(rec: dict[str, Any], json_: bool) -> None:
    if json_:
        emit(rec)
        return
    last = rec["steps"][-1] if rec.get("steps") else {}
    typer.echo(f"release {rec['release_id']}: {rec['state']} — {last.get('step')}: "
               f"{last.get('note', '')}")
    for name, c in (rec.get("evaluation") or {}).get("classes", {}).items():
        k = rec["evaluation"]["k"]
        typer.echo(f"  {name:24} recall@{k} {c[f'recall@{k}']}  MRR {c['mrr']}  "
                   f"p95 {c['latency_p95_ms']} ms  {'pass' if c['passes'] else 'FAIL'}")


def _ops(lib: Any, store: str | None, releases: Path | None, as_: str | None = None) -> Any:
    from ..library import release_ops

    return release_ops(lib, store_url(store), releases, principal(as_).subject)


@release_app.command("freeze")
def freeze(contract: Annotated[Path, typer.Argument(help="The contract file (YAML).")],
           releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None,
           as_: AsOpt = None) -> None:
    """Check a release contract and write it as the next contract version.

    Example: pincite release freeze examples/calls/release-contract.yaml
    """
    with library(store) as lib:
        entry = _ops(lib, store, releases, as_).freeze(contract)
    if json_:
        emit(entry)
    else:
        typer.echo(f"contract {entry['contract']['name']} frozen as {entry['file']} "
                   f"(sha256 {entry['digest'][:12]})")


@release_app.command("shadow")
def shadow(gen: Annotated[str, typer.Argument(help="A built generation (see `index build`).")],
           releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None,
           as_: AsOpt = None) -> None:
    """Open a release for a generation and replay the contract's labelled queries on it
    without serving it.

    Example: pincite release shadow g000002
    """
    with library(store) as lib:
        _show(_ops(lib, store, releases, as_).shadow(gen), json_)


@release_app.command("diff")
def diff(releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None,
         as_: AsOpt = None) -> None:
    """Dual-read the published generation and the candidate per query class (quality,
    authorization, latency, cost, freshness, what moved).

    Example: pincite release diff --json
    """
    with library(store) as lib:
        _show(_ops(lib, store, releases, as_).diff(), json_)


@release_app.command("canary")
def canary(gen: Annotated[str, typer.Argument(help="The open release's generation.")],
           cohort: Annotated[str, typer.Option("--cohort", help="A cohort of the contract.")],
           releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None,
           as_: AsOpt = None) -> None:
    """Route a named cohort to the candidate, record what it saw, decide pass or fail.

    Example: pincite release canary g000002 --cohort bid-team
    """
    with library(store) as lib:
        _show(_ops(lib, store, releases, as_).canary(gen, cohort), json_)


SECURITY_GROUPS = ("AUTHZ", "DELETION")  # what promote runs when no --acceptance is given


def _security(ctx: typer.Context, acceptance: Path | None, report: Any = None) -> dict[str, Any]:
    """Return the acceptance evidence: the report file given, else a small in-process run of
    the AUTHZ and DELETION groups against temporary stores (each a step to `report`)."""
    from ..errors import UsageError

    if acceptance is not None:
        from ..limits import load_json

        try:
            report = load_json(acceptance.read_bytes(), f"--acceptance {acceptance.name}")
        except (OSError, ValueError) as exc:
            raise UsageError(f"--acceptance {acceptance}: not a readable JSON report "
                             f"({exc})") from None
        if not isinstance(report, dict) or report.get("schema_name") != "pincite.acceptance":
            raise UsageError(f"--acceptance {acceptance} is not a report of `pincite eval "
                             "acceptance`")
        return report
    from ..evals.acceptance import run_acceptance
    from .evaluation import acceptance_drivers

    return run_acceptance(acceptance_drivers(ctx.find_root().command), size="small",
                          groups=SECURITY_GROUPS, report=report)


@release_app.command("promote")
def promote(ctx: typer.Context,
            approved_by: Annotated[str, typer.Option("--approved-by", help="An approver named in the contract.")],
            acceptance: Annotated[Path | None, typer.Option("--acceptance", help="A report of `pincite eval acceptance` (default: run its AUTHZ and DELETION groups now).")] = None,
            embedder: EmbedderOpt = None, releases: ReleasesOpt = None, json_: JsonOpt = False,
            store: StoreOpt = None, as_: AsOpt = None) -> None:
    """Check every gate (evaluation, canary, security evidence, freshness and deletion
    measured, approval), then publish the candidate; the old generation is the rollback
    target. Each step is shown on stderr as it starts.

    Example: pincite release promote --approved-by lucia
    """
    from ..library import open_embedder

    with library(store) as lib:
        ops = _ops(lib, store, releases, as_)  # before the suite, whose runs set --store
        first = 0 if acceptance is not None else len(SECURITY_GROUPS)
        total = first + len(ops.PROMOTE_STEPS)
        with shown("release promote") as bar:
            sec = _security(ctx, acceptance, bar.part(ProgressUnit.STEP, 0, total,
                                                      "security evidence: "))
            rec = ops.promote(approved_by, sec, open_embedder(embedder),
                              report=bar.part(ProgressUnit.STEP, first, total))
        _show(rec, json_)


@release_app.command("rollback")
def rollback(reason: Annotated[str, typer.Option("--reason", help="Why (recorded).")],
             releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None,
             as_: AsOpt = None) -> None:
    """Switch readers back to the promoted release's rollback target.

    Example: pincite release rollback --reason "recall fell on exact identifiers"
    """
    with library(store) as lib:
        _show(_ops(lib, store, releases, as_).rollback(reason), json_)


@release_app.command("status")
def status(releases: ReleasesOpt = None, json_: JsonOpt = False,
           store: StoreOpt = None) -> None:
    """Say where the releases stand: no_release, candidate, qualified, requalify (and why)
    or rolled_back.

    Example: pincite release status --json
    """
    from ..library import release_status

    with library(store) as lib:
        out = release_status(lib, store_url(store), releases)
    if json_:
        emit(out)
        return
    typer.echo(f"{out['state']}" + (f" — release {out['release']} ({out['generation']})"
                                    if out["release"] else "")
               + f"; published {out['published_generation']}")
    for r in out["reasons"]:
        typer.echo(f"  {r}")


@release_app.command("sample")
def sample(per_class: Annotated[int, typer.Option("--per-class", help="Queries sampled per class (1-1000).")] = 3,
           seed: Annotated[int, typer.Option("--seed", help="Seed of the sample.")] = 1,
           show_payloads: Annotated[bool, typer.Option("--show-payloads", help="Log query text (default: a digest only).")] = False,
           releases: ReleasesOpt = None, json_: JsonOpt = False, store: StoreOpt = None) -> None:
    """Re-run a seeded sample of each class's labelled queries and count documents per
    stratum; compare with the release record; append to drift.jsonl.

    Example: pincite release sample --per-class 2 --json
    """
    from ..limits import check_number

    with library(store) as lib:
        check_number("--per-class", per_class, 1, 1000, integer=True)
        check_number("--seed", seed, 0, 2**31 - 1, integer=True)
        line = _ops(lib, store, releases).sample(per_class, seed, show_payloads)
    if json_:
        emit(line)
        return
    typer.echo(f"drift sample against {line['release']}: "
               f"{', '.join(line['drifted']) or 'no change'}")

