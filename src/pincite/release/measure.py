"""What a release step measures: quality per query class, authorization, latency, cost,
and the freshness and deletion service levels.

`run_classes` replays the contract's labelled queries against one generation through the
same authorized `search` users go through (`generation=` reads a shadow generation without
serving it): recall@k and MRR over source ids per class (and per query, keyed by a digest
of its text, never the text), latency percentiles, CPU
milliseconds per query, bundle flags, and an authorization check of every item (its
source visible to the principal, of its tenant) plus the outsider principal, who must get
nothing. `measure_slas` times, in a scratch store (never yours), a committed canary
document until a search returns it (freshness) and a deletion until it is absent
(deletion).
"""

from __future__ import annotations

import os
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from ..cite.resolve import visible_source
from ..model import Principal
from ..retrieve.search import search
from ..store import Store
from .contract import Contract, digest


def _pct(values: list[float], q: float) -> float:
    """Return the q-quantile (nearest rank) of values, 0.0 for none."""
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * len(s) + 0.5)) - 1))]


def _one(store: Store, principal: Principal, query: str, k: int, gen: str | None
         ) -> tuple[list[str], list[str], float, float, list[str]]:
    """Run one query; return (source ids ranked, leaked item ids, ms, cpu ms, flags)."""
    t, c = time.perf_counter(), time.process_time()
    b = search(store, query, principal, k=k, generation=gen)
    ms, cpu = (time.perf_counter() - t) * 1000, (time.process_time() - c) * 1000
    ranked, leaks = [], []
    for item in b.items:
        if item.source_id not in ranked:
            ranked.append(item.source_id)
        if visible_source(store, principal, item.source_id) is None:
            leaks.append(item.evidence_id)
    return ranked, leaks, ms, cpu, list(b.flags)


def run_classes(store: Store, contract: Contract, gen: str | None, *,
                principal: Principal | None = None) -> dict[str, Any]:
    """Return quality, authorization, latency and cost per query class on generation `gen`
    (None: the published one) as `principal` (default: the contract's)."""
    who = principal or Principal.parse(contract.principal)
    outsider = Principal.parse(contract.outsider)
    classes: dict[str, Any] = {}
    all_ms: list[float] = []
    all_cpu: list[float] = []
    leaks = outsider_items = 0
    for qc in contract.query_classes:
        recalls, rrs, ms_list, flags = [], [], [], Counter[str]()
        per_query: dict[str, Any] = {}
        for q in qc.queries:
            ranked, leaked, ms, cpu, fl = _one(store, who, q.query, contract.k, gen)
            leaks += len(leaked)
            outsider_items += len(_one(store, outsider, q.query, contract.k, gen)[0])
            ms_list.append(ms)
            all_ms.append(ms)
            all_cpu.append(cpu)
            flags.update(fl)
            if q.relevant:
                rel = set(q.relevant)
                recalls.append(len(rel & set(ranked[:contract.k])) / len(rel))
                rrs.append(next((1 / i for i, s in enumerate(ranked, 1) if s in rel), 0.0))
                per_query[digest(q.query)[:12]] = {"recall": round(recalls[-1], 4),
                                                   "rr": round(rrs[-1], 4)}
        recall = round(sum(recalls) / len(recalls), 4) if recalls else None
        mrr = round(sum(rrs) / len(rrs), 4) if rrs else None
        classes[qc.name] = {
            "queries": len(qc.queries), f"recall@{contract.k}": recall, "mrr": mrr,
            "min_recall": qc.min_recall_at_k, "min_mrr": qc.min_mrr,
            "passes": (recall or 0) >= qc.min_recall_at_k and (mrr or 0) >= qc.min_mrr,
            "latency_p50_ms": round(_pct(ms_list, 0.5), 2),
            "latency_p95_ms": round(_pct(ms_list, 0.95), 2), "flags": dict(flags),
            "per_query": per_query}
    n = len(all_ms)
    return {"generation": gen, "principal": str(who), "k": contract.k, "classes": classes,
            "latency_p95_ms": round(_pct(all_ms, 0.95), 2),
            "cpu_ms_per_query": round(sum(all_cpu) / n, 3) if n else 0.0,
            "authorization": {"queries": n, "unauthorized_items": leaks,
                              "outsider": str(outsider), "outsider_items": outsider_items}}


def gates(contract: Contract, run: dict[str, Any]) -> list[str]:
    """Return the thresholds a measured run misses (empty: it passes)."""
    out = [f"{name}: recall@{contract.k} {c[f'recall@{contract.k}']} < {c['min_recall']} or "
           f"MRR {c['mrr']} < {c['min_mrr']}" for name, c in run["classes"].items()
           if not c["passes"]]
    if run["latency_p95_ms"] > contract.budgets.latency_p95_ms:
        out.append(f"latency p95 {run['latency_p95_ms']} ms > budget "
                   f"{contract.budgets.latency_p95_ms} ms")
    if run["cpu_ms_per_query"] > contract.budgets.cpu_ms_per_query:
        out.append(f"cost {run['cpu_ms_per_query']} CPU ms/query > budget "
                   f"{contract.budgets.cpu_ms_per_query}")
    auth = run["authorization"]
    if auth["unauthorized_items"] or auth["outsider_items"]:
        out.append(f"authorization: {auth['unauthorized_items']} unauthorized items, "
                   f"{auth['outsider_items']} items returned to the outsider")
    return out


def measure_slas(contract: Contract, embedder: Any) -> dict[str, Any]:
    """Return the freshness (commit → eligible result) and deletion (revocation → absence)
    times measured on a canary document in a scratch store, against the contract's SLAs."""
    from ..index.deletion import delete_source
    from ..index.generations import build_and_publish
    from ..sources.ingest import Ingestor
    from ..store import open_store

    token = "canary" + os.urandom(6).hex()
    who = Principal.parse("sla:probe")
    body = f"<html><body><p>Release probe {token}: a committed change.</p></body></html>"
    with tempfile.TemporaryDirectory(prefix="pincite-sla-") as tmp:
        store = open_store(Path(tmp) / "store", create=True)
        try:
            t0 = time.perf_counter()
            with Ingestor(store, tenant="sla", acl=["*"]) as ing:
                ing.ingest(body.encode(), source_id="probe.html", path="probe.html",
                           name="probe.html")
            build_and_publish(store, embedder)
            found = any(i.source_id == "probe.html"
                        for i in search(store, token, who, k=3).items)
            fresh = time.perf_counter() - t0
            t1 = time.perf_counter()
            delete_source(store, who, "probe.html")
            gone = not any(i.source_id == "probe.html"
                           for i in search(store, token, who, k=3).items)
            deletion = time.perf_counter() - t1
        finally:
            store.close()
    sl = contract.service_levels
    return {"method": "canary document in a scratch store: ingest + publish until a search "
                      "returns it; delete until a search no longer does",
            "freshness_seconds": round(fresh, 3), "freshness_found": found,
            "freshness_sla_seconds": sl.freshness_seconds,
            "deletion_seconds": round(deletion, 3), "deletion_absent": gone,
            "deletion_sla_seconds": sl.deletion_seconds,
            "passes": found and gone and fresh <= sl.freshness_seconds
            and deletion <= sl.deletion_seconds}
