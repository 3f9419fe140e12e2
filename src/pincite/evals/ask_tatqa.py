"""`ask` on TAT-QA tables: a table-span question is answered by the cell that holds it.

Each TAT-QA table is rendered as an HTML page of plain `<td>` cells (`tatqa.table_html`,
header rows included: which rows are headers is for pincite to find) and ingested
through the real path; every question is asked of its own table alone (filter
`source_ids`).

- **Answerable**: questions with `answer_from == "table"` and `answer_type == "span"`
  that need no comparison.
  The oracle reads the dataset alone, never pincite's header rule: the gold answer,
  normalised (lower case; white space, `$`, `,`, `%` and surrounding parentheses dropped;
  a trailing scale word equal to the question's `scale` dropped), and the raw table's
  cells normalised the same way. An answer is **right** when its first item's citation
  lies inside one cell element of the table and that cell's text, normalised, equals the
  gold answer — or, for a gold answer with letters, holds it (TAT-QA's spans are
  sometimes part of a cell: "Government grants" of "Government grants1"). A citation of anything else — a header cell, a
  whole row — is wrong.
- **Unanswerable**: (a) table-span questions that ask for a comparison
  (`req_comparison`: "In which year was EBITDA higher?" — gold "2019"): no cell states
  it, the comparison must be made; (b) questions of the same table with `answer_from ==
  "text"` and `answer_type == "span"` whose gold answer holds no digit and, normalised,
  is in no cell of the table: the page (the table alone) does not state it.

`--folds K` splits by table (`ask_scoring`).
"""

from __future__ import annotations

import re
import tempfile
import time
import zlib
from collections import defaultdict
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..model.progress_report import Report, counted
from ..vocab import IngestStatus, ProgressUnit
from .ask_scoring import Outcome, by_category, check_folds, count, grid_policies, rates, refit
from .judge_fit import judge_row
from .phrasings import Phrasing, load_phrasings, phrasing_tables

_STRIP = re.compile(r"[\s$,%()]")
_SCALE_WORDS = {"thousand": ("thousands", "thousand"), "million": ("millions", "million"),
                "billion": ("billions", "billion"), "percent": ("percent",)}


def normalise(text: str, scale: str = "") -> str:
    """The comparison form of a gold answer or a cell's text (see the module docstring)."""
    s = _STRIP.sub("", str(text).lower())
    for word in _SCALE_WORDS.get(scale or "", ()):
        if s.endswith(word) and len(s) > len(word):
            return s[: -len(word)]
    return s


def questions(ctx: dict[str, Any]) -> list[tuple[dict[str, Any], bool]]:
    """The context's (question, answerable) pairs (see the module docstring)."""
    table = ctx["table"]["table"]
    cells = {normalise(c) for row in table for c in row if str(c).strip()}
    out = []
    for q in ctx.get("questions") or ():
        if q.get("answer_type") != "span":
            continue
        answers = q["answer"] if isinstance(q["answer"], list) else [q["answer"]]
        if len(answers) != 1 or not str(answers[0]).strip():
            continue
        gold = normalise(answers[0], q.get("scale") or "")
        if q.get("answer_from") == "table" and gold:
            out.append((q, not q.get("req_comparison")))
        elif (q.get("answer_from") == "text" and not re.search(r"\d", str(answers[0]))
              and gold and not any(gold in c for c in cells)):
            out.append((q, False))
    return out


SLOTS = re.compile(r"\{(\w+)\}")
FILLED = {"item", "year"}  # the slots one cell fills: its row label and its column header


