"""Index generations: build in the shadow, check, publish by one pointer switch, roll back.

A generation is immutable once built: its chunk list (`ord` → chunk), its lexical tables
(analyzed text and packed postings), a vector file, and a manifest (watermarks, parsers, segmenter policy,
embedding space, ranking policy, analyzer, counts, digests, build time). Readers only
ever follow the pointer, which `publish` and `rollback` switch in one transaction, so a
crash at any point leaves the old or the new generation serving, never a mix.

Building is incremental: chunks of a (revision, text layer, segmenter policy) are made
once and shared by every generation; vectors come from the embedding cache (content
digest + space, scoped by tenant); analyzed text is copied from the previous generation
when the analyzer is the same. Only revisions covered by a tombstone are left out; every
other revision is indexed with its validity interval, so as-of queries see history.
"""

from __future__ import annotations

import hashlib
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cite.locate import LocatorIndex
from ..cite.verifier import LoadedLayer, citation_for
from ..embed import CachedEmbedder, Embedder, EmbeddingCache, EmbeddingSpace
from ..errors import GenerationInvalid, NotFound, UsageError
from ..model import timestamp
from ..parse.hidden_chars import HIDDEN_CHARS_RE
from ..store import Store
from ..store.ann import DEFAULT_ANN_POLICY, AnnPolicy
from ..store.index_records import ChunkRecord, GenerationRow, LiveRevision
from ..store.vectors import remove_generation_dir
from ..values import guess_lang
from ..vocab import SERVABLE_STATES, ChunkFlag, GenerationState
from .analyze import ANALYZER_ID, analyze, analyzer_record, index_body, tenant_key
from .policy import DEFAULT_POLICY, RankingPolicy
from .segment import POLICY as SEGMENTER_POLICY
from .segment import segment

MANIFEST_SCHEMA = "pincite.generation_manifest"
MANIFEST_VERSION = 1
POLICY_SCHEMA = "acl-v1"  # tenant + ACL entries (user:, group:, *) + tombstones + validity
DEFAULT_KEEP = 3


@dataclass(frozen=True, slots=True)
class BuildResult:
    gen_id: str
    state: str
    manifest: dict[str, Any]
    problems: tuple[str, ...] = ()


# ---- chunks ---------------------------------------------------------------------------


def _chunk_records(store: Store, lrev: LiveRevision) -> list[ChunkRecord]:
    """Segment one revision's text layer and attach what a citation of each chunk needs."""
    rev = store.revision(lrev.tenant, lrev.source_id, lrev.revision_id)
    layer = store.text_layer(rev, lrev.layer_id) if rev is not None else None
    if rev is None or layer is None:
        return []
    loaded = LoadedLayer(layer, LocatorIndex.build(layer))
    doc_lang = guess_lang(layer.text)
    flagged = [e for e in layer.elements if set(e.flags) & set(ChunkFlag)]
    out = []
    for ch in segment(rev, layer):
        cit = citation_for(rev, loaded, ch.char_start, ch.char_end)
        span = layer.text[ch.char_start:ch.char_end]
        flags = {f for e in flagged if e.char_start < ch.char_end and ch.char_start < e.char_end
                 for f in e.flags if f in set(ChunkFlag)}
        if HIDDEN_CHARS_RE.search(span):
            flags.add("hidden_text")
        out.append(ChunkRecord(
            chunk_id=ch.chunk_id, tenant=ch.tenant, source_id=ch.source_id,
            revision_id=ch.revision_id, text_layer=ch.text_layer, policy=ch.policy, kind=ch.kind,
            char_start=ch.char_start, char_end=ch.char_end, locator=ch.locator,
            parent_locator=ch.parent_locator, heading_path=ch.heading_path,
            cite_locator=cit.locator, page=cit.page, bbox=cit.bbox,
            lang=guess_lang(ch.text) or doc_lang, flags=tuple(sorted(flags)), text=ch.text,
            content_digest=ch.content_digest,
        ))
    return out


def _seq(revision_id: str) -> int:
    return int(revision_id[1:]) if revision_id[1:].isdigit() else 0


def chunk_list_digest(store: Store, gen_id: str) -> str:
    """sha256 over `ord<TAB>chunk_id<TAB>content_digest` lines of a generation."""
    h = hashlib.sha256()
    for ord_, chunk_id, digest in store.generation_chunk_list(gen_id):
        h.update(f"{ord_}\t{chunk_id}\t{digest}\n".encode())
    return h.hexdigest()


# ---- build -------------------------------------------------------------------------------


