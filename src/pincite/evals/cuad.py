"""CUAD clause extraction: the deterministic extractor, scored against CUAD's labels.

`run_cuad(DIR)` ingests a split's contract **PDFs** (the path users hit), runs
`run_extraction` with the CUAD schema (`examples/contracts/cuad.yaml`: one `clause` field
per category) over each contract, locates every gold segment of `derived_spans.jsonl` in
the PDF text layer with `cite`, and scores each (contract, category) pair:

- **SHOW / FLAG precision**: a shown value is right when each of its citations covers
  ≥ 50 % of the whitespace tokens of a located gold segment of that category and is no
  longer than twice that segment plus 300 characters (`span_right`);
- **ABSTAIN precision / recall** on the pairs without a clause; **REVIEW rate**;
- **shown_or_flagged**: the share of gold clauses (a clause may have several segments)
  that a SHOW/FLAG citation of its pair covers by the same rule; unlocated segments count
  as misses;
- **CUAD's own metrics** from every candidate's score (`min(1, score / SCORE_SCALE)`) with
  CUAD's matching rule (token Jaccard ≥ 0.5; for Parties also containment), following
  the official `evaluate.py`: thresholds 0.99 … 0.01, 0.001, 0; precision made monotone
  from the right; AUPR by the trapezoid rule; precision at 80 % and 90 % recall;
- **failure classes**, one per failing pair, first that applies: `unverified` (a value
  whose citation does not verify), `conflicting`, `false_show` (SHOW/FLAG without a gold
  clause), `false_abstain` (ABSTAIN with one), `wrong_span` (the record's citation misses
  but another candidate covers the gold), `missing_route` (no candidate reaches it);
- **invariants**: records with a value and unverified provenance, and SHOW/FLAG
  citations that fail a fresh verification (both must be 0).
"""

from __future__ import annotations

import math
import re
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import QuoteNotFound, UsageError
from ..extract.deterministic import SCORE_SCALE, DeterministicExtractor
from ..extract.records import Candidate
from ..extract.schema import FieldSpec
from ..limits import check_number
from ..vocab import IngestStatus

COVER = 0.5          # share of a gold segment's tokens a citation must cover
SLACK = 300          # a citation may be at most 2 × the gold segment + SLACK characters
IOU_THRESH = 0.5     # CUAD's Jaccard threshold
THRESHOLDS = [round(0.99 - 0.01 * i, 2) for i in range(99)] + [0.001, 0.0]
EXAMPLES = 3
FAILURES = ("missing_route", "wrong_span", "false_show", "false_abstain", "unverified",
            "conflicting")
ANCHOR = {"model": "DeBERTa-xlarge fine-tuned on CUAD (CUAD test split)", "p_at_80r": 0.440,
          "aupr": 0.478}
_TOKEN = re.compile(r"\S+")
Span = tuple[int, int]


def field_name(category: str) -> str:
    """Return the schema field of a CUAD category: `Rofr/Rofo/Rofn` → `rofr_rofo_rofn`."""
    return re.sub(r"[^a-z0-9]+", "_", category.lower()).strip("_")


def default_schema() -> Path:
    """Return `examples/contracts/cuad.yaml` of the source checkout."""
    path = Path(__file__).resolve().parents[3] / "examples" / "contracts" / "cuad.yaml"
    if not path.is_file():
        raise UsageError("examples/contracts/cuad.yaml is not next to this install; "
                         "give the schema with --schema FILE")
    return path


# ---- gold ----------------------------------------------------------------------------


@dataclass(frozen=True)
class GoldPair:
    """One (contract, category) of a split: its clauses, each a list of segment texts."""

    file: str
    category: str
    has_clause: bool
    clauses: tuple[tuple[str, ...], ...]


def load_gold(data: Path) -> list[GoldPair]:
    """Return the gold pairs of a CUAD split folder (`derived_spans.jsonl`)."""
    from .fidelity import derived_spans

    out = []
    for rec in derived_spans(data):
        clauses = tuple(tuple(s["text"] for s in c.get("segments") or () if s["text"].strip())
                        for c in rec.get("clauses") or ())
        out.append(GoldPair(Path(rec["pdf_file"]).name, rec["category"],
                            bool(rec["has_clause"]), tuple(c for c in clauses if c)))
    return out


