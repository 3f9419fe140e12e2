"""Calibration: reviewer decisions turned into measured error rates and thresholds.

A self-reported confidence becomes a probability only through this curve (seed 000 §03,
§05). For each field and extractor version, and each confidence bin (the seed's: < 0.60,
0.60–0.75, 0.75–0.85, 0.85–0.95, ≥ 0.95), the curve holds the fraction of reviewed
candidates accepted unchanged, with counts and a Wilson 95 % interval; the expected
calibration error (ECE) sums the gaps between accepted fraction and mean confidence,
weighted by the bin's share of labels.

The threshold chooser prints the seed's trade-off table from real decisions: for each
candidate tau (the bins' lower edges), showing everything at or above tau and reviewing
the rest, the fields shown per day, items reviewed per day, reviewer hours at 90 s per
item, and the errors shown as fact per day. Volumes come from the stored field records
(per bin, over the span of the extraction runs); a bin's error rate is measured from its
labels, or — where a bin has none — assumed from honest calibration (1 − bin midpoint)
and marked `assumed`. The arithmetic is exact (fractions), so the seed's worked example
comes out to the digit.

`decide` uses calibrated thresholds for a (field, extractor version) once it has at least
`MIN_LABELS` labels (none held by an open rubber-stamp incident): tau_show is the lowest
bin edge such that every labelled bin from there up errs at most `MAX_SHOW_ERROR`
(`MAX_SHOW_ERROR_HARD` for a disqualifying field), tau_flag likewise with the flag limits.
With fewer labels the schema's own thresholds apply (source `schema`).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from ..extract.run import Thresholds, schema_thresholds
from ..extract.schema import FieldSpec, Schema
from ..store import Store

EDGES: tuple[float, ...] = (0.0, 0.60, 0.75, 0.85, 0.95, 1.0)
MIN_LABELS = 30
SECONDS_PER_ITEM = 90.0
MAX_SHOW_ERROR = 0.05
MAX_SHOW_ERROR_HARD = 0.02
MAX_FLAG_ERROR = 0.20
MAX_FLAG_ERROR_HARD = 0.10
NEVER = 1.01  # a threshold no confidence reaches: everything goes to review
Z95 = 1.959963984540054


def _frac(x: float | int | Fraction) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(str(x))


def bin_index(confidence: float, edges: Sequence[float] = EDGES) -> int:
    """Return the bin of a confidence: [edges[i], edges[i+1]), the last one closed."""
    for i in range(len(edges) - 2, -1, -1):
        if confidence >= edges[i]:
            return i
    return 0


def bin_name(i: int, edges: Sequence[float] = EDGES) -> str:
    """Return a bin's name as the seed writes it (`≥ 0.95`, `0.85–0.95`, `< 0.60`)."""
    lo, hi = edges[i], edges[i + 1]
    if i == len(edges) - 2:
        return f"≥ {lo:.2f}"
    if i == 0:
        return f"< {hi:.2f}"
    return f"{lo:.2f}–{hi:.2f}"


