"""Retrieval quality on SciFact (BEIR layout): nDCG@10 and Recall@100 per channel setting.

Every corpus document is ingested as a Markdown source (title as a heading, then the
abstract) through the real path — `Ingestor` with one tenant and ACL ["*"], **without
the parser sandbox** (`sandbox=False`: the input is trusted benchmark text, and a
subprocess per document would only cost time) — then one generation is built with the
chosen embedder and published. Each query goes through the same authorized `search()`
users hit, once per channel setting (`channels=("bm25",)`, `("dense",)`, both fused by
RRF under the generation's ranking policy). Each query asks for `K_CHUNKS` evidence
items; they are mapped to their source id (the corpus `_id`), deduplicated keeping the
best rank, cut to the first `K_DOCS` documents and scored with `ir_measures`
(pytrec_eval underneath). A single channel returns at most the policy's `depth` chunks,
so its Recall@100 counts the abstracts of those chunks only.

One ablation is reported beside the runs: `hybrid_cc`, the two single-channel lists of
each query fused by a convex combination of their scores (`fusion.convex`, floor 0,
weights `CC_WEIGHTS`) instead of RRF. It is computed here from the same authorized
lists; `search()` itself fuses by RRF only.

The query embedder is memoised per query text (each query is embedded once, by the same
call users make, and reused by the dense and hybrid runs).

Layout contract: `DIR/corpus.jsonl` ({"_id","title","text"}), and for a split NAME
`DIR/NAME/queries_*.jsonl` ({"_id","text"}) and `DIR/NAME/qrels_*.tsv` (header
query-id, corpus-id, score).
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import Embedded, Embedder, EmbeddingSpace, Role
from ..errors import MissingExtra, UsageError
from ..vocab import IngestStatus

RUNS: dict[str, tuple[str, ...]] = {"bm25": ("bm25",), "dense": ("dense",),
                                    "hybrid": ("bm25", "dense")}
TENANT = "eval"
K_DOCS = 100    # documents scored per query (nDCG@10, Recall@100)
K_CHUNKS = 300  # evidence items asked for (chunks; ~1.7 per abstract), cut to K_DOCS sources
CC_WEIGHTS = (0.5, 0.5)  # (bm25, dense) of the convex-combination ablation; see evaluation.md


class _QueryMemo:
    """An embedder that embeds each distinct query once (documents pass through)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self._memo: dict[str, np.ndarray] = {}

    @property
    def space(self) -> EmbeddingSpace:
        return self.inner.space

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        return self.inner.embed(texts, role=role, progress=progress)

    def embed_documents(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        return self.inner.embed_documents(texts, progress=progress)

    def embed_query(self, text: str) -> np.ndarray:
        vec = self._memo.get(text)
        if vec is None:
            vec = self._memo[text] = self.inner.embed_query(text)
        return vec


def _jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_split(data: Path, split: str) -> tuple[list[dict[str, Any]], dict[str, str],
                                                 dict[str, dict[str, int]]]:
    """Return (corpus docs, {query id: text}, qrels {query id: {doc id: relevance}})."""
    corpus_path = data / "corpus.jsonl"
    split_dir = data / split
    queries_files = sorted(split_dir.glob("queries_*.jsonl")) if split_dir.is_dir() else []
    qrels_files = sorted(split_dir.glob("qrels_*.tsv")) if split_dir.is_dir() else []
    if not corpus_path.is_file() or not queries_files or not qrels_files:
        raise UsageError(f"{data} is not a SciFact folder: need corpus.jsonl, "
                         f"{split}/queries_*.jsonl and {split}/qrels_*.tsv")
    corpus = _jsonl(corpus_path)
    queries: dict[str, str] = {}
    for qf in queries_files:
        for rec in _jsonl(qf):
            queries[str(rec["_id"])] = rec["text"]
    qrels: dict[str, dict[str, int]] = {}
    for tf in qrels_files:
        with tf.open(encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f, delimiter="\t"):
                qrels.setdefault(str(row["query-id"]), {})[str(row["corpus-id"])] = int(row["score"])
    return corpus, queries, qrels


def _document(doc: dict[str, Any]) -> bytes:
    title = (doc.get("title") or "").strip()
    text = (doc.get("text") or "").strip()
    return (f"# {title}\n\n{text}\n" if title else f"{text}\n").encode()


def _measures() -> Any:
    try:
        import ir_measures
    except ImportError:
        raise MissingExtra("ir_measures", "dev") from None
    return ir_measures


def run_scifact(data: Path, split: str = "dev", store_url: str | None = None,
                embedder: str = "minilm", limit_queries: int | None = None) -> dict[str, Any]:
    """Ingest the corpus, build and publish, run every query of `split` per channel
    setting and return nDCG@10 and Recall@100 per run (see the module docstring)."""
    from ..embed.factory import open_embedder
    from ..index.generations import build_and_publish
    from ..model import Principal
    from ..retrieve.fusion import convex
    from ..retrieve.search import search
    from ..sources.ingest import Ingestor
    from ..store import open_store

    irm = _measures()
    data = Path(data)
    corpus, queries, qrels = load_split(data, split)
    qids = [q for q in sorted(qrels, key=_qkey) if q in queries]
    if limit_queries is not None:
        qids = qids[:limit_queries]
    emb = open_embedder(embedder)
    qemb = _QueryMemo(emb)
    seconds: dict[str, float] = {}
    runs: dict[str, dict[str, float]] = {}
    qrels_run = {q: qrels[q] for q in qids}

    def score(run: dict[str, dict[str, float]]) -> dict[str, float]:
        got = irm.calc_aggregate([irm.nDCG @ 10, irm.R @ 100], qrels_run, run)
        return {"ndcg@10": round(float(got[irm.nDCG @ 10]), 4),
                "recall@100": round(float(got[irm.R @ 100]), 4)}

    with tempfile.TemporaryDirectory(prefix="pincite-eval-") as tmp:
        store = open_store(store_url or Path(tmp) / "store")
        try:
            t0 = time.perf_counter()
            quarantined = 0
            with Ingestor(store, tenant=TENANT, acl=["*"], sandbox=False) as ing:
                for doc in corpus:
                    sid = str(doc["_id"])
                    r = ing.ingest(_document(doc), source_id=sid, path=f"{sid}.md",
                                   name=f"{sid}.md")
                    quarantined += r.status == IngestStatus.QUARANTINED
            seconds["ingest"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            result = build_and_publish(store, emb)
            seconds["build"] = round(time.perf_counter() - t0, 2)
            principal = Principal.parse(f"{TENANT}:evaluator")
            # per query and channel: (chunk id, channel score) best first, for the ablation
            scored: dict[str, dict[str, list[tuple[str, float]]]] = {"bm25": {}, "dense": {}}
            source_of: dict[str, str] = {}
            for name, channels in RUNS.items():
                t0 = time.perf_counter()
                run: dict[str, dict[str, float]] = {}
                for qid in qids:
                    bundle = search(store, queries[qid], principal, k=K_CHUNKS, embedder=qemb,
                                    channels=channels)
                    for item in bundle.items:
                        source_of[item.chunk_id] = item.source_id
                    if name in scored:
                        scored[name][qid] = [(i.chunk_id, float(i.scores[name] or 0.0))
                                             for i in bundle.items]
                    run[qid] = _documents([i.chunk_id for i in bundle.items], source_of)
                seconds[name] = round(time.perf_counter() - t0, 2)
                runs[name] = score(run)
            runs["hybrid_cc"] = score({
                q: _documents([c for c, _ in convex([scored["bm25"][q], scored["dense"][q]],
                                                    CC_WEIGHTS, (0.0, 0.0))], source_of)
                for q in qids})
            policy = result.manifest["ranking_policy"]["name"]
            chunks = result.manifest["counts"]["chunks"]
        finally:
            store.close()
    return {
        "dataset": "scifact", "split": split, "embedder": emb.space.space_id,
        "ranking_policy": policy, "runs": runs,
        "ablations": {"hybrid_cc": {"fusion": "convex", "normalisation": "score / list max",
                                    "weights": {"bm25": CC_WEIGHTS[0], "dense": CC_WEIGHTS[1]}}},
        "documents": len(corpus), "quarantined": quarantined, "chunks": chunks,
        "queries": len(qids), "k_docs": K_DOCS, "k_chunks": K_CHUNKS, "seconds": seconds,
    }


def _documents(chunk_ids: Sequence[str], source_of: dict[str, str]) -> dict[str, float]:
    """The first `K_DOCS` distinct sources of a ranked chunk list, as a run (higher is better)."""
    docs: dict[str, float] = {}
    for cid in chunk_ids:
        if len(docs) >= K_DOCS:
            break
        docs.setdefault(source_of[cid], float(K_CHUNKS - len(docs)))
    return docs


def _qkey(q: str) -> tuple[int, str]:
    return (int(q), q) if q.isdigit() else (1 << 62, q)