def _builder() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def _embed(store: Store, embedder: Embedder, chunks: Sequence[ChunkRecord],
           progress: bool) -> tuple[np.ndarray, int]:
    """Return (vectors in chunk order, texts run through the model)."""
    space = embedder.space
    vectors = np.zeros((len(chunks), space.dimension), dtype=np.float32)
    by_tenant: dict[str, list[int]] = {}
    for i, ch in enumerate(chunks):
        by_tenant.setdefault(ch.tenant, []).append(i)
    computed = 0
    with EmbeddingCache(store.embeddings()) as cache:
        for tenant, idx in by_tenant.items():
            cached = CachedEmbedder(embedder, cache, scope=tenant)
            got = cached.embed([chunks[i].text for i in idx], role="document", progress=progress)
            space.check_vectors(got.vectors)
            vectors[idx] = got.vectors
            computed += got.computed
    return vectors, computed


def build(store: Store, embedder: Embedder, *, policy: RankingPolicy = DEFAULT_POLICY,
          history: bool = True, progress: bool = False,
          on_stage: Callable[[str], None] | None = None,
          ann: AnnPolicy = DEFAULT_ANN_POLICY) -> BuildResult:
    """Build a new generation in the shadow from every revision that is not deleted.

    The result is `ready` when it passed the integrity check, else `failed`; nothing is
    published. `history=False` indexes only each source's newest revision. `ann` says
    which tenants get an ANN graph (those with >= `ann.min_vectors` vectors) and how
    queries choose between it and the exact scan; it is recorded in the manifest.
    """
    started = time.perf_counter()
    cleanup_abandoned(store)
    snap = store.build_snapshot(history)
    at = timestamp()
    gen_id = store.new_generation(_builder(), at)
    stage = on_stage or (lambda s: None)
    try:
        stage("segmenting")
        chunks: list[ChunkRecord] = []
        reused = segmented = 0
        for lrev in snap.revisions:
            if lrev.layer_id is None:
                continue
            if store.chunk_set_size(lrev, lrev.layer_id, SEGMENTER_POLICY) is None:
                made = _chunk_records(store, lrev)
                store.add_chunk_set(lrev, lrev.layer_id, SEGMENTER_POLICY, made, at)
                segmented += 1
            else:
                made = store.chunks_of(lrev, lrev.layer_id, SEGMENTER_POLICY)
                reused += 1
            chunks.extend(made)
        chunks.sort(key=lambda c: (c.tenant, c.source_id, _seq(c.revision_id), c.char_start,
                                   c.chunk_id))
        stage("embedding")
        vectors, computed = _embed(store, embedder, chunks, progress)
        stage("ann")
        vec_sha, vector_index = store.save_vectors(gen_id, chunks, vectors, ann)
        stage("indexing")
        prev = _reusable_lexical(store)
        prev_ords = store.chunk_ords(prev) if prev else {}
        per_tenant: dict[str, int] = {}
        rows: list[tuple[int, str, str, int, str | None]] = []
        copied = 0
        for ord_, ch in enumerate(chunks):
            per_tenant[ch.tenant] = per_tenant.get(ch.tenant, 0) + 1
            if ch.chunk_id in prev_ords:
                rows.append((ord_, ch.chunk_id, tenant_key(ch.tenant), prev_ords[ch.chunk_id][1], None))
                copied += 1
            else:
                tokens = analyze(ch.text, ch.lang)
                rows.append((ord_, ch.chunk_id, tenant_key(ch.tenant), len(tokens),
                             index_body(ch.tenant, tokens)))
        tenants = sorted(set(snap.tenant_rev_epochs) | set(per_tenant))
        postings_sha = store.fill_generation(
            gen_id, rows, prev if copied else None,
            [(t, snap.tenant_rev_epochs.get(t, 0), per_tenant.get(t, 0)) for t in tenants])
        chunks_sha = chunk_list_digest(store, gen_id)
        stage("universe")
        universe = store.save_universe(
            gen_id, [(o, r[3], ch.chunk_id, ch.tenant, ch.source_id, ch.revision_id,
                      ch.kind, ch.lang or "") for o, (r, ch) in enumerate(zip(rows, chunks, strict=True))])
        revs_indexed = [r for r in snap.revisions if r.layer_id is not None]
        manifest = {
            "schema_name": MANIFEST_SCHEMA, "version": MANIFEST_VERSION,
            "gen_id": gen_id, "built_at": at,
            "build_seconds": round(time.perf_counter() - started, 3),
            "source_watermark": snap.source_watermark,
            "deletion_watermark": snap.deletion_watermark,
            "revisions": "all" if history else "latest",
            "parsers": sorted({r.layer_id for r in revs_indexed if r.layer_id}),
            "segmenter": SEGMENTER_POLICY,
            "embedding_space": embedder.space.to_dict(),
            "ranking_policy": policy.to_dict(),
            "analyzer": analyzer_record(),
            "policy_schema": POLICY_SCHEMA,
            "counts": {
                "tenants": len(per_tenant), "revisions": len(revs_indexed),
                "chunks": len(chunks), "vectors": int(vectors.shape[0]),
                "segmented_revisions": segmented, "reused_revisions": reused,
                "embedded": computed, "analyzed": len(chunks) - copied, "copied_lexical": copied,
            },
            "digests": {"vectors_sha256": vec_sha, "chunk_list_sha256": chunks_sha},
            "vectors": {"file": f"indexes/{gen_id}/vectors.f32", "dtype": "float32-le",
                        "shape": [len(chunks), embedder.space.dimension]},
            "lexical": {"table": f"lex_{gen_id}", "rows": len(chunks),
                        "postings": f"post_{gen_id}", "postings_sha256": postings_sha},
            "vector_index": vector_index,
            "universe": universe,
        }
        store.finish_generation(gen_id, GenerationState.READY, manifest, len(chunks), embedder.space.dimension,
                                vec_sha, chunks_sha)
    except BaseException:
        _discard(store, gen_id, GenerationState.FAILED, "build interrupted")
        raise
    problems = check_generation(store, gen_id)
    if problems:
        store.set_generation_state(gen_id, GenerationState.FAILED, "; ".join(problems))
    return BuildResult(gen_id, GenerationState.FAILED if problems else GenerationState.READY, manifest, tuple(problems))