# ---- CUAD's matching rule and curve ----------------------------------------------------


def cuad_jaccard(gold: str, pred: str) -> float:
    """Return CUAD's token Jaccard: `.,;:` dropped, lower-cased, `/` split, whitespace tokens."""
    words = []
    for s in (gold, pred):
        for ch in ".,;:":
            s = s.replace(ch, "")
        words.append(set(s.lower().replace("/", " ").split()))
    union = words[0] | words[1]
    return len(words[0] & words[1]) / len(union) if union else 0.0


def _cuad_match(gold: str, pred: str, substr_ok: bool) -> bool:
    if cuad_jaccard(gold, pred) >= IOU_THRESH:
        return True
    return substr_ok and " ".join(gold.split()) in " ".join(pred.split())


def cuad_counts(golds: Sequence[str], preds: Sequence[str], substr_ok: bool = False) -> tuple[int, int, int]:
    """Return CUAD's (tp, fp, fn) of one question: each gold matched by some prediction is
    a tp (else fn); each prediction matching no gold is a fp."""
    if not golds:
        return 0, len(preds), 0
    tp = sum(1 for g in golds if any(_cuad_match(g, p, substr_ok) for p in preds))
    fp = sum(1 for p in preds if not any(_cuad_match(g, p, substr_ok) for g in golds))
    return tp, fp, len(golds) - tp


@dataclass
class Question:
    """One CUAD question: gold answer texts and scored predictions (text → probability)."""

    golds: list[str]
    preds: dict[str, float]
    substr_ok: bool = False


def cuad_curve(questions: Sequence[Question]) -> tuple[list[float], list[float]]:
    """Return CUAD's (precisions, recalls) over the threshold grid, starting at (1, 0);
    a threshold with no prediction has precision NaN, as in the official script."""
    # which golds each prediction matches, computed once (the counts per threshold are
    # then those of `cuad_counts` over the predictions above it)
    table = []
    for q in questions:
        rows = [(p, frozenset(i for i, g in enumerate(q.golds) if _cuad_match(g, t, q.substr_ok)))
                for t, p in q.preds.items()]
        table.append((len(q.golds), rows))
    precisions, recalls = [1.0], [0.0]
    for conf in THRESHOLDS:
        tp = fp = fn = 0
        for n_gold, rows in table:
            above = [hits for p, hits in rows if p > conf]
            if not n_gold:
                fp += len(above)
                continue
            found = len(frozenset().union(*above)) if above else 0
            tp, fn = tp + found, fn + n_gold - found
            fp += sum(1 for hits in above if not hits)
        precisions.append(tp / (tp + fp) if tp + fp else math.nan)
        recalls.append(tp / (tp + fn) if tp + fn else math.nan)
    return precisions, recalls


def monotone(precisions: Sequence[float]) -> list[float]:
    """Return the precisions made non-increasing in recall (running max from the right;
    a NaN takes the running max, as Python's `max` does in the official script)."""
    out = list(precisions)
    best = math.nan
    for i in range(len(out) - 1, -1, -1):
        p = out[i]
        if math.isnan(best) or (not math.isnan(p) and p > best):
            best = p
        out[i] = best
    return out


def aupr(precisions: Sequence[float], recalls: Sequence[float]) -> float:
    """Return the area under the monotone precision-recall curve (trapezoids); 0 if NaN."""
    ps = monotone(precisions)
    area = sum((recalls[i + 1] - recalls[i]) * (ps[i + 1] + ps[i]) / 2 for i in range(len(ps) - 1))
    return 0.0 if math.isnan(area) else area


def precision_at_recall(precisions: Sequence[float], recalls: Sequence[float], target: float) -> float:
    """Return the monotone precision at the first threshold whose recall reaches `target`."""
    for p, r in zip(monotone(precisions), recalls, strict=True):
        if r >= target:
            return 0.0 if math.isnan(p) else p
    return 0.0


