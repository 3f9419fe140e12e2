"""`ask` on CUAD: one question per category over each contract; answered right, or abstained.

Each contract **PDF** of the split is ingested (the path users hit) and indexed with the
real embedder; each of the 41 categories is asked as a question a lawyer would put
(`QUESTIONS`, written from CUAD's category descriptions, never from a contract) of that
contract alone (filter `source_ids`). A (contract, category) pair is *answerable* when
CUAD marks a clause of that category in the contract, *unanswerable* when it marks none.

The gold segments of `derived_spans.jsonl` are located in the PDF text layer with `cite`
(every occurrence; an unlocated segment cannot be hit). An answer is **right** when its
first item's citation `[a, b)` overlaps a located gold span `[g, h)` of that category by
at least half of the shorter of the two: `overlap ≥ 0.5 · min(b - a, h - g)` — a cited
sentence inside a long gold clause, or a short gold (a date, a party's name) inside the
cited sentence. CUAD lists every occurrence of a short segment (a party's defined name
such as "Distributor" occurs all over a contract), so a Parties answer is right wherever
it names a party. Any other answer is wrong. Counts, rates and folds: `ask_scoring`.

`--folds K`: per document fold, the thresholds chosen on the other folds and the figures
there (fit) and on the fold (held out); see `ask_scoring.refit`.
"""

from __future__ import annotations

import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import QuoteNotFound, UsageError
from ..model.progress_report import Report, counted
from ..vocab import IngestStatus, ProgressUnit
from .ask_scoring import Outcome, by_category, check_folds, count, grid_policies, rates, refit
from .judge_fit import judge_row
from .phrasings import Phrasing, load_phrasings, phrasing_tables

if TYPE_CHECKING:
    from ..ask.answer import AskResult

# One question per CUAD category, written from the category's description (what a
# lawyer reviewing the contract would ask), not from any contract's wording.
QUESTIONS = {
    "Document Name": "What is the name of this agreement?",
    "Parties": "Who are the parties to this agreement?",
    "Agreement Date": "What is the date of this agreement?",
    "Effective Date": "When does this agreement become effective?",
    "Expiration Date": "When does the initial term of this agreement expire?",
    "Renewal Term": "For how long does this agreement renew after its initial term?",
    "Notice Period To Terminate Renewal":
        "How much notice must a party give to prevent the renewal of this agreement?",
    "Governing Law": "Which law governs this agreement?",
    "Most Favored Nation":
        "Is a party entitled to terms at least as favorable as those given to any third party?",
    "Non-Compete": "Is a party restricted from competing with the other party?",
    "Exclusivity": "Is a party's appointment or dealing under this agreement exclusive?",
    "No-Solicit Of Customers": "Is a party restricted from soliciting the other party's customers?",
    "Competitive Restriction Exception":
        "What exceptions apply to the restrictions on competition or exclusivity?",
    "No-Solicit Of Employees":
        "Is a party restricted from soliciting or hiring the other party's employees?",
    "Non-Disparagement": "Is a party required not to disparage the other party?",
    "Termination For Convenience": "Can a party terminate this agreement without cause?",
    "Rofr/Rofo/Rofn": "Does a party have a right of first refusal, first offer or first negotiation?",
    "Change Of Control": "What happens if a party undergoes a change of control?",
    "Anti-Assignment": "Can a party assign this agreement without the other party's consent?",
    "Revenue/Profit Sharing": "Is a party required to share revenue or profits with the other party?",
    "Price Restrictions": "Is a party restricted from raising or reducing its prices?",
    "Minimum Commitment": "What minimum amount must a party purchase or order?",
    "Volume Restriction": "Is there a limit on the volume a party may use or purchase?",
    "Ip Ownership Assignment": "Who owns the intellectual property created under this agreement?",
    "Joint Ip Ownership": "Is intellectual property owned jointly by the parties?",
    "License Grant": "What license does a party grant under this agreement?",
    "Non-Transferable License": "Is the license granted non-transferable?",
    "Affiliate License-Licensor":
        "Does the license include intellectual property of the licensor's affiliates?",
    "Affiliate License-Licensee": "Does the license extend to the licensee's affiliates?",
    "Unlimited/All-You-Can-Eat-License": "Is a party granted an unlimited or enterprise-wide license?",
    "Irrevocable Or Perpetual License": "Is the license irrevocable or perpetual?",
    "Source Code Escrow": "Must a party deposit its source code in escrow?",
    "Post-Termination Services":
        "What obligations continue after the termination or expiration of this agreement?",
    "Audit Rights": "Does a party have the right to audit the other party's books and records?",
    "Uncapped Liability": "Which liabilities are excluded from the limitation of liability?",
    "Cap On Liability": "What is the maximum liability of a party under this agreement?",
    "Liquidated Damages": "Does this agreement provide for liquidated damages or a termination fee?",
    "Warranty Duration": "How long does the warranty last?",
    "Insurance": "What insurance must a party maintain?",
    "Covenant Not To Sue":
        "Is a party restricted from challenging the other party's intellectual property?",
    "Third Party Beneficiary": "Does this agreement have third-party beneficiaries?",
}
OVERLAP = 0.5  # share of the shorter of cited span and gold span that must overlap
Span = tuple[int, int]


