"""The fit ranking ("Erario"): the caller's visible calls ranked for one company profile.

A *call* is the group of visible sources under one top-level folder (`es-obras/pliego.pdf`
and `es-obras/anuncio.html` are the call `es-obras`; a source without a folder is a call
of its own). Each call is read with the tender extraction (`extract.run_extraction` over
the tender schema, plus the fit fields below: main CPV code, NUTS region, official URL),
rules only and nothing stored. Every requirement becomes one **score part**:

| part               | the call (a verified citation)        | the profile                 |
|--------------------|---------------------------------------|-----------------------------|
| sector             | main CPV code                         | CPV prefixes                |
| region             | NUTS code of the place of performance | NUTS prefixes               |
| classification     | group, subgroup, category required    | classifications held        |
| turnover           | minimum annual turnover               | annual turnover             |
| similar_contracts  | minimum similar contracts             | similar contracts performed |
| deadline           | submission deadline, in days          | days needed to prepare      |

A part is `met`, `not_met` or `unknown`. It is `unknown` whenever the documents do not
state the requirement, state it in conflicting ways, or state it with a citation that
does not verify or that a person must review first — never `met`. A met part adds its
weight, a part not met subtracts it, an unknown one adds nothing: the score is a signed
sum of points beside its parts, a prioritisation signal — never a probability, never an
eligibility decision.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, date, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from ..extract.records import FieldRecord
from ..extract.run import run_extraction
from ..extract.schema import Schema, schema_from_dict
from ..model import Principal
from ..store import Store
from ..vocab import FieldStatus, Outcome
from .profile import CompanyProfile

LABEL = "prioritisation signal — not an eligibility decision"
SCORE_KIND = "points: met parts add their weight, parts not met subtract it, unknown add 0"
# tender-schema fields the ranking reads; the fit fields below are added to them
TENDER_FIELDS = ("object", "deadline.submission", "economic_solvency.min_annual_turnover",
                 "technical_solvency.min_similar_contracts", "classification")
FIT_FIELDS: list[dict[str, Any]] = [
    {"name": "cpv", "type": "text", "description": "The main CPV code of the call.",
     "synonyms": {"any": ["CPV"]},
     "patterns": [r"\bCPV\b[^0-9\n]{0,40}(?P<value>[0-9]{8}(?:-[0-9])?)"]},
    {"name": "region", "type": "text",
     "description": "The NUTS code of the place of performance.",
     "synonyms": {"any": ["NUTS"]},
     "patterns": [r"\bNUTS\b(?:\s+code)?\W{0,5}(?P<value>[A-Z]{2}[0-9A-Z]{0,3})\b"]},
    {"name": "official_url", "type": "text",
     "description": "The address of the official record of the call.",
     "synonyms": {"es": ["perfil del contratante"], "en": ["official notice"]},
     "patterns": [r"(?P<value>https://[A-Za-z0-9._~:/?#@!$&'*+,;=%-]{8,300}[A-Za-z0-9/])"]},
]
WEIGHTS = {"sector": 1, "region": 1, "classification": 2, "turnover": 2,
           "similar_contracts": 2, "deadline": 2}
_CLASS = re.compile(r"(?:grupo|group)\s+([A-Z])\W+(?:subgrupo|subgroup)\s+([0-9]{1,2})\W+"
                    r"(?:categor[ií]a|category)\s+([1-6])\b", re.IGNORECASE)


class FitStatus(StrEnum):
    """What one score part says: the requirement is met, not met, or not known."""

    MET = "met"
    NOT_MET = "not_met"
    UNKNOWN = "unknown"


def fit_schema(tender_schema: str | Path) -> Schema:
    """Return the schema the ranking reads calls with: the tender schema's `TENDER_FIELDS`
    (their own patterns and synonyms) plus `FIT_FIELDS`."""
    from ..errors import InvalidSchema
    from ..extract.schema import MAX_SCHEMA_BYTES
    from ..limits import read_yaml_file

    p = Path(tender_schema)
    if not p.is_file():
        raise InvalidSchema(f"cannot read the tender schema {str(p)[:200]!r}: not a file; give "
                            "the tender schema (examples/tender/schema.yaml)")
    data = read_yaml_file(p, max_bytes=MAX_SCHEMA_BYTES, refuse=InvalidSchema,
                          what="the tender schema (examples/tender/schema.yaml)")
    if not isinstance(data, dict) or not isinstance(data.get("fields") or [], list):
        raise InvalidSchema(f"{p.name}: a tender schema is a mapping with a list of fields; "
                            "give the tender schema (examples/tender/schema.yaml)")
    fields = {f.get("name"): f for f in data.get("fields") or () if isinstance(f, dict)}
    missing = [n for n in TENDER_FIELDS if n not in fields]
    if missing:
        raise InvalidSchema(f"{p.name}: the fit ranking reads the field {missing[0]!r}, which this "
                            "schema lacks; give the tender schema (examples/tender/schema.yaml)")
    doc = {"name": "tender-fit", "version": 1, "languages": data.get("languages", ["es", "en"]),
           "due_field": "deadline.submission", "defaults": data.get("defaults", {}),
           "fields": [fields[n] for n in TENDER_FIELDS] + FIT_FIELDS}
    return schema_from_dict(doc, where=f"{p.name} (fit fields): ")


def calls_of(source_ids: Sequence[str]) -> dict[str, list[str]]:
    """Return the calls of these source ids: top-level folder -> its source ids, sorted."""
    calls: dict[str, list[str]] = {}
    for sid in sorted(source_ids):
        calls.setdefault(sid.split("/", 1)[0] if "/" in sid else sid, []).append(sid)
    return calls


def _usable(rec: FieldRecord | None) -> tuple[Any, str | None]:
    """Return (value, None) when a record may be compared, else (None, why it is unknown)."""
    if rec is None or rec.status == FieldStatus.ABSENT or rec.value is None:
        return None, "not stated in the documents"
    if rec.status == FieldStatus.CONFLICTING:
        return None, "the documents state conflicting values; a person reads both"
    if not rec.provenance or not all(c.quote_verified for c in rec.provenance):
        return None, "its citation does not verify"
    if rec.outcome not in (Outcome.SHOW, Outcome.FLAG):
        return None, f"the value waits for a person's review ({rec.reason or 'review'})"
    return rec.value, None


def _part(name: str, status: FitStatus, required: Any, held: Any, detail: str,
          rec: FieldRecord | None, profile_key: str) -> dict[str, Any]:
    w = WEIGHTS[name]
    points = w if status == FitStatus.MET else -w if status == FitStatus.NOT_MET else 0
    cites = [c.to_dict() for c in rec.provenance] if rec is not None else []
    return {"part": name, "status": status.value, "points": points, "weight": w,
            "required": required, "held": {"value": held, "from": f"profile: {profile_key}"},
            "detail": detail, "citation": cites[0] if cites else None,
            "citations": cites}


def _prefix_part(name: str, rec: FieldRecord | None, held: Sequence[str], what: str,
                 key: str) -> dict[str, Any]:
    value, why = _usable(rec)
    if why is not None:
        return _part(name, FitStatus.UNKNOWN, None, list(held), f"{what}: {why}", rec, key)
    code = str(value).strip().upper()
    if not held:
        return _part(name, FitStatus.UNKNOWN, code, [], f"the profile lists no {key}", rec, key)
    hit = next((h for h in held if code.startswith(h.upper())), None)
    if hit is not None:
        return _part(name, FitStatus.MET, code, list(held), f"{what} {code} is under {hit}",
                     rec, key)
    return _part(name, FitStatus.NOT_MET, code, list(held),
                 f"{what} {code} is under none of {', '.join(held)}", rec, key)


def _classification(rec: FieldRecord | None, prof: CompanyProfile) -> dict[str, Any]:
    key = "classifications"
    held = [c.model_dump() for c in prof.classifications]
    value, why = _usable(rec)
    if why is not None:
        return _part("classification", FitStatus.UNKNOWN, None, held,
                     f"classification: {why}", rec, key)
    m = _CLASS.search(str(value))
    if m is None:
        return _part("classification", FitStatus.UNKNOWN, str(value), held,
                     "the classification stated has no group, subgroup and category to compare",
                     rec, key)
    g, sub, cat = m.group(1).upper(), int(m.group(2)), int(m.group(3))
    req = {"group": g, "subgroup": sub, "category": cat}
    same = [c for c in prof.classifications if c.group == g and c.subgroup == sub]
    if any(c.category >= cat for c in same):
        return _part("classification", FitStatus.MET, req, held,
                     f"group {g} subgroup {sub} held at category {max(c.category for c in same)}"
                     f" (required {cat})", rec, key)
    detail = (f"group {g} subgroup {sub} held only at category "
              f"{max(c.category for c in same)} (required {cat})" if same
              else f"group {g} subgroup {sub} is not held")
    return _part("classification", FitStatus.NOT_MET, req, held, detail, rec, key)


def _turnover(rec: FieldRecord | None, prof: CompanyProfile) -> dict[str, Any]:
    held = prof.turnover.model_dump() if prof.turnover else None
    value, why = _usable(rec)
    if why is not None:
        return _part("turnover", FitStatus.UNKNOWN, None, held, f"minimum turnover: {why}",
                     rec, "turnover")
    req = {"amount": value.get("amount"), "currency": value.get("currency")}
    if prof.turnover is None:
        return _part("turnover", FitStatus.UNKNOWN, req, None, "the profile states no turnover",
                     rec, "turnover")
    if req["currency"] != prof.turnover.currency:
        return _part("turnover", FitStatus.UNKNOWN, req, held,
                     f"required in {req['currency']}, held in {prof.turnover.currency}: not "
                     "converted", rec, "turnover")
    ok = prof.turnover.amount >= float(req["amount"])
    return _part("turnover", FitStatus.MET if ok else FitStatus.NOT_MET, req, held,
                 f"{prof.turnover.amount:,.0f} held vs {float(req['amount']):,.0f} required "
                 f"{req['currency']}", rec, "turnover")


def _similar(rec: FieldRecord | None, prof: CompanyProfile) -> dict[str, Any]:
    key = "similar_contracts"
    value, why = _usable(rec)
    if why is not None:
        return _part(key, FitStatus.UNKNOWN, None, prof.similar_contracts,
                     f"similar contracts required: {why}", rec, key)
    if prof.similar_contracts is None:
        return _part(key, FitStatus.UNKNOWN, value, None,
                     "the profile states no similar contracts", rec, key)
    ok = prof.similar_contracts >= int(value)
    return _part(key, FitStatus.MET if ok else FitStatus.NOT_MET, value, prof.similar_contracts,
                 f"{prof.similar_contracts} performed vs {int(value)} required", rec, key)


def _deadline(rec: FieldRecord | None, prof: CompanyProfile, today: date) -> dict[str, Any]:
    key = "min_days_to_prepare"
    value, why = _usable(rec)
    if why is None and not (isinstance(value, dict) and value.get("date")):
        why = "the deadline has no date"
    if why is not None:
        return _part("deadline", FitStatus.UNKNOWN, None, prof.min_days_to_prepare,
                     f"submission deadline: {why}", rec, key)
    due = date.fromisoformat(value["date"])
    days = (due - today).days
    req = {"date": value["date"], "time": value.get("time"), "days_left": days}
    if days < 0:
        status, detail = FitStatus.NOT_MET, f"closed {-days} days before {today.isoformat()}"
    elif days < prof.min_days_to_prepare:
        status, detail = FitStatus.NOT_MET, (f"{days} days left; the profile needs "
                                             f"{prof.min_days_to_prepare}")
    else:
        status, detail = FitStatus.MET, (f"{days} days left (the profile needs "
                                         f"{prof.min_days_to_prepare})")
    return _part("deadline", status, req, prof.min_days_to_prepare, detail, rec, key)


def fit_call(records: Sequence[FieldRecord], prof: CompanyProfile, today: date
             ) -> list[dict[str, Any]]:
    """Return the score parts of one call's decided records against a profile."""
    by = {r.field: r for r in records}
    return [_prefix_part("sector", by.get("cpv"), prof.sector_codes, "main CPV code",
                         "sector_codes"),
            _prefix_part("region", by.get("region"), prof.regions, "NUTS code", "regions"),
            _classification(by.get("classification"), prof),
            _turnover(by.get("economic_solvency.min_annual_turnover"), prof),
            _similar(by.get("technical_solvency.min_similar_contracts"), prof),
            _deadline(by.get("deadline.submission"), prof, today)]