def cell_questions(contexts: list[dict[str, Any]], asked: dict[str, list[Phrasing]]
                   ) -> list[tuple[dict[str, Any], dict[str, Any], bool, Phrasing]]:
    """Return (context, question, answerable, phrasing) for every phrasing template whose
    slots are `{item}` and `{year}` only, filled from each cell that answers a table-span
    question of the dataset (its row label and column header: answerable, the cell's text
    the gold) and, once per table, with a row label of another table that this table does
    not hold (unanswerable: the page does not state it)."""
    cells = [(ctx, *hit) for ctx in contexts for q, ok in questions(ctx) if ok
             for hit in [_gold_cell(ctx["table"]["table"], q)] if hit is not None]
    seen: set[tuple[str, str, str]] = set()
    out = []
    labels = sorted({item for _c, item, _y, _g in cells})
    for ctx, item, year, gold in cells:
        uid = ctx["table"]["uid"]
        if (uid, item, year) in seen:
            continue
        seen.add((uid, item, year))
        held = {normalise(c) for row in ctx["table"]["table"] for c in row}
        stranger = next((x for x in labels[zlib.crc32(uid.encode()) % max(1, len(labels)):] + labels
                         if normalise(x) not in held), None)
        for phrasings in asked.values():
            for ph in phrasings:
                if not set(SLOTS.findall(ph.text)) <= FILLED:
                    continue
                out.append((ctx, {"question": ph.text.format(item=item, year=year),
                                  "answer": [gold], "scale": ""}, True, ph))
                if stranger is not None and (uid, "", year) not in seen:
                    out.append((ctx, {"question": ph.text.format(item=stranger, year=year),
                                      "answer": [""], "scale": ""}, False, ph))
        seen.add((uid, "", year))
    return out


def _gold_cell(table: list[list[Any]], q: dict[str, Any]) -> tuple[str, str, str] | None:
    """Return (row label, column header, cell text) of the cell holding `q`'s gold answer,
    or None when no one cell with both a label and a header holds it."""
    gold = normalise(q["answer"][0] if isinstance(q["answer"], list) else q["answer"],
                     q.get("scale") or "")
    for r, row in enumerate(table):
        for c, cell in enumerate(row):
            if c == 0 or normalise(cell) != gold:
                continue
            item = str(row[0]).strip()
            year = next((str(table[h][c]).strip() for h in range(r) if str(table[h][c]).strip()),
                        "")
            if item and year and "{" not in item + year:
                return item, year, str(cell)
    return None