def _reusable_lexical(store: Store) -> str | None:
    """The generation whose analyzed text a new build may copy (same analyzer), or None."""
    for gen in (store.pointer()[0], *[g.gen_id for g in reversed(store.generations())]):
        if gen is None:
            continue
        row = store.generation(gen)
        if (row is not None and row.state in SERVABLE_STATES and row.manifest
                and row.manifest.get("analyzer", {}).get("name") == ANALYZER_ID
                and store.lexical_exists(gen)):
            return gen
    return None


def _discard(store: Store, gen_id: str, state: str, note: str) -> None:
    try:
        store.drop_generation_tables(gen_id, state, note)
    finally:
        remove_generation_dir(store.root, gen_id)


def cleanup_abandoned(store: Store) -> list[str]:
    """Discard generations left `building` by a process of this host that no longer runs."""
    host = socket.gethostname()
    out = []
    for g in store.generations():
        if g.state != GenerationState.BUILDING:
            continue
        h, _, pid = g.builder.rpartition(":")
        if h != host or not pid.isdigit() or _alive(int(pid)):
            continue
        _discard(store, g.gen_id, GenerationState.FAILED, "abandoned build (its process is gone)")
        out.append(g.gen_id)
    return out


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# ---- integrity ---------------------------------------------------------------------------


def check_generation(store: Store, gen_id: str) -> list[str]:
    """Return the integrity problems of a generation (empty when it may be served)."""
    g = store.generation(gen_id)
    if g is None:
        return [f"no generation {gen_id}"]
    if g.state in (GenerationState.BUILDING, GenerationState.DROPPED) or not g.manifest:
        return [f"generation {gen_id} is {g.state}"]
    problems = []
    m = g.manifest
    n = int(m["counts"]["chunks"])
    space = EmbeddingSpace.from_dict(m["embedding_space"])
    rows = store.generation_chunk_count(gen_id)
    if n != g.n_chunks or rows + g.purged != n:
        problems.append(f"chunk count {rows} + {g.purged} purged != manifest {n}")
    if chunk_list_digest(store, gen_id) != g.chunks_sha256:
        problems.append("chunk list digest does not match")
    chunk_list = store.generation_chunk_list(gen_id)
    if any(d is None for _, _, d in chunk_list):
        problems.append("chunk list names chunks that are gone")
    urec = m.get("universe")
    if urec:
        problems += store.universe_problems(gen_id, urec, [c for _, c, _ in chunk_list])
    if not store.lexical_exists(gen_id):
        problems.append("lexical table is missing")
    elif (bodies := store.lexical_rows(gen_id)) != rows:
        problems.append(f"lexical rows {bodies} != chunks {rows}")
    want = m.get("lexical", {}).get("postings_sha256")
    if want is not None:
        if not store.postings_exist(gen_id):
            problems.append("postings table is missing")
        elif store.postings_digest(gen_id) != want:
            problems.append("postings digest does not match")
    if g.dimension != space.dimension:
        problems.append(f"dimension {g.dimension} != space dimension {space.dimension}")
    problems += store.vector_problems(g)
    return problems


