"""Query latency benchmark: pincite's authorized hybrid search beside raw FTS5, bm25s,
tantivy, a numpy exact scan and LanceDB hybrid, on the same corpus, in the same run.

Corpora (one store per size, built once and cached under --cache-dir):
- 10k      SciFact (5,183 abstracts, /work/shared/data/scifact) segmented into ~9k chunks,
           with real all-MiniLM-L6-v2 vectors (embedded once; cached in a .npy named by
           the digest of the exact model inputs). Queries: the SciFact claims.
- 100k, 1M synthetic text sampled from the SciFact vocabulary with synthetic *clustered*
           vectors: a Gaussian mixture fitted to the real MiniLM vectors (k-means means,
           per-cluster diagonal variance, L2-normalised). Each synthetic document belongs
           to one cluster; its words are drawn from that cluster's SciFact word frequencies
           and its vectors from that cluster's Gaussian, so text and vector agree on topic.
           Queries: a few words of one cluster + a vector drawn from the same cluster.
Every corpus has two tenants (acme 90 %, globex 10 %) and per-source ACLs (acme:
group:staff 60 %, group:legal 30 %, user:ceo 10 %); source ids `pNNNN-...` with NNNN
uniform, so `source_prefix` filters select 10 % / 1 % / 0.1 %. The measured principal
is acme:ana:staff,legal (81 % of the corpus is authorized to it).

pincite runs through `pincite.retrieve.search` with that principal: the path users hit
(authorization, BM25 over the authorized universe, the dense channel — a walk of the
tenant's hnswlib graph with the universe as the walk's filter predicate, or an exact scan
over the universe, chosen per query —, RRF, evidence items with quotes read from the
store). Query embedding is excluded for every system:
queries are embedded once up front. Peers run without authorization (they have none):
- fts5     a plain FTS5 table (unicode61 + porter) over the same chunk texts, bm25(), OR query
- bm25s    bm25s over the same texts (English stop words), k=10
- tantivy  tantivy-py, en_stem, OR query, top 10
- numpy    the generation's vector file, `vectors @ q` + argpartition (exact, unfiltered)
- lancedb  LanceDB hybrid (native FTS + flat vector scan, RRF) — at sizes <= 100k
Systems are interleaved query by query (the order rotates), so the ratios hold on a
noisy, shared machine. Also printed: pincite BM25 alone vs tantivy (OR queries), the
authorized-universe miss (old single SQL statement vs the in-memory arrays), the ANN
graphs (library, policy, build time, file sizes), and dense recall@10 of the ANN path
against the exact scan per filter selectivity. A cached store whose generation fails
the integrity check (e.g. graphs of an older ANN library) gets a new generation.

Usage: python bench/query.py [--sizes 10000,100000] [--queries 200] [--json]
       python bench/query.py --sizes 1000000     # builds the 1M store once (long)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import platform
import re
import shutil
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scifact"
BENCH_VERSION = 1
K = 10
TENANTS = (("acme", 0.9), ("globex", 0.1))
ACLS = ((("group:staff",), 0.6), (("group:legal",), 0.3), (("user:ceo",), 0.1))
PRINCIPAL = "acme:ana:staff,legal"
MARK = re.compile(r"Report (\d{3})-")
WORD = re.compile(r"[a-z][a-z]{2,}")
SECTIONS = 20  # sections (one chunk each) per synthetic document


def log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# ---- corpora ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Doc:
    sid: str
    tenant: str
    acl: tuple[str, ...]
    markdown: str


def _draw(rng: np.random.Generator, options: Sequence[tuple[Any, float]]) -> Any:
    u, acc = rng.random(), 0.0
    for value, p in options:
        acc += p
        if u < acc:
            return value
    return options[-1][0]


def _placement(rng: np.random.Generator) -> tuple[str, tuple[str, ...], int]:
    tenant = _draw(rng, TENANTS)
    acl = _draw(rng, ACLS) if tenant == "acme" else ("group:staff",)
    return tenant, acl, int(rng.integers(0, 10_000))


def scifact_docs() -> list[Doc]:
    rng = np.random.default_rng(7)
    out = []
    with open(DATA / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            tenant, acl, h = _placement(rng)
            title, text = (d.get("title") or "").strip(), (d.get("text") or "").strip()
            md = f"# {title}\n\n{text}\n" if title else f"{text}\n"
            out.append(Doc(f"p{h:04d}-{d['_id']}", tenant, acl, md))
    return out


def scifact_queries() -> list[str]:
    qs = []
    for path in sorted((DATA / "dev").glob("queries_*.jsonl")):
        with open(path, encoding="utf-8") as f:
            qs += [json.loads(line)["text"] for line in f if line.strip()]
    return qs


@dataclass
class Mixture:
    """A Gaussian mixture over unit vectors plus per-cluster word frequencies."""

    means: np.ndarray      # (c, d)
    sd: np.ndarray         # (c, d) per-dimension standard deviation
    weights: np.ndarray    # (c,)
    vocab: np.ndarray      # (v,) words
    cdf: np.ndarray        # (c, v) cumulative word distribution per cluster

    @property
    def digest(self) -> str:
        h = hashlib.sha256()
        for a in (self.means, self.sd, self.weights, self.cdf):
            h.update(np.ascontiguousarray(a, dtype=np.float32).tobytes())
        h.update("\x00".join(self.vocab.tolist()).encode())
        return h.hexdigest()

    def vector(self, cluster: int, rng: np.random.Generator, scale: float = 1.0) -> np.ndarray:
        v = self.means[cluster] + scale * self.sd[cluster] * rng.standard_normal(self.means.shape[1])
        return (v / np.linalg.norm(v)).astype(np.float32)

    def words(self, cluster: int, rng: np.random.Generator, n: int) -> list[str]:
        idx = np.searchsorted(self.cdf[cluster], rng.random(n), side="right")
        return self.vocab[np.minimum(idx, len(self.vocab) - 1)].tolist()


def fit_mixture(vectors: np.ndarray, texts: Sequence[str], clusters: int = 64,
                seed: int = 0) -> Mixture:
    """k-means on the real vectors; per cluster: mean, diagonal sd, word frequencies."""
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=clusters, n_init=1, random_state=seed).fit(vectors)
    labels = km.labels_
    counts: list[dict[str, int]] = [{} for _ in range(clusters)]
    total: dict[str, int] = {}
    for text, c in zip(texts, labels, strict=True):
        for w in WORD.findall(text.lower()):
            counts[c][w] = counts[c].get(w, 0) + 1
            total[w] = total.get(w, 0) + 1
    vocab = np.array(sorted(w for w, n in total.items() if n >= 2))
    where = {w: i for i, w in enumerate(vocab.tolist())}
    glob = np.array([total[w] for w in vocab.tolist()], dtype=np.float64)
    glob /= glob.sum()
    cdf = np.zeros((clusters, len(vocab)))
    means = np.zeros((clusters, vectors.shape[1]))
    sd = np.zeros((clusters, vectors.shape[1]))
    weights = np.bincount(labels, minlength=clusters).astype(np.float64)
    for c in range(clusters):
        rows = vectors[labels == c]
        means[c] = rows.mean(axis=0)
        sd[c] = rows.std(axis=0) + 1e-4
        p = np.zeros(len(vocab))
        for w, n in counts[c].items():
            if w in where:
                p[where[w]] = n
        p = 0.7 * p / max(p.sum(), 1.0) + 0.3 * glob
        cdf[c] = np.cumsum(p / p.sum())
    return Mixture(means.astype(np.float32), sd.astype(np.float32), weights / weights.sum(),
                   vocab, cdf)


def _sentences(words: list[str]) -> str:
    out, i = [], 0
    while i < len(words):
        n = 8 + (len(words[i]) * 7 + i) % 12
        s = words[i:i + n]
        out.append(s[0].capitalize() + " " + " ".join(s[1:]) + ".")
        i += n
    return " ".join(out)


def synthetic_docs(n_chunks: int, mix: Mixture, seed: int = 11) -> list[Doc]:
    rng = np.random.default_rng(seed)
    n_docs = math.ceil(n_chunks / SECTIONS)
    out = []
    for i in range(n_docs):
        c = int(rng.choice(len(mix.weights), p=mix.weights))
        tenant, acl, h = _placement(rng)
        lens = rng.integers(45, 110, SECTIONS)
        words = mix.words(c, rng, int(lens.sum()))
        parts, at = [f"# Report {c:03d}-{i:07d}\n"], 0
        for j, n in enumerate(lens.tolist()):
            parts.append(f"## Section {j + 1}\n\n{_sentences(words[at:at + n])}\n")
            at += n
        out.append(Doc(f"p{h:04d}-{i:07d}", tenant, acl, "\n".join(parts)))
    return out


def synthetic_queries(mix: Mixture, n: int, seed: int = 13) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    texts, vecs = [], []
    for _ in range(n):
        c = int(rng.choice(len(mix.weights), p=mix.weights))
        texts.append(" ".join(mix.words(c, rng, int(rng.integers(3, 7)))))
        vecs.append(mix.vector(c, rng, scale=1.0))
    return texts, np.stack(vecs)


# ---- embedders -------------------------------------------------------------------------------


def _embed_base() -> Any:
    from pincite.embed.embedder import EmbedShortcuts

    return EmbedShortcuts


class NpyCachedEmbedder(_embed_base()):  # type: ignore[misc]
    """Runs `inner` once per exact list of inputs; the vectors live in a .npy named by the
    digest of (space, role, inputs), so a rerun embeds nothing."""

    def __init__(self, inner: Any, cache_dir: Path) -> None:
        self.inner = inner
        self.cache_dir = cache_dir

    @property
    def space(self) -> Any:
        return self.inner.space

    def embed(self, texts: Sequence[str], *, role: str = "document", progress: bool = False) -> Any:
        from pincite.embed import Embedded

        h = hashlib.sha256(f"{self.space.space_id}\x00{role}\x00".encode())
        for t in texts:
            h.update(t.encode() + b"\x00")
        path = self.cache_dir / f"vectors-{self.space.space_id[:24]}-{h.hexdigest()[:20]}.npy"
        if path.is_file():
            v = np.load(path)
            return Embedded(v, (1,) * len(texts), 0)
        log(f"embedding {len(texts)} texts with {self.space.space_id} (cached afterwards)")
        got = self.inner.embed(texts, role=role, progress=progress)
        tmp = path.with_suffix(".tmp.npy")
        np.save(tmp, got.vectors)
        os.replace(tmp, path)
        return got


class MixtureEmbedder(_embed_base()):  # type: ignore[misc]
    """Synthetic space: a text `... Report CCC-...` gets a vector of cluster CCC, seeded by
    the text's digest (deterministic, no model)."""

    def __init__(self, mix: Mixture) -> None:
        from pincite.embed import EmbeddingSpace

        self.mix = mix
        d = mix.digest
        self._space = EmbeddingSpace(
            space_id=f"bench-gmm@{d[:8]}-d{mix.means.shape[1]}-cos", model_id="bench/gmm-of-minilm",
            weights_sha256=d, tokenizer_sha256=d, dimension=int(mix.means.shape[1]),
            normalisation="l2", metric="cosine", pooling="none", query_prefix="",
            document_prefix="", max_tokens=None, truncation="none")

    @property
    def space(self) -> Any:
        return self._space

    def embed(self, texts: Sequence[str], *, role: str = "document", progress: bool = False) -> Any:
        from pincite.embed import Embedded

        out = np.zeros((len(texts), self._space.dimension), dtype=np.float32)
        for i, t in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
            m = MARK.search(t)
            c = int(m.group(1)) if m else seed % len(self.mix.weights)
            out[i] = self.mix.vector(c, np.random.default_rng(seed))
        return Embedded(out, (1,) * len(texts), len(texts))


