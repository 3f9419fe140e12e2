"""The review queue as a principal sees it: list, claim, release, decide.

A reviewer is a principal. They see only the items whose documents (the item's own and
every document its evidence cites) their ACL allows; an item they may not see is "not
found", so its existence does not leak — and that holds at decision time too: a reviewer
whose access was revoked after claiming cannot decide.

Claims carry a lease (default 900 s). A claim whose lease ran out goes back to the queue;
only the reviewer holding a live lease may decide. A decision closes the loop twice
(seed 000 §05): it replaces the field record (a correction rests on a citation the
verifier located in the document, or on an explicit "not in the document"), and it
becomes a labelled example tagged with the extractor version. Time to decision is kept
per item and reviewer; a run of fast accepts opens a rubber-stamp incident whose labels
stay out of calibration until it is cleared.

`sample_audit_selector` picks a stable fraction of SHOW records for the queue, so the
high-confidence bins of the calibration curve get labels too.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ..cite.resolve import visible_source
from ..cite.verifier import Verifier
from ..errors import (
    DocumentNotInCase,
    Forbidden,
    InvalidCorrection,
    NotFound,
    PinciteError,
    QuoteNotFound,
    ReviewConflict,
    UsageError,
)
from ..extract.case import case_guard
from ..extract.corrected import correction_errors, with_quote_rules
from ..extract.schema import FieldSpec, schema_from_checks
from ..extract.stated import states
from ..extract.validate import VALUE_NOT_IN_QUOTE, postcondition_errors, value_errors
from ..limits import ROW_ID_MAX, check_number
from ..model import (
    Clock,
    Principal,
    acl_allows,
    holds_role,
    split_doc_id,
    timestamp,
    utc_now,
)
from ..store import QueueEntry, StampRule, Store
from ..vocab import FieldStatus, ReviewDecision, ReviewState, Role
from .decisions import reviewed_record
from .items import review_item

DEFAULT_LEASE_SECONDS = 900.0
MAX_LEASE_SECONDS = 7 * 86400.0  # also the longest rubber-stamp time
DEFAULT_SETTINGS: dict[str, Any] = {
    "audit_fraction": 0.0,   # share of SHOW records queued as sample_audit
    "stamp_run": 5,          # a rubber stamp: this many accepts in a row …
    "stamp_seconds": 10.0,   # … each decided in under this many seconds
}
# the canonical JSON shape of each field type, for the message of a refused correction
TYPE_SHAPES = {
    "money": '{"amount": 1200.5, "currency": "EUR"} (optional "vat": "excluded" or "included", '
             '"basis": one of the field\'s basis names)', "percent": '{"percent": 5}',
    "number": "a number", "duration": '{"value": 30, "unit": "days"}', "date": '"2026-03-01"',
    "datetime": '{"date": "2026-03-01", "time": "12:00"} (optional "tz": "Z", "+01:00" or '
                '"Europe/Madrid")', "bool": "true or false",
    "enum": "one of the field's values",
}
MAX_STAMP_RUN = 10_000
MAX_STAMP_SECONDS = 3600.0


def _bounded(x: float, lo: float, hi: float, message: str) -> float:
    """Return `x` as a float when it is a finite number in [lo, hi]; else UsageError."""
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise UsageError(message)
    try:
        f = float(x)
    except OverflowError:  # an int past the float range
        raise UsageError(message) from None
    if not math.isfinite(f) or not lo <= f <= hi:
        raise UsageError(message)
    return f


def item_sources(item: dict[str, Any]) -> set[str]:
    """Return the source ids an item rests on: its own and those its evidence cites."""
    out = {item["source_id"]}
    for e in item.get("evidence") or ():
        if e.get("doc_id"):  # a purged source's entry is a tombstone that cites nothing
            out.add(split_doc_id(str(e["doc_id"]))[0])
    return out


def visible_source_ids(store: Store, principal: Principal) -> list[str]:
    """Return the ids of the (live) sources of the principal's tenant it may read."""
    return [s.source_id for s in store.sources(principal.tenant) if acl_allows(s.acl, principal)]


@dataclass(frozen=True, slots=True)
class ReviewSettings:
    """Per-tenant review settings."""

    audit_fraction: float
    stamp_run: int
    stamp_seconds: float

    @property
    def stamp(self) -> StampRule:
        return StampRule(self.stamp_run, self.stamp_seconds)

    def to_dict(self) -> dict[str, Any]:
        return {"audit_fraction": self.audit_fraction, "stamp_run": self.stamp_run,
                "stamp_seconds": self.stamp_seconds}


def review_settings(store: Store, tenant: str) -> ReviewSettings:
    """Return a tenant's review settings (defaults where none are stored)."""
    d = {**DEFAULT_SETTINGS, **store.review_settings(tenant)}
    return ReviewSettings(float(d["audit_fraction"]), int(d["stamp_run"]), float(d["stamp_seconds"]))


