"""What a reviewer's decision does to the field record (pure functions, no I/O).

| decision | the record becomes                                                     | label     |
|----------|------------------------------------------------------------------------|-----------|
| accept   | the candidate, unchanged; outcome `show`, reason `reviewer_accepted`    | accepted  |
| correct  | the reviewer's value resting on the reviewer's cited passage (outcome   | not       |
|          | `show`, reason `reviewer_corrected`), or — with "not in the document" — |           |
|          | value null, status `absent`, outcome `abstain`, `reviewer_not_stated`   |           |
| reject   | the candidate is wrong and no value is offered: outcome `review`,      | not       |
|          | reason `reviewer_rejected` (never shown as fact)                        |           |
| abstain  | the reviewer agrees the document does not state it: value null, status  | not       |
|          | `absent`, outcome `abstain`, reason `reviewer_not_stated`               |           |

Every reviewed record carries `review`: the item, decision, reviewer, times, and the
candidate as it was extracted (value, status, provenance, outcome, reason), so the
record says both what a person decided and what the extractor had claimed.
"""

from __future__ import annotations

import copy
from typing import Any

from ..vocab import DecisionReason, FieldStatus, Outcome, ReviewDecision


def reviewed_record(base: dict[str, Any], item: dict[str, Any], *, decision: str, reviewer: str,
                    value: Any = None, citation: dict[str, Any] | None = None,
                    not_stated: bool = False, at: str) -> dict[str, Any]:
    """Return the field record after `decision` on `item` (`base`: the stored record, or
    the item's candidate when there is none)."""
    cand = item["candidate"]
    rec = copy.deepcopy(base)
    before = (rec.get("review") or {}).get("candidate")
    rec["review"] = {
        "item_id": item["id"], "decision": decision, "reviewer": reviewer, "decided_at": at,
        "claimed_at": item.get("claimed_at"), "queue_reason": item["reason"],
        "candidate": before or {k: cand.get(k) for k in (
            "value", "status", "provenance", "outcome", "reason", "confidence")},
    }
    if decision == ReviewDecision.ACCEPT:
        rec.update(value=cand.get("value"), status=cand.get("status", FieldStatus.PRESENT.value),
                   provenance=cand.get("provenance", []), outcome=Outcome.SHOW.value,
                   reason=DecisionReason.REVIEWER_ACCEPTED.value)
    elif decision == ReviewDecision.CORRECT and not not_stated:
        entry = dict(citation or {})
        entry["author"] = f"reviewer:{reviewer}"
        rec.update(value=value, status=FieldStatus.PRESENT.value, provenance=[entry],
                   outcome=Outcome.SHOW.value, reason=DecisionReason.REVIEWER_CORRECTED.value,
                   validation_errors=[])
    elif decision in (ReviewDecision.CORRECT, ReviewDecision.ABSTAIN):
        rec.update(value=None, status=FieldStatus.ABSENT.value, provenance=[],
                   outcome=Outcome.ABSTAIN.value, reason=DecisionReason.REVIEWER_NOT_STATED.value,
                   validation_errors=[])
    elif decision == ReviewDecision.REJECT:
        rec.update(outcome=Outcome.REVIEW.value, reason=DecisionReason.REVIEWER_REJECTED.value)
    else:  # pragma: no cover - checked by the caller
        raise ValueError(decision)
    return rec
