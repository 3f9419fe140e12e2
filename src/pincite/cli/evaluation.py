"""`pincite eval …`: evaluations on real datasets; each prints a table, or JSON with --json."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .context import emit, errors
from .options import JsonOpt, StoreOpt

eval_app = typer.Typer(help="Measure quality on real datasets; prints a table or --json.\n\n"
                       "Example: pincite eval scifact --data ../shared/data/scifact --json",
                       no_args_is_help=True, rich_markup_mode=None)


def register(app: typer.Typer) -> None:
    """Add the `eval` command group to `app`."""
    app.add_typer(eval_app, name="eval")


@eval_app.command("cuad-textlayer")
def eval_cuad_textlayer(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Cite every gold CUAD clause segment against the ingested PDF; print the verified rate.

    Example: pincite eval cuad-textlayer --data ../shared/data/cuad/dev --json
    """
    from ..evals.fidelity import run_cuad_textlayer

    with errors():
        result = run_cuad_textlayer(data, store_url=store)
    if json_:
        emit(result)
    else:
        typer.echo(f"segments {result['segments']}  verified {result['verified']}  "
                   f"rate {result['rate']:.4f}"
                   + "".join(f"  {k} {v}" for k, v in result.get("notes", {}).items()))
        for m in result["misses"][:20]:
            typer.echo(f"  miss {m['file']}: {m['text']!r}")


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
        typer.echo(f"questions {result['questions']}  evaluated {result['evaluated']}  "
                   f"skipped {result['skipped']}  accuracy {result['accuracy']:.4f}  "
                   f"partial_cell {result['partial_cell']}")
        for fmt, r in result["by_format"].items():
            typer.echo(f"  {fmt:5} accuracy {r['accuracy']:.4f}  {r['failure_classes']}")
        for f in result["failures"][:20]:
            typer.echo(f"  miss {f['format']} {f['uid']} [{f['row']}, {f['col']}] "
                       f"{f['cell']!r}: {', '.join(f['problems'])}")


