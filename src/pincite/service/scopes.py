"""What a caller of the service may do: scopes, and the principal they come with.

A scope gates routes; ACLs still decide what a principal may read. `review:admin` and
`admin` also grant the review and ACL roles (`pincite.vocab.Role`), whose holders belong
to the role's group: the principal of an `admin` key holds `acl:admin` and
`review:admin` inside its own tenant, and nothing outside it. What spans every tenant
(the service's metrics, the index generations and their counts) needs `operator`, which
no other scope implies and which implies none: a tenant's admin sees nothing of the
others through it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from ..errors import Forbidden, UsageError
from ..model import Principal
from ..vocab import Role


class Scope(StrEnum):
    """The scopes a key or token may carry."""

    READ = "read"                  # sources, show, cite, verify, search, ask, calibration
    INGEST = "ingest"              # ingest, delete, extract
    REVIEW = "review"              # the review queue: list, claim, decide, release
    REVIEW_ADMIN = "review:admin"  # review settings, clearing others' incidents
    ADMIN = "admin"                # purge; implies every scope of its tenant
    OPERATOR = "operator"          # every tenant's numbers: metrics, index generations


# what each scope brings with it
_TENANT_SCOPES = tuple(s for s in Scope if s is not Scope.OPERATOR)
_IMPLIES = {Scope.ADMIN: _TENANT_SCOPES, Scope.REVIEW_ADMIN: (Scope.REVIEW_ADMIN, Scope.REVIEW)}
_ROLES = {Scope.ADMIN: (Role.ACL_ADMIN, Role.REVIEW_ADMIN), Scope.REVIEW_ADMIN: (Role.REVIEW_ADMIN,)}


def parse_scopes(values: Iterable[str]) -> tuple[Scope, ...]:
    """Return the scopes named (sorted, once each); raise UsageError for an unknown one."""
    out = set()
    for v in values:
        try:
            out.add(Scope(v))
        except ValueError:
            raise UsageError(f"unknown scope {v!r}: use "
                             + ", ".join(s.value for s in Scope)) from None
    return tuple(sorted(out))


@dataclass(frozen=True)
class Caller:
    """An authenticated caller: the principal every library call acts as, its scopes, and
    how it signed in (`key:<id>` or `jwt:<issuer>`)."""

    principal: Principal
    scopes: frozenset[Scope]
    via: str

    @classmethod
    def of(cls, tenant: str, user: str, groups: Iterable[str], scopes: Iterable[Scope],
           via: str) -> Caller:
        """Return the caller with the role groups its scopes grant added to `groups`."""
        granted: set[Scope] = set()
        for s in scopes:
            granted.update(_IMPLIES.get(s, (s,)))
        roles = {r.group for s in granted for r in _ROLES.get(s, ())}
        principal = Principal(tenant, user, tuple(sorted(set(groups) | roles)))
        return cls(principal, frozenset(granted), via)

    def require(self, scope: Scope) -> Principal:
        """Return the principal when the caller holds `scope`, else raise Forbidden."""
        if scope not in self.scopes:
            raise Forbidden(f"this credential lacks the {scope.value!r} scope; ask an admin "
                            f"for a key with --scope {scope.value}")
        return self.principal
