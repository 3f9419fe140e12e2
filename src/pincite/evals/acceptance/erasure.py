"""DELETION: after `delete` no surface shows the document; after `delete --purge` no byte of
it is left anywhere in the store directory.

Each deletable document D (HTML, tokens in every carrier) shares a case with a document
that stays, so the extraction run and its review items of the kept document quote D. Two
generations hold D (rollback has a target). D is cited, every cache is warmed, then D is
deleted through the CLI and each surface is asked about it: lexical, dense and hybrid
search, ask, show, the sources list, cite, verify of the old citation, the review queue
and its evidence, the records of an extraction (`extract --out` refuses D; a run over the
kept document carries none of it), calibration and metrics, rollback and as-of. Search
must also answer exactly like a twin store that never ingested D. Then `delete --purge`
through the CLI, and every file under the store (database, -wal, -shm, blobs, vectors,
graphs) is read raw for D's tokens, file name and sha256 (hex and raw bytes).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import NotFound, PinciteError
from ...extract.schema import schema_from_dict
from ...model import Citation, Principal
from .builders import Spec, render
from .canaries import TokenMint, needles
from .harness import EMBEDDER, Drivers, Size, Workspace, files_under, run_cli
from .scoreboard import Scoreboard

GROUP = "DELETION"
F_GONE = "resurfaced after delete (search x3, ask, show, sources, cite, verify, review, records)"
F_TWIN = "answers unlike a store that never ingested it (B1)"
F_BACK = "resurrected by rollback or as-of (B3)"
F_BYTES = "needles left on disk after purge (tokens, id, sha256; every file read raw)"
F_BEFORE = "needles on disk before purge (not vacuous)"
F_KEPT = "kept documents no longer served after the purge"
ANA = Principal.parse("acme:ana:legal")
SCHEMA = {"name": "fees", "fields": [
    {"name": "fee", "type": "money", "synonyms": {"en": ["annual fee"]}},
    {"name": "signing", "type": "date", "synonyms": {"en": ["signed on"]}}]}


@dataclass
class Gone:
    """A document that will be deleted: its id, tokens, bytes and the case it shares."""

    source_id: str
    keep_id: str
    tokens: dict[str, str]
    data: bytes
    citation: Citation | None = None
    valid_from: str | None = None

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def _fees(title: str, fee: str, day: int, body: str) -> Spec:
    return Spec(title, (f"2.1 The annual fee is {fee} EUR, {body} rate.",
                        f"2.2 The contract was signed on {day} March 2027."))


def _corpus(lib: Any, mint: TokenMint, rng: random.Random, n: int, with_gone: bool,
            tokens: list[dict[str, str]]) -> list[Gone]:
    """Ingest the kept documents (and, `with_gone`, the deletable ones); publish twice."""
    gone = []
    for j in range(n):
        keep_id = f"keep-{j}.md"
        lib.ingest_bytes(render(_fees(f"Fees {j}", "450,000", 3, "flat"), "md"),
                         source_id=keep_id, tenant="acme", acl=["group:legal"], sandbox=False)
        tok = tokens[j] if j < len(tokens) else {
            c: mint.new() for c in ("title", "body", "cell", "hidden", "meta", "file")}
        if j >= len(tokens):
            tokens.append(tok)
        spec = Spec(f"Side letter {tok['title']}",
                    _fees("", f"{rng.randint(100, 999)},913", 4, tok["body"]).paragraphs,
                    (("Item", "Reference"), ("bonus", tok["cell"])),
                    (f"Internal {tok['hidden']} note on the annual fee.",), f"Side {tok['meta']}")
        g = Gone(f"side-{tok['file']}.html", keep_id, tok, render(spec, "html"))
        if with_gone:
            lib.ingest_bytes(g.data, source_id=g.source_id, tenant="acme", acl=["group:legal"],
                             sandbox=False)
        gone.append(g)
    lib.ingest_bytes(b"# Terms\n\n1.1 Invoices are payable within thirty days.\n",
                     source_id="terms.md", tenant="acme", acl=["group:legal"], sandbox=False)
    lib.ingest_bytes(b"# Terms\n\n1.1 Invoices are payable within thirty days.\n",
                     source_id="terms.md", tenant="globex", acl=["group:legal"], sandbox=False)
    lib.update_index(EMBEDDER)
    lib.ingest_bytes(b"# More\n\n1.1 Another clause on the annual fee of invoices.\n",
                     source_id="more.md", tenant="acme", acl=["group:legal"], sandbox=False)
    lib.update_index(EMBEDDER)
    return gone


def _queries(g: Gone) -> list[str]:
    return [g.tokens["title"], g.tokens["body"], g.tokens["cell"], g.tokens["hidden"],
            "annual fee", "contract signed"]


def _shows(lib: Any, g: Gone, as_of: str | None = None) -> dict[str, bool]:
    """Which retrieval surfaces still return D to its former reader."""
    hit = {}
    for name, ch in (("lexical", ("bm25",)), ("dense", ("dense",)), ("hybrid", ("bm25", "dense"))):
        hit[name] = any(i.source_id == g.source_id for q in _queries(g)
                        for i in lib.search(ANA, q, k=50, channels=ch, embedder=EMBEDDER,
                                            as_of=as_of).items)
    hit["ask"] = any(i.source_id == g.source_id for q in (f"What is the annual fee of "
                                                          f"{g.tokens['body']}?",)
                     for i in lib.ask(ANA, q, embedder=EMBEDDER, as_of=as_of).items)
    return hit


def _surfaces(lib: Any, drivers: Drivers, store: Path, g: Gone, ws: Workspace) -> dict[str, bool]:
    """Which of every surface still shows D (True: it resurfaced)."""
    hit = _shows(lib, g)
    try:
        lib.document(ANA, g.source_id)
        hit["show"] = True
    except NotFound:
        hit["show"] = run_cli(drivers, store, "show", g.source_id, "--as", str(ANA)).returncode == 0
    hit["sources"] = any(s.source_id == g.source_id for s in lib.sources(ANA)) or \
        g.source_id in run_cli(drivers, store, "sources", "--as", str(ANA), "--json").stdout
    try:
        lib.cite(ANA, g.source_id, g.tokens["body"])
        hit["cite"] = True
    except PinciteError:
        hit["cite"] = False
    if g.citation is not None:
        v = lib.verify(ANA, [g.citation])[0]
        f = ws.path("citation.json")
        f.write_text(json.dumps(g.citation.to_dict()), encoding="utf-8")
        cli = run_cli(drivers, store, "verify", str(f), "--as", str(ANA))
        hit["verify"] = v.quote_verified or v.verify_reason != "source_deleted" or cli.returncode == 0
    marks = list(g.tokens.values()) + [g.source_id]
    queue = lib.review_queue(ANA)
    seen = json.dumps(queue.items(), ensure_ascii=False)
    seen += json.dumps([lib.review_evidence(ANA, it) for it in queue.items()], ensure_ascii=False)
    seen += json.dumps([lib.calibration(ANA), lib.review_metrics(ANA)], ensure_ascii=False,
                       default=str)
    hit["review"] = any(m in seen for m in marks)
    schema = ws.path("schema.json")
    schema.write_text(json.dumps(SCHEMA), encoding="utf-8")
    out = ws.path("records")
    refused = run_cli(drivers, store, "extract", "--schema", str(schema), g.keep_id, g.source_id,
                      "--as", str(ANA), "--out", str(out))
    kept = run_cli(drivers, store, "extract", "--schema", str(schema), g.keep_id, "--as",
                   str(ANA), "--out", str(out), "--json")
    written = "".join(p.read_text("utf-8", errors="replace") for p in files_under(out)) \
        if out.is_dir() else ""
    hit["records"] = refused.returncode == 0 or kept.returncode != 0 or \
        any(m in kept.output + written for m in marks)
    return hit


def _twin_equal(lib: Any, twin: Any, queries: list[str]) -> list[str]:
    """The queries whose answers differ between the store and its twin."""
    gen_a, gen_b = lib.pointer()[0], twin.pointer()[0]
    differ = []
    for q in queries:
        a = json.dumps(lib.search(ANA, q, k=10, embedder=EMBEDDER).to_dict(), sort_keys=True)
        b = json.dumps(twin.search(ANA, q, k=10, embedder=EMBEDDER).to_dict(), sort_keys=True)
        if a.replace(gen_a, "G") != b.replace(gen_b, "G"):
            differ.append(q)
    return differ


def _grep(root: Path, forms: dict[str, list[bytes]]) -> dict[str, list[str]]:
    """Which files under `root` hold each needle (every file read raw)."""
    found: dict[str, list[str]] = {}
    for p in files_under(root):
        data = p.read_bytes()
        for name, fs in forms.items():
            if any(f in data for f in fs):
                found.setdefault(name, []).append(str(p.relative_to(root)))
    return found


def _needles(g: Gone) -> dict[str, list[bytes]]:
    forms = {f"token:{c}": needles(t) for c, t in g.tokens.items()}
    forms["source id"] = needles(g.source_id)
    forms["sha256"] = [*needles(g.sha256), bytes.fromhex(g.sha256)]
    return forms


def run_erasure(board: Scoreboard, ws: Workspace, drivers: Drivers, size: Size,
                seed: int) -> None:
    """Run the DELETION group into `board`."""
    store, twin_store = ws.path("deletion-store"), ws.path("deletion-twin")
    f = {n: board.figure(GROUP, n) for n in (F_GONE, F_TWIN, F_BACK, F_BEFORE, F_BYTES, F_KEPT)}
    tokens: list[dict[str, str]] = []
    lib = drivers.open_library(store, create=True)
    gone = _corpus(lib, TokenMint(seed), random.Random(seed), size.deletions, True, tokens)
    with drivers.open_library(twin_store, create=True) as twin:
        _corpus(twin, TokenMint(seed), random.Random(seed), size.deletions, False, tokens)
    schema = schema_from_dict(SCHEMA)
    for g in gone:
        lib.extract(ANA, schema, [g.keep_id, g.source_id])
        g.citation = lib.cite(ANA, g.source_id, g.tokens["body"])
        g.valid_from = lib.revisions(ANA, g.source_id)[0].valid_from
        queue = lib.review_queue(ANA)
        first = queue.next()
        if first is not None:
            queue.decide(first["id"], "accept")  # a label of the kept document quotes D
        for name, shown in _surfaces(lib, drivers, store, g, ws).items():
            f[F_BEFORE].attempt(shown, f"{g.source_id} not on surface {name} before delete")
    for g in gone:
        r = run_cli(drivers, store, "delete", g.source_id, "--as", str(ANA), "--json")
        f[F_GONE].attempt(r.returncode == 0, f"delete {g.source_id}: {r.stderr.strip()}")
    with drivers.open_library(twin_store) as twin:
        lib.update_index(EMBEDDER)
        twin.update_index(EMBEDDER)
        queries = [q for g in gone for q in _queries(g)] + ["invoices payable", "annual fee"]
        differ = _twin_equal(lib, twin, queries)
        f[F_TWIN].add(len(queries), len(differ), f"differs from the twin: {differ[:3]}")
    for g in gone:
        for name, shown in _surfaces(lib, drivers, store, g, ws).items():
            f[F_GONE].attempt(not shown, f"{g.source_id} on {name} after delete")
    run = run_cli(drivers, store, "index", "rollback", "--json")
    f[F_BACK].attempt(run.returncode == 0, f"rollback: {run.stderr.strip()}")
    for g in gone:
        for name, shown in {**_shows(lib, g), **{f"as-of {k}": v for k, v in
                                                  _shows(lib, g, g.valid_from).items()}}.items():
            f[F_BACK].attempt(not shown, f"{g.source_id} back on {name} after rollback")
    lib.close()
    _purge(board, ws, drivers, store, gone, f)


def _purge(board: Scoreboard, ws: Workspace, drivers: Drivers, store: Path, gone: list[Gone],
           f: dict[str, Any]) -> None:
    """Purge each D through the CLI and read every file of the store for its bytes."""
    forms = {f"{g.source_id} {k}": v for g in gone for k, v in _needles(g).items()}
    before = _grep(store, forms)
    for name in forms:
        f[F_BEFORE].attempt(name in before, f"{name} was never on disk")
    for g in gone:
        r = run_cli(drivers, store, "delete", g.source_id, "--purge", "--as", str(ANA), "--json")
        f[F_BYTES].attempt(r.returncode == 0, f"purge {g.source_id}: {r.stderr.strip()}")
    after = _grep(store, forms)
    n_files = len(files_under(store))
    for name in forms:
        f[F_BYTES].attempt(name not in after, f"{name} in {after.get(name, [])[:3]}")
    with drivers.open_library(store) as lib:
        for g in gone:
            for name, shown in _surfaces(lib, drivers, store, g, ws).items():
                f[F_GONE].attempt(not shown, f"{g.source_id} on {name} after purge")
            f[F_KEPT].attempt(bool(lib.search(ANA, "annual fee", embedder=EMBEDDER).items) and
                              lib.document(ANA, g.keep_id) is not None, g.keep_id)
    board.note(GROUP, f"{len(gone)} documents deleted then purged; {len(forms)} needles "
               f"grepped in {n_files} files after the purge")
