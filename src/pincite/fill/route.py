"""Route tables before cells (`table_retrieval.json`): for each target table, the source
tables worth aligning, by reciprocal rank fusion of three recall channels.

- `filters`: metadata — source tables that share a period with the target (years and
  grain), ranked by how many, then by unit and scale agreement; the others are absent.
- `fts`: BM25 of the target's caption and header paths against each source table's
  (words, plus the measure family of every row label, so "net sales" meets "revenue").
- `vectors`: cosine of the same texts under the hash embedder (`embed.hashing`).

The fused list (`retrieve.fusion.rrf`, k = `RRF_K`) is reranked by how much of the target
the rules' alignment maps (`align.coverage_of`), then fused order; `ROUTE_KEEP` tables are kept.
Every kept table records its rank in each channel, its fused rank and score, and its
alignment coverage. Channels route; they never decide a value. With a row aligner
(`row_model`), the first table kept — the one the rules show to be the target's source —
is aligned again with it, so target rows the rules leave unaligned may take its rows;
other tables keep the rules' rows alone (a row found by the model in another document's
table is a guess).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from ..embed.hashing import HashEmbedder
from ..retrieve.fusion import rrf
from .align import align_tables, as_period, coverage_of
from .labels import label_class, label_tokens
from .row_model import Encoder, RowAligner

RRF_K = 60.0
ROUTE_KEEP = 8
SHORT_LIST = 50
SCHEMA_NAME = "pincite.fill.table_retrieval"


def table_terms(t: Mapping[str, Any]) -> list[str]:
    """Return the words that describe a table: caption, titles, header paths, families."""
    words: list[str] = []
    texts = [t.get("caption") or "", *(t.get("title_path") or ())]
    for r in t["rows"]:
        texts.extend(r["row_path"])
        fam = label_class(r["row_path"][-1]) if r["row_path"] else None
        if fam:
            words.append("family:" + fam)
    for c in t["columns"]:
        texts.extend(c["column_path"])
    for x in texts:
        words.extend(sorted(label_tokens(x)))
    return words


def _bm25(query: Sequence[str], docs: Mapping[str, Sequence[str]], k1: float = 1.2,
          b: float = 0.75) -> list[tuple[str, float]]:
    n = len(docs)
    if not n:
        return []
    avg = sum(len(d) for d in docs.values()) / n or 1.0
    df: Counter[str] = Counter()
    for d in docs.values():
        df.update(set(d))
    out = []
    q = set(query)
    for doc_id, d in docs.items():
        tf = Counter(d)
        s = 0.0
        for w in q:
            if tf[w]:
                idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
                s += idf * tf[w] * (k1 + 1) / (tf[w] + k1 * (1 - b + b * len(d) / avg))
        if s > 0:
            out.append((doc_id, s))
    return sorted(out, key=lambda x: (-x[1], x[0]))


def _filters(target: Mapping[str, Any], sources: Sequence[Mapping[str, Any]]) -> list[str]:
    want = {(p.year, p.grain) for c in target["columns"]
            if (p := as_period(c["period"])).year is not None}
    scored = []
    for s in sources:
        have = {(p.year, p.grain) for c in s["columns"]
                if (p := as_period(c["period"])).year is not None}
        shared = len(want & have)
        if not shared:
            continue
        agree = int(bool(target.get("unit")) and target.get("unit") == s.get("unit"))
        agree += int(bool(target.get("scale")) and target.get("scale") == s.get("scale"))
        scored.append((s["table_id"], shared, agree))
    return [t for t, _, _ in sorted(scored, key=lambda x: (-x[1], -x[2], x[0]))]


def route_tables(targets: Sequence[Mapping[str, Any]], sources: Sequence[Mapping[str, Any]],
                 aligner: tuple[RowAligner, Encoder] | None = None) -> dict[str, Any]:
    """Return the routing of every target table (`table_retrieval.json`) and the
    alignments of the tables kept (`table_alignment.json`); `aligner` as `align_tables`."""
    by_id = {s["table_id"]: s for s in sources}
    terms = {s["table_id"]: table_terms(s) for s in sources}
    emb = HashEmbedder()
    ids = list(by_id)
    vecs = emb.embed([" ".join(terms[i]) for i in ids]).vectors if ids else None
    routes, alignments = [], []
    for t in targets:
        q = table_terms(t)
        fts = [i for i, _ in _bm25(q, terms)][:SHORT_LIST]
        vec_rank: list[str] = []
        if vecs is not None:
            qv = emb.embed([" ".join(q)], role="query").vectors[0]
            sims = vecs @ qv
            vec_rank = [ids[j] for j in sorted(range(len(ids)), key=lambda j: (-sims[j], ids[j]))
                        if sims[j] > 0][:SHORT_LIST]
        channels = {"filters": _filters(t, sources)[:SHORT_LIST], "fts": fts, "vectors": vec_rank}
        fused = rrf([channels["filters"], channels["fts"], channels["vectors"]], RRF_K)
        short = fused[:SHORT_LIST]
        n_rows, n_cols = len(t["rows"]), len(t["columns"])
        scored = []
        for fused_rank, (sid, score) in enumerate(short, start=1):
            al = align_tables(t, by_id[sid])
            cov = coverage_of(al, n_rows, n_cols)
            scored.append((cov, -fused_rank, sid, score, al))
        scored.sort(key=lambda x: (-x[0], -x[1]))
        kept: list[dict[str, Any]] = []
        for rank, (cov, neg_fused, sid, score, al) in enumerate(scored[:ROUTE_KEEP], start=1):
            if cov <= 0:
                continue
            if aligner is not None and not kept:  # the rules' first table: rows by the model too
                al = align_tables(t, by_id[sid], aligner)
            kept.append({"source_table": sid, "doc_id": by_id[sid]["doc_id"], "rank": rank,
                         "fused_rank": -neg_fused, "fused_score": round(score, 6),
                         "alignment_coverage": round(cov, 4),
                         "channel_ranks": {ch: (lst.index(sid) + 1 if sid in lst else None)
                                           for ch, lst in channels.items()}})
            alignments.append(al)
        routes.append({"target_table": t["table_id"], "recall": {
            ch: len(lst) for ch, lst in channels.items()}, "fused_tables": len(fused),
            "reranked_tables": len(kept), "tables": kept})
    return {"retrieval": {"schema_name": SCHEMA_NAME, "version": 1, "routes": routes},
            "alignment": {"schema_name": "pincite.fill.table_alignment", "version": 1,
                          "alignments": alignments}}