def right(cited: Span, gold: list[Span]) -> bool:
    """Whether `cited` overlaps one of the gold spans by ≥ OVERLAP of the shorter of the two."""
    a, b = cited
    for g, h in gold:
        shorter = min(b - a, h - g)
        if shorter > 0 and min(b, h) - max(a, g) >= OVERLAP * shorter:
            return True
    return False


def run_ask_cuad(data: Path, store_url: str | None = None, embedder: str | None = None,
                 folds: int | None = None, only: list[str] | None = None,
                 questions: Path | None = None, report: Report | None = None) -> dict[str, Any]:
    """Ingest a CUAD split's PDFs, ask every category of every contract; return the figures
    (with `folds`, the fit and held-out figures per fold). `only` keeps some PDF names.
    With `questions` (a phrasings file, `evals.phrasings`), every phrasing of a category is
    asked in place of `QUESTIONS` (categories the file does not name are not asked), the
    totals count every (pair, phrasing), and `by_phrasing` / `by_style` are added.
    Documents (and their pages) and cases (category x contract) are reported to `report`."""
    from ..ask.answer import answer_from, candidates, judged, policy_of
    from ..ask.judge import shipped_judge
    from ..cite.verifier import Verifier
    from ..embed.factory import open_embedder
    from ..index.generations import build_and_publish, needs_build
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store
    from .cuad import load_gold

    data = Path(data)
    asked = (load_phrasings(questions, QUESTIONS) if questions is not None else
             {c: [Phrasing(c, q)] for c, q in QUESTIONS.items()})
    gold = [g for g in load_gold(data) if (only is None or g.file in only)
            and (questions is None or g.category in asked)]
    missing = sorted({g.category for g in gold} - set(QUESTIONS))
    if missing:
        raise UsageError(f"no question written for CUAD categories: {', '.join(missing)}")
    pdf_dir = data / "full_contract_pdf"
    files = {g.file for g in gold}
    pdfs = sorted(p for p in pdf_dir.iterdir() if p.name in files) if pdf_dir.is_dir() else []
    if not pdfs:
        raise UsageError(f"{data} has no contract PDFs for its gold under full_contract_pdf/")
    if folds is not None:
        folds = check_folds(folds, [p.name for p in pdfs])
    emb = open_embedder(embedder)
    principal = Principal.parse("eval:evaluator")
    seconds: dict[str, float] = {}
    rows: list[dict[str, Any]] = []
    by_phrasing: list[tuple[Phrasing, Outcome]] = []
    judge_rows: list[dict[str, Any]] = []
    per_doc: dict[str, dict[tuple[float, float], list[Outcome]]] = defaultdict(lambda: defaultdict(list))
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            t0 = time.perf_counter()
            with Ingestor(store, tenant="eval", acl=["*"], report=report) as ing:
                ingested = {p.name: ing.ingest(p.read_bytes(), source_id=p.name, path=str(p),
                                               name=p.name)
                            for p in counted(pdfs, ProgressUnit.DOCUMENT, report)}
            if needs_build(store, emb.space):
                build_and_publish(store, emb)
            seconds["ingest_and_build"] = round(time.perf_counter() - t0, 2)
            g = store.generation(store.pointer()[0] or "")
            shipped = policy_of(g)
            policies = grid_policies(shipped) if folds else {}
            verifier = Verifier(store, principal)
            t0 = time.perf_counter()
            for pair in counted(gold, ProgressUnit.CASE, report):
                res = ingested.get(pair.file)
                if res is None or res.status == IngestStatus.QUARANTINED:
                    rows.append(_row(pair, [], None, None))
                    continue
                spans = _located(verifier, pair)
                for ph in asked[pair.category]:
                    found = candidates(store, ph.text, principal,
                                       filters={"source_ids": [pair.file]}, policy=shipped)
                    raw = answer_from(found, shipped, judge=False)
                    answer = judged(raw, shipped_judge())
                    raw_cited = _cited(raw)
                    judge_rows.append(judge_row(pair.file, pair.category, ph.style, (
                        pair.has_clause, raw_cited is not None,
                        raw_cited is not None and right(raw_cited, spans)), raw, ph.text))
                    row = _row(pair, spans, answer, _cited(answer))
                    rows.append({**row, "phrasing": ph.text, "kind": _kind(answer),
                                 "style": ph.style, "read_as": found.read_as.kind
                                 if found.read_as is not None else None})
                    by_phrasing.append((ph, row["outcome"]))
                    for key, pol in policies.items():
                        cited = _cited(answer_from(found, pol))
                        per_doc[pair.file][key].append(
                            (pair.has_clause, cited is not None,
                             cited is not None and right(cited, spans)))
            seconds["ask"] = round(time.perf_counter() - t0, 2)
        finally:
            store.close()
    outcomes = [r["outcome"] for r in rows]
    result: dict[str, Any] = {
        "dataset": "ask-cuad", "embedder": emb.space.space_id, "documents": len(pdfs),
        "policy": shipped.name, "overlap": OVERLAP, **rates(count(outcomes)),
        "categories": by_category((r["category"], r["outcome"]) for r in rows),
        "unlocated_gold": sum(r["unlocated"] for r in rows),
        # the answers by the kind ask gave them (what `ask.confidence` is measured from)
        "by_answer_kind": by_category((r["kind"], r["outcome"]) for r in rows if r["kind"]),
        "wrong_examples": [
            {k: r[k] for k in ("file", "category", "phrasing", "quote", "answerable")}
            for r in rows if r["outcome"][1] and not r["outcome"][2]][:40],
        "seconds": seconds,
        # every asked question with the readers' answer before the judge (`evals.judge_fit`)
        "judge_rows": judge_rows,
    }
    if questions is not None:
        result.update(phrasing_tables(by_phrasing, asked))
        result["read_as"] = read_as_table(rows, questions)
    if folds:
        result["folds"] = refit(per_doc, folds, shipped)
    return result


