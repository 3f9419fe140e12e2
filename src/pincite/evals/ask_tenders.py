"""`ask` on real tenders: an analyst's questions in Spanish; answered right, wrong, or abstained.

The questions file (`evals/tenders_questions/dev.json`; its README says who wrote it and
how: from the documents, before reading pincite's answering code) lists cases of
`tenders_real`, each with its files and its questions. Every file is ingested (the path
users hit; source id `<case_id>/<file>`), the index is built once with the real embedder,
and each question is asked of its own case's files only (filter `source_ids`) through
`ask.answer.candidates` and `answer_from` under the shipped policy.

Gold: each answerable question's quotes, located in their file's text layer as ask-cuad
locates CUAD's (every occurrence, any case). A quote found nowhere cannot be hit; it is
listed in `unlocated_gold` with its question id so that the quote can be fixed. An answer
is **right** when its first item cites a gold file at a span that overlaps a located gold
span by at least half of the shorter of the two (`ask_cuad.right`); every other answer is
wrong: a wrong span, or any answer to a question the case's files do not answer. Counts,
rates and Wilson intervals: `ask_scoring`.

`--folds K`: cases are split by `folds.fold_of(case_id, K)`. Nothing is refitted (the
questions are too few to choose thresholds on): each fold's figures are the shipped
policy's on the cases it holds, and pooled adds the folds (every case is in one fold).
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import NotFound, QuoteNotFound, UsageError
from ..model import split_doc_id
from ..model.progress_report import Report, counted
from ..vocab import IngestStatus, ProgressUnit
from .ask_cuad import OVERLAP, Span, right
from .ask_scoring import Outcome, by_category, check_folds, count, rates
from .folds import fold_of
from .judge_fit import judge_row

if TYPE_CHECKING:
    from ..ask.answer import AskResult

SCHEMA_NAME = "pincite.tenders_questions"
VERSION = 1
_CASE_KEYS = {"case_id", "files", "questions"}
_QUESTION_KEYS = {"id", "question", "answerable", "gold", "value", "why"}


@dataclass(frozen=True, slots=True)
class Gold:
    """A verbatim quote of one file of the case that states the answer."""

    file: str
    quote: str


@dataclass(frozen=True, slots=True)
class TenderQuestion:
    """One analyst's question; `gold` is empty when the case's files do not answer it."""

    id: str
    text: str
    answerable: bool
    gold: tuple[Gold, ...]


@dataclass(frozen=True, slots=True)
class TenderCase:
    """One tender: its files (under `<data>/<case_id>/`) and the questions asked of them."""

    case_id: str
    files: tuple[str, ...]
    questions: tuple[TenderQuestion, ...]

    def source_id(self, file: str) -> str:
        """Return the source id a file of this case is ingested under."""
        return f"{self.case_id}/{file}"


def load_questions(path: Path) -> tuple[TenderCase, ...]:
    """Return the cases of a tender questions file; UsageError naming the first problem."""
    path = Path(path)
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UsageError(f"no questions file at {path}: give --questions a file such as "
                         "evals/tenders_questions/dev.json") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise UsageError(f"{path} is not a readable JSON questions file ({e}); see "
                         "evals/tenders_questions/README.md for the format") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("cases"), list) or not raw["cases"]:
        raise UsageError(f"{path} must be an object with a non-empty list 'cases' "
                         "(evals/tenders_questions/README.md)")
    if raw.get("schema_name", SCHEMA_NAME) != SCHEMA_NAME or raw.get("version", VERSION) != VERSION:
        raise UsageError(f"{path} says schema {raw.get('schema_name')!r} version "
                         f"{raw.get('version')!r}; this pincite reads {SCHEMA_NAME!r} version {VERSION}")
    seen_cases: set[str] = set()
    seen_ids: set[str] = set()
    cases = []
    for i, c in enumerate(raw["cases"]):
        case = _case(c, f"{path}: case {i + 1}", seen_ids)
        if case.case_id in seen_cases:
            raise UsageError(f"{path}: case {case.case_id!r} is listed twice; merge its questions")
        seen_cases.add(case.case_id)
        cases.append(case)
    return tuple(cases)


def _case(c: Any, where: str, seen_ids: set[str]) -> TenderCase:
    """Return one checked case of the questions file (`where` names it in errors)."""
    if not isinstance(c, dict) or _CASE_KEYS - set(c) or set(c) - _CASE_KEYS:
        raise UsageError(f"{where} must have exactly the keys {sorted(_CASE_KEYS)}")
    case_id, files, questions = c["case_id"], c["files"], c["questions"]
    if not _text(case_id) or "/" in case_id:
        raise UsageError(f"{where}: case_id must be a folder name of the data (text, no '/')")
    if (not isinstance(files, list) or not files or not all(_text(f) and "/" not in f for f in files)
            or len(set(files)) != len(files)):
        raise UsageError(f"{where} ({case_id}): files must be a non-empty list of distinct file "
                         "names inside the case's folder")
    if not isinstance(questions, list) or not questions:
        raise UsageError(f"{where} ({case_id}): questions must be a non-empty list")
    out = []
    for j, q in enumerate(questions):
        at = f"{where} ({case_id}), question {j + 1}"
        if not isinstance(q, dict) or {"id", "question", "answerable"} - set(q) or set(q) - _QUESTION_KEYS:
            raise UsageError(f"{at} needs id, question and answerable (and may have gold, value, "
                             f"why; nothing else)")
        qid, text, answerable = q["id"], q["question"], q["answerable"]
        if not _text(qid) or not _text(text) or not isinstance(answerable, bool):
            raise UsageError(f"{at}: id and question must be text, answerable true or false")
        if qid in seen_ids:
            raise UsageError(f"{at}: the id {qid!r} is used twice; give every question its own id")
        seen_ids.add(qid)
        out.append(TenderQuestion(qid, text, answerable, _gold(q.get("gold"), answerable, files,
                                                               f"{at} ({qid})")))
    return TenderCase(case_id, tuple(files), tuple(out))


def _gold(gold: Any, answerable: bool, files: list[str], at: str) -> tuple[Gold, ...]:
    """Return a question's checked gold quotes: some when answerable, none otherwise."""
    if not answerable:
        if gold:
            raise UsageError(f"{at} is unanswerable but has gold quotes; drop them or mark it answerable")
        return ()
    if not isinstance(gold, list) or not gold:
        raise UsageError(f"{at} is answerable: give gold, a list of {{file, quote}} that state the answer")
    out = []
    for g in gold:
        if (not isinstance(g, dict) or set(g) != {"file", "quote"} or not _text(g["quote"])
                or g["file"] not in files):
            raise UsageError(f"{at}: each gold item is {{\"file\": one of the case's files, "
                             f"\"quote\": verbatim text}}; got {g!r:.120}")
        out.append(Gold(g["file"], g["quote"]))
    return tuple(out)