def wilson(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Return the Wilson score interval of k successes in n trials, or None for n = 0."""
    if n == 0:
        return None
    p = k / n
    den = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True, slots=True)
class BinStat:
    """One bin of the reliability curve."""

    lo: float
    hi: float
    name: str
    n: int
    accepted: int
    mean_confidence: float | None

    @property
    def fraction(self) -> float | None:
        return self.accepted / self.n if self.n else None

    @property
    def error(self) -> Fraction | None:
        return Fraction(self.n - self.accepted, self.n) if self.n else None

    def to_dict(self) -> dict[str, Any]:
        w = wilson(self.accepted, self.n)
        return {"bin": self.name, "lo": self.lo, "hi": self.hi, "n": self.n,
                "accepted": self.accepted,
                "fraction_accepted": None if self.fraction is None else round(self.fraction, 4),
                "wilson_low": None if w is None else round(w[0], 4),
                "wilson_high": None if w is None else round(w[1], 4),
                "mean_confidence": (None if self.mean_confidence is None
                                    else round(self.mean_confidence, 4))}


def reliability(points: Iterable[tuple[float, bool]], edges: Sequence[float] = EDGES) -> list[BinStat]:
    """Return the reliability curve of (confidence, accepted unchanged) points."""
    n = [0] * (len(edges) - 1)
    k = [0] * (len(edges) - 1)
    s = [0.0] * (len(edges) - 1)
    for conf, ok in points:
        i = bin_index(conf, edges)
        n[i] += 1
        k[i] += int(bool(ok))
        s[i] += conf
    return [BinStat(edges[i], edges[i + 1], bin_name(i, edges), n[i], k[i],
                    s[i] / n[i] if n[i] else None) for i in range(len(n))]


def ece(bins: Sequence[BinStat]) -> float | None:
    """Return the expected calibration error: sum of |accepted − mean confidence| per bin,
    weighted by the bin's share of labels; None without labels."""
    total = sum(b.n for b in bins)
    if not total:
        return None
    return sum(b.n / total * abs(b.accepted / b.n - (b.mean_confidence or 0.0))
               for b in bins if b.n)


@dataclass(frozen=True, slots=True)
class ThresholdRow:
    """One candidate tau: show everything at or above it, review the rest."""

    tau: float
    shown_per_day: Fraction
    reviewed_per_day: Fraction
    reviewer_hours_per_day: Fraction
    errors_shown_per_day: Fraction

    def to_dict(self) -> dict[str, Any]:
        return {"tau": self.tau, "shown_per_day": _num(self.shown_per_day),
                "reviewed_per_day": _num(self.reviewed_per_day),
                "reviewer_hours_per_day": _num(self.reviewer_hours_per_day),
                "errors_shown_per_day": _num(self.errors_shown_per_day)}


def _num(x: Fraction) -> float:
    return float(round(x, 4))


def midpoint_errors(edges: Sequence[float] = EDGES) -> list[Fraction]:
    """Return 1 − bin midpoint per bin: the error rate if calibration is honest."""
    return [1 - (_frac(edges[i]) + _frac(edges[i + 1])) / 2 for i in range(len(edges) - 1)]


def threshold_table(fields_per_day: float | Fraction, shares: Sequence[float | Fraction],
                    errors: Sequence[float | Fraction], *, edges: Sequence[float] = EDGES,
                    taus: Sequence[float] | None = None,
                    seconds_per_item: float = SECONDS_PER_ITEM) -> list[ThresholdRow]:
    """Return the trade-off table: per tau, fields shown, items reviewed, reviewer hours
    and errors shown as fact, per day. `shares[i]` is bin i's share of the fields,
    `errors[i]` its error rate; taus default to the bins' lower edges, highest first."""
    total = _frac(fields_per_day)
    vol = [total * _frac(s) for s in shares]
    err = [_frac(e) for e in errors]
    spi = _frac(seconds_per_item)
    rows = []
    for tau in (taus if taus is not None else sorted(edges[:-1], reverse=True)):
        shown_bins = [i for i in range(len(vol)) if edges[i] >= tau]
        shown = sum((vol[i] for i in shown_bins), Fraction(0))
        errs = sum((vol[i] * err[i] for i in shown_bins), Fraction(0))
        reviewed = sum(vol) - shown
        rows.append(ThresholdRow(float(tau), shown, reviewed, reviewed * spi / 3600, errs))
    return rows


SEED_FIELDS_PER_DAY = 3600  # 18 conditions × 200 documents a day
SEED_SHARES = ("0.06", "0.07", "0.12", "0.20", "0.55")  # < 0.60 … ≥ 0.95


def seed_worked_example() -> list[ThresholdRow]:
    """Return the seed's worked example (000 §05): 3,600 fields/day, 55/20/12/7/6 % across
    the bins from ≥ 0.95 down, error = 1 − bin midpoint, 90 s per reviewed item."""
    return threshold_table(SEED_FIELDS_PER_DAY, [Fraction(s) for s in SEED_SHARES],
                           midpoint_errors())


def format_table(rows: Sequence[ThresholdRow]) -> str:
    """Return the trade-off table as aligned text (the seed's layout)."""
    out = [f"{'tau':>12} {'shown/day':>10} {'reviewed/day':>13} {'reviewer h/day':>15} "
           f"{'errors shown/day':>17}"]
    for r in rows:
        tau = "0 (show all)" if r.tau == 0 else f"{r.tau:.2f}"
        out.append(f"{tau:>12} {_count(r.shown_per_day):>10} {_count(r.reviewed_per_day):>13} "
                   f"{_rate(r.reviewer_hours_per_day):>15} {_rate(r.errors_shown_per_day):>17}")
    return "\n".join(out)


def _count(x: Fraction) -> str:
    return f"{float(x):,.0f}" if x.denominator == 1 else f"{float(round(x, 1)):,.1f}"


def _rate(x: Fraction) -> str:
    return "0" if x == 0 else f"{float(round(x, 1)):,.1f}"


def choose_thresholds(bins: Sequence[BinStat], *, hard: bool) -> tuple[float, float]:
    """Return (tau_show, tau_flag) from measured per-bin error: the lowest bin edge such
    that every labelled bin from there up errs at most the limit (see the module doc).
    Bins without labels are passed over, never chosen; a bin over the limit stops the
    descent. No qualifying edge gives NEVER."""
    def lowest(limit: float) -> float:
        tau = NEVER
        for b in sorted(bins, key=lambda x: -x.lo):
            if b.n == 0:
                continue
            err = b.error
            if err is None or err > _frac(limit):
                break
            tau = b.lo
        return tau

    tau_show = lowest(MAX_SHOW_ERROR_HARD if hard else MAX_SHOW_ERROR)
    tau_flag = min(lowest(MAX_FLAG_ERROR_HARD if hard else MAX_FLAG_ERROR), tau_show)
    return tau_show, tau_flag


# ---- from the store ------------------------------------------------------------------------


def _days(first: str | None, last: str | None) -> float:
    if not first or not last:
        return 1.0
    span = (datetime.fromisoformat(last) - datetime.fromisoformat(first)).total_seconds()
    return max(1.0, span / 86400.0)


def calibration_report(store: Store, tenant: str, *, field: str | None = None,
                       edges: Sequence[float] = EDGES,
                       seconds_per_item: float = SECONDS_PER_ITEM,
                       visible: Collection[str] | None = None) -> dict[str, Any]:
    """Return the calibration of every (field, extractor version) of a tenant: the curve,
    ECE, the labels left out by open incidents, the threshold table and, from
    MIN_LABELS labels on, the calibrated thresholds; plus the curve of all fields pooled.

    With `visible` (the source ids a principal may read), only labels, records and runs
    that rest on those sources count (labels imported without a source count for
    everyone); the runs and days are those of the readable runs."""
    labels = store.review_labels(tenant, for_calibration=True)
    all_labels = store.review_labels(tenant)
    conf = store.field_confidences(tenant)
    if visible is not None:
        seen = set(visible)
        labels = [lb for lb in labels if not lb["source_id"] or lb["source_id"] in seen]
        all_labels = [lb for lb in all_labels if not lb["source_id"] or lb["source_id"] in seen]
        conf = [c for c in conf if c["source_ids"] and set(c["source_ids"]) <= seen]
    first, last, runs = store.extraction_span(tenant, visible)
    days = Fraction(str(_days(first, last)))
    keys: set[tuple[str, str]] = {(lb["field"], lb["extractor_version"]) for lb in all_labels}
    keys |= {(c["field"], c["extractor_version"]) for c in conf}
    by_key: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for lb in labels:
        by_key[(lb["field"], lb["extractor_version"])].append(lb)
    excluded: dict[tuple[str, str], int] = defaultdict(int)
    kept = {lb["id"] for lb in labels}
    for lb in all_labels:
        if lb["id"] not in kept:
            excluded[(lb["field"], lb["extractor_version"])] += 1
    vol: dict[tuple[str, str], list[float]] = defaultdict(list)
    for c in conf:
        vol[(c["field"], c["extractor_version"])].append(c["confidence"])
    fields = []
    for key in sorted(keys):
        if field is not None and key[0] != field:
            continue
        fields.append(_field_report(key, by_key.get(key, []), excluded.get(key, 0),
                                    vol.get(key, []), days, edges, seconds_per_item))
    pooled = reliability(((lb["confidence"] or 0.0, lb["accepted"]) for lb in labels
                          if field is None or lb["field"] == field), edges)
    return {"tenant": tenant, "min_labels": MIN_LABELS, "seconds_per_item": seconds_per_item,
            "runs": runs, "days": float(days), "fields": fields,
            "all": {"bins": [b.to_dict() for b in pooled], "ece": _round(ece(pooled)),
                    "labels": sum(b.n for b in pooled)}}


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


def _field_report(key: tuple[str, str], labels: list[dict[str, Any]], excluded: int,
                  confidences: list[float], days: Fraction, edges: Sequence[float],
                  seconds_per_item: float) -> dict[str, Any]:
    bins = reliability(((lb["confidence"] or 0.0, lb["accepted"]) for lb in labels), edges)
    hard = any(lb["hard"] for lb in labels)
    counts = [0] * (len(edges) - 1)
    for c in confidences:
        counts[bin_index(c, edges)] += 1
    total = sum(counts)
    assumed = midpoint_errors(edges)
    errors = [b.error if b.error is not None else assumed[i] for i, b in enumerate(bins)]
    shares = [Fraction(n, total) if total else Fraction(0) for n in counts]
    table = threshold_table(Fraction(total) / days, shares, errors, edges=edges,
                            seconds_per_item=seconds_per_item)
    rows = []
    for i, b in enumerate(bins):
        d = b.to_dict()
        d.update(records=counts[i], per_day=_num(Fraction(counts[i]) / days),
                 error=_num(errors[i]), error_source="measured" if b.n else "assumed")
        rows.append(d)
    n = sum(b.n for b in bins)
    out: dict[str, Any] = {
        "field": key[0], "extractor_version": key[1], "hard": hard, "labels": n,
        "excluded_by_incidents": excluded, "records": total,
        "fields_per_day": _num(Fraction(total) / days), "bins": rows, "ece": _round(ece(bins)),
        "calibrated": n >= MIN_LABELS, "thresholds": None,
        "table": [r.to_dict() for r in table],
    }
    if n >= MIN_LABELS:
        ts, tf = choose_thresholds(bins, hard=hard)
        out["thresholds"] = {"tau_show": ts, "tau_flag": tf, "source": "calibrated"}
    return out


def calibrated_thresholds(store: Store, tenant: str, schema: Schema) -> Thresholds:
    """Return the thresholds provider for a tenant's schema: calibrated per field and
    extractor version once there are MIN_LABELS labels, else the schema's own."""
    groups: dict[tuple[str, str], list[tuple[float, bool]]] = defaultdict(list)
    for lb in store.review_labels(tenant, for_calibration=True):
        groups[(lb["field"], lb["extractor_version"])].append((lb["confidence"] or 0.0,
                                                               lb["accepted"]))
    chosen: dict[tuple[str, str], tuple[float, float]] = {}
    hard = {f.name: f.hard for f in schema.fields}
    for key, pts in groups.items():
        if len(pts) >= MIN_LABELS and key[0] in hard:
            chosen[key] = choose_thresholds(reliability(pts), hard=hard[key[0]])

    def thresholds(spec: FieldSpec, version: str) -> tuple[float, float, str]:
        got = chosen.get((spec.name, version))
        if got is None:
            return schema_thresholds(spec, version)
        return got[0], got[1], "calibrated"

    return thresholds
