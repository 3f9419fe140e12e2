"""The seed's watch list (000 §06), computed without a model, for what a principal may see:

- citation resolution rate — provenance entries of the stored records whose document
  still resolves to the cited bytes (target 100 %; less is a bug in the store);
- quote-verification pass rate before review — over the candidates as extracted;
- abstention rate against how often reviewers say the answer was not in the document;
- per-bin error on the reviewed sample (the pooled calibration curve);
- queue age against the documents' own deadlines;
- time to decision per reviewer, and rubber-stamp incidents.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from datetime import UTC, datetime
from typing import Any

from ..cite.verifier import Verifier
from ..model import Citation, Principal, timestamp, utc_now
from ..store import Store
from ..vocab import UNRESOLVED_REASONS, Outcome, ReviewState, VerifyReason
from .calibration import calibration_report
from .queue import ReviewQueue, visible_source_ids

MAX_CHECKED = 5000


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def _parse(t: str | None) -> datetime | None:
    if not t:
        return None
    d = datetime.fromisoformat(t)
    return d if d.tzinfo else d.replace(tzinfo=UTC)


def _quantile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * (len(xs) - 1) + 0.5))], 2)


def review_metrics(store: Store, principal: Principal, *,
                   now: datetime | None = None) -> dict[str, Any]:
    """Return the metrics page's numbers for a principal (its visible documents only)."""
    now = now or utc_now()
    tenant = principal.tenant
    visible = set(visible_source_ids(store, principal))
    records = [(case, rec) for case, srcs, rec in store.all_field_records(tenant)
               if srcs and set(srcs) <= visible]
    verifier = Verifier(store, principal)
    resolved = checked = 0
    before_ok = before_n = 0
    abstained = 0
    by_field: dict[str, Counter[str]] = defaultdict(Counter)
    for _case, rec in records:
        for p in rec.get("provenance", ())[:MAX_CHECKED]:
            if checked >= MAX_CHECKED:
                break
            checked += 1
            try:
                reason = verifier.check(Citation.from_dict(p))
            except Exception:  # a malformed entry does not resolve
                reason = VerifyReason.UNKNOWN_DOCUMENT
            resolved += reason not in UNRESOLVED_REASONS
        cand = (rec.get("review") or {}).get("candidate") or rec
        for p in cand.get("provenance") or ():
            before_n += 1
            before_ok += bool(p.get("quote_verified"))
        outcome = cand.get("outcome") or rec.get("outcome")
        abstained += outcome == Outcome.ABSTAIN
        by_field[rec["field"]]["records"] += 1
        by_field[rec["field"]]["abstain"] += outcome == Outcome.ABSTAIN

    labels = [lb for lb in store.review_labels(tenant) if lb["source_id"] in visible
              or not lb["source_id"]]
    for lb in labels:
        c = by_field[lb["field"]]
        c["labels"] += 1
        c["accepted"] += lb["accepted"]
        c["not_stated"] += lb["not_stated"]
    per_field = [{"field": f, "records": c["records"],
                  "abstention_rate": _rate(c["abstain"], c["records"]),
                  "labels": c["labels"], "reviewer_accepted": _rate(c["accepted"], c["labels"]),
                  "reviewer_not_stated": _rate(c["not_stated"], c["labels"])}
                 for f, c in sorted(by_field.items())]

    items = ReviewQueue(store, principal, clock=lambda: now).items()
    states = Counter(it["state"] for it in items)
    reasons = Counter(it["reason"] for it in items if it["state"] == ReviewState.OPEN)
    buckets: dict[str, dict[str, Any]] = {k: {"count": 0, "oldest_hours": None} for k in (
        "overdue", "due_within_2_days", "due_within_7_days", "due_later", "no_deadline")}
    ages = []
    for it in items:
        if it["state"] != ReviewState.OPEN:
            continue
        created = _parse(it["created_at"])
        age_h = (now - created).total_seconds() / 3600 if created else 0.0
        due = _parse(it["due_at"])
        if due is None:
            key = "no_deadline"
            left = None
        else:
            left = (due - now).total_seconds() / 86400
            key = ("overdue" if left < 0 else "due_within_2_days" if left <= 2
                   else "due_within_7_days" if left <= 7 else "due_later")
        b = buckets[key]
        b["count"] += 1
        b["oldest_hours"] = round(max(b["oldest_hours"] or 0.0, age_h), 2)
        ages.append({"id": it["id"], "field": it["field"], "hard": it["hard"],
                     "age_hours": round(age_h, 2), "due_at": it["due_at"],
                     "days_left": None if left is None else round(left, 2)})
    ages.sort(key=lambda a: -a["age_hours"])

    per_reviewer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for lb in labels:
        per_reviewer[lb["reviewer"]].append(lb)
    reviewers = []
    for who, lbs in sorted(per_reviewer.items()):
        secs = [lb["seconds"] for lb in lbs if lb["seconds"] is not None]
        reviewers.append({"reviewer": who, "decisions": len(lbs),
                          "accepted": _rate(sum(lb["accepted"] for lb in lbs), len(lbs)),
                          "median_seconds": round(statistics.median(secs), 2) if secs else None,
                          "p90_seconds": _quantile(secs, 0.9)})

    cal = calibration_report(store, tenant, visible=visible)
    return {
        "tenant": tenant, "at": timestamp(now),
        "citation_resolution": {"checked": checked, "resolved": resolved,
                                "rate": _rate(resolved, checked)},
        "quote_verification_before_review": {"entries": before_n, "verified": before_ok,
                                             "rate": _rate(before_ok, before_n)},
        "abstention": {"records": len(records), "abstention_rate": _rate(abstained, len(records)),
                       "labels": len(labels),
                       "reviewer_accepted": _rate(sum(lb["accepted"] for lb in labels), len(labels)),
                       "reviewer_not_stated": _rate(sum(lb["not_stated"] for lb in labels),
                                                    len(labels)),
                       "per_field": per_field},
        "per_bin": [dict(b, error=None if b["fraction_accepted"] is None
                         else round(1 - b["fraction_accepted"], 4)) for b in cal["all"]["bins"]],
        "ece": cal["all"]["ece"],
        "queue": {"states": dict(states), "open_by_reason": dict(reasons), "age_vs_deadline": buckets,
                  "oldest": ages[:10]},
        "reviewers": reviewers,
        "incidents": store.review_incidents(tenant),
        "calibration": cal,
    }
