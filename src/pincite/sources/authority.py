"""The one write rule: who may change a source, whatever the path (CLI, HTTP, MCP, a worker).

Every operation that changes a source (ingest or revise by id, ACL, delete, purge, a case
created over it, an async ingest when it is enqueued and again when a worker stores it)
asks `authorize_write` first. The rule is the read rule:

- a source that exists and that the caller cannot read is `NotFound`, raised before
  anything is read, parsed, stored or quarantined, with the body a missing source gets on
  every path that needs an existing one (ACL, delete, purge, a case);
- changing a source's ACL (an ingest that names an ACL other than the stored one, or
  `pincite acl`) needs its owner or the `acl:admin` role, else `Forbidden` — which only a
  caller who can read the source ever sees;
- a new id is the caller's to create.

Residual risk, stated in docs/concepts.md: ids are one namespace per tenant, so an ingest
refused with `not found` where a new id would have been created tells a caller that some
source holds the id — nothing else (no content, ACL, owner or revision count).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import Forbidden, NotFound
from ..model import Principal, Source, acl_allows, check_name, may_change_acl, parse_acl_entry
from ..store import Store
from ..vocab import Role


def readable(src: Source | None, principal: Principal) -> Source | None:
    """Return `src` when the principal may read it (its tenant and ACL), else None."""
    if src is None or src.tenant != principal.tenant or not acl_allows(src.acl, principal):
        return None
    return src


def canonical_acl(entries: Sequence[str] | None) -> tuple[str, ...] | None:
    """Return the ACL as stored (canonical entries, sorted, once each); None stays None."""
    return None if entries is None else tuple(sorted({parse_acl_entry(e) for e in entries}))


def authorize_write(store: Store, principal: Principal, source_id: str, *,
                    acl: Sequence[str] | None = None, must_exist: bool = False,
                    administer: bool = False) -> Source | None:
    """Return the existing source the principal may change (None: a new id it may create).

    Raises NotFound for a source it cannot read (and, with `must_exist`, for a missing
    one: the two are the same reply), and Forbidden when `acl` would replace the stored
    ACL — or, with `administer` (`pincite acl`), whatever it sets — and the principal is
    neither the source's owner nor an `acl:admin`."""
    src = readable(store.source(principal.tenant, source_id), principal)
    if src is None:
        if must_exist or store.source(principal.tenant, source_id) is not None:
            raise NotFound("source", source_id)
        return None
    wanted = canonical_acl(acl)
    if (administer or (wanted is not None and wanted != src.acl)) and not may_change_acl(
            src, principal):
        raise Forbidden(
            f"you may read source {source_id!r} but not change its ACL: ask its owner (the "
            f"user who first ingested it) or a principal holding the {Role.ACL_ADMIN} role "
            f"(group {Role.ACL_ADMIN.group}); ingest it again without --acl to keep its ACL")
    return src


def writer_of(tenant: str, principal: Principal | None, owner: str | None) -> Principal | None:
    """Return who writes an ingest into `tenant`: the principal given, else the user `owner`
    with no groups, else None (the store's operator, who may write anything)."""
    if principal is not None:
        return principal
    return None if owner is None else Principal(check_name("tenant", tenant), owner)