# ---- publish and rollback ------------------------------------------------------------------


def publish(store: Store, gen_id: str) -> GenerationRow:
    """Check a generation and switch the pointer to it in one transaction."""
    from .. import faults

    g = store.generation(gen_id)
    if g is None:
        raise NotFound("generation", gen_id)
    if g.state not in SERVABLE_STATES:
        raise GenerationInvalid(gen_id, [f"it is {g.state}"])
    problems = check_generation(store, gen_id)
    if problems:
        if g.state == GenerationState.READY:
            store.set_generation_state(gen_id, GenerationState.FAILED, "; ".join(problems))
        raise GenerationInvalid(gen_id, problems)
    current, _prev, _ = store.pointer()
    if current != gen_id:
        faults.hit("gen.before_pointer_swap")
        store.switch_pointer(gen_id, current, timestamp(), expect_current=current)
        faults.hit("gen.after_pointer_swap")
    out = store.generation(gen_id)
    assert out is not None
    return out


def build_and_publish(store: Store, embedder: Embedder, *, progress: bool = False) -> BuildResult:
    """Build a generation of everything current and publish it; return the build result
    (raise GenerationInvalid when the build failed its checks)."""
    result = build(store, embedder, progress=progress)
    if result.state != GenerationState.READY:
        raise GenerationInvalid(result.gen_id, list(result.problems))
    publish(store, result.gen_id)
    return result


def rollback(store: Store) -> GenerationRow:
    """Switch the pointer back to the previous published generation."""
    current, previous, _ = store.pointer()
    if previous is None:
        raise UsageError("there is no previous generation to roll back to")
    g = store.generation(previous)
    if g is None or g.state not in SERVABLE_STATES:
        raise GenerationInvalid(previous, ["it is no longer kept"])
    problems = check_generation(store, previous)
    if problems:
        raise GenerationInvalid(previous, problems)
    earlier = [x for x in store.generations()
               if x.gen_id not in (current, previous) and x.state == GenerationState.RETIRED and x.published_at
               and g.published_at and x.published_at < g.published_at]
    before = max(earlier, key=lambda x: x.published_at or "").gen_id if earlier else None
    store.switch_pointer(previous, before, timestamp(), expect_current=current)
    out = store.generation(previous)
    assert out is not None
    return out


def current_generation(store: Store) -> GenerationRow | None:
    gen = store.pointer()[0]
    return store.generation(gen) if gen else None


def needs_build(store: Store, space: EmbeddingSpace) -> bool:
    """True when the published generation misses revisions or is in another space."""
    g = current_generation(store)
    if g is None or not g.manifest:
        return True
    if EmbeddingSpace.from_dict(g.manifest["embedding_space"]).differences(space):
        return True
    for tenant, rev_epoch in store.tenant_rev_epochs().items():
        built = store.generation_tenant(g.gen_id, tenant)
        if rev_epoch > (built[0] if built else 0):
            return True
    return False


def prune(store: Store, keep: int = DEFAULT_KEEP) -> list[str]:
    """Drop the tables and files of old generations; keep the current one, the previous
    one (the rollback target) and the newest `keep` servable ones. Returns dropped ids."""
    if keep < 1:
        raise UsageError("--keep must be at least 1")
    cleanup_abandoned(store)
    current, previous, _ = store.pointer()
    gens = store.generations()
    servable = [g for g in gens if g.state in SERVABLE_STATES]
    kept = {g.gen_id for g in servable[-keep:]} | {current, previous}
    dropped = []
    for g in gens:
        if g.gen_id in kept or g.state in (GenerationState.DROPPED, GenerationState.BUILDING):
            continue
        _discard(store, g.gen_id, GenerationState.DROPPED, f"pruned at {timestamp()}")
        dropped.append(g.gen_id)
    return dropped


def generation_summary(g: GenerationRow, current: str | None, previous: str | None) -> dict[str, Any]:
    """The `index list` line of a generation."""
    m = g.manifest or {}
    return {
        "gen_id": g.gen_id, "state": g.state,
        "pointer": "current" if g.gen_id == current else ("previous" if g.gen_id == previous else None),
        "created_at": g.created_at, "published_at": g.published_at, "chunks": g.n_chunks,
        "purged": g.purged, "embedding_space": (m.get("embedding_space") or {}).get("space_id"),
        "ranking_policy": (m.get("ranking_policy") or {}).get("name"),
        "source_watermark": m.get("source_watermark"), "note": g.note,
    }
