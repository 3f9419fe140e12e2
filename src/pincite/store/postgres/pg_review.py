"""PgReviewTables: claims with leases, decisions, labels, incidents and settings on
PostgreSQL (the SQLite backend's `ReviewTables`, with many claimers at once).

A claim is `SELECT … FOR UPDATE SKIP LOCKED` on the queue in its order, then the
compare-and-set UPDATE (open, and unclaimed or its lease run out): two claimers never
hold one item, and none waits for another. A decision locks its item and is a
compare-and-set on the claim (the deciding reviewer, a live lease). Outcomes a caller
must handle come back as values (`DecideResult.status`), as in SQLite.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable
from contextlib import AbstractContextManager
from typing import Any

from ...model import extractor_key
from ...vocab import ClaimEnd, IncidentKind
from ..sqlite.records_store import item_from_row, record_row
from ..sqlite.review_store import (
    DecideResult,
    LabelRow,
    StampRule,
    _label,
    readable_span,
    seconds_between,
)
from .pg_connection import ALL_TENANTS
from .pg_records import real, record_values
from .pg_records_sql import ITEM_COLS, SQL_ITEM_FOR_UPDATE, SQL_REPLACE_RECORD
from .pg_review_sql import (
    SQL_ALL_CLAIMS,
    SQL_ALL_FIELD_RECORDS,
    SQL_CALIBRATION_LABELS,
    SQL_CLAIM,
    SQL_CLAIMS_OF_ITEM,
    SQL_CLEAR_INCIDENT,
    SQL_DECIDE,
    SQL_END_CLAIM,
    SQL_FIELD_CONFIDENCES,
    SQL_INCIDENT_DETAIL,
    SQL_INCIDENTS,
    SQL_INSERT_INCIDENT,
    SQL_INSERT_LABEL,
    SQL_INSERT_LABEL_RETURNING,
    SQL_LABEL,
    SQL_LABEL_INCIDENT,
    SQL_LABELS,
    SQL_LOCK_REVIEWER,
    SQL_NEXT_CLAIMABLE,
    SQL_OPEN_INCIDENT,
    SQL_OWN_LIVE_CLAIM,
    SQL_PURGE_CLAIMS_OF_SOURCE,
    SQL_PURGE_LABELS_OF_SOURCE,
    SQL_QUEUE_DEPTH,
    SQL_RECENT_LABELS_OF_REVIEWER,
    SQL_RECORD_CLAIM,
    SQL_RELEASE,
    SQL_RENEW,
    SQL_RENEW_CLAIM_ROW,
    SQL_RUN_DOCS,
    SQL_RUN_SPAN,
    SQL_SET_SETTING,
    SQL_SETTINGS,
    SQL_VISIBLE_ITEMS,
)

_ITEM_COLS_Q = ", ".join("q." + c.strip() for c in ITEM_COLS.split(","))
# How many queue rows one claim may pass over for a case `case_ok` refuses, before it
# gives up (each is locked until the claim's transaction ends).
_MAX_CLOSED_CASES = 10_000


class PgReviewTables:
    """Claims, decisions, labels, incidents, settings (needs `write`, `read` of the store)."""

    def write(self, tenant: str = ALL_TENANTS) -> AbstractContextManager[Any]:  # type: ignore[empty-body]
        """Provided by `PostgresStore`."""

    def read(self, tenant: str = ALL_TENANTS) -> AbstractContextManager[Any]:  # type: ignore[empty-body]
        """Provided by `PostgresStore`."""

    # ---- claims ------------------------------------------------------------------------

    def claim_review_item(self, tenant: str, reviewer: str, visible: Iterable[str], *, now: str,
                          lease_until: str, field: str | None = None,
                          case_ok: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
        """Claim the next item for `reviewer` until `lease_until`, or None when none is free.

        A reviewer's own live claim comes back first (its lease renewed); otherwise the
        first open item in queue order that is unclaimed or whose lease ran out, among the
        items whose sources are all in `visible` and whose case `case_ok` accepts (asked
        inside the transaction). Rows other claimers hold locked are skipped, not waited
        for; the claim is a compare-and-set, so two claimers can never both win an item.
        """
        closed: list[str] = []
        p: dict[str, Any] = {"tenant": tenant, "reviewer": reviewer, "now": now,
                             "lease": lease_until, "visible": sorted(set(visible)),
                             "field": field, "closed": closed}
        with self.write(tenant) as c:
            row = c.execute(SQL_OWN_LIVE_CLAIM, p).fetchone()
            if row is not None and (case_ok is None or case_ok(row[1])):
                p["id"] = row[0]
                got = c.execute(SQL_RENEW, p).fetchone()
                c.execute(SQL_RENEW_CLAIM_ROW, p)
            else:
                while True:
                    row = c.execute(SQL_NEXT_CLAIMABLE, p).fetchone()
                    if row is None or len(closed) > _MAX_CLOSED_CASES:
                        return None
                    if case_ok is not None and not case_ok(row[1]):
                        closed.append(row[1])
                        continue
                    p["id"] = row[0]
                    # the row is ours (locked); the compare-and-set re-checks it anyway
                    got = c.execute(SQL_CLAIM, p).fetchone()
                    if got is not None:
                        break
                c.execute(SQL_RECORD_CLAIM, p)
        return item_from_row(got)

    def release_review_item(self, tenant: str, item_id: int, reviewer: str, now: str) -> bool:
        """Give a claimed item back to the queue; False when `reviewer` holds no live claim."""
        p = {"tenant": tenant, "id": item_id, "reviewer": reviewer, "now": now,
             "ended": ClaimEnd.RELEASED.value}
        with self.write(tenant) as c:
            if c.execute(SQL_RELEASE, p).rowcount != 1:
                return False
            c.execute(SQL_END_CLAIM, p)
        return True

    def review_claims(self, tenant: str, item_id: int | None = None) -> list[dict[str, Any]]:
        """Return the claim history of one item (or of every item), oldest first."""
        with self.read(tenant) as c:
            if item_id is not None:
                rows = c.execute(SQL_CLAIMS_OF_ITEM, (tenant, item_id)).fetchall()
                return [{"item_id": item_id, "reviewer": r[0], "claimed_at": r[1],
                         "lease_until": r[2], "ended": r[3], "ended_at": r[4]} for r in rows]
            return [{"item_id": r[0], "reviewer": r[1], "claimed_at": r[2], "lease_until": r[3],
                     "ended": r[4], "ended_at": r[5]}
                    for r in c.execute(SQL_ALL_CLAIMS, (tenant,)).fetchall()]

    def visible_review_items(self, tenant: str, visible: Iterable[str]) -> list[dict[str, Any]]:
        """Return the items whose sources are all in `visible`: open first, in queue order."""
        sql = SQL_VISIBLE_ITEMS.format(cols=_ITEM_COLS_Q)
        with self.read(tenant) as c:
            rows = c.execute(sql, {"tenant": tenant, "visible": sorted(set(visible))}).fetchall()
        return [item_from_row(r) for r in rows]

    # ---- decisions ---------------------------------------------------------------------

    def decide_review_item(self, tenant: str, item_id: int, reviewer: str, *, decision: str,
                           corrected: Any, not_stated: bool, record: dict[str, Any] | None,
                           now: str, stamp: StampRule) -> DecideResult:
        """Record a decision in one transaction: close the item (only for the reviewer
        holding a live lease), end the claim, store the labelled example, raise or extend a
        rubber-stamp incident, and replace the field record with `record` (when given)."""
        p = {"tenant": tenant, "id": item_id, "reviewer": reviewer, "now": now,
             "decision": decision, "ended": ClaimEnd.DECIDED.value,
             "corrected": None if corrected is None else json.dumps(corrected, ensure_ascii=False)}
        with self.write(tenant) as c:
            row = c.execute(SQL_ITEM_FOR_UPDATE, (tenant, item_id)).fetchone()
            if row is None:
                return DecideResult("not_found")
            item = item_from_row(row)
            if item["state"] != "open":
                return DecideResult(item["state"], item)
            if item["claimed_by"] != reviewer:
                return DecideResult("not_claimed", item)
            if (item["lease_until"] or "") <= now:
                return DecideResult("lease_expired", item)
            got = c.execute(SQL_DECIDE, p).fetchone()
            if got is None:
                return DecideResult("not_claimed", item)
            c.execute(SQL_END_CLAIM, p)
            cand = item["candidate"]
            label = (tenant, item_id, item["case_id"], item["source_id"], item["doc_sha256"],
                     item["field"], item["extractor_version"], item["reason"], int(item["hard"]),
                     item["confidence"], decision, int(decision == "accept"), int(not_stated),
                     json.dumps(cand.get("value"), ensure_ascii=False), p["corrected"], reviewer,
                     item["claimed_at"], now, seconds_between(item["claimed_at"], now), None)
            lrow = c.execute(SQL_INSERT_LABEL_RETURNING, label).fetchone()
            incident = self._stamp_check(c, tenant, reviewer, now, stamp)
            if incident is not None:  # the new label is tied to it now
                lrow = c.execute(SQL_LABEL, (tenant, lrow[0])).fetchone()
            if record is not None:
                self._upsert_record(c, tenant, item, record, now)
        return DecideResult("ok", item_from_row(got), _label(lrow), incident)

    def _upsert_record(self, c: Any, tenant: str, item: dict[str, Any],
                       record: dict[str, Any], at: str) -> None:
        c.execute(SQL_REPLACE_RECORD, record_values(record_row(
            tenant, item["case_id"], record, {item["source_id"]}, at,
            run_id=record["extractor"].get("run_id", item["run_id"]),
            version=(extractor_key(record["extractor"]) if record["extractor"].get("version")
                     else item["extractor_version"]),
            schema_name=record.get("schema_name", ""))))

    def _stamp_check(self, c: Any, tenant: str, reviewer: str, now: str,
                     stamp: StampRule) -> int | None:
        """Open (or extend) a rubber-stamp incident when the reviewer's last `stamp.run`
        decisions are all accepts under `stamp.seconds`; return its id, or None."""
        if stamp.run <= 0:
            return None
        c.execute(SQL_LOCK_REVIEWER, (tenant, reviewer))
        recent = c.execute(SQL_RECENT_LABELS_OF_REVIEWER, (tenant, reviewer, stamp.run)).fetchall()
        if len(recent) < stamp.run or not all(
                r[1] == "accept" and r[2] is not None and r[2] < stamp.seconds for r in recent):
            return None
        incident = None
        for r in recent:
            if r[3] is not None and c.execute(SQL_OPEN_INCIDENT, (tenant, r[3])).fetchone():
                incident = r[3]
                break
        message = f"{stamp.run} accepts in a row, each under {stamp.seconds:g} s"
        if incident is None:
            detail = {"rule": {"run": stamp.run, "seconds": stamp.seconds}, "message": message}
            incident = c.execute(SQL_INSERT_INCIDENT, (
                tenant, IncidentKind.RUBBER_STAMP.value, reviewer, json.dumps(detail), now)
            ).fetchone()[0]
        for r in recent:
            c.execute(SQL_LABEL_INCIDENT, (incident, tenant, r[0]))
        detail = {"rule": {"run": stamp.run, "seconds": stamp.seconds}, "message": message,
                  "last_seconds": [round(r[2], 2) for r in recent]}
        c.execute(SQL_INCIDENT_DETAIL, (json.dumps(detail), tenant, incident))
        return int(incident)

    # ---- labels, incidents, settings -----------------------------------------------------

    def review_labels(self, tenant: str, *, for_calibration: bool = False) -> list[dict[str, Any]]:
        """Return a tenant's labelled examples (for calibration: none held by an open incident)."""
        sql = SQL_CALIBRATION_LABELS if for_calibration else SQL_LABELS
        with self.read(tenant) as c:
            return [_label(r) for r in c.execute(sql, (tenant,)).fetchall()]

    def add_review_labels(self, tenant: str, labels: Iterable[LabelRow]) -> int:
        """Store labelled examples that did not come through the queue (imported or
        synthetic); return how many were stored."""
        rows = [(tenant, None, lb.case_id, lb.source_id, lb.doc_sha256, lb.field,
                 lb.extractor_version, lb.reason, int(lb.hard), real(lb.confidence), lb.decision,
                 int(lb.accepted), int(lb.not_stated), json.dumps(lb.candidate),
                 None if lb.corrected is None else json.dumps(lb.corrected), lb.reviewer, None,
                 lb.decided_at, real(lb.seconds), None) for lb in labels]
        if rows:
            with self.write(tenant) as c, c.cursor() as cur:
                cur.executemany(SQL_INSERT_LABEL, rows)
        return len(rows)

    def review_depth(self, now: str) -> dict[str, int]:
        """Return the open review items of every tenant: `waiting` for a reviewer (none
        holds a live lease) and `claimed` (one does), at the time `now`."""
        with self.read(ALL_TENANTS) as c:
            waiting, claimed = c.execute(SQL_QUEUE_DEPTH, {"now": now}).fetchone()
        return {"waiting": int(waiting), "claimed": int(claimed)}

    def review_incidents(self, tenant: str) -> list[dict[str, Any]]:
        """Return every incident of a tenant, oldest first, with its label count."""
        with self.read(tenant) as c:
            rows = c.execute(SQL_INCIDENTS, (tenant,)).fetchall()
        return [{"id": r[0], "kind": r[1], "reviewer": r[2], "detail": json.loads(r[3]),
                 "opened_at": r[4], "cleared_at": r[5], "cleared_by": r[6], "labels": int(r[7])}
                for r in rows]

    def clear_review_incident(self, tenant: str, incident_id: int, by: str, at: str) -> bool:
        """Clear an open incident (its labels count for calibration again); False when
        there is no open incident of that id."""
        with self.write(tenant) as c:
            return bool(c.execute(SQL_CLEAR_INCIDENT, (at, by, tenant, incident_id)).rowcount == 1)

    def review_settings(self, tenant: str) -> dict[str, Any]:
        """Return a tenant's stored review settings (JSON values by key)."""
        with self.read(tenant) as c:
            return {k: json.loads(v) for k, v in c.execute(SQL_SETTINGS, (tenant,)).fetchall()}

    def set_review_settings(self, tenant: str, values: dict[str, Any], at: str) -> None:
        """Store review settings (JSON values by key)."""
        with self.write(tenant) as c:
            for k, v in values.items():
                c.execute(SQL_SET_SETTING, (tenant, k, json.dumps(v), at))

    def field_confidences(self, tenant: str) -> list[dict[str, Any]]:
        """Return (field, extractor version, confidence, outcome before review, the source
        ids it rests on) of every stored record that carries a value (present or conflicting)."""
        with self.read(tenant) as c:
            rows = c.execute(SQL_FIELD_CONFIDENCES, (tenant,)).fetchall()
        out = []
        for f, ver, conf, outcome, rec, srcs in rows:
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
        with self.read(tenant) as c:
            rows = c.execute(SQL_ALL_FIELD_RECORDS, (tenant,)).fetchall()
        return [(r[0], json.loads(r[1]), json.loads(r[2])) for r in rows]

    def extraction_span(self, tenant: str, visible: Collection[str] | None = None
                        ) -> tuple[str | None, str | None, int]:
        """Return (first, last, count) of a tenant's extraction runs; with `visible` (the
        source ids a principal may read), of the runs over those sources only."""
        with self.read(tenant) as c:
            if visible is not None:
                return readable_span(c.execute(SQL_RUN_DOCS, (tenant,)).fetchall(), visible)
            row = c.execute(SQL_RUN_SPAN, (tenant,)).fetchone()
        return row[0], row[1], int(row[2])

    def purge_review_of_source(self, tenant: str, source_id: str) -> int:
        """Delete the labels and claims resting on a purged source (before or after its
        queue rows go); return how many rows went."""
        with self.write(tenant) as c:
            n = c.execute(SQL_PURGE_CLAIMS_OF_SOURCE, {"tenant": tenant, "source": source_id}).rowcount
            n += c.execute(SQL_PURGE_LABELS_OF_SOURCE, (tenant, source_id)).rowcount
        return int(n)
