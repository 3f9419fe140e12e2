"""The facade: `pincite.open(url)` → a `Library` that composes the stages. No logic of its own."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .cite.compare import check_version, comparison_form
from .cite.resolve import resolve_doc, visible_quarantine, visible_source
from .cite.verifier import Verifier
from .errors import EmptyQuote, NotFound, PinciteError, UsageError
from .limits import Limits, OcrSettings, load_json
from .model import Citation, Principal, Revision, Source, TextLayer, parse_acl_entry
from .model.names import check_source_id
from .review.desk import ReviewDesk
from .sources.authority import authorize_write, writer_of
from .store import QuarantineRecord, open_store

if TYPE_CHECKING:
    from .ask.answer import AskResult
    from .embed import Embedder
    from .extract.model_adapter import ModelExtractor
    from .extract.records import records_json
    from .extract.run import ExtractionResult, Extractor
    from .extract.schema import Schema
    from .facts.atomic import AtomicFact
    from .facts.canonical import CanonicalTable
    from .index.deletion import DeleteResult
    from .index.generations import BuildResult
    from .index.policy import RankingPolicy
    from .model.progress_report import Report
    from .retrieve.bundle import EvidenceBundle
    from .retrieve.rerank import Reranker
    from .review.calibration import ThresholdRow, format_table, seed_worked_example
    from .runs.book import RunBook
    from .sources.acquire import walk_inputs
    from .sources.ingest import IngestResult
    from .store import FsckReport
    from .store.index_records import GenerationRow
    from .values import VALUE_TYPES

# The facade, and what the CLI and the review page render: they import only this module.
__all__ = ["VALUE_TYPES", "Citation", "IngestResult", "Library", "Principal",
           "QuarantineRecord", "ThresholdRow", "format_table", "load_json", "ocr_limits",
           "open_library", "records_json",
           "seed_worked_example", "walk_inputs"]
# re-exported names whose stages load on first use, so that a process that only searches
# or asks never imports extraction, review or ingestion
_LAZY = {"records_json": "pincite.extract.records", "ThresholdRow": "pincite.review.calibration",
         "format_table": "pincite.review.calibration",
         "seed_worked_example": "pincite.review.calibration",
         "walk_inputs": "pincite.sources.acquire", "IngestResult": "pincite.sources.ingest",
         "VALUE_TYPES": "pincite.values", "schema_from_text": "pincite.extract.schema"}


def __getattr__(name: str) -> Any:
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'pincite.library' has no attribute {name!r}")
    from importlib import import_module

    return getattr(import_module(home), name)


def ocr_limits(languages: str | None = None, *, enabled: bool = True, **settings: Any) -> Limits:
    """Return the parse limits with these OCR settings (`OcrSettings` fields); raise
    UsageError for a value out of bounds, and OcrLanguageMissing when a language named
    here has no pack installed (the default languages are checked when a page needs them,
    and the layer is flagged `ocr_incomplete` if they are missing)."""
    from .parse.ocr import check_languages

    ocr = OcrSettings(languages=languages or OcrSettings().languages, enabled=enabled, **settings)
    if languages is not None and enabled:
        check_languages(ocr.language_list())
    return Limits(ocr=ocr)


def open_library(url: str | Path, *, create: bool = False) -> Library:
    """Return the library stored at `url`; a store that does not exist is refused
    (`StoreMissing`, naming the path) unless `create=True`."""
    return Library(open_store(url, create=create))


def upgrade_store(url: str | Path, *, app_login: str | None = None) -> dict[str, Any]:
    """Create or migrate the schema of the store at `url` (`pincite db upgrade`; for
    PostgreSQL, its runs' schema too, and `app_login` made the service's login); return
    {store, backend, before, after, changed} (schema versions before and after)."""
    from .runs.system_schema import upgrade_with_runs

    return upgrade_with_runs(url, app_login=app_login)


class Library(ReviewDesk):
    """A pincite library: sources, revisions, text layers and citations in one store."""

    def __init__(self, store) -> None:  # type: ignore[no-untyped-def]
        self.store = store

    def close(self) -> None:
        """Close the store connection."""
        self.store.close()

    @property
    def url(self) -> str:
        """Return the store's URL, or its directory for an embedded store."""
        return str(getattr(self.store, "url", None) or self.store.root)

    def canary_for(self, principal: Principal, releases: str | Path | None = None
                   ) -> str | None:
        """Return the generation an open release canary serves `principal` from (a member of
        its cohort), else None; see `pincite.release.ops.routed_generation`."""
        from .release.ops import routed_generation

        return routed_generation(self.url, principal, releases)

    def damage(self, exc: BaseException) -> PinciteError | None:
        """Return the typed error a backend exception stands for when it says the store is
        damaged, else None (the CLI and the service turn it into a clean message)."""
        return self.store.damage(exc)

    def __enter__(self) -> Library:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---- ingest -------------------------------------------------------------------------

    def ingest(self, paths: Sequence[str | Path], *, tenant: str, acl: Sequence[str] | None,
               new_acl: Sequence[str] | None = None, source_id: str | None = None,
               password: str | None = None, limits: Limits | None = None, sandbox: bool = True,
               publish: bool = True, embedder: Embedder | str | None = None,
               progress: bool = False, on_result: Callable[[IngestResult], None] | None = None,
               follow_links: bool = False, owner: str | None = None,
               principal: Principal | None = None, report: Report | None = None,
               ) -> list[IngestResult]:
        """Ingest files and directories, then publish an index generation when something
        changed (unless `publish=False`); return one result per file.

        `acl=None` keeps an existing source's ACL; a new source then gets `new_acl`, and is
        refused without one. The generation is built with `embedder` (a name or an
        `Embedder`; default: `$PINCITE_EMBEDDER`, else minilm when installed), as
        `update_index` does. Symbolic links are quarantined unread unless `follow_links`,
        which follows those whose target stays inside the directory given (`walk_inputs`).

        `principal` (or `owner`: `tenant:owner`) writes under the one write rule
        (`sources.authority`), every id checked before anything is stored; with neither,
        the caller is the store's operator. The writer owns the sources it creates.
        Files, and a PDF's pages, are reported to `report` as they are read."""
        from .sources.acquire import walk_inputs
        from .sources.ingest import Ingestor

        writer = writer_of(tenant, principal, owner)
        inputs = list(walk_inputs(paths, follow_links=follow_links))
        if source_id is not None and len(inputs) != 1:
            raise UsageError("--id names one source: give exactly one file with it")
        if source_id is not None:
            check_source_id(source_id)
        for item in inputs if source_id is None else ():
            try:  # every name is checked before anything is stored
                check_source_id(item.source_id)
            except UsageError as exc:
                raise UsageError(f"file {str(item.path)!r}: {exc.message} (rename the file, or "
                                 f"list it in .pinciteignore)") from None
        with Ingestor(self.store, tenant=tenant, acl=acl, new_acl=new_acl, limits=limits,
                      sandbox=sandbox, owner=owner, writer=writer, report=report) as ing:
            results = ing.ingest_files(inputs, source_id=source_id, password=password,
                                       on_result=on_result)  # the write rule for all first
        if publish:
            self.update_index(embedder, progress=progress)
        return results

    def ingest_bytes(self, data: bytes, *, source_id: str, tenant: str,
                     acl: Sequence[str] | None, name: str | None = None,
                     password: str | None = None, limits: Limits | None = None,
                     sandbox: bool = True, owner: str | None = None,
                     new_acl: Sequence[str] | None = None,
                     principal: Principal | None = None) -> IngestResult:
        """Ingest one byte string under `source_id` (writer as `ingest`); return what
        happened. It publishes nothing: call `update_index()` before searching."""
        from .sources.ingest import Ingestor

        with Ingestor(self.store, tenant=tenant, acl=acl, new_acl=new_acl, limits=limits,
                      sandbox=sandbox, owner=owner,
                      writer=writer_of(tenant, principal, owner)) as ing:
            return ing.ingest(data, source_id=source_id, path=name or source_id, name=name,
                              password=password)

    def reparse(self, principal: Principal, source_ids: Iterable[str] = (),
                sandbox: bool = True, limits: Limits | None = None) -> list[tuple[str, str | None]]:
        """Re-parse visible sources with the current parsers (and OCR, for PDF pages without
        text); return (doc_id, new layer id or None)."""
        from .sources.ingest import Ingestor, reparse_revision

        ids = list(source_ids) or [s.source_id for s in self.sources(principal)]
        out = []
        with Ingestor(self.store, tenant=principal.tenant, acl=None, sandbox=sandbox,
                      limits=limits) as ing:
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
        """Return the quarantine records of the principal's tenant that it may see (see
        `cite.resolve.visible_quarantine`)."""
        return visible_quarantine(self.store, principal)

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

    def cite(self, principal: Principal, doc: str, quote: str, *, occurrence: int | None = None,
             locator: str | None = None) -> Citation:
        """Return the verified citation of `quote` in `doc` (see `Verifier.cite`: every
        occurrence listed, `ambiguous` unless `occurrence` or `locator` picks one)."""
        return self.verifier(principal).cite(doc, quote, occurrence=occurrence, locator=locator)

    def verify(self, principal: Principal, entries: Iterable[Citation], *,
               form: str | None = None) -> list[Citation]:
        """Return each provenance entry with its verification outcome; with `form`, compare
        every quote in that comparison form whatever the entry records (an explicit
        re-verification of old `cmp-1` entries). Raises EmptyQuote for an entry whose quote
        holds nothing, naming it, before verifying any."""
        entries = list(entries)
        if form is not None:
            entries = [replace(c, comparison=check_version(form).value) for c in entries]
        for i, c in enumerate(entries, 1):
            if not comparison_form(c.quote, c.comparison):
                raise EmptyQuote(f" of entry {i} ({c.doc_id[:80]}, chars {c.char_start}-{c.char_end})")
        return self.verifier(principal).verify_all(entries)

    # ---- administration -------------------------------------------------------------

    def set_acl(self, principal: Principal, source_id: str, entries: Sequence[str]) -> Source:
        """Replace the ACL of a source; return the updated source. The principal must be
        the source's owner or hold `acl:admin` (`Forbidden`); one that cannot read the
        source gets `NotFound` (the write rule, `sources.authority`)."""
        acl = tuple(sorted({parse_acl_entry(e) for e in entries}))
        authorize_write(self.store, principal, source_id, acl=acl, must_exist=True,
                        administer=True)
        self.store.set_acl(principal.tenant, source_id, acl)
        src = self.store.source(principal.tenant, source_id)
        assert src is not None
        return src

    def check_write(self, principal: Principal, source_id: str, *,
                    acl: Sequence[str] | None = None) -> Source | None:
        """Return the source `principal` may write, None for a new id (`sources.authority`)."""
        return authorize_write(self.store, principal, check_source_id(source_id), acl=acl)

    def fsck(self, grace_seconds: float = 600.0) -> FsckReport:
        """Return the store's check report, having reclaimed debris of interrupted writes."""
        return self.store.fsck(grace_seconds=grace_seconds)

    # ---- index generations ------------------------------------------------------------

    def build_index(self, embedder: Embedder | str | None = None, *,
                    policy: RankingPolicy | None = None, progress: bool = False) -> BuildResult:
        """Build a new generation in the shadow (not published); see `pincite.index.build`."""
        from .index.generations import build
        from .index.policy import DEFAULT_POLICY

        return build(self.store, _open_embedder(embedder),
                     policy=policy or DEFAULT_POLICY, progress=progress)

    def publish_index(self, gen_id: str) -> GenerationRow:
        """Check a generation and make it the one readers use, in one transaction."""
        from .index.generations import publish

        return publish(self.store, gen_id)

    def rollback_index(self) -> GenerationRow:
        """Switch readers back to the previous published generation."""
        from .index.generations import rollback

        return rollback(self.store)

    def update_index(self, embedder: Embedder | str | None = None, *, progress: bool = False,
                     keep: int | None = None) -> BuildResult | None:
        """Build and publish a generation when the published one misses revisions (or is in
        another embedding space); prune old generations; None when nothing was needed."""
        from .index.generations import DEFAULT_KEEP, build_and_publish, needs_build, prune

        emb = _open_embedder(embedder)
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

    def pointer(self) -> tuple[str | None, str | None, str | None]:
        """Return (published generation, rollback target, when it switched)."""
        return self.store.pointer()

    def generation_summaries(self) -> list[dict[str, Any]]:
        """Return the `index list` line of every generation, oldest first."""
        from .index.generations import generation_summary

        cur, prev, _ = self.store.pointer()
        return [generation_summary(g, cur, prev) for g in self.store.generations()]

    def check_generation(self, gen_id: str) -> list[str]:
        """Return a generation's integrity problems (empty when it may be served)."""
        from .index.generations import check_generation

        return check_generation(self.store, gen_id)

    def prune_index(self, keep: int) -> list[str]:
        """Drop the tables and files of old generations; return the dropped ids."""
        from .index.generations import prune

        return prune(self.store, keep)

    # ---- retrieval ------------------------------------------------------------------------

    def search(self, principal: Principal, query: str, *, k: int = 10, as_of: str | None = None,
               filters: Mapping[str, Any] | None = None, budgets: Mapping[str, Any] | None = None,
               embedder: Embedder | str | None = None, reranker: Reranker | None = None,
               channels: Sequence[str] = ("bm25", "dense"),
               generation: str | None = None) -> EvidenceBundle:
        """Authorized hybrid search; see `pincite.retrieve.search`."""
        from .retrieve.search import search

        return search(self.store, query, principal, as_of=as_of, filters=filters, k=k,
                      budgets=budgets, embedder=_embedder(embedder), reranker=reranker,
                      channels=channels,
                      generation=generation)

    def ask(self, principal: Principal, question: str, *, as_of: str | None = None,
            filters: Mapping[str, Any] | None = None, embedder: Embedder | str | None = None,
            reranker: Reranker | None = None, generation: str | None = None,
            min_confidence: float = 0.0, model_endpoint: str | None = None,
            model: str | None = None) -> AskResult:
        """The passages that answer `question` (`ask.answer.ask`; with a model: `ask.model_pick`)."""
        from .ask.model_pick import ask
        return ask(self.store, question, principal, as_of=as_of, filters=filters,
                   embedder=_embedder(embedder), reranker=reranker, generation=generation,
                   min_confidence=min_confidence, chat=_chat(model_endpoint, model))

    def delete(self, principal: Principal, source_id: str, *, purge: bool = False) -> DeleteResult:
        """Delete a source (a tombstone, honoured at once); `purge` also removes its bytes."""
        from .index.deletion import delete_source

        return delete_source(self.store, principal, source_id, purge=purge)

    def diff_generations(self, principal: Principal, gen_a: str, gen_b: str,
                         queries: Sequence[str], *, k: int = 10) -> list[dict[str, Any]]:
        """Run queries against two generations; return what moved per query."""
        from .retrieve.diff import diff_generations

        return diff_generations(self.store, principal, gen_a, gen_b, queries, k=k)

    # ---- extraction -------------------------------------------------------------------

    def extract(self, principal: Principal, schema: Schema | str | Path, docs: Sequence[str], *,
                case_id: str | None = None, extractor: Extractor | None = None,
                model_endpoint: str | None = None, model: str | None = None,
                out: Path | None = None) -> ExtractionResult:
        """Extract one record per schema field from `docs` read as one case, decided with the
        tenant's calibrated thresholds, and queue what needs a person; with `out`, write
        records.json and report.html there. Return the run."""
        from .extract.records import records_json
        from .extract.report import prepare_output_dir, write_outputs
        from .extract.run import run_extraction
        from .extract.schema import Schema, load_schema
        from .review.calibration import calibrated_thresholds
        from .review.queue import sample_audit_selector

        sch = schema if isinstance(schema, Schema) else load_schema(schema)
        if out is not None:
            prepare_output_dir(out)  # before the run records anything
        extractor = extractor or _chat(model_endpoint, model)
        tenant = principal.tenant
        result = run_extraction(self.store, principal, sch, docs, case_id=case_id,
                                extractor=extractor,
                                thresholds=calibrated_thresholds(self.store, tenant, sch),
                                audit=sample_audit_selector(self.store, tenant))
        if out is not None:
            write_outputs(out, records_json(result.records, run=result.run), result.case, sch)
        return result

    def runs(self, store_url: str | Path, runs_db: str | None = None) -> RunBook:
        """Return the durable runs of this library's store (`pincite.runs.book.RunBook`):
        enqueue an ingest or extraction, read a run's steps, work the queues."""
        from .runs.book import RunBook

        return RunBook(self.store, store_url, runs_db)

    # ---- documents: tables and facts ----------------------------------------------------

    def tables(self, principal: Principal, doc: str) -> list[CanonicalTable]:
        """Return the tables of a document, with caption, unit, scale and header paths."""
        from .facts.canonical import canonical_tables

        rev, layer = self.document(principal, doc)
        return canonical_tables(layer, rev.doc_id)

    def facts(self, principal: Principal, doc: str, *, types: Sequence[str] | None = None
              ) -> list[AtomicFact]:
        """Return a document's atomic facts (table cells and typed values), each citable."""
        from .facts.atomic import extract_facts
        from .values import VALUE_TYPES

        bad = [t for t in types or () if t not in VALUE_TYPES]
        if bad:
            raise UsageError(f"unknown value type {bad[0]!r}: use one of {', '.join(VALUE_TYPES)}")
        rev, layer = self.document(principal, doc)
        return extract_facts(layer, rev.doc_id, types=list(types) if types else None)

    def ingest_upload(self, path: Path, *, name: str, source_id: str, tenant: str, acl: Sequence[str] | None,
                      new_acl: Sequence[str] | None = None, owner: str | None = None,
                      principal: Principal | None = None) -> IngestResult:
        """Ingest the upload `name` the service spooled to `path`; acl/new_acl/principal as
        `ingest`; no publish."""
        from .sources.acquire import Input
        from .sources.ingest import Ingestor

        with Ingestor(self.store, tenant=tenant, acl=acl, new_acl=new_acl, owner=owner,
                      writer=writer_of(tenant, principal, owner)) as ing:
            return ing.ingest_file(Input(Path(name), source_id, path), source_id=source_id)


