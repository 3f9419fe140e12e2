"""Review items: the record the review queue hands a reviewer (CLI `--json`, the page).

`ReviewItem` is the contract of one item: the queue validates every row the store returns
through it (a column the contract does not know is refused, not passed on) and hands out
its JSON object, so the CLI, the HTTP page and the generated JSON Schema
(`schemas/review-item.json`) agree.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class ReviewItem(BaseModel):
    """One field of one document version waiting for (or past) a reviewer's decision."""

    model_config = ConfigDict(extra="forbid", frozen=True, title="pincite review item")

    id: int
    tenant: str
    case_id: str
    source_id: str
    revision_id: str
    doc_sha256: str
    field: str
    reason: str
    candidate: dict[str, Any] = Field(description="The field record the extractor proposed.")
    evidence: list[dict[str, Any]] = Field(description="The citations the candidate rests on.")
    hard: bool
    due_at: str | None
    run_id: str
    extractor_version: str
    confidence: int | float | None  # an int stays an int in the JSON
    created_at: str
    state: str
    claimed_by: str | None
    claimed_at: str | None
    lease_until: str | None
    decision: str | None
    corrected: Any = Field(description="The corrected value (a `correct` decision), else null.")
    decided_by: str | None
    decided_at: str | None
    claim_live: bool | None = Field(
        default=None, exclude_if=lambda v: v is None, description="Whether a reviewer holds a live lease on it now (listed "
                                  "items only; absent from a decision's answer).")

    def to_dict(self) -> dict[str, Any]:
        """Return the item as its JSON object."""
        return self.model_dump(mode="json")


def review_item(row: dict[str, Any], *, claim_live: bool | None = None) -> dict[str, Any]:
    """Return a store row as the item's JSON object (with `claim_live` when given); raise
    pydantic's ValidationError when the row breaks the contract (a store bug, not input)."""
    if claim_live is not None:
        row = {**row, "claim_live": claim_live}
    return ReviewItem.model_validate(row).to_dict()
