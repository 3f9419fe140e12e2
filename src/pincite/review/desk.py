"""The facade's review desk: the queue, evidence views, page images, metrics and
calibration, as a principal sees them (`pincite.library.Library` inherits it)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from ..cite.resolve import resolve_doc
from ..errors import NotFound
from ..model import Principal

if TYPE_CHECKING:
    from .queue import Clock, ReviewQueue


class ReviewDesk:
    """Review and calibration methods of the facade (they need only `self.store`)."""

    store: Any

    def review_queue(self, principal: Principal, *, clock: Clock | None = None) -> ReviewQueue:
        """Return the review queue as `principal` sees it: list, next, decide, release,
        incidents and settings."""
        from .queue import ReviewQueue

        return ReviewQueue(self.store, principal, clock=clock)

    def review_depth(self) -> dict[str, int]:
        """Return the open review items of every tenant now: `waiting` (no live claim) and
        `claimed` — the operator's gauge (`pincite serve`'s metrics), naming no tenant."""
        from ..model import timestamp, utc_now

        return self.store.review_depth(timestamp(utc_now()))

    def review_evidence(self, principal: Principal, item: Mapping[str, Any]
                        ) -> list[dict[str, Any]]:
        """Return each cited passage of a review item, in reading order, for its page."""
        from .evidence import evidence_views

        return evidence_views(self.store, principal, dict(item))

    def review_page_image(self, principal: Principal, item: Mapping[str, Any], k: int,
                          page: int) -> bytes:
        """Return page `page` of the PDF that a review item's `k`-th evidence cites, as PNG."""
        from .evidence import render_page_png

        ev = list(item.get("evidence") or ())
        if not 0 <= k < len(ev) or not ev[k].get("doc_id"):  # a purged document's: a tombstone
            raise NotFound("evidence", f"{item.get('id')}/{k}")
        rev = resolve_doc(self.store, principal, str(ev[k]["doc_id"]))
        if rev.media_type != "application/pdf":
            raise NotFound("page image", f"{rev.doc_id} p.{page}")
        return render_page_png(self.store, rev, page)

    def review_metrics(self, principal: Principal, *, now: datetime | None = None
                       ) -> dict[str, Any]:
        """Return the review metrics of the documents `principal` can see."""
        from .metrics import review_metrics

        return review_metrics(self.store, principal, now=now)

    def calibration(self, principal: Principal, *, field: str | None = None) -> dict[str, Any]:
        """Return the calibration report of the documents of the principal's tenant that it
        may read (`pincite calibrate`)."""
        from .calibration import calibration_report
        from .queue import visible_source_ids

        return calibration_report(self.store, principal.tenant, field=field,
                                  visible=visible_source_ids(self.store, principal))

    def reliability_diagram(self, principal: Principal, *, field: str | None = None,
                            fmt: str = "svg") -> bytes:
        """Return the reliability diagram of the tenant's calibration, as `svg` or `png`."""
        from .diagram import reliability_diagram

        bins = self.calibration(principal, field=field)["all"]["bins"]
        return reliability_diagram(bins, fmt=fmt, title=f"Reliability · {field or 'all fields'}")
