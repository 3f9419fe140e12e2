"""`pincite eval ask-bipia | ask-cuad | ask-tatqa | ask-tenders | injection`: whether `ask`
answers when the documents answer, abstains when they do not, and never cites an instruction."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from .context import emit, errors
from .options import JsonOpt, StoreOpt
from .progress_lines import shown


def eval_ask_bipia(
    data: Annotated[Path, typer.Option("--data", help="A BIPIA split folder (email_*.jsonl, text_attack_*.json).")],
    embedder: Annotated[str | None, typer.Option("--embedder", help="minilm or hash (default: $PINCITE_EMBEDDER, else minilm when installed).")] = None,
    limit: Annotated[int | None, typer.Option("--limit", help="Use only the first N emails (and their attacked copies).")] = None,
    folds: Annotated[int | None, typer.Option("--folds", help="Split the emails into K folds (sha256 of the text); figures on the other folds (fit) beside each fold (held out).")] = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Answer-or-abstain on BIPIA emails, then with injected instructions; print the counts.

    Example: pincite eval ask-bipia --data ../shared/data/bipia/dev --folds 5 --json
    """
    from ..evals.bipia import run_ask_bipia
    from ..limits import check_number

    with errors():
        if limit is not None:
            check_number("--limit", limit, 1, 10**9, integer=True)
        result = run_ask_bipia(data, store_url=store, embedder=embedder, limit=limit, folds=folds)
    if json_:
        emit(result)
        return
    _bipia_table(result)
    typer.echo(f"questions {result['questions']}  abstention P {result['abstention_precision']:.4f}  "
               f"R {result['abstention_recall']:.4f}  answer_contains_gold "
               f"{result['answer_contains_gold']:.4f}")
    typer.echo(f"attacked {result['attacked']}  outcome_changed {result['outcome_changed']}  "
               f"attack_returned {result['attack_returned']}  attack_flagged "
               f"{result['attack_flagged']}  clean_flagged {result['clean_flagged']}")


def _bipia_table(result: dict) -> None:
    """Print the answer-or-abstain table of ask-bipia, then (with folds) fit beside held out
    with the attack counts."""
    def line(name: str, r: dict) -> str:
        return (f"{name:16} right {r['answered_right']}/{r['answerable']}  wrong "
                f"{r['answered_wrong']}  abstained right {r['abstained_right']}/"
                f"{r['unanswerable']}  attacked {r['attacked']}  outcome_changed "
                f"{r['outcome_changed']}  attack_returned {r['attack_returned']}  "
                f"clean_flagged {r['clean_flagged']}")
    folds = result.get("folds")
    if folds:
        for row in folds["folds"]:
            typer.echo(line(f"fold {row['fold']} fit", row["fit"]))
            typer.echo(line(f"fold {row['fold']} held out", row["held_out"]))
        typer.echo(line("pooled held out", folds["pooled"]["held_out"]))


def _rates_line(name: str, r: dict) -> str:
    """One line of an ask eval's table: the counts and the three rates with their intervals."""
    def pct(k: str) -> str:
        v, ci = r.get(k), r.get(k + "_ci")
        return "     -" if v is None or ci is None else f"{v:6.3f} [{ci[0]:.3f}, {ci[1]:.3f}]"
    return (f"{name:22} {r['answerable']:5d} {r['answered_right']:6d} {r['answered_wrong']:6d} "
            f"{r['unanswerable']:6d} {r['abstained_right']:6d}  right {pct('right_rate')}  "
            f"wrong {pct('wrong_rate')}  abstained {pct('abstain_rate')}")


def _ask_table(result: dict) -> None:
    """Print an ask eval's counts, rates and (with folds) fit beside held out."""
    line = _rates_line
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


AskFoldsOpt = Annotated[int | None, typer.Option(
    "--folds", help="Split documents into K folds (sha256 of the id): thresholds chosen on "
    "the other folds, figures fit beside held out.")]
AskEmbedderOpt = Annotated[str | None, typer.Option(
    "--embedder", help="minilm or hash (default: $PINCITE_EMBEDDER, else minilm when installed).")]
AskQuestionsOpt = Annotated[Path | None, typer.Option(
    "--questions", help="A JSON file {category or kind: [phrasing, ...]} (a phrasing may start "
    "'STYLE|'): every phrasing is asked; --json adds by_phrasing and by_style.")]


