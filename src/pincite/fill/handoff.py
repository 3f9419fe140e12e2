"""Unresolved cells handed to the review queue (`--review`), and reviewers' picks taken back
as writes.

Each unresolved cell becomes a field record `cell.<Sheet>!<ref>` of the case
`fill-<target sha256[:16]>` (type number; value: the best candidate's, or none; the
candidates' facts cited; outcome `review`, reason `conflicting` for an ambiguous cell,
else `low_confidence`) and one review item. A later fill of the same target reads the
case's records back: a record a reviewer accepted or corrected becomes a write (`origin`
`review`) citing the universe fact whose span the record's first citation covers (a value
given as the document prints it, `95480` in a table of thousands, is converted to the
cell's unit and scale like any fact), and that write passes `validate_write` like any
other — a reviewer's value the cited fact does not support is rejected.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from ..extract.case import case_guard
from ..model import Principal, timestamp
from ..store import QueueEntry
from ..values import canonical
from .convert import apply, conversion_for

EXTRACTOR = {"name": "pincite.fill", "version": "1", "rules_version": "fill-1"}
REVIEWED = ("accept", "correct")


def case_id_of(target: Mapping[str, Any]) -> str:
    """Return the review case id of a target workbook."""
    return f"fill-{target['sha256'][:16]}"


def field_of(cell_id: str) -> str:
    """Return the record field name of a target cell."""
    return f"cell.{cell_id}"


def review_state(store: Any, principal: Principal, target: Mapping[str, Any]) -> str:
    """Return a digest of the case's reviewed records (a new decision reruns the writes)."""
    recs = [r for r in store.field_records(principal.tenant, case_id_of(target))
            if (r.get("review") or {}).get("decision")]
    return hashlib.sha256(json.dumps(recs, sort_keys=True, default=str).encode()).hexdigest()


def review_writes(store: Any, principal: Principal, target: Mapping[str, Any],
                  program: Mapping[str, Any], universe: Mapping[str, Any],
                  ranking: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the writes reviewers' decisions give for cells still unresolved."""
    case_id = case_id_of(target)
    cells = {c["cell_id"]: c for c in ranking["cells"]}
    out = []
    for u in program["unresolved"]:
        rec = store.field_record(principal.tenant, case_id, field_of(u["cell_id"]))
        rev = (rec or {}).get("review") or {}
        if rev.get("decision") not in REVIEWED or not rec or not rec.get("provenance"):
            continue
        try:
            value = Decimal(str(rec.get("value")))
        except (InvalidOperation, ValueError):
            continue
        p = rec["provenance"][0]
        hits = [f for f in universe["facts"] if f["doc_id"] == p["doc_id"]
                and p["char_start"] <= f["char_start"] and f["char_end"] <= p["char_end"]]
        if not hits:
            continue
        f = hits[0]
        cell = cells.get(u["cell_id"], {})
        conv = conversion_for(f, cell.get("scale"), cell.get("unit"),
                              str(cell.get("number_format") or ""))
        printed, converted = _printed(f), apply(conv, f["normalized_value"])
        if value == printed and converted is not None:
            value = converted  # the reviewer gave the number as the document prints it
        out.append({"cell_id": u["cell_id"], "value": canonical(value),
                    "source_fact_ids": [f["fact_id"]], "conversion": conv,
                    "formula": None, "origin": "review", "reviewer": rev.get("reviewer"),
                    "review_item": rev.get("item_id")})
    return out


def _printed(f: Mapping[str, Any]) -> Decimal | None:
    from ..values import parse_value

    v = parse_value(f["value"], 0, len(f["value"]))
    return v.amount if v is not None and v.amount is not None else None


def _citation(verifier: Any, f: Mapping[str, Any]) -> dict[str, Any] | None:
    from ..cite.verifier import citation_for

    rev = verifier.revision(f["doc_id"])
    loaded = verifier.layer(rev, f["text_layer"]) if rev is not None else None
    if rev is None or loaded is None:
        return None
    return verifier.verify(citation_for(rev, loaded, f["char_start"], f["char_end"])).to_dict()


def queue_unresolved(store: Any, principal: Principal, target: Mapping[str, Any],
                     program: Mapping[str, Any], universe: Mapping[str, Any],
                     run_id: str) -> int:
    """Queue every unresolved cell for review; return how many items the store queued."""
    from ..cite.verifier import Verifier

    if not program["unresolved"]:
        return 0
    v = Verifier(store, principal)
    index = {f["fact_id"]: f for f in universe["facts"]}
    docs = universe["documents"]
    main = docs[0]
    case_id = case_id_of(target)
    extractor = {**EXTRACTOR, "run_id": run_id}
    records, queue = [], []
    for u in program["unresolved"]:
        cands = u["candidates"]
        prov = [c for c in (_citation(v, index[x["fact_id"]]) for x in cands[:2]
                            if x["fact_id"] in index) if c is not None]
        value = float(Decimal(cands[0]["value"])) if cands else None
        field = field_of(u["cell_id"])
        reason = "conflicting" if u["reason"] == "ambiguous" else "low_confidence"
        rec: dict[str, Any] = {"field": field, "type": "number", "value": value,
               "status": "conflicting" if u["reason"] == "ambiguous" else (
                   "present" if cands else "absent"),
               "confidence": 0.0, "provenance": prov, "extractor": extractor,
               "outcome": "review",
               "reason": reason,
               "alternatives": [{"value": c["value"], "fact_id": c["fact_id"],
                                 "row_path": c["row_path"], "column_path": c["column_path"],
                                 "score": c["score"]} for c in cands[:5]],
               "notes": [f"fill: {u['reason']}"]}
        doc = next((d for d in docs if prov and d["doc_id"] == prov[0]["doc_id"]), main)
        source_id, revision_id = doc["doc_id"].rsplit("@", 1)
        records.append(rec)
        queue.append(QueueEntry(case_id=case_id, source_id=source_id, revision_id=revision_id,
                                doc_sha256=doc["sha256"], field=field, reason=reason,
                                candidate=rec, evidence=prov, hard=False, due_at=None,
                                run_id=run_id, extractor_version="1/fill-1", confidence=0.0))
    run = {"run_id": run_id, "case_id": case_id, "schema_name": f"fill:{target['target']}",
           "schema_digest": target["sha256"], "extractor": extractor,
           "docs": [{"doc_id": d["doc_id"], "doc_sha256": d["sha256"]} for d in docs],
           "source_ids": sorted({d["doc_id"].rsplit("@", 1)[0] for d in docs}), "due_at": None,
           "checks": None}
    return int(store.save_extraction(principal.tenant, run, records, queue, timestamp(),
                                     guard=case_guard(store, principal, case_id)))
