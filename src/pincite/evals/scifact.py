"""Retrieval quality on SciFact (BEIR layout): nDCG@10 and Recall@100 per channel setting.

Every corpus document is ingested as a Markdown source (title as a heading, then the
abstract) through the real path — `Ingestor` with one tenant and ACL ["*"], **without
the parser sandbox** (`sandbox=False`: the input is trusted benchmark text, and a
subprocess per document would only cost time) — then one generation is built with the
chosen embedder and published. Each query goes through the same authorized `search()`
users hit, once per channel setting (`channels=("bm25",)`, `("dense",)`, both fused by
RRF). Evidence items are mapped to their source id (the corpus `_id`), deduplicated
keeping the best rank, and scored with `ir_measures` (pytrec_eval underneath).

Layout contract: `DIR/corpus.jsonl` ({"_id","title","text"}), and for a split NAME
`DIR/NAME/queries_*.jsonl` ({"_id","text"}) and `DIR/NAME/qrels_*.tsv` (header
query-id, corpus-id, score).
"""

from __future__ import annotations

import csv
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from ..errors import MissingExtra, UsageError

RUNS: dict[str, tuple[str, ...]] = {"bm25": ("bm25",), "dense": ("dense",),
                                    "hybrid": ("bm25", "dense")}
TENANT = "eval"
K = 100  # evidence items per query (chunks; deduplicated to documents afterwards)


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
    from ..embedders import open_embedder
    from ..index import build, publish
    from ..model import Principal
    from ..retrieve import search
    from ..sources.ingest import Ingestor
    from ..store import open_store

    irm = _measures()
    data = Path(data)
    corpus, queries, qrels = load_split(data, split)
    qids = [q for q in sorted(qrels, key=_qkey) if q in queries]
    if limit_queries is not None:
        qids = qids[:limit_queries]
    emb = open_embedder(embedder)
    seconds: dict[str, float] = {}
    runs: dict[str, dict[str, float]] = {}
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
                    quarantined += r.status == "quarantined"
            seconds["ingest"] = round(time.perf_counter() - t0, 2)
            t0 = time.perf_counter()
            result = build(store, emb)
            if result.state != "ready":
                raise UsageError(f"the build failed: {'; '.join(result.problems)}")
            publish(store, result.gen_id)
            seconds["build"] = round(time.perf_counter() - t0, 2)
            principal = Principal.parse(f"{TENANT}:evaluator")
            for name, channels in RUNS.items():
                t0 = time.perf_counter()
                run: dict[str, dict[str, float]] = {}
                for qid in qids:
                    bundle = search(store, queries[qid], principal, k=K, embedder=emb,
                                    channels=channels)
                    docs: dict[str, float] = {}
                    for rank, item in enumerate(bundle.items, start=1):
                        docs.setdefault(item.source_id, float(K + 1 - rank))
                    run[qid] = docs
                seconds[name] = round(time.perf_counter() - t0, 2)
                scores = irm.calc_aggregate([irm.nDCG @ 10, irm.R @ 100],
                                            {q: qrels[q] for q in qids}, run)
                runs[name] = {"ndcg@10": round(float(scores[irm.nDCG @ 10]), 4),
                              "recall@100": round(float(scores[irm.R @ 100]), 4)}
            chunks = result.manifest["counts"]["chunks"]
        finally:
            store.close()
    return {
        "dataset": "scifact", "split": split, "embedder": emb.space.space_id,
        "runs": runs, "documents": len(corpus), "quarantined": quarantined, "chunks": chunks,
        "queries": len(qids), "k": K, "seconds": seconds,
    }


def _qkey(q: str) -> tuple[int, str]:
    return (int(q), q) if q.isdigit() else (1 << 62, q)
