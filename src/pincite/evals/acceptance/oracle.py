"""The reference model (oracle): who may read which document, computed in plain Python.

It knows tenants, principals with their groups, documents with their ACLs, owners and
tombstones, and nothing of pincite's store or indexes. A principal may read a document
when both are of one tenant, the document is not deleted, and one ACL entry grants it:
`*`, `user:<subject>` or `group:<a group of the principal>` (an empty ACL grants nothing).
Groups are flat here as in pincite: a principal carries every group it belongs to. The
canary tokens of a document are registered with it, so any token found in an output can
be traced to the document it came from.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...model import Principal


@dataclass
class Doc:
    """One document of the model: where it lives, who may read it, what it carries."""

    tenant: str
    source_id: str
    acl: tuple[str, ...]
    kind: str = "md"
    owner: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)  # carrier -> canary token
    deleted: bool = False
    revision: str = "r1"

    @property
    def key(self) -> tuple[str, str]:
        return (self.tenant, self.source_id)


def grants(acl: Iterable[str], entries: Iterable[str]) -> bool:
    """Whether an ACL holds one of a principal's entries (`*`, `user:…`, `group:…`)."""
    have = set(entries)
    return any(e in have for e in acl)


def entries_of(p: Principal) -> tuple[str, ...]:
    """The ACL entries that grant read to `p`, written out by the model itself."""
    return ("*", f"user:{p.subject}", *(f"group:{g}" for g in p.groups))


class Oracle:
    """Tenants, principals, ACLs and tombstones; decides what each principal may read."""

    def __init__(self) -> None:
        self.docs: dict[tuple[str, str], Doc] = {}
        self._token_doc: dict[str, Doc] = {}

    def add(self, doc: Doc) -> Doc:
        """Register a document and its canary tokens; return it."""
        self.docs[doc.key] = doc
        for token in doc.tokens.values():
            self._token_doc[token] = doc
        return doc

    def doc(self, tenant: str, source_id: str) -> Doc | None:
        """The document `source_id` of `tenant`, or None."""
        return self.docs.get((tenant, source_id))

    def set_acl(self, tenant: str, source_id: str, acl: Sequence[str]) -> None:
        """Replace a document's ACL."""
        self.docs[(tenant, source_id)].acl = tuple(sorted(set(acl)))

    def delete(self, tenant: str, source_id: str) -> None:
        """Tombstone a document."""
        self.docs[(tenant, source_id)].deleted = True

    def may_read(self, p: Principal, doc: Doc | None) -> bool:
        """Whether `p` may read `doc` now."""
        return (doc is not None and not doc.deleted and doc.tenant == p.tenant
                and grants(doc.acl, entries_of(p)))

    def may_read_scope(self, tenant: str, entries: Sequence[str], doc: Doc | None) -> bool:
        """Whether a query scope (tenant, the principal's entries) may read `doc`."""
        return (doc is not None and not doc.deleted and doc.tenant == tenant
                and grants(doc.acl, entries))

    def visible(self, p: Principal) -> list[Doc]:
        """The documents `p` may read, in a stable order."""
        return [d for _, d in sorted(self.docs.items()) if self.may_read(p, d)]

    def allowed_tokens(self, p: Principal) -> set[str]:
        """Every canary token `p` may see (those of the documents it may read)."""
        return {t for d in self.visible(p) for t in d.tokens.values()}

    def owner(self, token: str) -> Doc | None:
        """The document a canary token belongs to."""
        return self._token_doc.get(token)

    def tokens(self) -> set[str]:
        """Every registered canary token."""
        return set(self._token_doc)
