"""Embedding benchmark: texts/s of pincite's MiniLM embedder beside plain sentence-transformers.

Runs on the first N SciFact abstracts (title + " " + text). Every system runs in the same
process, on the same texts, in the same run, interleaved chunk by chunk (the order
rotates per chunk), so the ratios hold on a noisy, shared machine:

- st fp32            SentenceTransformer(path).encode(texts, batch_size=32): the reference.
                     It truncates every text at 256 word pieces.
- pincite fp32       MiniLMEmbedder(dtype="fp32"): one tokenization, overlong texts split
                     into windows (split-mean, nothing truncated), length-bucketed batches.
- pincite bf16       the same with the transformer in bf16 (only where the CPU has native
                     bf16 (avx512_bf16 / amx_bf16) or a GPU is present).

Agreement: cosine of each pincite vector with the st vector over the texts that fit in
256 pieces (where both embed the same input), and bf16 against pincite fp32 over all.
Split texts differ from st by design (st drops their tail), so they are reported apart.

--ndcg adds SciFact nDCG@10 (train claims, full 5,183-abstract corpus, exact scan) for each
system; vectors are cached per system under --cache-dir, so a rerun embeds nothing.

Usage: python bench/embed.py [--limit 1000] [--chunks 4] [--ndcg] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "scifact"


def load_corpus(limit: int | None = None) -> tuple[list[str], list[str]]:
    ids, texts = [], []
    with open(DATA / "corpus.jsonl", encoding="utf-8") as f:
        for line in f:
            doc = json.loads(line)
            ids.append(doc["_id"])
            texts.append((doc["title"] + " " + doc["text"]).strip())
            if limit is not None and len(texts) >= limit:
                break
    return ids, texts


def cpu_flags() -> list[str]:
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].split()
                    return sorted(f for f in flags if "bf16" in f or "amx" in f or f == "avx512f")
    except OSError:
        pass
    return []


def build_systems(with_bf16: bool) -> dict[str, object]:
    from sentence_transformers import SentenceTransformer

    from pincite.embed import MiniLMEmbedder, default_model_dir

    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    systems: dict[str, object] = {
        "st fp32": SentenceTransformer(str(default_model_dir()), device="cpu", local_files_only=True),
        "pincite fp32": MiniLMEmbedder(dtype="fp32", device="cpu"),
    }
    if with_bf16:
        systems["pincite bf16"] = MiniLMEmbedder(dtype="bf16", device="cpu")
    return systems


def run_system(name: str, system: object, texts: list[str]) -> tuple[np.ndarray, list[int]]:
    if name.startswith("st"):
        vecs = system.encode(texts, batch_size=32, convert_to_numpy=True, show_progress_bar=False)  # type: ignore[attr-defined]
        return np.asarray(vecs, dtype=np.float32), [1] * len(texts)
    out = system.embed(texts)  # type: ignore[attr-defined]
    return out.vectors, list(out.windows)


def throughput(systems: dict[str, object], texts: list[str], chunks: int) -> dict[str, dict]:
    names = list(systems)
    for name in names:  # warm-up, untimed
        run_system(name, systems[name], texts[:16])
    seconds = dict.fromkeys(names, 0.0)
    vectors = {n: np.zeros((len(texts), 384), np.float32) for n in names}
    windows = {n: [0] * len(texts) for n in names}
    parts = np.array_split(np.arange(len(texts)), chunks)
    for k, part in enumerate(parts):
        chunk = [texts[i] for i in part]
        for name in names[k % len(names):] + names[: k % len(names)]:
            t0 = time.perf_counter()
            v, w = run_system(name, systems[name], chunk)
            seconds[name] += time.perf_counter() - t0
            vectors[name][part] = v
            for i, wi in zip(part, w, strict=True):
                windows[name][i] = wi
    return {n: {"seconds": seconds[n], "vectors": vectors[n], "windows": windows[n]} for n in names}


def token_counts(system: object, texts: list[str]) -> list[int]:
    return [system.token_count(t) for t in texts]  # type: ignore[attr-defined]


def ndcg10(scores: np.ndarray, doc_ids: list[str], query_ids: list[str],
           qrels: dict[str, set[str]]) -> float:
    top = np.argsort(-scores, axis=1)[:, :10]
    total = 0.0
    for qi, qid in enumerate(query_ids):
        rel = qrels[qid]
        dcg = sum(1.0 / math.log2(r + 2) for r, d in enumerate(top[qi]) if doc_ids[d] in rel)
        idcg = sum(1.0 / math.log2(r + 2) for r in range(min(len(rel), 10)))
        total += dcg / idcg
    return total / len(query_ids)


def scifact_ndcg(systems: dict[str, object], cache_dir: Path) -> dict[str, float]:
    from pincite.embed import CachedEmbedder, EmbeddingCache

    doc_ids, docs = load_corpus()
    qrels: dict[str, set[str]] = {}
    with open(DATA / "dev" / "qrels_train.tsv", encoding="utf-8") as f:
        next(f)
        for line in f:
            q, d, s = line.rstrip("\n").split("\t")
            if int(s) > 0:
                qrels.setdefault(q, set()).add(d)
    queries = {}
    with open(DATA / "dev" / "queries_train.jsonl", encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            if q["_id"] in qrels:
                queries[q["_id"]] = q["text"]
    qids = list(queries)
    out: dict[str, float] = {}
    cache_dir.mkdir(parents=True, exist_ok=True)
    for name, system in systems.items():
        t0 = time.perf_counter()
        if name.startswith("st"):
            npy = cache_dir / "st-fp32-corpus.npy"
            if npy.exists():
                d = np.load(npy)
            else:
                d = run_system(name, system, docs)[0]
                np.save(npy, d)
            q = run_system(name, system, [queries[i] for i in qids])[0]
        else:
            # one cache file per system: fp32 and bf16 share a space, so one file would mix them
            with EmbeddingCache(cache_dir / f"{name.replace(' ', '-')}.sqlite") as cache:
                cached = CachedEmbedder(system, cache)  # type: ignore[arg-type]
                d = cached.embed(docs, progress=sys.stderr.isatty()).vectors
            q = system.embed([queries[i] for i in qids], role="query").vectors  # type: ignore[attr-defined]
        out[name] = ndcg10(q @ d.T, doc_ids, qids, qrels)
        print(f"  nDCG@10 {name}: {out[name]:.4f} ({time.perf_counter() - t0:.0f}s)", file=sys.stderr)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=int, default=1000, help="first N abstracts (default 1000)")
    ap.add_argument("--chunks", type=int, default=4, help="interleaving chunks (default 4)")
    ap.add_argument("--no-bf16", action="store_true", help="skip the bf16 system")
    ap.add_argument("--ndcg", action="store_true", help="also SciFact nDCG@10 on the full corpus")
    ap.add_argument("--cache-dir", type=Path, default=ROOT / "reports" / "bench-embed")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)

    import torch

    from pincite.embed import cpu_supports_bf16

    with_bf16 = not args.no_bf16 and cpu_supports_bf16()
    _, texts = load_corpus(args.limit)
    systems = build_systems(with_bf16)
    tokens = token_counts(systems["pincite fp32"], texts)
    res = throughput(systems, texts, args.chunks)

    ref = res["st fp32"]["vectors"]
    fits = np.array([w == 1 for w in res["pincite fp32"]["windows"]])
    base_rate = len(texts) / res["st fp32"]["seconds"]
    rows = []
    for name, r in res.items():
        processed = sum(min(t, 254) + 2 for t in tokens) if name.startswith("st") else sum(
            t + 2 * w for t, w in zip(tokens, r["windows"], strict=True))
        cos_st = np.sum(r["vectors"] * ref, axis=1)
        row = {
            "system": name,
            "texts_per_s": len(texts) / r["seconds"],
            "tokens_per_s": processed / r["seconds"],
            "ratio_vs_st": (len(texts) / r["seconds"]) / base_rate,
            "pieces": sum(r["windows"]),
            "cos_vs_st_fitting_min": float(cos_st[fits].min()) if fits.any() else None,
            "cos_vs_st_fitting_mean": float(cos_st[fits].mean()) if fits.any() else None,
            "cos_vs_st_split_mean": float(cos_st[~fits].mean()) if (~fits).any() else None,
        }
        if name == "pincite bf16":
            c = np.sum(r["vectors"] * res["pincite fp32"]["vectors"], axis=1)
            row["cos_vs_pincite_fp32_min"] = float(c.min())
            row["cos_vs_pincite_fp32_mean"] = float(c.mean())
        rows.append(row)

    report = {
        "texts": len(texts),
        "tokens_mean": float(np.mean(tokens)),
        "over_limit": int((~fits).sum()),
        "cpu": platform.processor() or platform.machine(),
        "cpu_bf16_flags": cpu_flags(),
        "torch": torch.__version__,
        "threads": torch.get_num_threads(),
        "rows": rows,
    }
    if args.ndcg:
        report["ndcg10"] = scifact_ndcg(systems, args.cache_dir)

    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{report['texts']} SciFact abstracts, mean {report['tokens_mean']:.0f} word pieces, "
          f"{report['over_limit']} over the 254-piece window; torch {report['torch']}, "
          f"{report['threads']} threads; CPU flags: {' '.join(report['cpu_bf16_flags']) or '-'}")
    print(f"{'system':<14} {'texts/s':>8} {'tokens/s':>9} {'x st':>6} {'pieces':>7} "
          f"{'cos st (fit) min/mean':>22} {'cos st (split)':>15} {'cos fp32 min':>13}")
    for r in rows:
        fit = (f"{r['cos_vs_st_fitting_min']:.5f}/{r['cos_vs_st_fitting_mean']:.5f}"
               if r["cos_vs_st_fitting_min"] is not None else "-")
        split = f"{r['cos_vs_st_split_mean']:.4f}" if r["cos_vs_st_split_mean"] is not None else "-"
        c32 = f"{r['cos_vs_pincite_fp32_min']:.5f}" if "cos_vs_pincite_fp32_min" in r else "-"
        print(f"{r['system']:<14} {r['texts_per_s']:>8.1f} {r['tokens_per_s']:>9.0f} "
              f"{r['ratio_vs_st']:>5.2f}x {r['pieces']:>7} {fit:>22} {split:>15} {c32:>13}")
    if "ndcg10" in report:
        print("SciFact nDCG@10 (809 train claims, 5,183 abstracts): " + ", ".join(
            f"{k} {v:.4f}" for k, v in report["ndcg10"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