def _text(v: Any) -> bool:
    """Whether `v` is a string with something besides spaces."""
    return isinstance(v, str) and bool(v.strip())


def run_ask_tenders(data: Path, questions: Path, store_url: str | None = None,
                    embedder: str | None = None, folds: int | None = None,
                    report: Report | None = None) -> dict[str, Any]:
    """Ingest the cases' files, ask every question of its case's files; return the counts and
    rates (totals, `by_case`, `by_question`, `unlocated_gold`; with `folds`, per fold).
    Files ingested (documents, with their pages) and questions (cases) go to `report`."""
    from ..ask.answer import answer_from, candidates, judged, policy_of
    from ..ask.judge import shipped_judge
    from ..cite.verifier import Verifier
    from ..embed.factory import open_embedder
    from ..index.generations import build_and_publish, needs_build
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    data = Path(data)
    cases = load_questions(questions)
    missing = [f"{c.case_id}/{f}" for c in cases for f in c.files if not (data / c.case_id / f).is_file()]
    if missing:
        raise UsageError(f"{data} lacks {len(missing)} file(s) the questions name (first: "
                         f"{missing[0]}): give --data the tenders folder they were written for")
    if folds is not None:
        folds = check_folds(folds, [c.case_id for c in cases])
    emb = open_embedder(embedder)
    principal = Principal.parse("eval:evaluator")
    seconds: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    judge_rows: list[dict[str, Any]] = []
    unlocated: list[dict[str, str]] = []
    quarantined: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            t0 = time.perf_counter()
            live: set[str] = set()
            files = [(c, f) for c in cases for f in c.files]
            with Ingestor(store, tenant="eval", acl=["*"], report=report) as ing:
                for c, f in counted(files, ProgressUnit.DOCUMENT, report):
                    p = data / c.case_id / f
                    res = ing.ingest(p.read_bytes(), source_id=c.source_id(f), path=str(p), name=f)
                    if res.status == IngestStatus.QUARANTINED:
                        quarantined.append({"source_id": res.source_id, "reason": res.reason})
                    else:
                        live.add(res.source_id)
            if needs_build(store, emb.space):
                build_and_publish(store, emb)
            seconds["ingest_and_build"] = round(time.perf_counter() - t0, 2)
            g = store.generation(store.pointer()[0] or "")
            shipped = policy_of(g)
            verifier = Verifier(store, principal)
            t0 = time.perf_counter()
            asked = [(c, q) for c in cases for q in c.questions]
            for c, q in counted(asked, ProgressUnit.CASE, report):
                sids = [c.source_id(f) for f in c.files if c.source_id(f) in live]
                spans = _located(verifier, c, q, unlocated)
                answer = None
                if sids:
                    found = candidates(store, q.text, principal,
                                       filters={"source_ids": sids}, policy=shipped)
                    raw = answer_from(found, shipped, judge=False)
                    answer = judged(raw, shipped_judge())
                    r = _row(c, q, spans, raw)
                    judge_rows.append(judge_row(c.case_id, c.case_id, "", r["outcome"], raw,
                                                q.text))
                rows.append(_row(c, q, spans, answer))
            seconds["ask"] = round(time.perf_counter() - t0, 2)
        finally:
            store.close()
    outcomes = [r["outcome"] for r in rows]
    result: dict[str, Any] = {
        "dataset": "ask-tenders", "embedder": emb.space.space_id, "cases": len(cases),
        "documents": sum(len(c.files) for c in cases), "questions": len(rows),
        "policy": shipped.name, "overlap": OVERLAP, **rates(count(outcomes)),
        "by_case": by_category((r["case_id"], r["outcome"]) for r in rows),
        "by_question": rows,
        "unlocated_gold": unlocated,
        "quarantined": quarantined,
        "seconds": seconds,
        "judge_rows": judge_rows,
    }
    if folds:
        result["folds"] = fold_figures(_by_case(rows), folds)
    return result


