"""AUTHZ: nothing of a document reaches a principal the reference model says may not read it.

Each tenant gets one canary document per ACL shape (everyone, one group, two groups, one
user, a user and a group, nobody), in Markdown, HTML, DOCX and PDF, with a token in its
title, body, table cell, hidden text, metadata and file name. Then, with spies on every
candidate generator, seeded random principals × queries go through the facade's `search`
(with a spy reranker and a spy embedder) and `ask`; every principal tries `show`, `cite`
and `sources` on every document; a random sample goes through the CLI. Every output and
every seam input is scanned for tokens the caller may not see. Then ACLs are changed and
documents deleted through the CLI, and the next read of each affected principal is checked
at once (no rebuild: revocation must not wait for an index).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import NotFound, QuoteNotFound
from ...model import Principal
from ...vocab import IngestStatus, Role
from .canaries import TEXT_CARRIERS, VOCAB, TokenMint, canary_doc, foreign
from .harness import EMBEDDER, Drivers, Size, Workspace, run_cli
from .oracle import Doc, Oracle
from .scoreboard import Scoreboard
from .spies import CandidateSpy, Generated, OwnerIndex, SpyEmbedder, SpyReranker

GROUP = "AUTHZ"
TENANTS = ("acme", "globex", "initech", "umbrella", "hooli")
USERS = ("ana", "bob", "cy", "dee")
GROUPS = ("legal", "ops", "hr")
GROUP_SETS = ((), ("legal",), ("ops",), ("hr",), ("legal", "ops"))
SHAPES = (("*",), ("group:legal",), ("group:ops",), ("group:hr",), ("user:ana",),
          ("user:bob", "group:ops"), ("group:hr", "group:legal"), ())
KINDS = ("md", "html", "docx", "pdf")

F_ITEMS = "unauthorized items (search, ask, show, cite, sources; facade and CLI)"
F_CANDS = "unauthorized candidate rows (universe, lexical, dense, reranker)"
F_CROSS = "cross-tenant items or candidate rows"
F_CANARY = "foreign canary tokens in outputs and seam inputs"
F_A1 = "invisible ids answered unlike missing ids (A1)"
F_REVOKE = "leaks on the next read after an acl change or delete (A3)"
F_FOUND = "visible canaries found by their reader (not vacuous)"


@dataclass
class Corpus:
    """The canary library of the run and its reference model."""

    store: Path
    lib: Any
    oracle: Oracle
    principals: list[Principal]
    owners: OwnerIndex


def principals_of(tenants: Sequence[str]) -> list[Principal]:
    """Every (tenant, user, group set) principal of the model."""
    return [Principal(t, u, g) for t in tenants for u in USERS for g in GROUP_SETS]


def build_corpus(ws: Workspace, drivers: Drivers, size: Size, seed: int,
                 board: Scoreboard) -> Corpus:
    """Ingest one canary document per tenant and ACL shape through the facade; publish."""
    mint, rng = TokenMint(seed), random.Random(seed)
    store = ws.path("authz-store")
    lib = drivers.open_library(store, create=True)
    oracle = Oracle()
    tenants = TENANTS[:size.tenants]
    setup = board.figure(GROUP, F_FOUND)
    for ti, t in enumerate(tenants):
        for i, acl in enumerate(SHAPES):
            kind = KINDS[(i + ti) % len(KINDS)]
            doc, data = canary_doc(mint, rng, t, acl, kind, owner="ana")
            r = lib.ingest_bytes(data, source_id=doc.source_id, tenant=t, acl=list(acl),
                                 name=doc.source_id.rsplit("/", 1)[-1], sandbox=False,
                                 owner="ana")
            if setup.attempt(r.status == IngestStatus.NEW, f"{doc.source_id}: {r.reason}"):
                oracle.add(doc)
    lib.update_index(EMBEDDER)
    return Corpus(store, lib, oracle, principals_of(tenants), OwnerIndex(lib.store, tenants))


class Checker:
    """Runs one read as one principal and checks it against the oracle."""

    def __init__(self, board: Scoreboard, corpus: Corpus, spy: CandidateSpy,
                 drivers: Drivers) -> None:
        self.c, self.spy, self.drivers = corpus, spy, drivers
        self.oracle = corpus.oracle
        self.registered = self.oracle.tokens()
        self.emb, self.rr = SpyEmbedder(), SpyReranker()
        self.f = {name: board.figure(GROUP, name) for name in
                  (F_ITEMS, F_CANDS, F_CROSS, F_CANARY, F_A1, F_REVOKE, F_FOUND)}
        self.revoking = False

    # ---- the checks ------------------------------------------------------------------

    def _leak(self, figure: str, ok: bool, example: str) -> int:
        self.f[figure].attempt(ok, example)
        return 0 if ok else 1

    def _doc_of(self, p: Principal, gen: str | None, evidence_id: str | None,
                source_id: str) -> tuple[Doc | None, str]:
        owner = self.c.owners.of_evidence(gen, evidence_id) if gen and evidence_id else None
        if owner is not None:
            return self.oracle.doc(owner[0], owner[1]), owner[0]
        return self.oracle.doc(p.tenant, source_id), p.tenant

    def items(self, p: Principal, gen: str | None, items: Sequence[Any], where: str) -> int:
        """Check the items of one result; return the leaks."""
        bad, cross = [], 0
        for it in items:
            doc, tenant = self._doc_of(p, gen, it.evidence_id, it.source_id)
            cross += tenant != p.tenant
            if not self.oracle.may_read(p, doc):
                bad.append(it.source_id)
        self.f[F_CROSS].add(len(items), cross, f"{where} as {p}: another tenant's item")
        return self._leak(F_ITEMS, not bad, f"{where} as {p}: {bad[:3]}")

    def rows(self, p: Principal, gen: str | None, calls: Sequence[Generated],
             reranked: Sequence[Any]) -> int:
        """Check every row the generators and the reranker were given; return the leaks."""
        n = bad = cross = 0
        example = ""
        ids = [(c.channel, c.gen_id or gen, o) for c in calls for o in c.ords]
        for channel, g, o in ids:
            owner = self.c.owners.of_ord(g, o) if g else None
            doc = self.oracle.doc(owner[0], owner[1]) if owner else None
            n += 1
            cross += owner is None or owner[0] != p.tenant
            if not self.oracle.may_read(p, doc):
                bad += 1
                example = example or f"{channel} row {g}/{o} of {owner} for {p}"
        for cand in reranked:
            owner = self.c.owners.of_evidence(gen, cand.evidence_id) if gen else None
            doc = self.oracle.doc(owner[0], owner[1]) if owner else None
            n += 1
            cross += owner is None or owner[0] != p.tenant
            if not self.oracle.may_read(p, doc):
                bad += 1
                example = example or f"reranker got {cand.evidence_id} of {owner} for {p}"
        self.f[F_CANDS].add(n, bad, example)
        self.f[F_CROSS].add(n, cross, example)
        return bad

    def scan(self, p: Principal, text: str, echoed: Sequence[str], where: str) -> int:
        """Scan one output for tokens `p` may not see; return the leaks."""
        leaked = foreign(text, self.registered, self.oracle.allowed_tokens(p), echoed)
        return self._leak(F_CANARY, not leaked, f"{where} as {p}: {leaked[:3]}")

    def found(self, p: Principal, query: str, source_ids: set[str]) -> None:
        """Count whether a query for a visible document's text token found it."""
        doc = self.oracle.owner(query)
        if doc is None or not self.oracle.may_read(p, doc):
            return
        carrier = next(c for c, t in doc.tokens.items() if t == query)
        if carrier in ("title", "body", "cell"):
            self.f[F_FOUND].attempt(doc.source_id in source_ids,
                                    f"{query} ({carrier} of {doc.source_id}) not found by {p}")

    def _after(self, leaks: int, what: str) -> None:
        if self.revoking:
            self.f[F_REVOKE].attempt(leaks == 0, what)

    # ---- the reads ------------------------------------------------------------------

    def search(self, p: Principal, q: str) -> None:
        """One facade search with the spy embedder and reranker."""
        self.spy.take(), self.emb.take(), self.rr.take()
        b = self.c.lib.search(p, q, k=10, embedder=self.emb, reranker=self.rr)
        reranked = self.rr.take()
        leaks = self.items(p, b.generation, b.items, f"search {q!r}")
        leaks += self.rows(p, b.generation, self.spy.take(), reranked)
        seam = "\n".join(self.emb.take() + [c.text for c in reranked])
        leaks += self.scan(p, json.dumps(b.to_dict(), ensure_ascii=False) + "\n" + seam, [q],
                           f"search {q!r}")
        self.found(p, q, {i.source_id for i in b.items})
        self._after(leaks, f"search {q!r} as {p}")

    def ask(self, p: Principal, question: str) -> None:
        """One facade ask with the spy embedder."""
        self.spy.take(), self.emb.take()
        a = self.c.lib.ask(p, question, embedder=self.emb)
        leaks = self.items(p, a.generation, a.items, f"ask {question!r}")
        leaks += self.rows(p, a.generation, self.spy.take(), ())
        leaks += self.scan(p, json.dumps(a.to_dict(), ensure_ascii=False) + "\n"
                           + "\n".join(self.emb.take()), [question], f"ask {question!r}")
        self._after(leaks, f"ask {question!r} as {p}")

    def reads(self, p: Principal, docs: Sequence[Doc], missing: str) -> None:
        """`show`, `cite` and `sources` of every document through the facade."""
        lib = self.c.lib
        listed = {s.source_id for s in lib.sources(p)}
        allowed = {d.source_id for d in self.oracle.visible(p)}
        leaks = self._leak(F_ITEMS, listed <= allowed,
                           f"sources as {p} lists {sorted(listed - allowed)[:3]}")
        self.f[F_FOUND].attempt(allowed <= listed, f"sources as {p} misses "
                                f"{sorted(allowed - listed)[:3]}")
        missing_msg = self._refusal(p, missing)
        for d in docs:
            may = self.oracle.may_read(p, d)
            try:
                rev, layer = lib.document(p, d.source_id)
            except NotFound as exc:
                leaks += self._leak(F_A1, exc.message.replace(d.source_id, "ID") == missing_msg,
                                    f"show {d.source_id} as {p}: {exc.message!r}")
                self.f[F_FOUND].attempt(not may, f"show {d.source_id} refused to {p}")
            else:
                leaks += self._leak(F_ITEMS, may and rev.tenant == p.tenant,
                                    f"show {d.source_id} as {p}")
                leaks += self.scan(p, layer.text, [d.source_id], f"show {d.source_id}")
            try:
                cit = lib.cite(p, d.source_id, d.tokens["body"])
            except QuoteNotFound:  # the document exists to this principal: only a reader
                leaks += self._leak(F_ITEMS, may, f"cite {d.source_id} as {p}: quote not found")
                self.f[F_FOUND].attempt(not may, f"cite {d.source_id} as {p}: quote not found")
            except NotFound:
                self.f[F_FOUND].attempt(not may, f"cite {d.source_id} refused to {p}")
            else:
                leaks += self._leak(F_ITEMS, may, f"cite {d.source_id} as {p}")
                leaks += self.scan(p, json.dumps(cit.to_dict()), [d.source_id, d.tokens["body"]],
                                   f"cite {d.source_id}")
        self._after(leaks, f"show/cite/sources as {p}")

    def _refusal(self, p: Principal, missing: str) -> str:
        try:
            self.c.lib.document(p, missing)
        except NotFound as exc:
            return exc.message.replace(missing, "ID")
        return "(a missing id was found)"

    def cli(self, p: Principal, argv: list[str], missing: str | None = None) -> None:
        """One read through the `pincite` command, scanned and checked like the facade's."""
        run = run_cli(self.drivers, self.c.store, *argv, "--as", str(p), "--json")
        leaks = self._leak(F_ITEMS, run.traceback is None,
                           f"{argv[0]} as {p}: {(run.traceback or '')[-200:]}")
        leaks += self.scan(p, run.output, argv, f"cli {argv[0]}")
        got = run.json() if argv[0] != "sources" else run.json_lines()
        if argv[0] in ("search", "ask") and isinstance(got, dict):
            bad = [i["source_id"] for i in got.get("items", ())
                   if not self.oracle.may_read(p, self.oracle.doc(p.tenant, i["source_id"]))]
            leaks += self._leak(F_ITEMS, not bad, f"cli {argv[0]} as {p}: {bad[:3]}")
        elif argv[0] == "sources":
            bad = [s["source_id"] for s in got if isinstance(s, dict)
                   and not self.oracle.may_read(p, self.oracle.doc(p.tenant, s["source_id"]))]
            leaks += self._leak(F_ITEMS, not bad, f"cli sources as {p}: {bad[:3]}")
        elif argv[0] in ("show", "cite"):
            doc = self.oracle.doc(p.tenant, argv[1])
            may = self.oracle.may_read(p, doc)
            leaks += self._leak(F_ITEMS, run.returncode != 0 or may, f"cli {argv[0]} "
                                f"{argv[1]} as {p} answered")
            if run.returncode != 0 and not may and missing is not None:
                other = run_cli(self.drivers, self.c.store, *[missing if a == argv[1] else a
                                                              for a in argv], "--as", str(p))
                leaks += self._leak(F_A1, run.stderr.replace(argv[1], "ID")
                                    == other.stderr.replace(missing, "ID"),
                                    f"cli {argv[0]} {argv[1]}: {run.stderr.strip()!r}")
        self._after(leaks, f"cli {' '.join(argv[:2])} as {p}")