class FixedQueries(_embed_base()):  # type: ignore[misc]
    """Query vectors computed up front: `search` pays no embedding time."""

    def __init__(self, space: Any, vectors: dict[str, np.ndarray]) -> None:
        self._space, self.vectors = space, vectors

    @property
    def space(self) -> Any:
        return self._space

    def embed(self, texts: Sequence[str], *, role: str = "document", progress: bool = False) -> Any:
        from pincite.embed import Embedded

        return Embedded(np.stack([self.vectors[t] for t in texts]), (1,) * len(texts), 0)


# ---- stores -----------------------------------------------------------------------------------


@dataclass
class Corpus:
    name: str
    store_dir: Path
    gen_id: str
    space: Any
    queries: list[str]
    qvecs: np.ndarray


def _ingest(store_dir: Path, docs: Sequence[Doc]) -> None:
    from pincite.sources.ingest import Ingestor
    from pincite.store import open_store

    store = open_store(store_dir)
    try:
        groups: dict[tuple[str, tuple[str, ...]], list[Doc]] = {}
        for d in docs:
            groups.setdefault((d.tenant, d.acl), []).append(d)
        done, t0 = 0, time.perf_counter()
        for (tenant, acl), items in sorted(groups.items()):
            with Ingestor(store, tenant=tenant, acl=list(acl), sandbox=False) as ing:
                for d in items:
                    ing.ingest(d.markdown.encode(), source_id=d.sid, path=f"{d.sid}.md",
                               name=f"{d.sid}.md")
                    done += 1
                    if done % 2000 == 0:
                        log(f"  ingested {done}/{len(docs)} ({time.perf_counter() - t0:.0f} s)")
    finally:
        store.close()


