"""The facade: `pincite.open(url)` → a `Library` that composes the stages. No logic of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cite.resolve import resolve_doc, visible_source
from .cite.verifier import Verifier
from .errors import NotFound, UsageError
from .limits import Limits
from .model import Citation, Principal, Revision, Source, TextLayer, parse_acl_entry
from .sources.ingest import Ingestor, IngestResult, reparse_revision
from .store import QuarantineRecord, open_store
from .store.sqlite.fsck import FsckReport, fsck

if TYPE_CHECKING:
    from .ask.answer import AskResult
    from .embed import Embedder
    from .index.deletion import DeleteResult
    from .index.generations import BuildResult
    from .index.policy import RankingPolicy
    from .retrieve.bundle import EvidenceBundle
    from .retrieve.rerank import Reranker
    from .store.index_records import GenerationRow


def open_library(url: str | Path) -> Library:
    """Return the library stored at `url`."""
    return Library(open_store(url))


def walk_inputs(paths: Sequence[str | Path]) -> Iterator[tuple[Path, str]]:
    """Yield (file, default source id) for each input; directories are walked in name order.

    The source id is the file's path relative to the directory given, or its name. Hidden
    files and the paths matched by the glob patterns of a `.pinciteignore` file in the
    directory given (one per line, `#` comments) are skipped.
    """
    for p in paths:
        path = Path(p)
        if path.is_dir():
            ignore = _ignore_patterns(path)
            for f in sorted(x for x in path.rglob("*") if x.is_file()):
                rel = f.relative_to(path)
                if any(part.startswith(".") for part in rel.parts):
                    continue
                if any(rel.match(pat) or rel.as_posix().startswith(pat.rstrip("/") + "/")
                       for pat in ignore):
                    continue
                yield f, rel.as_posix()
        elif path.is_file():
            yield path, path.name
        else:
            raise UsageError(f"{path} does not exist")


def _ignore_patterns(root: Path) -> list[str]:
    """Return the glob patterns of `root/.pinciteignore` (none when there is no file)."""
    try:
        lines = (root / ".pinciteignore").read_text("utf-8").splitlines()
    except OSError:
        return []
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


class Library:
    """A pincite library: sources, revisions, text layers and citations in one store."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self.store = store

    def close(self) -> None:
        """Close the store connection."""
        self.store.close()

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- ingest -------------------------------------------------------------------------

    def ingest(self, paths: Sequence[str | Path], *, tenant: str, acl: Sequence[str] | None,
               source_id: str | None = None, password: str | None = None,
               limits: Limits | None = None, sandbox: bool = True,
               on_result: Callable[[IngestResult], None] | None = None) -> list[IngestResult]:
        """Ingest files and directories; return one result per file.

        `acl=None` keeps an existing source's ACL and is refused for a new source.
        """
        inputs = list(walk_inputs(paths))
        if source_id is not None and len(inputs) != 1:
            raise UsageError("--id names one source: give exactly one file with it")
        results = []
        with Ingestor(self.store, tenant=tenant, acl=acl, limits=limits, sandbox=sandbox) as ing:
            for f, default_id in inputs:
                data = f.read_bytes()
                r = ing.ingest(data, source_id=source_id or default_id, path=str(f),
                               name=f.name, password=password)
                results.append(r)
                if on_result is not None:
                    on_result(r)
        return results

    def ingest_bytes(self, data: bytes, *, source_id: str, tenant: str,
                     acl: Sequence[str] | None, name: str | None = None,
                     password: str | None = None, limits: Limits | None = None,
                     sandbox: bool = True) -> IngestResult:
        """Ingest one byte string under `source_id`; return what happened."""
        with Ingestor(self.store, tenant=tenant, acl=acl, limits=limits, sandbox=sandbox) as ing:
            return ing.ingest(data, source_id=source_id, path=name or source_id, name=name,
                              password=password)

    def reparse(self, principal: Principal, source_ids: Iterable[str] = (),
                sandbox: bool = True) -> list[tuple[str, str | None]]:
        """Re-parse visible sources with the current parsers; return (doc_id, new layer id or None)."""
        ids = list(source_ids) or [s.source_id for s in self.sources(principal)]
        out = []
        with Ingestor(self.store, tenant=principal.tenant, acl=None, sandbox=sandbox) as ing:
            for sid in ids:
                if visible_source(self.store, principal, sid) is None:
                    raise NotFound("source", sid)
                for rev in self.store.revisions(principal.tenant, sid):
                    out.append((rev.doc_id, reparse_revision(ing, rev)))
        return out

    # ---- reading ------------------------------------------------------------------------

    def sources(self, principal: Principal) -> list[Source]:
        """Return the sources the principal may read."""
        return [s for s in self.store.sources(principal.tenant)
                if visible_source(self.store, principal, s.source_id) is not None]

    def revisions(self, principal: Principal, source_id: str) -> list[Revision]:
        """Return a visible source's revisions, oldest first."""
        if visible_source(self.store, principal, source_id) is None:
            raise NotFound("source", source_id)
        return self.store.revisions(principal.tenant, source_id)

    def quarantined(self, principal: Principal) -> list[QuarantineRecord]:
        """Return the quarantine records of the principal's tenant."""
        return self.store.quarantined(principal.tenant)

    def document(self, principal: Principal, doc: str) -> tuple[Revision, TextLayer]:
        """Return the revision `doc` names and its newest text layer."""
        rev = resolve_doc(self.store, principal, doc)
        layer = self.store.text_layer(rev)
        if layer is None:
            raise NotFound("document", doc)
        return rev, layer

    # ---- citations -----------------------------------------------------------------------

    def verifier(self, principal: Principal) -> Verifier:
        """Return a verifier acting as `principal` (it caches per revision)."""
        return Verifier(self.store, principal)

    def cite(self, principal: Principal, doc: str, quote: str) -> Citation:
        """Return the verified citation of `quote` in `doc`."""
        return self.verifier(principal).cite(doc, quote)

    def verify(self, principal: Principal, entries: Iterable[Citation]) -> list[Citation]:
        """Return each provenance entry with its verification outcome."""
        return self.verifier(principal).verify_all(entries)

    # ---- administration -------------------------------------------------------------

    def set_acl(self, principal: Principal, source_id: str, entries: Sequence[str]) -> Source:
        """Replace the ACL of a source the principal can read; return the updated source."""
        if visible_source(self.store, principal, source_id) is None:
            raise NotFound("source", source_id)
        acl = tuple(sorted({parse_acl_entry(e) for e in entries}))
        self.store.set_acl(principal.tenant, source_id, acl)
        src = self.store.source(principal.tenant, source_id)
        assert src is not None
        return src

    def fsck(self, grace_seconds: float = 600.0) -> FsckReport:
        """Check the store and reclaim debris of interrupted writes."""
        return fsck(self.store, grace_seconds=grace_seconds)

    # ---- index generations ------------------------------------------------------------

    def build_index(self, embedder: Embedder | None = None, *, policy: RankingPolicy | None = None,
                    progress: bool = False) -> BuildResult:
        """Build a new generation in the shadow (not published); see `pincite.index.build`."""
        from .embed.factory import open_embedder
        from .index.generations import build
        from .index.policy import DEFAULT_POLICY

        return build(self.store, embedder or open_embedder(), policy=policy or DEFAULT_POLICY,
                     progress=progress)

    def publish_index(self, gen_id: str) -> GenerationRow:
        """Check a generation and make it the one readers use, in one transaction."""
        from .index.generations import publish

        return publish(self.store, gen_id)

    def rollback_index(self) -> GenerationRow:
        """Switch readers back to the previous published generation."""
        from .index.generations import rollback

        return rollback(self.store)

    def update_index(self, embedder: Embedder | None = None, *, progress: bool = False,
                     keep: int | None = None) -> BuildResult | None:
        """Build and publish a generation when the published one misses revisions (or is in
        another embedding space); prune old generations; None when nothing was needed."""
        from .embed.factory import open_embedder
        from .index.generations import DEFAULT_KEEP, build_and_publish, needs_build, prune

        emb = embedder or open_embedder()
        if not needs_build(self.store, emb.space):
            return None
        result = build_and_publish(self.store, emb, progress=progress)
        prune(self.store, keep or DEFAULT_KEEP)
        return result

    def generations(self) -> list[GenerationRow]:
        """Every generation, oldest first."""
        return self.store.generations()

    def generation(self, gen_id: str | None = None) -> GenerationRow:
        """A generation by id, or the published one."""
        gid = gen_id or self.store.pointer()[0]
        g = self.store.generation(gid) if gid else None
        if g is None:
            raise NotFound("generation", gid or "(published)")
        return g

    # ---- retrieval ------------------------------------------------------------------------

    def search(self, principal: Principal, query: str, *, k: int = 10, as_of: str | None = None,
               filters: Mapping[str, Any] | None = None, budgets: Mapping[str, Any] | None = None,
               embedder: Embedder | None = None, reranker: Reranker | None = None,
               channels: Sequence[str] = ("bm25", "dense"),
               generation: str | None = None) -> EvidenceBundle:
        """Authorized hybrid search; see `pincite.retrieve.search`."""
        from .retrieve.search import search

        return search(self.store, query, principal, as_of=as_of, filters=filters, k=k,
                      budgets=budgets, embedder=embedder, reranker=reranker, channels=channels,
                      generation=generation)

    def ask(self, principal: Principal, question: str, *, as_of: str | None = None,
            filters: Mapping[str, Any] | None = None, embedder: Embedder | None = None,
            reranker: Reranker | None = None) -> AskResult:
        """The passages that answer `question`, with verified citations, or not_found."""
        from .ask.answer import ask

        return ask(self.store, question, principal, as_of=as_of, filters=filters,
                   embedder=embedder, reranker=reranker)

    def delete(self, principal: Principal, source_id: str, *, purge: bool = False) -> DeleteResult:
        """Delete a source (a tombstone, honoured at once); `purge` also removes its bytes."""
        from .index.deletion import delete_source

        return delete_source(self.store, principal, source_id, purge=purge)

    def diff_generations(self, principal: Principal, gen_a: str, gen_b: str,
                         queries: Sequence[str], *, k: int = 10) -> list[dict[str, Any]]:
        """Run queries against two generations; return what moved per query."""
        from .retrieve.diff import diff_generations

        return diff_generations(self.store, principal, gen_a, gen_b, queries, k=k)
