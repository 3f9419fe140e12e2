"""NONINTERF: documents a principal cannot see change nothing that principal gets back.

A principal's documents are ingested and its outputs recorded — the facade's `search` and
`ask` as JSON, the CLI's `search --json` and `ask` as printed. Then documents it may not
see are added, stuffed with the very query terms: in another tenant under the same group
name, and in its own tenant under ACLs that exclude it. A new generation is published and
every output must come back byte-identical (the generation id aside). Within a tenant
this holds only because BM25 statistics are computed over the caller's authorized rows.
"""

from __future__ import annotations

import json
import random
from typing import Any

from ...model import Principal
from .builders import Spec, render
from .canaries import VOCAB
from .harness import EMBEDDER, Drivers, Size, Workspace, run_cli
from .scoreboard import Scoreboard

GROUP = "NONINTERF"
F_SAME = "outputs changed by hidden documents stuffed with the query terms"
F_BASE = "baseline outputs that answer something (not vacuous)"
READER = Principal.parse("acme:ana:legal")
QUERIES = ("invoice payment terms", "warranty penalty", "garantía del contrato",
           "plazo de entrega", "notice interest", "delivery of the invoice")
# a statement that answers each question, so that the baseline answers (the comparison is
# not vacuous) under `ask`'s evidence rule: a sentence stating what was asked
ANSWERS = ("The invoice payment terms are thirty (30) days from receipt of the invoice.",
           "The warranty penalty is 500 EUR for each day of delay in a warranty repair.",
           "La garantía del contrato es del 5 % del precio de adjudicación.",
           "El plazo de entrega es de quince (15) días desde el pedido.",
           "The notice interest is two percent (2 %) per month on late amounts.",
           "The delivery of the invoice is by email within five (5) days of shipment.")
HIDDEN_ACLS = (("globex", ("group:legal",)), ("acme", ("user:bob",)),
               ("acme", ("group:ops",)), ("globex", ("*",)))


def _outputs(lib: Any, drivers: Drivers, store: Any, gen: str) -> list[str]:
    """Every output of the reader for every query, the generation id blanked."""
    out = []
    for q in QUERIES:
        b = lib.search(READER, q, k=10, embedder=EMBEDDER)
        a = lib.ask(READER, f"What are the {q}?", embedder=EMBEDDER)
        out.append(json.dumps(b.to_dict(), ensure_ascii=False, sort_keys=True))
        out.append(json.dumps(a.to_dict(), ensure_ascii=False, sort_keys=True))
        out.append(run_cli(drivers, store, "search", q, "--as", str(READER), "--json").stdout)
        out.append(run_cli(drivers, store, "ask", f"What are the {q}?", "--as",
                           str(READER)).stdout)
    return [o.replace(gen, "GENERATION") for o in out]


def run_noninterference(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                        seed: int) -> None:
    """Run the NONINTERF group into `board`."""
    rng = random.Random(seed)
    store = ws.path("noninterf-store")
    same, base = board.figure(GROUP, F_SAME), board.figure(GROUP, F_BASE)
    with drivers.open_library(store, create=True) as lib:
        # no visible clause sentence holds every word of a query: the answers below are the
        # only statements of what is asked (else `ask` rightly finds two and abstains)
        asked = [set(q.lower().split()) - {"of", "the", "del"} for q in QUERIES]
        for i in range(12):
            words = rng.sample(VOCAB, 4)
            while any(q <= {words[0], words[1], "terms"} or q <= {"notice", words[2], words[3]}
                      for q in asked):
                words = rng.sample(VOCAB, 4)
            spec = Spec(f"Clause set {i}", (f"{i}.1 The {words[0]} and {words[1]} terms apply.",
                                            f"{i}.2 Notice of {words[2]} follows the {words[3]}."))
            kind = ("md", "html")[i % 2]
            lib.ingest_bytes(render(spec, kind), source_id=f"v{i}.{kind}", tenant="acme",
                             acl=["group:legal"], sandbox=False)
        for i, text in enumerate(ANSWERS):
            spec = Spec(f"Terms {i}", (f"{i}.1 {text}",))
            lib.ingest_bytes(render(spec, "md"), source_id=f"terms{i}.md", tenant="acme",
                             acl=["group:legal"], sandbox=False)
        first = lib.update_index(EMBEDDER).gen_id
        before = _outputs(lib, drivers, store, first)
        for b in before[::4]:
            base.attempt('"items": []' not in b, f"search answered nothing: {b[:120]}")
        for a in before[1::4]:
            base.attempt('"status": "answered"' in a, f"ask answered nothing: {a[:120]}")
        stuffed = " ".join(QUERIES * 3)
        for i in range(size.hidden_docs):
            tenant, acl = HIDDEN_ACLS[i % len(HIDDEN_ACLS)]
            spec = Spec(f"Hidden {i} {QUERIES[i % len(QUERIES)]}", (stuffed, stuffed.upper()))
            kind = ("md", "html")[i % 2]
            lib.ingest_bytes(render(spec, kind), source_id=f"h{i:04d}.{kind}", tenant=tenant,
                             acl=list(acl), sandbox=False)
        second = lib.update_index(EMBEDDER).gen_id
        after = _outputs(lib, drivers, store, second)
        for q, b, a in zip([q for q in QUERIES for _ in range(4)], before, after, strict=True):
            same.attempt(a == b, f"{q!r}: {b[:80]!r} became {a[:80]!r}")
    board.note(GROUP, f"{size.hidden_docs} hidden documents in 2 tenants under 4 ACLs; "
               f"generations {first} and {second} compared")