def build_store(cache: Path, name: str, key: str, docs_fn: Callable[[], list[Doc]],
                embedder: Any, rebuild: bool) -> tuple[Path, str]:
    """Ingest, build and publish once per key; later runs reopen the cached store."""
    from pincite.index.generations import build, check_generation, publish
    from pincite.store import open_store

    store_dir = cache / f"store-{name}-{key[:16]}"
    if store_dir.is_dir() and not rebuild:
        store = open_store(store_dir)
        try:
            gen = store.pointer()[0]
            g = store.generation(gen) if gen else None
            current = bool(g and g.manifest and "vector_index" in g.manifest
                           and "postings_sha256" in g.manifest.get("lexical", {}))
            if g is not None and current and not check_generation(store, g.gen_id):
                return store_dir, g.gen_id
            if g is not None:  # ingested already: build a generation of the current format
                log(f"{name}: building a new generation over the cached store")
                t0 = time.perf_counter()
                r = build(store, embedder)
                if r.state == "ready":
                    publish(store, r.gen_id)
                    log(f"{name}: built in {time.perf_counter() - t0:.0f} s")
                    return store_dir, r.gen_id
        finally:
            store.close()
        log(f"cached store {store_dir.name} is unusable: rebuilding")
    shutil.rmtree(store_dir, ignore_errors=True)
    docs = docs_fn()
    log(f"{name}: ingesting {len(docs)} documents into {store_dir}")
    t0 = time.perf_counter()
    _ingest(store_dir, docs)
    log(f"{name}: ingested in {time.perf_counter() - t0:.0f} s; building the generation")
    store = open_store(store_dir)
    try:
        t0 = time.perf_counter()
        r = build(store, embedder, progress=False)
        if r.state != "ready":
            raise SystemExit(f"build failed: {r.problems}")
        publish(store, r.gen_id)
        log(f"{name}: built {r.manifest['counts']['chunks']} chunks in "
            f"{time.perf_counter() - t0:.0f} s")
        return store_dir, r.gen_id
    finally:
        store.close()