def audit_draw(tenant: str, source_id: str, doc_sha256: str, field: str) -> float:
    """Return a stable number in [0, 1) for a (document version, field): the audit draw."""
    key = "\x00".join((tenant, source_id, doc_sha256, field)).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "big") / 2.0**64


def sample_audit_selector(store: Store, tenant: str) -> Callable[[QueueEntry], bool] | None:
    """Return the predicate that picks SHOW records for the sample_audit stream, or None
    when the tenant's audit fraction is 0. The draw is a hash of the document version and
    field, so a re-run picks the same records and the queue does not grow."""
    fraction = review_settings(store, tenant).audit_fraction
    if fraction <= 0:
        return None
    return lambda q: audit_draw(tenant, q.source_id, q.doc_sha256, q.field) < fraction


def _shown(value: Any) -> str:
    """Return a corrected value as JSON for a message: at most 80 characters, a lone
    surrogate escaped (a message is written as UTF-8)."""
    text = json.dumps(value, ensure_ascii=False)[:80]
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _item_id(value: Any) -> int:
    """Return an item or incident id from outside, checked (SQLite holds 64-bit ids)."""
    return int(check_number("a review item or incident id", value, 1, ROW_ID_MAX, integer=True))


class ReviewQueue:
    """The queue of one tenant as seen and worked by one principal."""

    def __init__(self, store: Store, principal: Principal, *, clock: Clock | None = None) -> None:
        self.store = store
        self.principal = principal
        self.clock = clock or utc_now

    @property
    def reviewer(self) -> str:
        return self.principal.subject

    def now(self) -> str:
        return timestamp(self.clock())

    # ---- reading -----------------------------------------------------------------------

    def items(self, *, state: str | None = None, reason: str | None = None,
              field: str | None = None, hard: bool | None = None,
              mine: bool = False) -> list[dict[str, Any]]:
        """Return the items this principal may see (open first, in queue order), filtered."""
        visible = visible_source_ids(self.store, self.principal)
        now = self.now()
        out = []
        readable: dict[str, bool] = {}
        for it in self.store.visible_review_items(self.principal.tenant, visible):
            if it["case_id"] not in readable:
                readable[it["case_id"]] = self._case_readable(it["case_id"])
            if not readable[it["case_id"]]:
                continue
            if state and it["state"] != state:
                continue
            if reason and it["reason"] != reason:
                continue
            if field and it["field"] != field:
                continue
            if hard is not None and it["hard"] != hard:
                continue
            live = bool(it["claimed_by"]) and (it["lease_until"] or "") > now
            if mine and not (live and it["claimed_by"] == self.reviewer and it["state"] == ReviewState.OPEN):
                continue
            out.append(review_item(it, claim_live=live and it["state"] == ReviewState.OPEN))
        return out

    def _visible(self, item: dict[str, Any]) -> bool:
        return all(visible_source(self.store, self.principal, s) is not None
                   for s in item_sources(item)) and self._case_readable(item["case_id"])

    def _case_readable(self, case_id: str) -> bool:
        """Whether the principal may read every live document of the item's case: deciding
        writes the case's record, which only such a principal may (see `extract.case`)."""
        try:
            case_guard(self.store, self.principal, case_id)(
                self.store.case_source_ids(self.principal.tenant, case_id))
        except NotFound:
            return False
        return True

    def item(self, item_id: int) -> dict[str, Any]:
        """Return one item; NotFound when it does not exist or the principal may not see it."""
        it = self.store.review_item(self.principal.tenant, _item_id(item_id))
        if it is None or not self._visible(it):
            raise NotFound("review item", str(item_id))
        return review_item(it, claim_live=(it["state"] == ReviewState.OPEN and bool(it["claimed_by"])
                                           and (it["lease_until"] or "") > self.now()))

    # ---- claiming ----------------------------------------------------------------------

    def next(self, *, lease: float = DEFAULT_LEASE_SECONDS, field: str | None = None
             ) -> dict[str, Any] | None:
        """Claim the next item for this reviewer (their own live claim first, renewed),
        hard first, nearest deadline, oldest; None when the queue holds nothing for them."""
        check_number("the lease (seconds)", lease, 1e-3, MAX_LEASE_SECONDS)
        t = self.clock()
        visible = visible_source_ids(self.store, self.principal)
        it = self.store.claim_review_item(self.principal.tenant, self.reviewer, visible,
                                          now=timestamp(t), lease_until=timestamp(t + timedelta(seconds=lease)),
                                          field=field, case_ok=self._case_readable)
        return None if it is None else review_item(it, claim_live=True)

    def release(self, item_id: int) -> None:
        """Give a claimed item back to the queue."""
        self.item(item_id)
        if not self.store.release_review_item(self.principal.tenant, int(item_id), self.reviewer,
                                              self.now()):
            raise ReviewConflict(f"you hold no live claim on review item {item_id}")

    # ---- deciding ----------------------------------------------------------------------

    def decide(self, item_id: int, decision: str, *, value: Any = None, quote: str | None = None,
               doc: str | None = None, not_stated: bool = False) -> dict[str, Any]:
        """Decide a claimed item; return {item, label, record, incident}.

        `correct` needs the corrected `value` and a `quote` that the verifier locates in
        one of the case's documents (`doc` to name which), or `not_stated=True`.
        """
        if decision not in set(ReviewDecision):
            raise UsageError(f"unknown decision {decision!r}: use {', '.join(ReviewDecision)}")
        if decision != ReviewDecision.CORRECT and (value is not None or quote or not_stated):
            raise UsageError("--value, --quote and --not-stated go with --decision correct")
        if decision == ReviewDecision.CORRECT:
            if not_stated and (quote or value is not None):
                raise UsageError("a value that is not in the document has no value and no quote")
            if not not_stated and (value is None or not quote):
                raise UsageError("a correction gives the value (--value JSON) and cites the "
                                 "passage it rests on (--quote TEXT), or says the value is not "
                                 "in the document (--not-stated)")
        item = self.item(item_id)  # NotFound for an invisible item, or a revoked reviewer
        citation = None
        if decision == ReviewDecision.CORRECT and not not_stated:
            citation = self._cite(item, str(quote), doc)
            self._check_correction(item, value, str(citation["quote"]))
        at = self.now()
        base = (self.store.field_record(self.principal.tenant, item["case_id"], item["field"])
                or dict(item["candidate"]))
        record = reviewed_record(base, item, decision=decision, reviewer=self.reviewer,
                                 value=value, citation=citation,
                                 not_stated=not_stated or decision == ReviewDecision.ABSTAIN, at=at)
        settings = review_settings(self.store, self.principal.tenant)
        res = self.store.decide_review_item(
            self.principal.tenant, int(item_id), self.reviewer, decision=decision,
            corrected=value if decision == ReviewDecision.CORRECT and not not_stated else None,
            not_stated=(decision == ReviewDecision.ABSTAIN) or (decision == ReviewDecision.CORRECT and not_stated),
            record=record, now=at, stamp=settings.stamp)
        if res.status != "ok":
            raise self._conflict(item_id, res.status)
        return {"item": None if res.item is None else review_item(res.item),
                "label": res.label, "record": record,
                "incident": res.incident_id}

    def _check_correction(self, item: dict[str, Any], value: Any, quote: str) -> None:
        """Refuse a corrected value that fails the checks an extracted one must pass: the
        field's type with its sub-keys and range, the schema's postconditions over the
        case's other present values (the checks the run stored; a run stored without them:
        the type), and that its verified `quote` states it (`extract.stated`); and the rules
        of `extract.corrected` (an enum value the quote names, a known basis, plain text)."""
        tenant, name = self.principal.tenant, item["field"]
        run = self.store.extraction_run(tenant, item["run_id"]) or {}
        schema = schema_from_checks(run["checks"]) if run.get("checks") else None
        spec = next((f for f in schema.fields if f.name == name), None) if schema else None
        if spec is None:
            spec = FieldSpec(name=name, type=str(item["candidate"].get("type") or "text"))
        else:
            spec = with_quote_rules(spec, run["checks"])
        errors = value_errors(spec, value) or correction_errors(spec, value, quote)
        if schema is not None and not errors:
            values = {name: value}
            for post in schema.all_postconditions():
                for other in post.fields():
                    rec = None if other in values else self.store.field_record(
                        tenant, item["case_id"], other)
                    if rec is not None and rec.get("status") == FieldStatus.PRESENT:
                        values[other] = rec.get("value")
            errors = postcondition_errors(schema, values).get(name, [])
        if not errors and not states(spec.type, value, quote):
            errors = [VALUE_NOT_IN_QUOTE]
        if errors == [VALUE_NOT_IN_QUOTE]:
            raise InvalidCorrection(
                f"the corrected value {_shown(value)} of field "
                f"{name!r} fails {VALUE_NOT_IN_QUOTE}: the quoted words do not state it; quote "
                "the words of the document that state the value (--quote) or give the value "
                "they state (--value)")
        if errors:
            shape = TYPE_SHAPES.get(spec.type, "a non-empty string")
            raise InvalidCorrection(
                f"the corrected value {_shown(value)} of field "
                f"{name!r} fails {', '.join(errors)}; a {spec.type} value is {shape}"
                + (f" between {spec.min:g} and {spec.max:g}" if spec.min is not None
                   and spec.max is not None else "") + ": give --value again")

    def _case_docs(self, item: dict[str, Any]) -> list[str]:
        """Return the doc ids of the item's case: its own first, then the run's others."""
        docs = [f"{item['source_id']}@{item['revision_id']}"]
        run = self.store.extraction_run(self.principal.tenant, item["run_id"]) or {}
        return docs + [d["doc_id"] for d in run.get("docs", ())  # a purged one is a tombstone
                       if d.get("doc_id") and d["doc_id"] not in docs]

    def _cite(self, item: dict[str, Any], quote: str, doc: str | None) -> dict[str, Any]:
        verifier = Verifier(self.store, self.principal)
        candidates = [d for d in self._case_docs(item)
                      if visible_source(self.store, self.principal, split_doc_id(d)[0]) is not None]
        if doc:  # one of the case's documents, by doc id or (its revision in the case) source id
            named = [d for d in candidates if doc in (d, split_doc_id(d)[0])]
            if not named:
                raise DocumentNotInCase(
                    f"{doc} is not a document of the case of review item {item['id']}; "
                    f"name one of {', '.join(candidates)} with --doc, or leave --doc out")
            candidates = named
        for d in candidates:
            try:
                c = verifier.cite(d, quote)
            except (QuoteNotFound, NotFound):
                continue
            if c.quote_verified:
                return c.to_dict()
        raise QuoteNotFound(candidates[0] if candidates else str(doc), quote)

    @staticmethod
    def _conflict(item_id: int, status: str) -> PinciteError:
        if status == "not_found":
            return NotFound("review item", str(item_id))
        return ReviewConflict({
            "stale": f"review item {item_id} is stale: its document has a newer revision; "
                     "run `pincite extract` again to re-queue what changed",
            "decided": f"review item {item_id} was already decided",
            "not_claimed": f"you do not hold review item {item_id}; claim it with "
                           "`pincite review next`",
            "lease_expired": f"your lease on review item {item_id} ran out; claim it again "
                             "with `pincite review next`",
        }.get(status, f"review item {item_id}: {status}"))

    # ---- incidents and settings ----------------------------------------------------------

    def incidents(self) -> list[dict[str, Any]]:
        """Return the tenant's rubber-stamp incidents."""
        return self.store.review_incidents(self.principal.tenant)

    def clear_incident(self, incident_id: int) -> None:
        """Clear an open incident: its labels count for calibration again. It takes a
        principal holding `review:admin` other than the incident's own reviewer."""
        tenant = self.principal.tenant
        incident_id = _item_id(incident_id)
        found = [i for i in self.store.review_incidents(tenant)
                 if i["id"] == incident_id and not i["cleared_at"]]
        if not found:
            raise NotFound("open incident", str(incident_id))
        self._require_admin(f"clear incident {incident_id}")
        if found[0]["reviewer"] == self.reviewer:
            raise Forbidden(f"incident {incident_id} is about your own decisions: another "
                            f"principal holding {Role.REVIEW_ADMIN} must clear it")
        if not self.store.clear_review_incident(tenant, incident_id, self.reviewer, self.now()):
            raise NotFound("open incident", str(incident_id))

    def _require_admin(self, what: str) -> None:
        if not holds_role(self.principal, Role.REVIEW_ADMIN):
            raise Forbidden(f"to {what} you need the {Role.REVIEW_ADMIN} role (be in the group "
                            f"{Role.REVIEW_ADMIN.group}, e.g. --as "
                            f"{self.principal.tenant}:{self.reviewer}:{Role.REVIEW_ADMIN.group})")

    def settings(self) -> ReviewSettings:
        return review_settings(self.store, self.principal.tenant)

    def set_settings(self, *, audit_fraction: float | None = None, stamp_run: int | None = None,
                     stamp_seconds: float | None = None) -> ReviewSettings:
        """Change the tenant's review settings (needs `review:admin`); return them. Each
        value must be a finite number in its range."""
        values: dict[str, Any] = {}
        if audit_fraction is not None:
            values["audit_fraction"] = _bounded(audit_fraction, 0.0, 1.0,
                                                "the audit fraction must be a number from 0 to 1")
        if stamp_run is not None:
            values["stamp_run"] = int(_bounded(
                stamp_run, 0, MAX_STAMP_RUN,
                f"the rubber-stamp run must be a count from 0 (off) to {MAX_STAMP_RUN}"))
        if stamp_seconds is not None:
            values["stamp_seconds"] = _bounded(
                stamp_seconds, 0.0, MAX_STAMP_SECONDS,
                f"the rubber-stamp time must be a number of seconds from 0 to {MAX_STAMP_SECONDS:g}")
        if values:
            self._require_admin("change the review settings")
            self.store.set_review_settings(self.principal.tenant, values, self.now())
        return self.settings()
