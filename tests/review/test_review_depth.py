"""The review queue's depth over every tenant (the service's gauge): open items waiting for
a reviewer and those claimed under a live lease, on each backend."""

from __future__ import annotations

from pincite.model import Principal
from tests.review.queues import Clock, synthetic_queue

REV_T = Principal("t", "rita", ("rev",))
REV_U = Principal("u", "uma", ("rev",))


def test_depth_counts_every_tenant_and_follows_claims_releases_and_decisions(lib):
    assert lib.review_depth() == {"waiting": 0, "claimed": 0}
    synthetic_queue(lib.store, 3, tenant="t")
    synthetic_queue(lib.store, 2, tenant="u", source_id="other.md")
    assert lib.review_depth() == {"waiting": 5, "claimed": 0}

    queue = lib.review_queue(REV_T)
    item = queue.next()
    assert lib.review_depth() == {"waiting": 4, "claimed": 1}
    queue.release(item["id"])
    assert lib.review_depth() == {"waiting": 5, "claimed": 0}

    item = queue.next()
    queue.decide(item["id"], "accept")
    assert lib.review_depth() == {"waiting": 4, "claimed": 0}

    # a claim whose lease ran out waits again
    lib.review_queue(REV_U, clock=Clock()).next(lease=60)
    assert lib.review_depth() == {"waiting": 4, "claimed": 0}
    lib.review_queue(REV_U).next()
    assert lib.review_depth() == {"waiting": 3, "claimed": 1}
