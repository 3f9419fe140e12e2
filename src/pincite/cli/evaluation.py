"""`pincite eval …`: evaluations on real datasets; each prints a table, or JSON with --json."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from .ask_evaluation import (
    eval_ask_bipia,
    eval_ask_cuad,
    eval_ask_tatqa,
    eval_ask_tenders,
    eval_injection,
)
from .context import emit, errors
from .filling import eval_fill
from .ocr_evaluation import eval_ocr
from .options import JsonOpt, StoreOpt
from .progress_lines import shown
from .ranking import eval_rank

if TYPE_CHECKING:
    from ..evals.acceptance import Drivers

eval_app = typer.Typer(help="Measure quality on real datasets; prints a table or --json.\n\n"
                       "Example: pincite eval scifact --data ../shared/data/scifact --json",
                       no_args_is_help=True, rich_markup_mode=None)
eval_app.command("ocr")(eval_ocr)
eval_app.command("ask-bipia")(eval_ask_bipia)
eval_app.command("ask-cuad")(eval_ask_cuad)
eval_app.command("ask-tatqa")(eval_ask_tatqa)
eval_app.command("ask-tenders")(eval_ask_tenders)
eval_app.command("injection")(eval_injection)
eval_app.command("fill")(eval_fill)
eval_app.command("rank")(eval_rank)


def register(app: typer.Typer) -> None:
    """Add the `eval` command group to `app`."""
    app.add_typer(eval_app, name="eval")


FoldsOpt = Annotated[int | None, typer.Option(
    "--folds", help="Split the documents into K folds (sha256 of each id) and print the "
    "figure on the other folds (fit) beside the figure on each fold (held out).")]
RefitOpt = Annotated[bool, typer.Option(
    "--refit", help="With --folds: choose each tuned rule of the PDF parser again on the fit "
    "folds only and print its held-out figure (parses in this process; slower).")]


@eval_app.command("cuad-textlayer")
def eval_cuad_textlayer(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    folds: FoldsOpt = None,
    refit: RefitOpt = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Cite every gold CUAD clause segment against the ingested PDF; print the verified rate.

    Example: pincite eval cuad-textlayer --data ../shared/data/cuad/dev --folds 5 --json
    """
    from ..evals.fidelity import run_cuad_textlayer

    with errors():
        result = run_cuad_textlayer(data, store_url=store, folds=folds, refit=refit)
    if json_:
        emit(result)
        return
    typer.echo(f"segments {result['segments']}  verified {result['verified']}  "
               f"rate {result['rate']:.4f}"
               + "".join(f"  {k} {v}" for k, v in result.get("notes", {}).items()))
    for m in result["misses"][:20]:
        typer.echo(f"  miss {m['file']}: {m['text']!r}")
    if "folds" in result:
        _echo_folds({"rate": result["folds"]})
    if "refit" in result:
        _echo_refit(result["refit"])


def _echo_folds(splits: dict[str, dict]) -> None:
    """Print fit and held-out figures per fold and pooled, one line per row."""
    k = next(iter(splits.values()))["k"]
    typer.echo(f"folds (k={k}): fit / held out per fold, then pooled")
    for name, sp in splits.items():
        cells = "  ".join(f"{f['fold']}: {f['fit']:.4f}/{f['held_out']:.4f} ({f['documents']})"
                          for f in sp["folds"])
        typer.echo(f"  {name:28} {cells}  pooled {sp['pooled']['fit']:.4f}/"
                   f"{sp['pooled']['held_out']:.4f}")


def _echo_refit(refit: dict) -> None:
    """Print each tuned rule: shipped value, the value each fold chose, pooled figures."""
    typer.echo(f"refit on fit folds (k={refit['k']}): {refit['figure']}")
    typer.echo(f"  {'rule':16} {'shipped':>8} {'chosen per fold':24} {'fit':>7} {'held':>7} {'as shipped':>10}")
    for name, r in refit["rules"].items():
        chosen = ",".join(f"{f['chosen']:g}" for f in r["folds"])
        p = r["pooled"]
        typer.echo(f"  {name:16} {r['shipped']:8g} {chosen:24} {p['fit']:7.4f} "
                   f"{p['held_out']:7.4f} {p['shipped']:10.4f}")