# ---- the span rule -------------------------------------------------------------


def span_right(text: str, gold: Span, cited: Span) -> bool:
    """Return True when `cited` covers ≥ COVER of the gold span's tokens and is no longer
    than 2 × the gold span + SLACK characters (offsets into the same text layer)."""
    (gs, ge), (cs, ce) = gold, cited
    tokens = [(m.start(), m.end()) for m in _TOKEN.finditer(text, gs, ge)]
    if not tokens or ce - cs > 2 * (ge - gs) + SLACK:
        return False
    covered = sum(1 for a, b in tokens if a < ce and b > cs)
    return covered / len(tokens) >= COVER


@dataclass
class PairResult:
    """What the run produced for one (contract, category), with the gold located."""

    file: str
    category: str
    has_clause: bool
    text: str
    gold: list[list[list[Span]]]          # clause → segment → located occurrences
    gold_texts: list[str]                 # segment texts (CUAD's answers)
    outcome: str                          # show | flag | review | abstain
    confidence: float = 0.0
    status: str = "absent"
    has_value: bool = False
    verified: bool = True
    cited: list[Span] = field(default_factory=list)
    candidates: list[tuple[str, float, int, int]] = field(default_factory=list)
    reason: str | None = None        # the decision's reason code (`extract.decide`)
    tau_flag: float = 1.0            # the FLAG threshold the record was decided with
    tau_show: float = 1.0            # … and the SHOW one (1.0: the schema lets it not SHOW)

    def unlocated(self) -> int:
        return sum(1 for clause in self.gold for seg in clause if not seg)

    def covers(self, span: Span, clause: list[list[Span]]) -> bool:
        return any(span_right(self.text, g, span) for seg in clause for g in seg)

    def right(self) -> bool:
        """Return True when every citation of the record covers a gold segment."""
        return bool(self.cited) and all(any(self.covers(c, clause) for clause in self.gold)
                                        for c in self.cited)

    def failure(self) -> str | None:
        """Return the failure class of this pair, or None when it is not a failure."""
        if self.has_value and not self.verified:
            return "unverified"
        if self.status == "conflicting":
            return "conflicting"
        if not self.has_clause:
            return "false_show" if self.outcome in ("show", "flag") else None
        if self.outcome == "abstain":
            return "false_abstain"
        if self.right():
            return None
        if any(self.covers((s, e), clause) for _, _, s, e in self.candidates for clause in self.gold):
            return "wrong_span"
        return "missing_route"


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def score(pairs: Sequence[PairResult]) -> dict[str, Any]:
    """Return the overall and per-category figures and the failure classes of `pairs`."""
    by_cat: dict[str, list[PairResult]] = defaultdict(list)
    for p in pairs:
        by_cat[p.category].append(p)
    categories = {cat: _figures(ps) for cat, ps in by_cat.items()}
    failures: dict[str, dict[str, Any]] = {k: {"count": 0, "examples": []} for k in FAILURES}
    for p in pairs:
        kind = p.failure()
        if kind is None:
            continue
        entry = failures[kind]
        entry["count"] += 1
        if len(entry["examples"]) < EXAMPLES:
            quote = " ".join(p.text[p.cited[0][0]:p.cited[0][1]].split())[:200] if p.cited else None
            gold = " ".join(p.gold_texts[0].split())[:200] if p.gold_texts else None
            entry["examples"].append({"file": p.file, "category": p.category,
                                      "outcome": p.outcome, "quote": quote, "gold": gold})
    overall = _figures(pairs)
    counts = overall.pop("counts")
    return {"overall": overall, "categories": categories, "failure_classes": failures,
            "counts": counts}


