"""Refusals of the retriever adapters (`pincite.integrations`): drawn in the tree of
`pincite.errors` and re-exported there."""

from __future__ import annotations

from .tree import UsageError


class PrincipalRequired(UsageError):
    """A retriever adapter built without a principal: it never searches on anyone's behalf
    but the principal's, so it refuses to be built (`adapter` names the class)."""

    code = "principal_required"

    def __init__(self, adapter: str) -> None:
        super().__init__(f"{adapter} needs a principal: pass principal=pincite.Principal.parse"
                         "('TENANT:USER[:GROUP,GROUP]'), the person the evidence is for; it "
                         "searches and verifies as that principal only")
        self.adapter = adapter


__all__ = ["PrincipalRequired"]