@eval_app.command("tatqa-cells")
def eval_tatqa_cells(
    data: Annotated[Path, typer.Option("--data", help="A folder of TAT-QA *.json files (e.g. the dev split).")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ingest every TAT-QA table as HTML and XLSX; check each gold cell's paths, value and citation.

    Example: pincite eval tatqa-cells --data data/tatqa/dev --json
    """
    from ..evals.tatqa import run_tatqa_cells

    with errors():
        result = run_tatqa_cells(data, store_url=store)
    if json_:
        emit(result)
    else:
        typer.echo(f"question-grounded accuracy {result['question_grounded_accuracy']:.4f} "
                   f"({result['question_grounded_cases']} cases; the oracle reads the question)")
        typer.echo(f"questions {result['questions']}  evaluated {result['evaluated']}  "
                   f"skipped {result['skipped']}  accuracy {result['accuracy']:.4f} (header "
                   f"rule shared with the parser)  "
                   f"partial_cell {result['partial_cell']}")
        for fmt, r in result["by_format"].items():
            typer.echo(f"  {fmt:5} accuracy {r['accuracy']:.4f}  {r['failure_classes']}")
        for f in result["failures"][:20]:
            typer.echo(f"  miss {f['format']} {f['uid']} [{f['row']}, {f['col']}] "
                       f"{f['cell']!r}: {', '.join(f['problems'])}")


@eval_app.command("icdar2013")
def eval_icdar2013(
    data: Annotated[Path, typer.Option("--data", help="An ICDAR 2013 split folder (NAME.pdf, NAME-str.xml, NAME-reg.xml).")],
    folds: FoldsOpt = None,
    refit: RefitOpt = False,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Table detection and cell adjacency on ICDAR 2013 and on turned copies of its pages, pincite beside pdfplumber.

    Example: pincite eval icdar2013 --data ../shared/data/icdar2013_tables/dev --folds 4
    """
    from ..evals.icdar import run_icdar2013

    with errors():
        result = run_icdar2013(data, store_url=store, folds=folds, refit=refit)
    if json_:
        emit(result)
        return
    typer.echo(f"{result['documents']} documents, {result['systems']['pincite']['tables']} gold tables; "
               "rows: the pages as given, /Rotate 90 copies (rotate90), /Rotate 90 copies with "
               "the content turned back (rotate90_turned), all")
    typer.echo(f"{'row':16} {'system':11} {'det P':>6} {'det R':>6} {'adj P':>6} {'adj R':>6} "
               f"{'adj F1':>7} {'seconds':>8}")
    for row, systems in result["rows"].items():
        for name, r in systems.items():
            typer.echo(f"{row:16} {name:11} {r['detection_precision']:6.3f} "
                       f"{r['detection_recall']:6.3f} {r['precision']:6.3f} {r['recall']:6.3f} "
                       f"{r['f1']:7.3f} {r['seconds']:8.2f}")
    if "folds" in result:
        _echo_folds({f"{row} {name}": sp for row, systems in result["folds"]["rows"].items()
                     for name, sp in systems.items()})
    if "refit" in result:
        _echo_refit(result["refit"])


@eval_app.command("robustness")
def eval_robustness(
    dirs: Annotated[list[Path], typer.Argument(help="Folders (or files) to ingest.")],
    hang: Annotated[float, typer.Option("--hang", help="Seconds after which a file counts as a hang.")] = 15.0,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ingest every file (sandboxed) and count statuses and quarantine reasons; exit 1 on a crash or hang.

    Example: pincite eval robustness examples/ --hang 15 --json
    """
    from ..evals.robustness import run_robustness
    from ..limits import check_number

    with errors():
        check_number("--hang (seconds)", hang, 0.001, 86400.0)
        result = run_robustness(dirs, store_url=store, hang_seconds=hang)
    if json_:
        emit(result)
    else:
        typer.echo(f"files {result['files']}  crashes {len(result['crashes'])}  "
                   f"hangs {len(result['hangs'])}  slowest {result['max_seconds']}s")
        for k, v in result["by_status"].items():
            typer.echo(f"  status {k:12} {v}")
        for k, v in result["by_reason"].items():
            typer.echo(f"  reason {k:16} {v}")
        for k, v in result["by_flag"].items():
            typer.echo(f"  flag   {k:16} {v}")
    if result["crashes"] or result["hangs"]:
        raise typer.Exit(1)


@eval_app.command("scifact")
def eval_scifact(
    data: Annotated[Path, typer.Option("--data", help="A SciFact folder (corpus.jsonl, SPLIT/queries_*.jsonl, SPLIT/qrels_*.tsv).")],
    split: Annotated[str, typer.Option("--split", help="The split folder under --data.")] = "dev",
    embedder: Annotated[str, typer.Option("--embedder", help="minilm or hash.")] = "minilm",
    limit: Annotated[int | None, typer.Option("--limit", help="Run only the first N queries.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """nDCG@10 and Recall@100 of BM25, dense and hybrid search through the authorized path.

    Example: pincite eval scifact --data ../shared/data/scifact --split dev --json
    """
    from ..evals.scifact import run_scifact
    from ..limits import check_number

    with errors():
        if limit is not None:
            check_number("--limit", limit, 1, 10**9, integer=True)
        result = run_scifact(data, split=split, store_url=store, embedder=embedder,
                             limit_queries=limit)
    if json_:
        emit(result)
        return
    typer.echo(f"scifact {result['split']}: {result['documents']} documents, "
               f"{result['queries']} queries, {result['embedder']}")
    typer.echo(f"{'run':8} {'nDCG@10':>8} {'R@100':>8}")
    for name, r in result["runs"].items():
        typer.echo(f"{name:8} {r['ndcg@10']:8.4f} {r['recall@100']:8.4f}")


@eval_app.command("cuad")
def eval_cuad(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    schema: Annotated[Path | None, typer.Option("--schema", help="The CUAD schema file (default: examples/contracts/cuad.yaml).")] = None,
    folds: Annotated[int | None, typer.Option("--folds", help="Split the contracts into K document folds and report fit beside held-out figures.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Extract the 41 CUAD categories from each contract PDF and score SHOW/FLAG/ABSTAIN and CUAD's AUPR.

    Example: pincite eval cuad --data ../shared/data/cuad/dev --folds 5 --json
    """
    from ..evals.cuad import run_cuad

    with errors():
        result = run_cuad(data, store_url=store, schema_path=schema, folds=folds)
    if json_:
        emit(result)
        return
    head = f"{'category':36} {'show P':>6} {'flag P':>6} {'abst P':>6} {'abst R':>6} " \
           f"{'review':>6} {'sh/fl':>6} {'AUPR':>6} {'P@80R':>6}"
    typer.echo(f"cuad: {result['documents']} contracts, {result['counts']['pairs']} pairs")
    typer.echo(head)
    rows = [("overall", result["overall"]), *result["categories"].items()]
    for name, r in rows:
        cells = [r[k] for k in ("show_precision", "flag_precision", "abstain_precision",
                                "abstain_recall", "review_rate", "shown_or_flagged", "aupr", "p_at_80r")]
        typer.echo(f"{name[:36]:36} " + " ".join("     -" if v is None else f"{v:6.3f}" for v in cells))
    for kind, f in result["failure_classes"].items():
        typer.echo(f"  {kind:14} {f['count']}")
    typer.echo(f"  invariants {result['invariants']}")
    if "folds" in result:
        _echo_cuad_folds(result["folds"])


def _echo_cuad_folds(fo: dict) -> None:
    """Print fit / held-out per fold and pooled, with the pooled held-out Wilson interval."""
    typer.echo(f"folds (k={fo['k']}): fit / held out per fold, then pooled held out [95% CI]")
    for name, sp in fo["figures"].items():
        cells = "  ".join(f"{f['fold']}: {f['fit']:.3f}/{f['held_out']:.3f}" for f in sp["folds"])
        p = sp["pooled"]
        ci = "" if p["wilson95"] is None else f" [{p['wilson95'][0]:.3f}, {p['wilson95'][1]:.3f}]"
        typer.echo(f"  {name:18} {cells}  pooled {p['fit']:.3f}/{p['held_out']:.3f}{ci} "
                   f"({p['held_out_counts'][0]}/{p['held_out_counts'][1]})")
    rf = fo["refit_tau_show"]
    typer.echo(f"  tau_show chosen on fit folds (SHOW precision >= {rf['goal']} on >= "
               f"{rf['min_fit_shows']} fit SHOWs), held out: " + "  ".join(
                   f"{n} {rf[n]['counts'][0]}/{rf[n]['counts'][1]}"
                   + ("" if rf[n]["held_out"] is None else f" = {rf[n]['held_out']:.3f}")
                   for n in ("show_precision", "abstain_precision", "shown_or_flagged")))
    for cat, taus in rf["tau_show_per_fold"].items():
        typer.echo(f"    {cat[:34]:34} tau_show per fold {', '.join(f'{t:g}' for t in taus)}"
                   f"; on all of dev {rf['tau_show_all_dev'].get(cat, 1.01):g}")
    typer.echo("  held-out SHOW precision per category (Wilson 95% lower bound):")
    for cat, c in fo["categories"].items():
        if c["show"]:
            typer.echo(f"    {cat[:34]:34} {c['show_right']}/{c['show']} = {c['show_precision']:.3f}"
                       f"  low {c['wilson_low']:.3f}")


@eval_app.command("tenders")
def eval_tenders(
    data: Annotated[Path | None, typer.Option("--data", help="A tender corpus folder with gold.json (default: examples/tenders-dev).")] = None,
    schema: Annotated[Path | None, typer.Option("--schema", help="The tender schema (default: examples/tender/schema.yaml).")] = None,
    folds: Annotated[int, typer.Option("--folds", help="Split the cases into K folds; the last is held out.")] = 2,
    split: Annotated[str | None, typer.Option("--split", help="Run only the fit or the heldout part.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Extract every tender case and count, per field, shown/flagged right and wrong, review
    and abstained right/wrong, on the fit and the held-out cases side by side.

    Example: pincite eval tenders --data examples/tenders-dev --json
    """
    from ..evals.tenders import KINDS, run_tenders

    with errors():
        result = run_tenders(data, schema_path=schema, folds=folds, split=split, store_url=store)
    if json_:
        emit(result)
        return
    parts = list(result["parts"])
    short = ("sR", "sW", "fR", "fW", "rev", "aR", "aW")
    typer.echo(f"tenders: {sum(len(v) for v in result['cases'].values())} cases, "
               f"{result['documents']} documents (+{result['revisions']} revisions), "
               f"{result['folds']} folds")
    typer.echo(f"{'field':40} " + " | ".join(f"{p:^27}" for p in parts))
    typer.echo(f"{'':40} " + " | ".join(" ".join(f"{s:>3}" for s in short) for _ in parts))
    for name, by_part in result["fields"].items():
        typer.echo(f"{name[:40]:40} " + " | ".join(
            " ".join(f"{by_part[p][k]:3d}" for k in KINDS) for p in parts))
    for p in parts:
        f = result["parts"][p]
        sp, sf, bl = f["show_precision"], f["shown_or_flagged_right"], f["blank_in_document"]
        typer.echo(f"{p:8} stated {f['counts']['stated']:3d}  shown/flagged right {sf['k']}/{sf['n']}"
                   f" = {_pct(sf)}  show P {_pct(sp)}  wrong shown/flagged "
                   f"{f['wrong_shown_or_flagged']}  blank_in_document {bl['k']}/{bl['n']}")


def _pct(r: dict[str, object]) -> str:
    if r["rate"] is None:
        return "-"
    return f"{r['rate']:.3f} [{r['wilson_low']:.3f}, {r['wilson_high']:.3f}]"


@eval_app.command("strata")
def eval_strata(
    data: Annotated[Path | None, typer.Option("--data", help="The shared data root (docling_testdata/, pdfplumber_edgecases/, pypdf_sample_files/, qpdf_damaged_pdfs/); without it, the generated documents only.")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """CER, reading-order error, table F1 and locator accuracy per stratum of PDFs
    (born-digital, scanned, rotated, multi-column, forms, tables, RTL, CJK, hidden text,
    redactions, malformed), generated here and from the shared test files.

    Example: pincite eval strata --data ../shared/data --json
    """
    from ..evals.strata import run_strata

    with errors():
        result = run_strata(data, store_url=store)
    if json_:
        emit(result)
        return
    typer.echo(f"strata: {result['documents']} documents, {result['seconds']} s")
    typer.echo(f"{'stratum':14} {'docs':>4} {'CER':>7} {'order':>7} {'table':>7} {'locator':>7}  status")
    for name, r in result["strata"].items():
        cells = [r.get(k) for k in ("cer", "reading_order_error", "table_f1", "locator_accuracy")]
        typer.echo(f"{name:14} {r['docs']:4d} " + " ".join(
            "      -" if v is None else f"{v:7.4f}" for v in cells) + f"  {r['status']}")


def acceptance_drivers(root: Any) -> Drivers:
    """Return what the acceptance suite drives: the facade, the `pincite` command `root`
    (its click command) in process and as its own process, and the review page (None
    without the `review` extra)."""
    import sys
    import traceback
    from collections.abc import Mapping, Sequence
    from importlib.util import find_spec

    from typer.testing import CliRunner

    from ..evals.acceptance import CliRun, Drivers
    from ..library import Library, Principal, open_library

    def cli(argv: Sequence[str], env: Mapping[str, str | None]) -> CliRun:
        code, tb = 0, None
        with CliRunner().isolation(env=dict(env)) as streams:  # captured, as `pincite` prints
            try:
                root.main(args=list(argv), prog_name="pincite")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
            except Exception as exc:  # noqa: BLE001 - an escaped exception is what is counted
                code, tb = 1, "".join(traceback.format_exception(exc))
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                out, err = streams[0].getvalue(), streams[1].getvalue()
        return CliRun(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), tb)

    def review_app(lib: Library, principal: Principal) -> Any:
        from ..service.review_page import create_app

        return create_app(lib, principal)

    served = find_spec("fastapi") is not None and find_spec("uvicorn") is not None
    if served:
        from ..service.acceptance_apps import service_driver
    return Drivers(open_library, cli, (sys.executable, "-m", "pincite.cli"),
                   review_app if served else None,
                   service=service_driver() if served else None)


@eval_app.command("acceptance")
def eval_acceptance(
    ctx: typer.Context,
    size: Annotated[str, typer.Option("--size", help="small (about a minute; part of make test) or large (releases; a few minutes).")] = "small",
    out: Annotated[Path, typer.Option("--out", help="Where to write the report (JSON).")] = Path("reports/acceptance.json"),
    bipia: Annotated[Path | None, typer.Option("--bipia", help="A BIPIA split folder (text_attack_*.json): its attack strings join the injected payloads.")] = None,
    pdfs: Annotated[Path | None, typer.Option("--pdfs", help="A folder of damaged PDFs to ingest as hostile files (e.g. qpdf's).")] = None,
    group: Annotated[list[str] | None, typer.Option("--group", help="Run only this group (repeatable): AUTHZ, 'WRITE AUTHZ', NONINTERF, DELETION, REVISIONS, RETRIEVAL, INJECTION, CSRF/ORIGIN, 'TOKEN DOS', 'MCP SCOPES', SESSIONS, FAIRNESS, SYMLINKS, LIMITS, HOSTILE, DURABILITY, 'DURABLE-RUN COPIES', REVIEW, 'FORMULA INJECTION', 'YAML BOMBS'.")] = None,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the canary tokens and random choices.")] = 14,
    json_: JsonOpt = False,
) -> None:
    """Run the reliability acceptance suite against fresh temporary stores (never yours):
    one row per figure with N tried and N bad; exit 1 if anything is bad.

    Example: pincite eval acceptance --size small --json --out reports/acceptance.json
    """
    from ..errors import OutputUnwritable, UsageError
    from ..evals.acceptance import check_selection, run_acceptance, table, write
    from ..limits import check_number

    with errors():
        check_number("--seed", seed, 0, 2**31 - 1, integer=True)
        check_selection(size, group or ())
        for flag, folder in (("--bipia", bipia), ("--pdfs", pdfs)):
            if folder is not None and not folder.is_dir():
                raise UsageError(f"{flag} {folder} is not a folder")
        target = out / "acceptance.json" if out.is_dir() else out
        if any(p.exists() and not p.is_dir() for p in target.parents):
            raise OutputUnwritable(target, "a folder on its path is a file")
        try:  # an output that cannot be written fails before the run, not after it
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputUnwritable(target, exc.strerror or str(exc)) from None
        if not os.access(target.parent, os.W_OK) or (target.exists() and not target.is_file()):
            raise OutputUnwritable(target, "it is not a file in a folder you can write")
        root = ctx.find_root().command
        with shown("eval acceptance") as bar:  # each group a step, on stderr
            report = run_acceptance(acceptance_drivers(root), size=size, groups=group or (),
                                    seed=seed, bipia=bipia, pdfs=pdfs, report=bar.report)
        written = write(report, target)
    if json_:
        emit(report)
    else:
        typer.echo(table(report))
        typer.echo(f"report: {written}")
    if not report["ok"]:
        raise typer.Exit(1)