def _store_key(*parts: Any) -> str:
    from pincite.index.generations import MANIFEST_VERSION

    return hashlib.sha256(json.dumps([BENCH_VERSION, MANIFEST_VERSION, *parts],
                                     default=str).encode()).hexdigest()


def scifact_corpus(cache: Path, rebuild: bool) -> tuple[Corpus, np.ndarray, list[str]]:
    """The SciFact store with real MiniLM vectors; also (chunk vectors, chunk texts)."""
    from pincite.embed import MiniLMEmbedder

    emb = NpyCachedEmbedder(MiniLMEmbedder(), cache)
    key = _store_key("scifact", emb.space.space_id)
    store_dir, gen = build_store(cache, "scifact", key, scifact_docs, emb, rebuild)
    texts = chunk_texts(store_dir, gen)
    vecs = generation_vectors(store_dir, gen)
    queries = scifact_queries()
    qv = emb.embed(queries, role="query").vectors
    return Corpus("10k", store_dir, gen, emb.space, queries, qv), vecs, texts


def synthetic_corpus(cache: Path, n: int, mix: Mixture, n_queries: int, rebuild: bool) -> Corpus:
    emb = MixtureEmbedder(mix)
    key = _store_key("synthetic", n, SECTIONS, mix.digest)
    label = f"{n // 1000}k" if n < 1_000_000 else f"{n / 1e6:g}M"
    store_dir, gen = build_store(cache, f"synth{n}", key, lambda: synthetic_docs(n, mix), emb,
                                 rebuild)
    queries, qv = synthetic_queries(mix, n_queries)
    return Corpus(label, store_dir, gen, emb.space, queries, qv)


def chunk_texts(store_dir: Path, gen: str) -> list[str]:
    """The generation's chunk texts in ord order (what every peer indexes)."""
    conn = sqlite3.connect(store_dir / "pincite.db")
    try:
        return [r[0] for r in conn.execute(
            "SELECT c.text FROM generation_chunks gc JOIN chunks c ON c.chunk_id = gc.chunk_id "
            "WHERE gc.gen_id = ? ORDER BY gc.ord", (gen,))]
    finally:
        conn.close()