def _figures(pairs: Sequence[PairResult]) -> dict[str, Any]:
    n = Counter(p.outcome for p in pairs)
    show_ok = sum(1 for p in pairs if p.outcome == "show" and p.right())
    flag_ok = sum(1 for p in pairs if p.outcome == "flag" and p.right())
    no_clause = [p for p in pairs if not p.has_clause]
    abstain_ok = sum(1 for p in no_clause if p.outcome == "abstain")
    clauses = covered = 0
    for p in pairs:
        for clause in p.gold:
            clauses += 1
            if p.outcome in ("show", "flag") and any(p.covers(c, clause) for c in p.cited):
                covered += 1
    questions = [Question(p.gold_texts, _best(p.candidates), p.category == "Parties") for p in pairs]
    precisions, recalls = cuad_curve(questions)
    with_clause = [p for p in pairs if p.has_clause]
    return {
        "show_precision": _ratio(show_ok, n["show"]),
        "flag_precision": _ratio(flag_ok, n["flag"]),
        "abstain_precision": _ratio(abstain_ok, n["abstain"]),
        "abstain_recall": _ratio(abstain_ok, len(no_clause)),
        "review_rate": _ratio(n["review"], len(pairs)),
        "shown_or_flagged": _ratio(covered, clauses),
        "aupr": round(aupr(precisions, recalls), 4),
        "p_at_80r": round(precision_at_recall(precisions, recalls, 0.8), 4),
        "p_at_90r": round(precision_at_recall(precisions, recalls, 0.9), 4),
        "unlocated_gold": sum(p.unlocated() for p in pairs),
        "counts": {"pairs": len(pairs), "with_clause": len(with_clause),
                   "gold_clauses": clauses, "show": n["show"], "show_right": show_ok,
                   "flag": n["flag"], "flag_right": flag_ok, "review": n["review"],
                   "abstain": n["abstain"], "abstain_right": abstain_ok,
                   "pairs_shown_or_flagged_right": show_ok + flag_ok,
                   "clauses_covered": covered},
    }


def _best(candidates: Sequence[tuple[str, float, int, int]]) -> dict[str, float]:
    out: dict[str, float] = {}
    for text, prob, _, _ in candidates:
        out[text] = max(prob, out.get(text, 0.0))
    return out


# ---- the run ---------------------------------------------------------------------------


