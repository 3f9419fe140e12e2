"""`index diff`: run a query set against two generations and report what moved.

Both runs go through the same authorized `search` as users (as one principal), each
generation with the query embedder of its own space. Per query: the items that entered
(in B only), left (in A only), and moved (rank in A → rank in B), keyed by evidence id.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..model import Principal
from ..store import Store
from .search import search


def diff_generations(store: Store, principal: Principal, gen_a: str, gen_b: str,
                     queries: Sequence[str], *, k: int = 10) -> list[dict[str, Any]]:
    """Return one record per query: entered, left, moved, and the overlap@k."""
    out = []
    for q in queries:
        a = search(store, q, principal, k=k, generation=gen_a)
        b = search(store, q, principal, k=k, generation=gen_b)
        ra = {i.evidence_id: (n, i) for n, i in enumerate(a.items, start=1)}
        rb = {i.evidence_id: (n, i) for n, i in enumerate(b.items, start=1)}
        entered = [{"evidence_id": e, "doc_id": i.doc_id, "locator": i.locator, "rank": n}
                   for e, (n, i) in rb.items() if e not in ra]
        left = [{"evidence_id": e, "doc_id": i.doc_id, "locator": i.locator, "rank": n}
                for e, (n, i) in ra.items() if e not in rb]
        moved = [{"evidence_id": e, "doc_id": i.doc_id, "from": ra[e][0], "to": n}
                 for e, (n, i) in rb.items() if e in ra and ra[e][0] != n]
        out.append({"query": q, "a": gen_a, "b": gen_b, "entered": entered, "left": left,
                    "moved": moved, "overlap": len(set(ra) & set(rb)),
                    "flags_a": list(a.flags), "flags_b": list(b.flags)})
    return out