def read_as_table(rows: list[dict[str, Any]], questions: Path) -> dict[str, Any]:
    """Per style, how many questions the kind model read as their own category, as another
    or as none, and whether the questions file is one the shipped model was fitted on."""
    from ..ask.kind_model import shipped

    model = shipped()
    styles: dict[str, dict[str, int]] = {}
    for r in rows:
        if "style" not in r:
            continue
        c = styles.setdefault(r["style"], {"own": 0, "other": 0, "none": 0})
        kind = r["read_as"]
        c["none" if kind is None else "own" if kind.casefold() == r["category"].casefold()
          else "other"] += 1
    fitted = list((model.provenance if model else {}).get("fitted_on", []))
    return {"by_style": styles, "model_fitted_on": fitted,
            "threshold": model.threshold if model else None,
            "in_sample": Path(questions).name in fitted}


def _kind(answer: AskResult) -> str | None:
    """The answer kind of the first answer item, or None when the answer is not_found."""
    if answer.status != "answered" or not answer.items:
        return None
    return str(answer.items[0].answer_kind or "")


def _located(verifier: Any, pair: Any) -> list[Span]:
    """Every occurrence of the pair's gold segments in the contract's text layer."""
    spans: list[Span] = []
    rev = verifier.revision(pair.file)
    loaded = verifier.layer(rev) if rev is not None else None
    if loaded is None:
        return spans
    folded = verifier.folded(rev, loaded)
    for clause in pair.clauses:
        for text in clause:
            try:
                first = verifier.cite(pair.file, text)
            except QuoteNotFound:
                continue
            spans.append((first.char_start, first.char_end))
            spans += [s for s in folded.find_all(text, any_case=True) if s not in spans]
    return spans


def _cited(answer: AskResult) -> Span | None:
    """The first item's cited span, or None when the answer is not_found."""
    if answer.status != "answered" or not answer.items:
        return None
    c = answer.items[0].citation or {}
    return int(c["char_start"]), int(c["char_end"])


def _row(pair: Any, spans: list[Span], answer: AskResult | None,
         cited: Span | None) -> dict[str, Any]:
    ok = cited is not None and right(cited, spans)
    quote = None
    if answer is not None and cited is not None:
        quote = " ".join(str((answer.items[0].citation or {}).get("quote", "")).split())[:240]
    segments = sum(len(c) for c in pair.clauses)
    return {"file": pair.file, "category": pair.category, "answerable": pair.has_clause,
            "outcome": (pair.has_clause, cited is not None, ok), "quote": quote,
            "unlocated": segments - (1 if spans else 0) if not spans else 0}