def generation_vectors(store_dir: Path, gen: str) -> np.ndarray:
    from pincite.store.vectors import load_vectors, vectors_path

    path = vectors_path(store_dir, gen)
    n = path.stat().st_size // (4 * 384)
    return np.asarray(load_vectors(path, n, 384))


# ---- peers ----------------------------------------------------------------------------------------

_QWORD = re.compile(r"\w+")


def or_words(q: str) -> list[str]:
    return [w for w in _QWORD.findall(q.lower()) if len(w) > 1][:32]


def fts5_peer(cache: Path, texts: list[str]) -> Callable[[str], list[int]]:
    path = cache / "fts5.db"
    if not path.is_file():
        tmp = cache / "fts5.db.tmp"
        tmp.unlink(missing_ok=True)
        conn = sqlite3.connect(tmp)
        conn.execute("CREATE VIRTUAL TABLE t USING fts5(body, tokenize='porter unicode61')")
        with conn:
            conn.executemany("INSERT INTO t (rowid, body) VALUES (?, ?)", enumerate(texts))
            conn.execute("INSERT INTO t (t) VALUES ('optimize')")
        conn.close()
        os.replace(tmp, path)
    conn = sqlite3.connect(path, check_same_thread=False)

    def run(q: str) -> list[int]:
        words = or_words(q)
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        return [r[0] for r in conn.execute(
            "SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank LIMIT ?", (match, K))]

    return run


def bm25s_peer(cache: Path, texts: list[str]) -> Callable[[str], list[int]]:
    import bm25s

    path = cache / "bm25s"
    if path.is_dir():
        retriever = bm25s.BM25.load(str(path))
    else:
        retriever = bm25s.BM25()
        retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False),
                        show_progress=False)
        retriever.save(str(path.with_name("bm25s.tmp")))
        os.replace(path.with_name("bm25s.tmp"), path)

    def run(q: str) -> list[int]:
        toks = bm25s.tokenize([q], stopwords="en", show_progress=False)
        if not toks.vocab:
            return []
        docs, _scores = retriever.retrieve(toks, k=K, show_progress=False, n_threads=1)
        return docs[0].tolist()

    return run


def tantivy_peer(cache: Path, texts: list[str]) -> Callable[[str], list[int]]:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_integer_field("id", stored=True, indexed=False, fast=True)
    sb.add_text_field("body", stored=False, tokenizer_name="en_stem")
    schema = sb.build()
    path = cache / "tantivy"
    if not path.is_dir():
        tmp = cache / "tantivy.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        index = tantivy.Index(schema, path=str(tmp))
        w = index.writer(heap_size=200_000_000, num_threads=1)
        for i, t in enumerate(texts):
            w.add_document(tantivy.Document(id=i, body=t))
        w.commit()
        w.wait_merging_threads()
        os.replace(tmp, path)
    index = tantivy.Index(schema, path=str(path))
    index.reload()
    searcher = index.searcher()

    def run(q: str) -> list[int]:
        words = or_words(q)
        if not words:
            return []
        query = index.parse_query(" ".join(words), ["body"])  # OR by default
        return [searcher.doc(a)["id"][0] for _s, a in searcher.search(query, K).hits]

    return run


def numpy_peer(vecs: np.ndarray, qvecs: dict[str, np.ndarray]) -> Callable[[str], list[int]]:
    def run(q: str) -> list[int]:
        scores = vecs @ qvecs[q]
        top = np.argpartition(-scores, K)[:K]
        return top[np.argsort(-scores[top])].tolist()

    return run