def _embedder(embedder: Embedder | str | None) -> Embedder | None:
    """Return the embedder named or given (None: the generation's own space decides)."""
    return _open_embedder(embedder) if isinstance(embedder, str) else embedder


def _open_embedder(embedder: Embedder | str | None) -> Embedder:
    """Return the embedder named or given; None opens the default one."""
    if embedder is None or isinstance(embedder, str):
        from .embed.factory import open_embedder

        return open_embedder(embedder)
    return embedder


def _chat(endpoint: str | None, model: str | None) -> ModelExtractor | None:
    """Return the chat transport at an OpenAI-compatible `endpoint` (`ask`, `extract`), or None."""
    if not endpoint:
        return None
    from .extract.model_adapter import ModelExtractor
    return ModelExtractor.from_endpoint(endpoint, model)


# ---- fit ranking and releases (issue 18): composed in their stages, loaded on first use
_LAZY.update({"rank_for": "pincite.rank.company_fit", "run_rank_eval": "pincite.evals.fit_ranking",
              "default_tender_schema": "pincite.evals.fit_ranking",
              "release_ops": "pincite.release.ops", "release_status": "pincite.release.ops",
              "canary_generation": "pincite.release.ops",
              "open_embedder": "pincite.embed.factory"})
_LAZY.update(fill_workbook="pincite.fill.solve", ingest_docling="pincite.sources.docling_import")
# what the service's rank and fill routes take over HTTP (issue 17)
_LAZY.update({"rank_json": "pincite.rank.company_fit", "fill_upload": "pincite.fill.intake",
              "check_target_name": "pincite.fill.intake", "fill_summary": "pincite.fill.intake",
              "MAX_TARGET_BYTES": "pincite.fill.target"})