def _queries(oracle: Oracle) -> list[str]:
    tokens = sorted(oracle.tokens())
    return tokens + list(VOCAB) + [f"{a} {b}" for a, b in zip(VOCAB, VOCAB[3:], strict=False)]


def _questions(oracle: Oracle, rng: random.Random) -> list[str]:
    out = [f"What are the terms of {d.tokens['body']}?" for d in oracle.docs.values()]
    out += [f"When is notice of {w} due?" for w in VOCAB]
    out += ["¿Cuál es el plazo de la garantía del contrato?"]
    rng.shuffle(out)
    return out


def _cli_argv(rng: random.Random, oracle: Oracle, p: Principal) -> list[str]:
    docs = sorted(oracle.docs.values(), key=lambda d: d.key)
    d = rng.choice(docs)
    token = d.tokens[rng.choice(TEXT_CARRIERS if "hidden" in d.tokens else TEXT_CARRIERS[:3])]
    return rng.choice([["search", token], ["search", rng.choice(VOCAB)],
                       ["ask", f"What are the terms of {d.tokens['body']}?"],
                       ["show", d.source_id], ["cite", d.source_id, "--quote", d.tokens["body"]],
                       ["sources"]])


def run_authz(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
              seed: int) -> None:
    """Run the AUTHZ group into `board`."""
    corpus = build_corpus(ws, drivers, size, seed, board)
    rng = random.Random(seed + 1)
    oracle, lib = corpus.oracle, corpus.lib
    queries, questions = _queries(oracle), _questions(oracle, rng)
    mint = TokenMint(seed + 2)
    try:
        with CandidateSpy(type(lib.store)) as spy:
            ck = Checker(board, corpus, spy, drivers)
            for _ in range(size.queries):
                ck.search(rng.choice(corpus.principals), rng.choice(queries))
            for _ in range(size.asks):
                ck.ask(rng.choice(corpus.principals), rng.choice(questions))
            docs = sorted(oracle.docs.values(), key=lambda d: d.key)
            missing = f"md/{mint.new()}.md"
            for p in corpus.principals:
                ck.reads(p, docs, missing)
            for _ in range(size.cli_calls):
                p = rng.choice(corpus.principals)
                ck.cli(p, _cli_argv(rng, oracle, p), missing)
            _revoke(ck, corpus, drivers, rng, size, missing)
    finally:
        lib.close()
    board.note(GROUP, f"{len(oracle.docs)} canary documents ({size.tenants} tenants x "
               f"{len(SHAPES)} ACL shapes), {len(corpus.principals)} principals; the corpus is "
               "ingested in process (the parser sandbox is exercised by HOSTILE)")