def lancedb_peer(cache: Path, texts: list[str], vecs: np.ndarray,
                 qvecs: dict[str, np.ndarray]) -> Callable[[str], list[int]]:
    os.environ.setdefault("LANCE_LOG", "error")
    import warnings

    import lancedb
    import pyarrow as pa

    path = cache / "lancedb"
    if not path.is_dir():
        tmp = cache / "lancedb.tmp"
        shutil.rmtree(tmp, ignore_errors=True)
        data = pa.table({
            "id": pa.array(np.arange(len(texts), dtype=np.int64)), "text": texts,
            "vector": pa.FixedSizeListArray.from_arrays(
                pa.array(np.ascontiguousarray(vecs, dtype=np.float32).ravel()), vecs.shape[1])})
        tbl = lancedb.connect(str(tmp)).create_table("chunks", data=data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tbl.create_fts_index("text")
        os.replace(tmp, path)
    tbl = lancedb.connect(str(path)).open_table("chunks")

    def run(q: str) -> list[int]:
        words = or_words(q)
        r = (tbl.search(query_type="hybrid").vector(qvecs[q]).text(" ".join(words) or "the")
             .limit(K).select(["id"]).to_arrow())
        return r["id"].to_pylist()

    return run


# ---- measurement ------------------------------------------------------------------------------------


def timed(systems: dict[str, Callable[[str], Any]], queries: Sequence[str],
          warmup: int = 10) -> dict[str, np.ndarray]:
    """Milliseconds per query per system; systems interleaved, order rotating per query."""
    names = list(systems)
    for q in queries[:warmup]:
        for n in names:
            systems[n](q)
    out: dict[str, list[float]] = {n: [] for n in names}
    for i, q in enumerate(queries):
        r = i % len(names)
        for n in names[r:] + names[:r]:
            t0 = time.perf_counter()
            systems[n](q)
            out[n].append((time.perf_counter() - t0) * 1000.0)
    return {n: np.array(v) for n, v in out.items()}


def pct(ms: np.ndarray) -> dict[str, float]:
    return {"p50": round(float(np.percentile(ms, 50)), 3), "p99": round(float(np.percentile(ms, 99)), 3)}


def open_pincite(corpus: Corpus) -> tuple[Any, Any, Any]:
    from pincite.model import Principal
    from pincite.store import open_store

    store = open_store(corpus.store_dir)
    emb = FixedQueries(corpus.space, dict(zip(corpus.queries, corpus.qvecs, strict=True)))
    return store, Principal.parse(PRINCIPAL), emb


def pincite_systems(store: Any, principal: Any, emb: Any) -> dict[str, Callable[[str], Any]]:
    from pincite.retrieve.search import search

    def run(channels: tuple[str, ...]) -> Callable[[str], Any]:
        return lambda q: search(store, q, principal, k=K, embedder=emb, channels=channels)

    return {"pincite hybrid": run(("bm25", "dense")), "pincite bm25": run(("bm25",)),
            "pincite dense": run(("dense",))}


def universe_costs(store: Any, principal: Any, emb: Any, queries: Sequence[str]) -> dict[str, Any]:
    """Cost of a miss on the authorized universe: the old single SQL statement against the
    in-memory arrays (cold: arrays loaded; warm: per-generation and per-epoch arrays held),
    and hybrid query latency when every query misses the universe cache."""
    from pincite.retrieve.search import UNIVERSES, principal_entries, search
    from pincite.store.sqlite import universe as uni
    from pincite.store.sqlite.index_store import AuthScope

    gen = store.pointer()[0]
    scope = AuthScope(gen, principal.tenant, principal_entries(principal))

    def ms(fn: Callable[[], Any], reps: int) -> float:
        out = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t0) * 1000.0)
        return round(float(np.median(out)), 3)

    rows = len(store.authorized_rows_sql(scope))
    sql = ms(lambda: store.authorized_rows_sql(scope), 3)

    def cold() -> None:
        uni.clear()
        store.authorized_rows(scope)

    cold_ms = ms(cold, 3)

    def warm() -> None:
        uni.RUN_MASKS.clear()
        store.authorized_rows(scope)

    warm_ms = ms(warm, 20)
    assert len(store.authorized_rows(scope)) == rows

    def missing(q: str) -> Any:
        UNIVERSES.clear()
        uni.RUN_MASKS.clear()
        return search(store, q, principal, k=K, embedder=emb)

    t = timed({"miss": missing}, queries[:60], warmup=3)["miss"]
    g = store.generation(gen)
    return {"rows": rows, "sql_ms": sql, "arrays_cold_ms": cold_ms, "arrays_warm_ms": warm_ms,
            "rows_file": bool((g.manifest or {}).get("universe")) and not g.purged,
            "hybrid_every_query_misses": pct(t)}


SELECTIVITIES = (("0.1%", "p000"), ("1%", "p00"), ("10%", "p0"), ("100%", None))


