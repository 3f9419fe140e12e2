"""The review side of the SQLite store: claims with leases, decisions, labels, incidents
and settings. Mixed into `SQLiteStore`.

Outcomes a caller must handle (a claim that is gone, an item that went stale) come back
as values (`DecideResult.status`), not exceptions: the review stage turns them into
messages.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Collection, Iterable, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ...model import extractor_key, split_doc_id
from ...vocab import ClaimEnd, IncidentKind
from .records_sql import ITEM_COLUMNS, SQL_ITEM, SQL_REPLACE_RECORD
from .records_store import item_from_row, record_row
from .review_sql import (
    LABEL_COLUMNS,
    SQL_ALL_CLAIMS,
    SQL_ALL_FIELD_RECORDS,
    SQL_CALIBRATION_LABELS,
    SQL_CLAIM,
    SQL_CLAIMS_OF_ITEM,
    SQL_CLEAR_INCIDENT,
    SQL_DECIDE,
    SQL_END_CLAIM,
    SQL_EXPIRE_CLAIMS,
    SQL_FIELD_CONFIDENCES,
    SQL_INCIDENT_DETAIL,
    SQL_INCIDENTS,
    SQL_INSERT_CLAIM,
    SQL_INSERT_INCIDENT,
    SQL_INSERT_LABEL,
    SQL_LABEL,
    SQL_LABEL_INCIDENT,
    SQL_LABELS,
    SQL_NEXT_CLAIMABLE,
    SQL_OPEN_INCIDENT,
    SQL_OWN_LIVE_CLAIM,
    SQL_PURGE_CLAIMS_OF_SOURCE,
    SQL_PURGE_LABELS_OF_SOURCE,
    SQL_QUEUE_DEPTH,
    SQL_RECENT_LABELS_OF_REVIEWER,
    SQL_RELEASE,
    SQL_RENEW,
    SQL_RENEW_CLAIM_ROW,
    SQL_RUN_DOCS,
    SQL_RUN_SPAN,
    SQL_SET_SETTING,
    SQL_SETTINGS,
    SQL_VISIBLE_ITEMS,
)

_ITEM_COLS_Q = ", ".join("q." + c for c in ITEM_COLUMNS)


@dataclass(frozen=True, slots=True)
class StampRule:
    """A rubber stamp: `run` accepts in a row by one reviewer, each under `seconds`."""

    run: int = 5
    seconds: float = 10.0


@dataclass(frozen=True, slots=True)
class DecideResult:
    """What a decision did: `status` is `ok`, `not_found`, `stale`, `decided`,
    `not_claimed` (someone else holds it, or nobody) or `lease_expired`."""

    status: str
    item: dict[str, Any] | None = None
    label: dict[str, Any] | None = None
    incident_id: int | None = None


@dataclass(frozen=True, slots=True)
class LabelRow:
    """A labelled example to store directly (imported or synthetic decisions)."""

    field: str
    extractor_version: str
    confidence: float | None
    accepted: bool
    decision: str = "accept"
    reviewer: str = "import"
    decided_at: str = ""
    case_id: str = ""
    source_id: str = ""
    doc_sha256: str = ""
    reason: str = "sample_audit"
    hard: bool = False
    seconds: float | None = None
    not_stated: bool = False
    candidate: Any = None
    corrected: Any = None


def readable_span(rows: Iterable[Sequence[Any]], visible: Collection[str]
                  ) -> tuple[str | None, str | None, int]:
    """Return (first, last, count) of the runs among `rows` ((created_at, docs JSON)) whose
    every document is of a `visible` source (a purged one's tombstone names none); a run
    with no such document counts for no one."""
    seen = set(visible)
    times = []
    for at, docs in rows:
        ids = [split_doc_id(str(d["doc_id"]))[0] for d in json.loads(docs) if d.get("doc_id")]
        if ids and all(i in seen for i in ids):
            times.append(at)
    return (min(times), max(times), len(times)) if times else (None, None, 0)


def seconds_between(a: str | None, b: str | None) -> float | None:
    """Return b - a in seconds for two ISO times, or None."""
    if not a or not b:
        return None
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def _label(row: Sequence[Any]) -> dict[str, Any]:
    d = dict(zip(LABEL_COLUMNS, row, strict=True))
    for k in ("candidate", "corrected"):
        if d[k] is not None:
            d[k] = json.loads(d[k])
    d["hard"], d["accepted"], d["not_stated"] = bool(d["hard"]), bool(d["accepted"]), bool(d["not_stated"])
    return d


class ReviewTables:
    """Claims, decisions, labels, incidents, settings (needs `conn`, `write`)."""

    @property
    def conn(self) -> sqlite3.Connection:  # provided by SQLiteStore
        raise NotImplementedError

    def write(self) -> AbstractContextManager[sqlite3.Connection]: ...  # type: ignore[empty-body]

    # ---- claims ------------------------------------------------------------------------

    def claim_review_item(self, tenant: str, reviewer: str, visible: Iterable[str], *, now: str,
                          lease_until: str, field: str | None = None,
                          case_ok: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
        """Claim the next item for `reviewer` until `lease_until`, or None when none is free.

        A reviewer's own live claim comes back first (its lease renewed); otherwise the
        first open item in queue order that is unclaimed or whose lease ran out, among the
        items whose sources are all in `visible` and whose case `case_ok` accepts (asked
        inside the transaction). One IMMEDIATE transaction: two claimers can never both
        win the same item.
        """
        closed: list[str] = []
        p = {"tenant": tenant, "reviewer": reviewer, "now": now, "lease": lease_until,
             "visible": json.dumps(sorted(set(visible))), "field": field, "closed": "[]"}
        with self.write() as c:
            row = c.execute(SQL_OWN_LIVE_CLAIM, p).fetchone()
            if row is not None and (case_ok is None or case_ok(row[1])):
                p["id"] = row[0]
                c.execute(SQL_RENEW, p)
                c.execute(SQL_RENEW_CLAIM_ROW, p)
            else:
                while True:
                    row = c.execute(SQL_NEXT_CLAIMABLE, p).fetchone()
                    if row is None:
                        return None
                    if case_ok is None or case_ok(row[1]):
                        break
                    closed.append(row[1])
                    p["closed"] = json.dumps(closed)
                p["id"] = row[0]
                if c.execute(SQL_CLAIM, p).rowcount != 1:  # impossible under BEGIN IMMEDIATE
                    return None
                c.execute(SQL_EXPIRE_CLAIMS, p)
                c.execute(SQL_INSERT_CLAIM, p)
            got = c.execute(SQL_ITEM, (tenant, p["id"])).fetchone()
        return item_from_row(got)

    def release_review_item(self, tenant: str, item_id: int, reviewer: str, now: str) -> bool:
        """Give a claimed item back to the queue; False when `reviewer` holds no live claim."""
        p = {"tenant": tenant, "id": item_id, "reviewer": reviewer, "now": now, "ended": ClaimEnd.RELEASED}
        with self.write() as c:
            if c.execute(SQL_RELEASE, p).rowcount != 1:
                return False
            c.execute(SQL_END_CLAIM, p)
        return True

    def review_claims(self, tenant: str, item_id: int | None = None) -> list[dict[str, Any]]:
        """Return the claim history of one item (or of every item), oldest first."""
        if item_id is not None:
            rows = self.conn.execute(SQL_CLAIMS_OF_ITEM, (tenant, item_id)).fetchall()
            return [{"item_id": item_id, "reviewer": r[0], "claimed_at": r[1], "lease_until": r[2],
                     "ended": r[3], "ended_at": r[4]} for r in rows]
        return [{"item_id": r[0], "reviewer": r[1], "claimed_at": r[2], "lease_until": r[3],
                 "ended": r[4], "ended_at": r[5]} for r in self.conn.execute(SQL_ALL_CLAIMS, (tenant,))]

    def visible_review_items(self, tenant: str, visible: Iterable[str]) -> list[dict[str, Any]]:
        """Return the items whose sources are all in `visible`: open first, in queue order."""
        sql = SQL_VISIBLE_ITEMS.format(cols=_ITEM_COLS_Q)
        p = {"tenant": tenant, "visible": json.dumps(sorted(set(visible)))}
        return [item_from_row(r) for r in self.conn.execute(sql, p)]

    # ---- decisions ---------------------------------------------------------------------

    def decide_review_item(self, tenant: str, item_id: int, reviewer: str, *, decision: str,
                           corrected: Any, not_stated: bool, record: dict[str, Any] | None,
                           now: str, stamp: StampRule) -> DecideResult:
        """Record a decision in one transaction: close the item (only for the reviewer
        holding a live lease), end the claim, store the labelled example, raise or extend a
        rubber-stamp incident, and replace the field record with `record` (when given)."""
        p = {"tenant": tenant, "id": item_id, "reviewer": reviewer, "now": now,
             "decision": decision, "ended": ClaimEnd.DECIDED,
             "corrected": None if corrected is None else json.dumps(corrected, ensure_ascii=False)}
        with self.write() as c:
            row = c.execute(SQL_ITEM, (tenant, item_id)).fetchone()
            if row is None:
                return DecideResult("not_found")
            item = item_from_row(row)
            if item["state"] != "open":
                return DecideResult(item["state"], item)
            if item["claimed_by"] != reviewer:
                return DecideResult("not_claimed", item)
            if (item["lease_until"] or "") <= now:
                return DecideResult("lease_expired", item)
            if c.execute(SQL_DECIDE, p).rowcount != 1:
                return DecideResult("not_claimed", item)
            c.execute(SQL_END_CLAIM, p)
            cand = item["candidate"]
            label = (tenant, item_id, item["case_id"], item["source_id"], item["doc_sha256"],
                     item["field"], item["extractor_version"], item["reason"], int(item["hard"]),
                     item["confidence"], decision, int(decision == "accept"), int(not_stated),
                     json.dumps(cand.get("value"), ensure_ascii=False), p["corrected"], reviewer,
                     item["claimed_at"], now, seconds_between(item["claimed_at"], now), None)
            label_id = c.execute(SQL_INSERT_LABEL, label).lastrowid
            incident = self._stamp_check(c, tenant, reviewer, now, stamp)
            if record is not None:
                self._upsert_record(c, tenant, item, record, now)
            got = c.execute(SQL_ITEM, (tenant, item_id)).fetchone()
            lrow = c.execute(SQL_LABEL, (tenant, label_id)).fetchone()
        return DecideResult("ok", item_from_row(got), _label(lrow), incident)

    def _upsert_record(self, c: sqlite3.Connection, tenant: str, item: dict[str, Any],
                       record: dict[str, Any], at: str) -> None:
        c.execute(SQL_REPLACE_RECORD, record_row(
            tenant, item["case_id"], record, {item["source_id"]}, at,
            run_id=record["extractor"].get("run_id", item["run_id"]),
            version=(extractor_key(record["extractor"]) if record["extractor"].get("version")
                     else item["extractor_version"]),
            schema_name=record.get("schema_name", "")))

    def _stamp_check(self, c: sqlite3.Connection, tenant: str, reviewer: str, now: str,
                     stamp: StampRule) -> int | None:
        """Open (or extend) a rubber-stamp incident when the reviewer's last `stamp.run`
        decisions are all accepts under `stamp.seconds`; return its id, or None."""
        if stamp.run <= 0:
            return None
        recent = c.execute(SQL_RECENT_LABELS_OF_REVIEWER, (tenant, reviewer, stamp.run)).fetchall()
        if len(recent) < stamp.run or not all(
                r[1] == "accept" and r[2] is not None and r[2] < stamp.seconds for r in recent):
            return None
        incident = None
        for r in recent:
            if r[3] is not None and c.execute(SQL_OPEN_INCIDENT, (r[3],)).fetchone():
                incident = r[3]
                break
        if incident is None:
            detail = {"rule": {"run": stamp.run, "seconds": stamp.seconds},
                      "message": f"{stamp.run} accepts in a row, each under {stamp.seconds:g} s"}
            incident = c.execute(SQL_INSERT_INCIDENT, (
                tenant, IncidentKind.RUBBER_STAMP, reviewer, json.dumps(detail), now)).lastrowid
        for r in recent:
            c.execute(SQL_LABEL_INCIDENT, (incident, r[0]))
        secs = [r[2] for r in recent]
        detail = {"rule": {"run": stamp.run, "seconds": stamp.seconds},
                  "message": f"{stamp.run} accepts in a row, each under {stamp.seconds:g} s",
                  "last_seconds": [round(s, 2) for s in secs]}
        c.execute(SQL_INCIDENT_DETAIL, (json.dumps(detail), incident))
        return int(incident) if incident is not None else None

    # ---- labels, incidents, settings -----------------------------------------------------

    def review_labels(self, tenant: str, *, for_calibration: bool = False) -> list[dict[str, Any]]:
        """Return a tenant's labelled examples (for calibration: none held by an open incident)."""
        sql = SQL_CALIBRATION_LABELS if for_calibration else SQL_LABELS
        return [_label(r) for r in self.conn.execute(sql, (tenant,))]

    def add_review_labels(self, tenant: str, labels: Iterable[LabelRow]) -> int:
        """Store labelled examples that did not come through the queue (imported or synthetic)."""
        n = 0
        with self.write() as c:
            for lb in labels:
                c.execute(SQL_INSERT_LABEL, (
                    tenant, None, lb.case_id, lb.source_id, lb.doc_sha256, lb.field,
                    lb.extractor_version, lb.reason, int(lb.hard), lb.confidence, lb.decision,
                    int(lb.accepted), int(lb.not_stated), json.dumps(lb.candidate),
                    None if lb.corrected is None else json.dumps(lb.corrected), lb.reviewer, None,
                    lb.decided_at, lb.seconds, None))
                n += 1
        return n

    def review_depth(self, now: str) -> dict[str, int]:
        """Return the open review items of every tenant: `waiting` for a reviewer (none
        holds a live lease) and `claimed` (one does), at the time `now`."""
        waiting, claimed = self.conn.execute(SQL_QUEUE_DEPTH, {"now": now}).fetchone()
        return {"waiting": int(waiting), "claimed": int(claimed)}

    def review_incidents(self, tenant: str) -> list[dict[str, Any]]:
        """Return every incident of a tenant, oldest first, with its label count."""
        return [{"id": r[0], "kind": r[1], "reviewer": r[2], "detail": json.loads(r[3]),
                 "opened_at": r[4], "cleared_at": r[5], "cleared_by": r[6], "labels": r[7]}
                for r in self.conn.execute(SQL_INCIDENTS, (tenant,))]

    def clear_review_incident(self, tenant: str, incident_id: int, by: str, at: str) -> bool:
        """Clear an open incident (its labels count for calibration again)."""
        with self.write() as c:
            return c.execute(SQL_CLEAR_INCIDENT, (at, by, tenant, incident_id)).rowcount == 1

    def review_settings(self, tenant: str) -> dict[str, Any]:
        """Return a tenant's stored review settings (JSON values by key)."""
        return {k: json.loads(v) for k, v in self.conn.execute(SQL_SETTINGS, (tenant,))}

    def set_review_settings(self, tenant: str, values: dict[str, Any], at: str) -> None:
        """Store review settings (JSON values by key)."""
        with self.write() as c:
            for k, v in values.items():
                c.execute(SQL_SET_SETTING, (tenant, k, json.dumps(v), at))

    def field_confidences(self, tenant: str) -> list[dict[str, Any]]:
        """Return (field, extractor version, confidence, outcome before review, the source
        ids it rests on) of every stored record that carries a value (present or conflicting)."""
        out = []
        for f, ver, conf, outcome, rec, srcs in self.conn.execute(SQL_FIELD_CONFIDENCES, (tenant,)):
            r = json.loads(rec)
            before = (r.get("review") or {}).get("candidate") or r
            if before.get("status") == "absent" or conf is None:
                continue
            out.append({"field": f, "extractor_version": ver, "confidence": float(conf),
                        "outcome": before.get("outcome", outcome),
                        "source_ids": json.loads(srcs)})
        return out

    def all_field_records(self, tenant: str) -> list[tuple[str, list[str], dict[str, Any]]]:
        """Return (case id, source ids, record) of every stored field record of a tenant."""
        return [(r[0], json.loads(r[1]), json.loads(r[2]))
                for r in self.conn.execute(SQL_ALL_FIELD_RECORDS, (tenant,))]

    def extraction_span(self, tenant: str, visible: Collection[str] | None = None
                        ) -> tuple[str | None, str | None, int]:
        """Return (first, last, count) of a tenant's extraction runs; with `visible` (the
        source ids a principal may read), of the runs over those sources only."""
        if visible is not None:
            return readable_span(self.conn.execute(SQL_RUN_DOCS, (tenant,)).fetchall(), visible)
        row = self.conn.execute(SQL_RUN_SPAN, (tenant,)).fetchone()
        return row[0], row[1], int(row[2])

    def purge_review_of_source(self, tenant: str, source_id: str) -> int:
        """Delete the labels and claims resting on a purged source (before or after its
        queue rows go); return how many rows went."""
        with self.write() as c:
            n = c.execute(SQL_PURGE_CLAIMS_OF_SOURCE, {"tenant": tenant, "source": source_id}).rowcount
            n += c.execute(SQL_PURGE_LABELS_OF_SOURCE, (tenant, source_id)).rowcount
        return n