def _admin(d: Doc) -> Principal:
    """A principal that may change `d`'s ACL: it reads it and holds acl:admin."""
    users = [e[5:] for e in d.acl if e.startswith("user:")]
    return Principal(d.tenant, users[0] if users else "root",
                     (*GROUPS, Role.ACL_ADMIN.group))


def _revoke(ck: Checker, corpus: Corpus, drivers: Drivers, rng: random.Random, size: Size,
            missing: str) -> None:
    """Change ACLs and delete documents through the CLI; check the next reads at once."""
    oracle = corpus.oracle
    live = sorted((d for d in oracle.docs.values() if d.acl), key=lambda d: d.key)
    picked = rng.sample(live, min(len(live), 3 * size.tenants))
    changed, deleted = picked[: len(picked) * 2 // 3], picked[len(picked) * 2 // 3:]
    revoke = ck.f[F_REVOKE]
    for d in changed:
        new = rng.choice([s for s in SHAPES if s and set(s) != set(d.acl)])
        args = [a for e in new for a in ("--set", e)]
        run = run_cli(drivers, corpus.store, "acl", d.source_id, *args, "--as", str(_admin(d)),
                      "--json")
        if revoke.attempt(run.returncode == 0, f"acl {d.source_id}: {run.stderr.strip()}"):
            oracle.set_acl(d.tenant, d.source_id, new)
    for d in deleted:
        run = run_cli(drivers, corpus.store, "delete", d.source_id, "--as", str(_admin(d)),
                      "--json")
        if revoke.attempt(run.returncode == 0, f"delete {d.source_id}: {run.stderr.strip()}"):
            oracle.delete(d.tenant, d.source_id)
    ck.revoking = True
    affected = {d.tenant for d in picked}
    for p in corpus.principals:
        if p.tenant not in affected:
            continue
        for d in picked:
            ck.search(p, d.tokens["body"])
            ck.search(p, d.tokens["title"])
        ck.ask(p, f"What are the terms of {picked[0].tokens['body']}?")
        ck.reads(p, picked, missing)
    for d in picked:
        for p in rng.sample(corpus.principals, 2):
            ck.cli(p, ["show", d.source_id], missing)
            ck.cli(p, ["search", d.tokens["body"]], missing)