def recall_table(store: Any, principal: Any, emb: Any, queries: Sequence[str]) -> list[dict[str, Any]]:
    """Dense recall@10 of the default path (ANN where chosen) against exact=True, per
    source_prefix selectivity, through `search`."""
    from pincite.retrieve.search import search

    out = []
    for label, prefix in SELECTIVITIES:
        flt = {"source_prefix": prefix} if prefix else None
        recalls, paths, flagged, t_auto, t_exact, authorized, walked = [], {}, 0, [], [], 0, []
        for q in queries:
            t0 = time.perf_counter()
            a = search(store, q, principal, k=K, embedder=emb, channels=("dense",), filters=flt)
            t1 = time.perf_counter()
            e = search(store, q, principal, k=K, embedder=emb, channels=("dense",), filters=flt,
                       exact=True)
            t_auto.append((t1 - t0) * 1000)
            t_exact.append((time.perf_counter() - t1) * 1000)
            truth = {i.chunk_id for i in e.items}
            if truth:
                recalls.append(len(truth & {i.chunk_id for i in a.items}) / len(truth))
            path = a.channels.get("dense", {}).get("path", "?")
            if path == "ann":
                walked.append(a.channels["dense"].get("candidates", 0))
            paths[path] = paths.get(path, 0) + 1
            flagged += "fallback" in a.flags
            authorized = a.channels.get("authorized", 0)
        out.append({"selectivity": label, "authorized": authorized, "paths": paths,
                    "recall@10": round(float(np.mean(recalls)), 4) if recalls else None,
                    "min_recall@10": round(float(np.min(recalls)), 4) if recalls else None,
                    "fallback_flagged": flagged,
                    "walk_rows": int(np.median(walked)) if walked else None,
                    "auto_ms": pct(np.array(t_auto)),
                    "exact_ms": pct(np.array(t_exact))})
    return out


def run_size(corpus: Corpus, cache: Path, n_queries: int, n_recall: int,
             peers: bool) -> dict[str, Any]:
    store, principal, emb = open_pincite(corpus)
    try:
        g = store.generation(corpus.gen_id)
        vi = g.manifest.get("vector_index") or {}
        parts = [p["tenant"] for p in vi.get("partitions", [])]
        gen_dir = corpus.store_dir / "indexes" / corpus.gen_id
        ann = {"library": vi.get("library"), "policy": (vi.get("policy") or {}).get("name"),
               "build_seconds": vi.get("build_seconds"),
               "files_mb": {p["tenant"]: round((gen_dir / p["file"]).stat().st_size / 1e6, 1)
                            for p in vi.get("partitions", [])}}
        log(f"{corpus.name}: {g.n_chunks} chunks; ANN graphs for {parts or 'no tenant'} "
            f"({ann['library']}, {ann['policy']})")
        queries = list(corpus.queries[:n_queries])
        systems = pincite_systems(store, principal, emb)
        if peers:
            texts = chunk_texts(corpus.store_dir, corpus.gen_id)
            vecs = generation_vectors(corpus.store_dir, corpus.gen_id)
            pdir = cache / f"peers-{corpus.store_dir.name}"
            pdir.mkdir(exist_ok=True)
            qv = dict(zip(corpus.queries, corpus.qvecs, strict=True))
            t0 = time.perf_counter()
            systems["fts5"] = fts5_peer(pdir, texts)
            systems["bm25s"] = bm25s_peer(pdir, texts)
            systems["tantivy"] = tantivy_peer(pdir, texts)
            systems["numpy exact"] = numpy_peer(vecs, qv)
            if g.n_chunks <= 150_000:
                systems["lancedb hybrid"] = lancedb_peer(pdir, texts, vecs, qv)
            log(f"{corpus.name}: peers ready in {time.perf_counter() - t0:.0f} s")
        log(f"{corpus.name}: timing {len(systems)} systems x {len(queries)} queries")
        lat = {n: pct(v) for n, v in timed(systems, queries).items()}
        log(f"{corpus.name}: universe miss and recall per selectivity")
        costs = universe_costs(store, principal, emb, queries)
        recall = recall_table(store, principal, emb, queries[:n_recall])
        return {"size": corpus.name, "chunks": g.n_chunks, "queries": len(queries),
                "ann_partitions": parts, "ann": ann, "latency_ms": lat, "universe": costs,
                "recall": recall}
    finally:
        store.close()


# ---- report ---------------------------------------------------------------------------------------


