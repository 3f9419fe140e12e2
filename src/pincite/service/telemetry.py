"""Prometheus metrics of one service app (`GET /metrics`): request latency per route and
status, requests refused by the per-tenant limits, review actions, verification failures,
and two depths read when scraped — open review items (waiting, claimed) and durable runs
waiting or running per queue. No label names a tenant: a label per tenant would grow the
series with every customer, and a tenant's own numbers are its own routes' business. Each
app has its own registry, so two apps in one process do not mix."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

from ..errors import MissingExtra

log = logging.getLogger("pincite.service")


class Metrics:
    """The registry and the instruments the service updates."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        except ImportError:  # pragma: no cover - depends on the install
            raise MissingExtra("prometheus_client", "service") from None
        self.registry = CollectorRegistry()
        self.latency = Histogram(
            "pincite_request_seconds", "Time to answer a request, per route and status.",
            ["method", "route", "status"], registry=self.registry,
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30))
        self.verify_failures = Counter(
            "pincite_verification_failures_total",
            "Citations answered by the service whose quote did not verify.",
            ["route"], registry=self.registry)
        self.rejected = Counter(
            "pincite_rate_limited_total", "Requests refused by the per-tenant limits.",
            registry=self.registry)
        self.review = Counter(
            "pincite_review_actions_total", "Review queue actions answered (claim, decide, "
            "release); claims minus decisions and releases is the work in hand.",
            ["action"], registry=self.registry)
        self.in_flight = Gauge("pincite_requests_in_flight", "Requests being answered.",
                               registry=self.registry)

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        """Record one answered request."""
        self.latency.labels(method, route, str(status)).observe(seconds)
        if status == 429:
            self.rejected.inc()

    def count_unverified(self, route: str, citations: list[dict[str, Any]]) -> None:
        """Count the citations among `citations` whose quote did not verify."""
        bad = sum(1 for c in citations if isinstance(c, dict) and c.get("quote_verified") is False)
        if bad:
            self.verify_failures.labels(route).inc(bad)

    def watch(self, review_depth: Callable[[], dict[str, int]],
              runs_depth: Callable[[], dict[tuple[str, str], int]]) -> None:
        """Report the review queue's and the runs' depths, read at every scrape:
        `pincite_review_queue_items{state}` and `pincite_runs_waiting{queue,status}`."""
        self.registry.register(_Depths(review_depth, runs_depth))

    def render(self) -> bytes:
        """Return the exposition text."""
        from prometheus_client import generate_latest

        return bytes(generate_latest(self.registry))


class _Depths:
    """A collector of gauges read when scraped; a reading that fails is left out (and
    logged), so one broken source never takes the whole scrape down."""

    def __init__(self, review: Callable[[], dict[str, int]],
                 runs: Callable[[], dict[tuple[str, str], int]]) -> None:
        self.review, self.runs = review, runs

    def describe(self) -> list[Any]:
        return []  # nothing is read when registering

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import GaugeMetricFamily

        review = GaugeMetricFamily(
            "pincite_review_queue_items", "Open review items of every tenant: waiting for a "
            "reviewer, or claimed under a live lease.", labels=["state"])
        for state, n in _read("review queue", self.review).items():
            review.add_metric([state], n)
        yield review
        runs = GaugeMetricFamily(
            "pincite_runs_waiting", "Durable runs of every tenant enqueued (ENQUEUED) or "
            "being run (PENDING), per queue.", labels=["queue", "status"])
        for (queue, status), n in _read("runs", self.runs).items():
            runs.add_metric([queue, status], n)
        yield runs


def _read(what: str, read: Callable[[], dict[Any, int]]) -> dict[Any, int]:
    try:
        return read()
    except Exception as exc:  # a gauge's source failed: the scrape goes on without it
        log.warning('{"event": "metrics_read_failed", "gauge": "%s", "error": "%s"}', what,
                    type(exc).__name__)
        return {}
