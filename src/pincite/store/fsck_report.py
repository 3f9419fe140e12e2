"""`FsckReport`: what a store check found and what it reclaimed (every backend returns one)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class FsckReport:
    """What `fsck` found and what it reclaimed."""

    revisions: int = 0
    blobs_checked: int = 0
    damage: list[str] = field(default_factory=list)
    reclaimed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Return True when nothing is damaged."""
        return not self.damage

    def to_dict(self) -> dict[str, Any]:
        """Return the report as JSON."""
        return {"ok": self.ok, "revisions": self.revisions, "blobs_checked": self.blobs_checked,
                "damage": self.damage, "reclaimed": self.reclaimed}