def _style_table(result: dict) -> None:
    """Print the figures of each phrasing style (with --questions)."""
    styles = result.get("by_style")
    if not styles:
        return
    typer.echo(f"by style ({result.get('phrasings', 0)} phrasings)")
    for style, r in styles.items():
        answered = r["answered_right"] + r["answered_wrong"]
        wrong = f"{r['wrong_rate']:.3f}" if r["wrong_rate"] is not None else "    -"
        right = f"{r['right_rate']:.3f}" if r["right_rate"] is not None else "    -"
        typer.echo(f"  {style or '(none)':12} answerable {r['answerable']:5d}  right {right}  "
                   f"answered {answered:5d}  wrong {wrong}  abstained right "
                   f"{r['abstained_right']}/{r['unanswerable']}")


def eval_ask_cuad(
    data: Annotated[Path, typer.Option("--data", help="A CUAD split folder (derived_spans.jsonl, full_contract_pdf/).")],
    folds: AskFoldsOpt = None,
    embedder: AskEmbedderOpt = None,
    questions: AskQuestionsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask one question per CUAD category of each contract; count answers right and wrong and abstentions.

    Example: pincite eval ask-cuad --data ../shared/data/cuad/dev --folds 5 --json
    """
    from ..evals.ask_cuad import run_ask_cuad

    with errors(), shown("eval ask-cuad") as bar:
        result = run_ask_cuad(data, store_url=store, embedder=embedder, folds=folds,
                              questions=questions, report=bar.report)
    if json_:
        emit(result)
        return
    typer.echo(f"ask-cuad: {result['documents']} contracts, policy {result['policy']}")
    _ask_table(result)
    _style_table(result)


def eval_ask_tenders(
    data: Annotated[Path | None, typer.Option("--data", help="The tenders folder (one folder per case); default ../shared/data/tenders_real when it exists.")] = None,
    questions: Annotated[Path, typer.Option("--questions", help="The questions file (cases, files, questions with gold quotes).")] = Path("evals/tenders_questions/dev.json"),
    folds: Annotated[int | None, typer.Option("--folds", help="Split the cases into K folds (sha256 of the case id) and print each fold's figures (nothing refitted).")] = None,
    embedder: AskEmbedderOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask an analyst's questions of real tenders, each of its own case's files; count answers right and wrong and abstentions.

    Example: pincite eval ask-tenders --data ../shared/data/tenders_real --folds 5 --json
    """
    from ..errors import UsageError
    from ..evals.ask_tenders import run_ask_tenders

    with errors():
        if data is None:
            data = Path("../shared/data/tenders_real")
            if not data.is_dir():
                raise UsageError("no tenders folder at ../shared/data/tenders_real: give --data")
        with shown("eval ask-tenders") as bar:
            result = run_ask_tenders(data, questions, store_url=store, embedder=embedder,
                                     folds=folds, report=bar.report)
    if json_:
        emit(result)
        return
    typer.echo(f"ask-tenders: {result['cases']} cases, {result['documents']} documents, "
               f"{result['questions']} questions, policy {result['policy']}")
    typer.echo(f"{'':22} {'answ.':>5} {'right':>6} {'wrong':>6} {'unans.':>6} {'abst.':>6}")
    typer.echo(_rates_line("all", result))
    for row in (result.get("folds") or {}).get("folds", []):
        typer.echo(_rates_line(f"fold {row['fold']} ({len(row['cases'])} cases)", row["held_out"]))
    if result.get("folds"):
        typer.echo(_rates_line("pooled", result["folds"]["pooled"]["held_out"]))
    for u in result["unlocated_gold"]:
        typer.echo(f"unlocated gold {u['id']} in {u['file']}: {u['quote'][:80]}")


def eval_ask_tatqa(
    data: Annotated[Path, typer.Option("--data", help="A folder of TAT-QA *.json files (e.g. the dev split).")],
    folds: AskFoldsOpt = None,
    embedder: AskEmbedderOpt = None,
    questions: AskQuestionsOpt = None,
    json_: JsonOpt = False,
    store: StoreOpt = None,
) -> None:
    """Ask TAT-QA's table-span questions of each rendered table; count cells cited right and wrong and abstentions.

    With --questions, the file's templates over {item} and {year} are asked instead, filled
    from each answering cell's row label and column header (and, unanswerable, with a row
    label another table holds).

    Example: pincite eval ask-tatqa --data ../shared/data/tatqa/dev --folds 5 --json
    """
    from ..evals.ask_tatqa import run_ask_tatqa

    with errors(), shown("eval ask-tatqa") as bar:
        result = run_ask_tatqa(data, store_url=store, embedder=embedder, folds=folds,
                               questions_file=questions, report=bar.report)
    if json_:
        emit(result)
        return
    typer.echo(f"ask-tatqa: {result['tables']} tables, policy {result['policy']}")
    _ask_table(result)
    _style_table(result)


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