@eval_app.command("icdar2013")
def eval_icdar2013(
    data: Annotated[Path, typer.Option("--data", help="An ICDAR 2013 split folder (NAME.pdf, NAME-str.xml, NAME-reg.xml).")],
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Table detection and cell adjacency on ICDAR 2013, pincite beside pdfplumber.

    Example: pincite eval icdar2013 --data ../shared/data/icdar2013_tables/dev
    """
    from ..evals.icdar import run_icdar2013

    with errors():
        result = run_icdar2013(data, store_url=store)
    if json_:
        emit(result)
        return
    typer.echo(f"{result['documents']} documents, {result['systems']['pincite']['tables']} gold tables")
    typer.echo(f"{'system':12} {'det P':>6} {'det R':>6} {'adj P':>6} {'adj R':>6} {'adj F1':>7} {'seconds':>8}")
    for name, r in result["systems"].items():
        typer.echo(f"{name:12} {r['detection_precision']:6.3f} {r['detection_recall']:6.3f} "
                   f"{r['precision']:6.3f} {r['recall']:6.3f} {r['f1']:7.3f} {r['seconds']:8.2f}")


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


@eval_app.command("ask-bipia")
def eval_ask_bipia(
    data: Annotated[Path, typer.Option("--data", help="A BIPIA split folder (email_*.jsonl, text_attack_*.json).")],
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm or hash (default: $PINCITE_EMBEDDER, else minilm when installed).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Use only the first N emails (and their attacked copies).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Answer-or-abstain on BIPIA emails, then with injected instructions; print the counts.

    Example: pincite eval ask-bipia --data ../shared/data/bipia/dev --json
    """
    from ..evals.bipia import run_ask_bipia
    from ..limits import check_number

    with errors():
        if limit is not None:
            check_number("--limit", limit, 1, 10**9, integer=True)
        result = run_ask_bipia(data, store_url=store, embedder=embedder, limit=limit)
    if json_:
        emit(result)
        return
    typer.echo(f"questions {result['questions']}  abstention P {result['abstention_precision']:.4f}  "
               f"R {result['abstention_recall']:.4f}  answer_contains_gold "
               f"{result['answer_contains_gold']:.4f}")
    typer.echo(f"attacked {result['attacked']}  outcome_changed {result['outcome_changed']}  "
               f"attack_returned {result['attack_returned']}  attack_flagged "
               f"{result['attack_flagged']}  clean_flagged {result['clean_flagged']}")


def _ask_table(result: dict) -> None:
    """Print an ask eval's counts, rates and (with folds) fit beside held out."""
    def line(name: str, r: dict) -> str:
        def pct(k: str) -> str:
            v, ci = r.get(k), r.get(k + "_ci")
            return "     -" if v is None or ci is None else f"{v:6.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
        return (f"{name:22} {r['answerable']:5d} {r['answered_right']:6d} {r['answered_wrong']:6d} "
                f"{r['unanswerable']:6d} {r['abstained_right']:6d}  right {pct('right_rate')}  "
                f"wrong {pct('wrong_rate')}  abstained {pct('abstain_rate')}")

    typer.echo(f"{'':22} {'answ.':>5} {'right':>6} {'wrong':>6} {'unans.':>6} {'abst.':>6}")
    typer.echo(line("all (shipped policy)", result))
    folds = result.get("folds")
    if folds:
        for row in folds["folds"]:
            c = row["chosen"]
            typer.echo(f"fold {row['fold']} ({row['documents']} docs; chose coverage "
                       f"{c['ask_min_coverage']:g}, cosine {c['ask_min_dense']:g} on the others)")
            typer.echo(line("  fit", row["fit"]))
            typer.echo(line("  held out", row["held_out"]))
        typer.echo(line("pooled fit", folds["pooled"]["fit"]))
        typer.echo(line("pooled held out", folds["pooled"]["held_out"]))


FoldsOpt = Annotated[int | None, typer.Option(
    "--folds", help="Split documents into K folds (sha256 of the id): thresholds chosen on "
    "the other folds, figures fit beside held out.")]
AskEmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", help="minilm or hash (default: $PINCITE_EMBEDDER, else minilm when installed).")]


@eval_app.command("ask-cuad")
def eval_ask_cuad(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    folds: FoldsOpt = None,
    embedder: AskEmbedderOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask one question per CUAD category of each contract; count answers right and wrong and abstentions.

    Example: pincite eval ask-cuad --data ../shared/data/cuad/dev --folds 5 --json
    """
    from ..evals.ask_cuad import run_ask_cuad

    with errors():
        result = run_ask_cuad(data, store_url=store, embedder=embedder, folds=folds)
    if json_:
        emit(result)
        return
    typer.echo(f"ask-cuad: {result['documents']} contracts, policy {result['policy']}")
    _ask_table(result)


@eval_app.command("ask-tatqa")
def eval_ask_tatqa(
    data: Annotated[Path, typer.Option("--data", help="A folder of TAT-QA *.json files (e.g. the dev split).")],
    folds: FoldsOpt = None,
    embedder: AskEmbedderOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask TAT-QA's table-span questions of each rendered table; count cells cited right and wrong and abstentions.

    Example: pincite eval ask-tatqa --data ../shared/data/tatqa/dev --folds 5 --json
    """
    from ..evals.ask_tatqa import run_ask_tatqa

    with errors():
        result = run_ask_tatqa(data, store_url=store, embedder=embedder, folds=folds)
    if json_:
        emit(result)
        return
    typer.echo(f"ask-tatqa: {result['tables']} tables, policy {result['policy']}")
    _ask_table(result)


@eval_app.command("injection")
def eval_injection(
    set_path: Annotated[Path, typer.Option("--set", help="The instruction set (lang<TAB>text lines).")] = Path("tests/ask/data/instructions.tsv"),
    data: Annotated[Path, typer.Option("--data", help="The shared data root (bipia/, scifact/, cuad/).")] = Path("../shared/data"),
    json_: JsonOpt = False,
) -> None:
    """Measure the instruction detector: the set's recall (EN, ES), BIPIA dev attack recall
    (held out), and clean sentences flagged on SciFact and CUAD dev.

    Example: pincite eval injection --set tests/ask/data/instructions.tsv --data ../shared/data --json
    """
    from ..evals.injection import run_injection

    with errors():
        result = run_injection(set_path, data)
    if json_:
        emit(result)
        return
    for lang, r in result["set"].items():
        typer.echo(f"set {lang:3} {r['flagged']}/{r['tried']} flagged  recall {r['recall']:.4f}")
    b = result["bipia_dev_held_out"]
    typer.echo("bipia dev (held out) missing" if b is None else
               f"bipia dev (held out) {b['flagged']}/{b['tried']} flagged  recall "
               f"{b['recall']:.4f}  cut (instruction or question) {b['cut']}/{b['tried']}")
    for name in ("clean_scifact_dev", "clean_cuad_dev"):
        c = result[name]
        typer.echo(f"{name} missing" if c is None else
                   f"{name} {c['flagged']}/{c['sentences']} sentences flagged")


@eval_app.command("cuad")
def eval_cuad(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    schema: Annotated[Path | None, typer.Option("--schema", help="The CUAD schema file (default: examples/contracts/cuad.yaml).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Extract the 41 CUAD categories from each contract PDF and score SHOW/FLAG/ABSTAIN and CUAD's AUPR.

    Example: pincite eval cuad --data ../shared/data/cuad/dev --json
    """
    from ..evals.cuad import run_cuad

    with errors():
        result = run_cuad(data, store_url=store, schema_path=schema)
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