def run_ask_tatqa(data: Path, store_url: str | None = None, embedder: str | None = None,
                  folds: int | None = None, questions_file: Path | None = None,
                  report: Report | None = None) -> dict[str, Any]:
    """Ingest every TAT-QA table as HTML, ask its span questions; return the figures (with
    `folds`, the fit and held-out figures per fold of tables). With `questions_file` (a
    phrasings file of question kinds, `evals.phrasings`), the templates are asked in place
    of the dataset's wordings (`cell_questions`) and `by_phrasing` / `by_style` are added.
    Tables ingested (documents) and questions (cases) are reported to `report`."""
    from ..ask.answer import answer_from, candidates, judged, policy_of
    from ..ask.judge import shipped_judge
    from ..cite.verifier import Verifier
    from ..embed.factory import open_embedder
    from ..index.generations import build_and_publish, needs_build
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store
    from .tatqa import _contexts, table_html

    contexts = [ctx for _, ctx in _contexts(data)]
    asked = load_phrasings(questions_file) if questions_file is not None else None
    todo = ([(ctx, q, ok, None) for ctx in contexts for q, ok in questions(ctx)]
            if asked is None else cell_questions(contexts, asked))
    if not todo:
        raise UsageError(f"{data} holds no TAT-QA span questions")
    uids = sorted({ctx["table"]["uid"] for ctx, _, _, _ in todo})
    if folds is not None:
        folds = check_folds(folds, uids)
    emb = open_embedder(embedder)
    principal = Principal.parse("eval:evaluator")
    seconds: dict[str, float] = {}
    rows: list[tuple[str, Outcome]] = []
    by_phrasing: list[tuple[Phrasing, Outcome]] = []
    kinds: list[tuple[str, Outcome]] = []  # (answer kind, outcome) of each answered question
    judge_rows: list[dict[str, Any]] = []
    wrong: list[dict[str, Any]] = []
    per_doc: dict[str, dict[tuple[float, float], list[Outcome]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            t0 = time.perf_counter()
            tables = {ctx["table"]["uid"]: ctx["table"]["table"] for ctx, _, _, _ in todo}
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                ingested = {uid: ing.ingest(table_html(tables[uid]), source_id=f"{uid}.html",
                                            path=f"{uid}.html", name=f"{uid}.html")
                            for uid in counted(uids, ProgressUnit.DOCUMENT, report)}
            if needs_build(store, emb.space):
                build_and_publish(store, emb)
            seconds["ingest_and_build"] = round(time.perf_counter() - t0, 2)
            g = store.generation(store.pointer()[0] or "")
            shipped = policy_of(g)
            policies = grid_policies(shipped) if folds else {}
            verifier = Verifier(store, principal)
            cells = {uid: _cells(verifier, f"{uid}.html") for uid in uids
                     if ingested[uid].status != IngestStatus.QUARANTINED}
            t0 = time.perf_counter()
            for ctx, q, answerable, ph in counted(todo, ProgressUnit.CASE, report):
                uid = ctx["table"]["uid"]
                gold = normalise(q["answer"][0] if isinstance(q["answer"], list) else q["answer"],
                                 q.get("scale") or "")
                found = candidates(store, q["question"], principal,
                                   filters={"source_ids": [f"{uid}.html"]}, policy=shipped)
                raw = answer_from(found, shipped, judge=False)
                answer = judged(raw, shipped_judge())
                judge_rows.append(judge_row(uid, str(ph.category) if ph is not None else "",
                                            ph.style if ph is not None else "", (
                    answerable, raw.status == "answered",
                    _right(raw, cells.get(uid, []), gold)), raw, q["question"]))
                ok = _right(answer, cells.get(uid, []), gold)
                outcome = (answerable, answer.status == "answered", ok)
                rows.append(("table" if answerable else "text", outcome))
                if answer.status == "answered" and answer.items:
                    kinds.append((str(answer.items[0].answer_kind or ""), outcome))
                if ph is not None:
                    by_phrasing.append((ph, outcome))
                if outcome[1] and not ok and len(wrong) < 40:
                    c = answer.items[0].citation or {}
                    wrong.append({"uid": uid, "question": q["question"], "gold": q["answer"],
                                  "answerable": answerable, "quote": c.get("quote"),
                                  "locator": c.get("locator")})
                for key, pol in policies.items():
                    a = answer_from(found, pol)
                    per_doc[uid][key].append((answerable, a.status == "answered",
                                              _right(a, cells.get(uid, []), gold)))
            seconds["ask"] = round(time.perf_counter() - t0, 2)
        finally:
            store.close()
    result: dict[str, Any] = {
        "dataset": "ask-tatqa", "embedder": emb.space.space_id, "tables": len(uids),
        "policy": shipped.name, **rates(count(o for _, o in rows)),
        "by_answer_from": by_category(rows), "by_answer_kind": by_category(kinds),
        "wrong_examples": wrong, "seconds": seconds, "judge_rows": judge_rows}
    if asked is not None:
        result.update(phrasing_tables(by_phrasing, asked))
    if folds:
        result["folds"] = refit(per_doc, folds, shipped)
    return result


def _cells(verifier: Any, doc: str) -> list[tuple[int, int, str]]:
    """The table's cell elements: (start, end, text) in the text layer."""
    rev = verifier.revision(doc)
    loaded = verifier.layer(rev) if rev is not None else None
    if loaded is None:
        return []
    text = loaded.layer.text
    return [(e.char_start, e.char_end, text[e.char_start:e.char_end])
            for e in loaded.layer.elements if e.kind == "cell"]


def _right(answer: Any, cells: list[tuple[int, int, str]], gold: str) -> bool:
    """Whether the first item's citation lies inside one cell that holds the gold answer."""
    if answer.status != "answered" or not answer.items or not gold:
        return False
    c = answer.items[0].citation or {}
    a, b = int(c["char_start"]), int(c["char_end"])
    for s, e, text in cells:
        if s <= a and b <= e:
            held = normalise(text)
            return held == gold or (bool(re.search(r"[^\W\d_]", gold)) and gold in held)
    return False
