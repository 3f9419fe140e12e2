"""Resolving a `DOC` argument for a principal: authorization first, existence second.

A thing the principal may not read is reported exactly like a thing that does not
exist, so its existence does not leak.
"""

from __future__ import annotations

from ..errors import NotFound
from ..model import (
    Principal,
    Revision,
    Source,
    acl_allows,
    holds_role,
    split_doc_id,
)
from ..store import QuarantineRecord, Store
from ..vocab import Role


def visible_source(store: Store, principal: Principal, source_id: str) -> Source | None:
    """Return the source if the principal may read it, else None."""
    src = store.source(principal.tenant, source_id)
    if src is None or not acl_allows(src.acl, principal):
        return None
    return src


def resolve_doc(store: Store, principal: Principal, doc: str) -> Revision:
    """Return the revision named by `doc` (`SOURCE_ID` → latest, or `SOURCE_ID@REV`).

    Raises NotFound for anything missing or invisible to the principal.
    """
    source_id, rev_id = split_doc_id(doc)
    if visible_source(store, principal, source_id) is None:
        # `doc` may be a source id that itself contains '@'
        if rev_id is not None and visible_source(store, principal, doc) is not None:
            source_id, rev_id = doc, None
        else:
            raise NotFound("document", doc)
    rev = (store.revision(principal.tenant, source_id, rev_id) if rev_id
           else store.latest_revision(principal.tenant, source_id))
    if rev is None:
        raise NotFound("document", doc)
    return rev


def visible_quarantine(store: Store, principal: Principal) -> list[QuarantineRecord]:
    """Return the quarantine records of the principal's tenant that it may see: those of a
    source it may read (the rule of every read), and those of a file that never became a
    (live) source only to the user whose ingest refused it or to an `acl:admin`."""
    admin = holds_role(principal, Role.ACL_ADMIN)
    out = []
    for q in store.quarantined(principal.tenant):
        if store.source(principal.tenant, q.source_id) is not None:
            seen = visible_source(store, principal, q.source_id) is not None
        else:
            seen = admin or (q.owner is not None and q.owner == principal.subject)
        if seen:
            out.append(q)
    return out