def _official_record(records: Sequence[FieldRecord], doc_ids: Sequence[str]) -> dict[str, Any]:
    by = {r.field: r for r in records}
    value, why = _usable(by.get("official_url"))
    rec = by.get("official_url")
    if why is None and rec is not None:
        return {"url": str(value), "doc_id": doc_ids[0], "citation": rec.provenance[0].to_dict()}
    return {"url": None, "doc_id": doc_ids[0], "citation": None}


def rank_calls(store: Store, principal: Principal, prof: CompanyProfile, schema: Schema, *,
               source_ids: Sequence[str], today: date | None = None) -> dict[str, Any]:
    """Return the ranking of the calls among `source_ids` (all visible to `principal`, the
    caller checks) for `prof`: each with its score, parts, official record and the label."""
    today = today or prof.as_of or datetime.now(UTC).date()
    results = []
    for call, sids in calls_of(source_ids).items():
        run = run_extraction(store, principal, schema, sids, case_id=f"fit:{call}",
                             route=False, persist=False)
        parts = fit_call(run.records, prof, today)
        counts = {s.value: sum(1 for p in parts if p["status"] == s) for s in FitStatus}
        title, _ = _usable(next((r for r in run.records if r.field == "object"), None))
        results.append({
            "call": call, "title": title, "documents": [d.doc_id for d in run.case.docs],
            "official_record": _official_record(run.records, [d.doc_id for d in run.case.docs]),
            "score": sum(p["points"] for p in parts),
            "max_score": sum(WEIGHTS.values()), "score_kind": SCORE_KIND,
            "counts": counts, "parts": parts, "label": LABEL})
    results.sort(key=lambda r: (-r["score"], -r["counts"]["met"], r["call"]))
    for i, r in enumerate(results, 1):
        r["rank"] = i
    return {"schema_name": "pincite.fit-ranking", "version": 1, "profile": prof.name,
            "as_of": today.isoformat(), "label": LABEL, "weights": dict(WEIGHTS),
            "results": results}