class _RecordingExtractor(DeterministicExtractor):
    """The deterministic extractor, keeping every field's candidates for the CUAD curve."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: dict[str, list[Candidate]] = {}

    def candidates(self, case: Any, spec: FieldSpec) -> list[Candidate]:
        out = super().candidates(case, spec)
        self.seen[spec.name] = out
        return out


def run_cuad(data: Path, store_url: str | None = None, schema_path: Path | None = None,
             only: Sequence[str] | None = None, folds: int | None = None) -> dict[str, Any]:
    """Ingest a CUAD split's PDFs, extract every category, and return the scored JSON.

    `only` restricts the run to some PDF file names (tests); `folds` adds fit beside
    held-out figures over document folds (`evals.cuad_folds`)."""
    from ..cite.verifier import Verifier
    from ..extract.run import run_extraction
    from ..extract.schema import load_schema
    from ..model import Principal
    from ..sources.ingest import Ingestor
    from ..store import open_store

    if folds is not None:  # refused before a run of minutes, not after it
        check_number("--folds", folds, 2, 100, integer=True)
    schema = load_schema(schema_path or default_schema())
    gold = [g for g in load_gold(data) if only is None or g.file in only]
    missing = sorted({field_name(g.category) for g in gold} - {f.name for f in schema.fields})
    if missing:
        raise UsageError(f"the schema has no field for CUAD categories: {', '.join(missing)}")
    by_file: dict[str, list[GoldPair]] = defaultdict(list)
    for g in gold:
        by_file[g.file].append(g)
    pdf_dir = data / "full_contract_pdf"
    pdfs = sorted(p for p in pdf_dir.iterdir() if p.is_file() and p.name in by_file) \
        if pdf_dir.is_dir() else []
    if not pdfs:
        raise UsageError(f"{data} has no contract PDFs for its gold under full_contract_pdf/")
    principal = Principal.parse("eval:evaluator")
    pairs: list[PairResult] = []
    inv = Counter[str]()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            with Ingestor(store, tenant="eval", acl=["*"]) as ing:
                ingested = {p.name: ing.ingest(p.read_bytes(), source_id=p.name, path=str(p),
                                               name=p.name) for p in pdfs}
            t1 = time.perf_counter()
            for name in sorted(set(by_file) - set(ingested)):  # gold without its PDF: a miss
                pairs.extend(_unread(g) for g in by_file[name])
            fresh = Verifier(store, principal)
            for name, res in ingested.items():
                if res.status == IngestStatus.QUARANTINED:
                    pairs.extend(_unread(g) for g in by_file[name])
                    continue
                ext = _RecordingExtractor()
                run = run_extraction(store, principal, schema, [name], extractor=ext,
                                     route=False, persist=False)
                doc = run.case.docs[0]
                folded = run.case.verifier.folded(doc.rev, doc.loaded)
                records = {r.field: r for r in run.records}
                for g in by_file[name]:
                    r = records[field_name(g.category)]
                    inv["records"] += 1
                    verified = bool(r.provenance) and all(c.quote_verified for c in r.provenance)
                    if r.value is not None and not verified:
                        inv["value_without_verified_provenance"] += 1
                    if r.outcome in ("show", "flag"):
                        for c in r.provenance:
                            inv["show_flag_citations"] += 1
                            inv["show_flag_citations_unverified"] += not fresh.verify(c).quote_verified
                    located = [[_locate(run.case.verifier, name, folded, s) for s in clause]
                               for clause in g.clauses]
                    cands = [(doc.text[x.citations[0].char_start:x.citations[0].char_end],
                              min(1.0, max(0.0, x.score) / SCORE_SCALE),
                              x.citations[0].char_start, x.citations[0].char_end)
                             for x in ext.seen.get(r.field, ())]
                    pairs.append(PairResult(
                        name, g.category, g.has_clause, doc.text, located,
                        [s for clause in g.clauses for s in clause], r.outcome or "review",
                        r.confidence, r.status, r.value is not None, verified or r.value is None,
                        [(c.char_start, c.char_end) for c in r.provenance], cands,
                        r.reason, float(r.thresholds.get("tau_flag", 1.0)),
                        float(r.thresholds.get("tau_show", 1.0))))
            t2 = time.perf_counter()
        finally:
            store.close()
    result = {"dataset": "cuad", **score(pairs)}
    result["invariants"] = {k: inv[k] for k in ("records", "value_without_verified_provenance",
                                                "show_flag_citations",
                                                "show_flag_citations_unverified")}
    result["documents"] = len(pdfs)
    result["quarantined"] = sorted(n for n, r in ingested.items() if r.status == IngestStatus.QUARANTINED)
    result["seconds"] = {"ingest": round(t1 - t0, 2), "extract": round(t2 - t1, 2)}
    result["anchor"] = ANCHOR
    if folds is not None:
        from .cuad_folds import fold_figures, per_document, refit_tau_show

        docs, cats = per_document(pairs, lambda ps: _figures(ps)["counts"])
        result["folds"] = fold_figures(docs, folds, cats)
        result["folds"]["refit_tau_show"] = refit_tau_show(
            pairs, result["folds"]["k"], lambda ps: _figures(ps)["counts"])
    return result


def _locate(verifier: Any, source_id: str, folded: Any, text: str) -> list[Span]:
    """Return every occurrence of a gold segment in the PDF text layer (the first via
    `cite`, which verifies it), or [] when it cannot be located."""
    try:
        first = verifier.cite(source_id, text)
    except QuoteNotFound:
        return []
    spans = [(first.char_start, first.char_end)]
    spans += [s for s in folded.find_all(text, any_case=True) if s != spans[0]]
    return spans


def _unread(g: GoldPair) -> PairResult:
    """A pair of a contract that could not be ingested: a person has to read it."""
    return PairResult(g.file, g.category, g.has_clause, "", [[[] for _ in c] for c in g.clauses],
                      [s for c in g.clauses for s in c], "review")