def print_report(results: list[dict[str, Any]], meta: dict[str, Any]) -> None:
    print(f"# query latency (ms per query, k={K}, query embedding excluded) — {meta['machine']}")
    print(f"# principal {PRINCIPAL}; peers unauthorized; ratio = system p50 / pincite hybrid p50")
    print(f"{'size':>6} {'chunks':>8}  {'system':<16} {'p50':>8} {'p99':>8} {'ratio':>7}")
    for r in results:
        base = r["latency_ms"]["pincite hybrid"]["p50"]
        for name, v in r["latency_ms"].items():
            ratio = v["p50"] / base if base else float("nan")
            print(f"{r['size']:>6} {r['chunks']:>8}  {name:<16} {v['p50']:>8.2f} {v['p99']:>8.2f} "
                  f"{ratio:>6.2f}x")
    print("\n# authorized-universe miss (ms): the old single SQL statement vs the in-memory arrays")
    print("# (cold: a process's first query of a generation loads its arrays, from the rows file")
    print("#  written at build time when there is one, else from SQL; warm: arrays held)")
    print(f"{'size':>6} {'|U|':>8} {'sql':>9} {'arrays cold':>12} {'(rows file)':>11} "
          f"{'arrays warm':>12} {'hybrid, every query misses p50/p99':>36}")
    for r in results:
        u = r["universe"]
        h = u["hybrid_every_query_misses"]
        print(f"{r['size']:>6} {u['rows']:>8} {u['sql_ms']:>9.1f} {u['arrays_cold_ms']:>12.1f} "
              f"{'yes' if u['rows_file'] else 'no':>11} {u['arrays_warm_ms']:>12.2f} "
              f"{h['p50']:>25.2f} / {h['p99']:.2f}")
    print("\n# lexical, OR queries: pincite bm25 channel (authorized, through search) vs tantivy")
    for r in results:
        lat = r["latency_ms"]
        if "tantivy" in lat:
            a, b = lat["pincite bm25"], lat["tantivy"]
            print(f"{r['size']:>6}: pincite bm25 p50 {a['p50']:.2f} p99 {a['p99']:.2f}; tantivy p50 "
                  f"{b['p50']:.2f} p99 {b['p99']:.2f}; tantivy is {a['p50'] / b['p50']:.1f}x faster at p50")
    print("\n# ANN graphs (one per tenant with enough vectors; the universe is the walk's filter)")
    for r in results:
        a = r["ann"]
        print(f"{r['size']:>6}: {a['library']}, {a['policy']}, built in {a['build_seconds']} s, "
              f"files MB {a['files_mb']}")
    print("\n# dense recall@10 of the default path vs exact=True, per filter selectivity")
    print("# (walk = rows of U the graph walk collected, its ef; median over ann queries)")
    print(f"{'size':>6} {'filter':>6} {'|U|':>8} {'paths':<22} {'recall':>7} {'min':>5} "
          f"{'fallback':>8} {'walk':>5} {'auto p50':>9} {'exact p50':>9}")
    for r in results:
        for x in r["recall"]:
            paths = ",".join(f"{k}:{v}" for k, v in sorted(x["paths"].items()))
            print(f"{r['size']:>6} {x['selectivity']:>6} {x['authorized']:>8} {paths:<22} "
                  f"{x['recall@10'] if x['recall@10'] is not None else '-':>7} "
                  f"{x['min_recall@10'] if x['min_recall@10'] is not None else '-':>5} "
                  f"{x['fallback_flagged']:>8} {x['walk_rows'] or '-':>5} "
                  f"{x['auto_ms']['p50']:>9.2f} {x['exact_ms']['p50']:>9.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="10000,100000",
                    help="comma-separated corpus sizes in chunks (10000 = SciFact)")
    ap.add_argument("--queries", type=int, default=200, help="timed queries per size")
    ap.add_argument("--recall-queries", type=int, default=50)
    ap.add_argument("--cache-dir", type=Path, default=Path.home() / ".cache" / "pincite-bench")
    ap.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    cache = args.cache_dir
    cache.mkdir(parents=True, exist_ok=True)
    sci, real_vecs, real_texts = scifact_corpus(cache, args.rebuild)
    mix = fit_mixture(real_vecs, real_texts) if any(s > 10_000 for s in sizes) else None
    results = []
    for n in sizes:
        if n <= 10_000:
            corpus = sci
        else:
            assert mix is not None
            corpus = synthetic_corpus(cache, n, mix, max(args.queries, args.recall_queries),
                                      args.rebuild)
        results.append(run_size(corpus, cache, args.queries, args.recall_queries, not args.no_peers))
    meta = {"machine": f"{platform.machine()} {os.cpu_count()} CPUs, Python "
                       f"{platform.python_version()}", "k": K, "principal": PRINCIPAL}
    if args.json:
        print(json.dumps({"meta": meta, "results": results}, indent=2))
    else:
        print_report(results, meta)
    return 0


if __name__ == "__main__":
    sys.exit(main())
