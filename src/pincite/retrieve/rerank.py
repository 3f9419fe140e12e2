"""The rerank hook: a caller-supplied function run on fused, authorized candidates only.

A reranker is any callable `(query, candidates) -> ordered ids` (or `(id, score)` pairs)
where `candidates` are `RerankCandidate(evidence_id, text)`. It runs in a daemon thread
with a deadline; pincite never trusts its output: an exception, a missed deadline, an id
it was not given, a duplicate or a non-finite score means the first-stage order is
served and the bundle says so (`timeout` or `degraded`). Ids it leaves out keep their
first-stage order after the ones it ranked.
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..vocab import BundleFlag

Reranker = Callable[[str, Sequence["RerankCandidate"]], Sequence[Any]]


@dataclass(frozen=True, slots=True)
class RerankCandidate:
    """What a reranker sees of a candidate: its id and its (authorized) text."""

    evidence_id: str
    text: str


@dataclass(frozen=True, slots=True)
class RerankOutcome:
    order: list[str]                 # the order to serve (first-stage order on failure)
    scores: dict[str, float]         # reranker scores, when it gave valid ones
    flag: BundleFlag | None          # None, TIMEOUT or DEGRADED
    detail: str | None = None


def run_reranker(reranker: Reranker, query: str, candidates: Sequence[RerankCandidate],
                 deadline_s: float) -> RerankOutcome:
    """Run `reranker` with a deadline and validate what it returns."""
    first = [c.evidence_id for c in candidates]
    box: dict[str, Any] = {}
    done = threading.Event()

    def target() -> None:
        try:
            box["out"] = list(reranker(query, tuple(candidates)))
        except BaseException as exc:  # noqa: BLE001 - any failure degrades, never propagates
            box["err"] = exc
        finally:
            done.set()

    _POOL.submit(target)
    if not done.wait(deadline_s):
        return RerankOutcome(first, {}, BundleFlag.TIMEOUT, f"reranker exceeded {deadline_s * 1000:.0f} ms")
    if "err" in box:
        return RerankOutcome(first, {}, BundleFlag.DEGRADED, f"reranker failed: {type(box['err']).__name__}")
    return _validate(box.get("out", []), first)


class _DaemonPool:
    """Daemon worker threads, one per task in flight: a hung reranker holds one thread and
    never blocks the next query or the interpreter's exit."""

    def __init__(self) -> None:
        self._tasks: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0

    def submit(self, fn: Callable[[], None]) -> None:
        with self._lock:
            if self._idle:
                self._idle -= 1
            else:
                threading.Thread(target=self._work, name="pincite-rerank", daemon=True).start()
        self._tasks.put(fn)

    def _work(self) -> None:
        while True:
            self._tasks.get()()
            with self._lock:
                self._idle += 1


_POOL = _DaemonPool()


def _validate(out: list[Any], first: list[str]) -> RerankOutcome:
    allowed = set(first)
    order: list[str] = []
    scores: dict[str, float] = {}
    for x in out:
        if isinstance(x, tuple | list) and len(x) == 2:
            ident, score = x
            try:
                score = float(score)
            except (TypeError, ValueError):
                return RerankOutcome(first, {}, BundleFlag.DEGRADED, "reranker returned a non-numeric score")
            if not math.isfinite(score):
                return RerankOutcome(first, {}, BundleFlag.DEGRADED, "reranker returned a non-finite score")
        else:
            ident, score = x, None
        if not isinstance(ident, str) or ident not in allowed:
            return RerankOutcome(first, {}, BundleFlag.DEGRADED, "reranker returned an id it was not given")
        if ident in scores or ident in order:
            return RerankOutcome(first, {}, BundleFlag.DEGRADED, "reranker returned an id twice")
        order.append(ident)
        if score is not None:
            scores[ident] = score
    if scores and len(scores) != len(order):
        return RerankOutcome(first, {}, BundleFlag.DEGRADED, "reranker mixed scored and unscored ids")
    if scores:
        order = sorted(order, key=lambda i: (-scores[i], order.index(i)))
    rest = [i for i in first if i not in set(order)]
    return RerankOutcome(order + rest, scores, None)