def _by_case(rows: list[dict[str, Any]]) -> dict[str, list[Outcome]]:
    """The outcomes of the rows, per case."""
    out: dict[str, list[Outcome]] = {}
    for r in rows:
        out.setdefault(r["case_id"], []).append(r["outcome"])
    return out


def fold_figures(per_case: Mapping[str, list[Outcome]], k: int) -> dict[str, Any]:
    """Return the figures of each fold of cases (`fold_of(case_id, k)`) and pooled."""
    rows = []
    pooled: list[Outcome] = []
    for i in range(k):
        ids = sorted(c for c in per_case if fold_of(c, k) == i)
        outs = [o for c in ids for o in per_case[c]]
        pooled += outs
        rows.append({"fold": i, "cases": ids, "held_out": rates(count(outs))})
    return {"k": k, "folds": rows, "pooled": {"held_out": rates(count(pooled))}}


def _located(verifier: Any, case: TenderCase, q: TenderQuestion,
             unlocated: list[dict[str, str]]) -> dict[str, list[Span]]:
    """Every occurrence of the question's gold quotes, per source id; a quote found nowhere
    is added to `unlocated`."""
    spans: dict[str, list[Span]] = {}
    for gold in q.gold:
        sid = case.source_id(gold.file)
        found: list[Span] = []
        try:
            first = verifier.cite(sid, gold.quote)
            found.append((first.char_start, first.char_end))
            rev = verifier.revision(sid)
            loaded = verifier.layer(rev) if rev is not None else None
            if rev is not None and loaded is not None:
                finder = verifier.folded(rev, loaded)
                found += [s for s in finder.find_all(gold.quote, any_case=True) if s not in found]
        except (QuoteNotFound, NotFound):
            unlocated.append({"id": q.id, "file": gold.file, "quote": gold.quote})
            continue
        spans.setdefault(sid, []).extend(s for s in found if s not in spans.get(sid, []))
    return spans


def _row(case: TenderCase, q: TenderQuestion, spans: Mapping[str, list[Span]],
         answer: AskResult | None) -> dict[str, Any]:
    """One question's line: its outcome (answerable, answered, right) and what it cited."""
    cited = None
    if answer is not None and answer.status == "answered" and answer.items:
        cited = answer.items[0].citation or {}
    file = quote = None
    ok = False
    if cited is not None:
        sid = split_doc_id(str(cited.get("doc_id", "")))[0]
        file = sid[len(case.case_id) + 1:] if sid.startswith(case.case_id + "/") else sid
        span = (int(cited["char_start"]), int(cited["char_end"]))
        ok = right(span, spans.get(sid, []))
        quote = " ".join(str(cited.get("quote", "")).split())[:240]
    return {"id": q.id, "case_id": case.case_id, "question": q.text, "answerable": q.answerable,
            "outcome": (q.answerable, cited is not None, ok), "file": file, "quote": quote}
