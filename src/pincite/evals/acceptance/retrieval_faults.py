"""RETRIEVAL: faults degrade retrieval in the open, never silently and never unfiltered.

Through the facade's `search`: rerankers that raise, overrun their deadline, return an id
they were not given (of this tenant, or another tenant's), a NaN or non-numeric score, an
id twice, or nothing usable — each must leave the first-stage result served, flagged
`degraded` (and `timeout` for the deadline), with no exception. Filters that leave fewer
authorized passages than asked must say `underfilled`. A generation whose vector file is
gone must answer from the lexical channel flagged `degraded`/`fallback` (or refuse with a
typed error), and what it serves stays authorized.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from ...errors import PinciteError
from ...model import Principal
from ...retrieve.rerank import RerankCandidate
from ...store.vectors import vectors_path
from .builders import Spec, render
from .canaries import VOCAB
from .harness import EMBEDDER, Drivers, Size, Workspace
from .scoreboard import Scoreboard

GROUP = "RETRIEVAL"
F_FAULT = "reranker faults not served first-stage and flagged degraded"
F_RAISED = "exceptions out of search on a reranker or index fault (a 5xx)"
F_UNDERFILL = "silent underfills (fewer than k items without underfilled)"
F_INDEX = "index faults served unflagged or unauthorized (missing vector file)"
READER = Principal.parse("acme:ana:legal")
QUERIES = ("invoice payment", "warranty penalty", "garantía del contrato", "notice interest")

Rerank = Callable[[str, Sequence[RerankCandidate]], Any]


def _faulty(foreign: str) -> dict[str, Rerank]:
    """Rerankers that fail each way a reranker can."""
    def raises(q: str, c: Sequence[RerankCandidate]) -> Any:
        raise RuntimeError("reranker down")

    def slow(q: str, c: Sequence[RerankCandidate]) -> Any:
        time.sleep(0.3)
        return [x.evidence_id for x in c]

    return {
        "raises": raises, "overruns its deadline": slow,
        "an id it was not given": lambda q, c: ["ev_" + "0" * 20, *(x.evidence_id for x in c)],
        "another tenant's id": lambda q, c: [foreign, *(x.evidence_id for x in c)],
        "a NaN score": lambda q, c: [(x.evidence_id, math.nan) for x in c],
        "a non-numeric score": lambda q, c: [(x.evidence_id, "high") for x in c],
        "an id twice": lambda q, c: [x.evidence_id for x in c] * 2,
        "None": lambda q, c: None,
    }


def _corpus(lib: Any) -> None:
    for i in range(12):
        words = [VOCAB[(i + j) % len(VOCAB)] for j in range(4)]
        spec = Spec(f"Clause set {i}", (f"{i}.1 The {words[0]} and {words[1]} terms apply.",
                                        f"{i}.2 Notice of {words[2]} follows the {words[3]}."))
        lib.ingest_bytes(render(spec, "md"), source_id=f"c{i}.md", tenant="acme",
                         acl=["group:legal"] if i % 3 else ["user:bob"], sandbox=False)
        lib.ingest_bytes(render(spec, "md"), source_id=f"g{i}.md", tenant="globex",
                         acl=["*"], sandbox=False)
    lib.update_index(EMBEDDER)


def _authorized(items: Sequence[Any]) -> bool:
    return all(i.source_id.startswith("c") and int(i.source_id[1:-3]) % 3 for i in items)


def run_retrieval_faults(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                         seed: int) -> None:
    """Run the RETRIEVAL group into `board`."""
    f = {n: board.figure(GROUP, n) for n in (F_FAULT, F_RAISED, F_UNDERFILL, F_INDEX)}
    with drivers.open_library(ws.path("retrieval-store"), create=True) as lib:
        _corpus(lib)
        other = lib.search(Principal.parse("globex:eve"), "invoice payment", embedder=EMBEDDER)
        foreign = other.items[0].evidence_id
        for q in QUERIES:
            first = lib.search(READER, q, k=5, embedder=EMBEDDER)
            served = [i.evidence_id for i in first.items]
            for what, rr in _faulty(foreign).items():
                try:
                    b = lib.search(READER, q, k=5, embedder=EMBEDDER, reranker=rr,
                                   budgets={"rerank_ms": 100})
                except PinciteError as exc:
                    f[F_RAISED].attempt(False, f"{what}: {exc.message}")
                    continue
                except Exception as exc:  # noqa: BLE001 - a crash is what is counted
                    f[F_RAISED].attempt(False, f"{what}: {type(exc).__name__}: {exc}")
                    continue
                f[F_RAISED].attempt(True)
                ok = "degraded" in b.flags and [i.evidence_id for i in b.items] == served \
                    and (what != "overruns its deadline" or "timeout" in b.flags)
                f[F_FAULT].attempt(ok, f"{what} for {q!r}: flags {list(b.flags)}")
            for n in (1, 2, 3):
                ids = [f"c{i}.md" for i in range(1, 12) if i % 3][:n]
                b = lib.search(READER, q, k=10, embedder=EMBEDDER, filters={"source_ids": ids})
                f[F_UNDERFILL].attempt(len(b.items) == 10 or "underfilled" in b.flags,
                                       f"{q!r} over {n} sources: {len(b.items)} items, "
                                       f"flags {list(b.flags)}")
        gen = lib.pointer()[0]
        vectors_path(lib.store.root, gen).unlink()
        for q in QUERIES:
            try:
                b = lib.search(READER, q, k=10, embedder=EMBEDDER)
            except PinciteError as exc:  # a typed refusal (503) is an honest degradation
                f[F_INDEX].attempt(exc.status == 503, f"missing vectors: {exc.message}")
                continue
            except Exception as exc:  # noqa: BLE001 - a crash is what is counted
                f[F_RAISED].attempt(False, f"missing vectors: {type(exc).__name__}: {exc}")
                continue
            f[F_RAISED].attempt(True)
            f[F_INDEX].attempt("degraded" in b.flags and _authorized(b.items),
                               f"missing vectors, {q!r}: flags {list(b.flags)}, "
                               f"{json.dumps([i.source_id for i in b.items])}")
    board.note(GROUP, f"{len(_faulty(''))} reranker faults x {len(QUERIES)} queries; "
               "a deleted vector file")
