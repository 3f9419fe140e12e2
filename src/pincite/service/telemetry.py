"""Prometheus metrics of one service app (`GET /metrics`): request latency per route and
status, requests refused by the per-tenant limits, review actions, verification failures;
no label names a tenant. Each app has its own registry, so two apps in one process do not mix."""

from __future__ import annotations

from typing import Any

from ..errors import MissingExtra


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

    def render(self) -> bytes:
        """Return the exposition text."""
        from prometheus_client import generate_latest

        return bytes(generate_latest(self.registry))
