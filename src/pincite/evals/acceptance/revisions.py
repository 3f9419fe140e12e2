"""REVISIONS: a revised document is cited at its newest revision only, and every old
citation still verifies — as `superseded`, never as wrong.

One document is revised through the CLI (`ingest FILE --id SOURCE`, which publishes) for
`revise_cycles` cycles: "the limit is 10 units" becomes 20, 30, …, each revision with its
own canary token. After each cycle: every citation made so far is verified (the old ones
must say `superseded`, the newest `ok`), search and ask must cite only the newest
revision, an as-of query at each revision's start must answer that revision, and the
published generation must hold no chunk whose row or revision is gone (and pass its
integrity check).
"""

from __future__ import annotations

import json
from typing import Any

from ...index.generations import check_generation
from ...model import Principal
from .canaries import TokenMint
from .harness import EMBEDDER, Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "REVISIONS"
F_STALE = "stale citations (old ones not superseded; answers citing an old revision)"
F_ORPHAN = "orphan chunks or integrity problems of the published generation"
F_ASOF = "as-of at a revision's start answering another revision (B5)"
ANA = Principal.parse("acme:ana:legal")
SOURCE = "limits/limit.md"


def _text(k: int, token: str) -> str:
    return (f"# Limits\n\n1. LIMIT\n\n1.1 The limit is {10 * k} units per order, "
            f"reference {token}.\n\n1.2 Orders above the limit need approval.\n")


def _orphans(lib: Any) -> list[str]:
    """What is wrong with the published generation's chunks (empty when sound)."""
    gen = lib.pointer()[0]
    problems = list(check_generation(lib.store, gen))
    rows = lib.store.generation_chunk_list(gen)
    found = lib.store.chunks_by_ord(gen, "acme", [o for o, _c, _d in rows])
    for o, cid, digest in rows:
        if digest is None or o not in found:
            problems.append(f"chunk {cid} of {gen} has no row")
            continue
        ch = found[o][0]
        if lib.store.revision("acme", ch.source_id, ch.revision_id) is None:
            problems.append(f"chunk {cid} names a missing revision {ch.revision_id}")
    return problems


def run_revisions(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                  seed: int) -> None:
    """Run the REVISIONS group into `board`."""
    mint = TokenMint(seed)
    stale, orphan, asof = (board.figure(GROUP, n) for n in (F_STALE, F_ORPHAN, F_ASOF))
    store, folder = ws.path("revisions-store"), ws.folder("revisions-files")
    citations = []
    starts: dict[str, str] = {}
    for k in range(1, size.revise_cycles + 2):
        token = mint.new()
        f = folder / "limit.md"
        f.write_text(_text(k, token), encoding="utf-8")
        acl = ["--acl", "group:legal"] if k == 1 else []
        run = run_cli(drivers, store, "ingest", str(f), "--id", SOURCE, "--tenant", "acme",
                      *acl, "--as", str(ANA), "--json")
        got = run.json() or {}
        stale.attempt(run.returncode == 0 and got.get("status") == ("new" if k == 1 else "revised"),
                      f"revision {k}: {run.stderr.strip()[:200]}")
        latest = f"r{k}"
        with drivers.open_library(store) as lib:
            starts[latest] = lib.revisions(ANA, SOURCE)[-1].valid_from
            citations.append(lib.cite(ANA, SOURCE, f"The limit is {10 * k} units per order"))
            for i, c in enumerate(lib.verify(ANA, citations)):
                want = "ok" if i == len(citations) - 1 else "superseded"
                stale.attempt(c.quote_verified and c.verify_reason == want,
                              f"{c.doc_id} after {latest}: {c.verify_reason}")
            b = lib.search(ANA, "limit units per order", k=10, embedder=EMBEDDER)
            served = {i.revision_id for i in b.items}
            stale.attempt(served == {latest}, f"search after {latest} served {sorted(served)}")
            a = lib.ask(ANA, "What is the limit per order?", embedder=EMBEDDER)
            cited = {i.citation["doc_id"] for i in a.items if i.citation}
            stale.attempt(cited == {f"{SOURCE}@{latest}"},
                          f"ask after {latest} cited {sorted(cited)}")
            for rev, at in starts.items():
                items = lib.search(ANA, "limit units per order", k=10, embedder=EMBEDDER,
                                   as_of=at).items
                asof.attempt({i.revision_id for i in items} == {rev},
                             f"as of {at} ({rev}): {sorted({i.revision_id for i in items})}")
            problems = _orphans(lib) + list(lib.fsck(grace_seconds=3600).damage)
            orphan.attempt(not problems, f"after {latest}: {problems[:2]}")
    cites = ws.path("citations.json")
    cites.write_text(json.dumps([c.to_dict() for c in citations]), encoding="utf-8")
    run = run_cli(drivers, store, "verify", str(cites), "--as", str(ANA), "--json")
    reasons = [e.get("verify_reason") for e in run.json_lines() if isinstance(e, dict)]
    # exit 3: every entry verifies, some as superseded (`pincite verify --help`)
    stale.attempt(run.returncode == 3 and reasons == ["superseded"] * (len(citations) - 1) + ["ok"],
                  f"cli verify: {reasons} {run.stderr.strip()[:120]}")
    board.note(GROUP, f"{len(citations)} revisions of {SOURCE} through `pincite ingest --id`")
